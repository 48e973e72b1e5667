package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGet_AdjacentDOCXCodeBlocksStayTwo: two code blocks back to back in
// pandoc's DOCX (one SourceCode paragraph each, lines split by w:br) are
// two fenced blocks in get --format md, each with its own lines; they
// were merged into one. pandoc's DOCX records no language, so none is
// claimed.
func TestGet_AdjacentDOCXCodeBlocksStayTwo(t *testing.T) {
	code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, "code-blocks.docx"))
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want := "```\ndef area(r):\n    return 3.14159 * r * r\n```\n\n```\necho start\nls -l /srv\n```\n"
	if !strings.Contains(out, want) {
		t.Errorf("want two fenced blocks:\n%s\ngot:\n%s", want, out)
	}
	if n := strings.Count(out, "```"); n != 4 {
		t.Errorf("%d fences, want 4:\n%s", n, out)
	}
}
