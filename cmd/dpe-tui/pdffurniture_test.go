package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A body line at a page's foot, the same but for its numbers as a line at
// the same place two pages on, is body text: `get --format text` keeps
// every sentence of the source (they were once taken for a running footer
// and left out).
func TestGet_PDFBodyLinesAtTheFootAreKept(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(realFixtures, "pdf", "footlines.fodt"))
	if err != nil {
		t.Fatal(err)
	}
	sentence := regexp.MustCompile(`Sentence [0-9]+\.[0-9]+ lorem`)
	want := sentence.FindAllString(string(src), -1)
	if len(want) < 50 {
		t.Fatalf("only %d sentences in the source", len(want))
	}
	code, out, errOut := runCLI(t, "get", "--format", "text", filepath.Join(realFixtures, "pdf", "footlines.pdf"))
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	out = strings.Join(strings.Fields(out), " ")
	for _, s := range want {
		if !strings.Contains(out, s) {
			t.Errorf("%q is missing from the text", s)
		}
	}
}
