package main

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTUI_AFileThatDoesNotConvertSaysWhyOnOneLine: opening a file of a
// --docs folder that does not convert (random bytes named .md, a .docx
// cut short) shows the converter's own line, naming the file and the
// cause, on the status line of an 80-column terminal: not the URI twice
// with the cause cut off. E shows the URI and the computer, and its
// hint says the file itself is the trouble (not "the computer's log").
func TestTUI_AFileThatDoesNotConvertSaysWhyOnOneLine(t *testing.T) {
	dir := t.TempDir()
	junk := make([]byte, 4096)
	if _, err := rand.Read(junk); err != nil {
		t.Fatal(err)
	}
	junk[0] = 0 // a NUL byte: binary for certain
	if err := os.WriteFile(filepath.Join(dir, "binary.md"), junk, 0o600); err != nil {
		t.Fatal(err)
	}
	l := startEmbeddedTUI(t, func(g *globalFlags) { g.Embedded.DocsDirs = []string{dir} }, 80, 24)
	defer l.quit()
	l.waitFor("local", "ready")
	l.enter()
	l.waitFor("1 ready")
	l.enter()
	l.waitFor("binary.md")
	l.enter()
	f := l.waitFor("open binary.md: binary content")
	var line string
	for _, s := range strings.Split(f, "\n") {
		if strings.Contains(s, "open binary.md:") {
			line = strings.TrimSpace(s)
		}
	}
	if strings.Contains(line, "dpe://") {
		t.Errorf("the status line names the URI instead of the cause: %q", line)
	}
	if !strings.Contains(line, "not text") {
		t.Errorf("the cause is cut: %q", line)
	}
	l.rune('E')
	f = l.waitFor("binary.md", "does not convert")
	if !strings.Contains(f, "computer local") {
		t.Errorf("the details do not name the computer:\n%s", f)
	}
	if strings.Contains(f, "the computer's log has the cause") {
		t.Errorf("the hint sends the user to the computer's log for a file that does not convert:\n%s", f)
	}
}
