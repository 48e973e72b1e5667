package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHints_NameCommandsThatExist: every "dpe-tui WORD" the browser and
// the commands say to the user (hints, errors, help) names a command of
// this binary. The connection hint said "start the server (dpe-tui
// server)", a command that never existed; a user who followed it got
// "unknown command".
func TestHints_NameCommandsThatExist(t *testing.T) {
	a := &app{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	known := map[string]bool{}
	for _, c := range a.rootCmd().Commands() {
		known[c.Name()] = true
		for _, al := range c.Aliases {
			known[al] = true
		}
	}
	if len(known) < 10 {
		t.Fatalf("found %d commands: not the root's", len(known))
	}
	// A quoted string of Go source telling the user to run a command:
	// "(dpe-tui WORD", "`dpe-tui WORD" or "run|try|use|see dpe-tui WORD"
	// (prose such as "dpe-tui converts" is no command).
	mention := regexp.MustCompile("\"[^\"\n]*(?:[(`]|\\b(?:run|try|use|see|with) )dpe-tui ([a-z][a-z-]+)\\b")
	var files []string
	for _, dir := range []string{"../../ui", "."} {
		m, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mention.FindAllSubmatch(src, -1) {
			checked++
			if w := string(m[1]); !known[w] {
				t.Errorf("%s says %q: dpe-tui has no command %q", f, string(m[0]), w)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no mention of a command found: the pattern reads nothing")
	}
}
