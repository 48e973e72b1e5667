package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// get prints pandoc's footnotes alike from DOCX, HTML and EPUB: the
// reference "[1]" apart from the word, the note "[1] text" without the
// ↩︎ backlink (HTML printed "footnote.1" and "1. text↩︎").
func TestGet_FootnotesAlike(t *testing.T) {
	for _, ext := range []string{"docx", "html", "epub"} {
		code, out, errOut := runCLI(t, "get", "--format", "text", filepath.Join(realFixtures, "pandoc-notes."+ext))
		if code != exitOK || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", ext, code, errOut)
		}
		ref := strings.Index(out, "Body text with a footnote.[1] Write to the editor.")
		note := strings.Index(out, "\n[1] The footnote text.\n")
		if ref < 0 || note < ref || strings.Contains(out, "↩") {
			t.Errorf("%s: reference at %d, note at %d:\n%s", ext, ref, note, out)
		}
	}
}

// get of pandoc's HTML task list prints each item's state, as one list.
func TestGet_ChecklistState(t *testing.T) {
	code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, "pandoc-checklist.html"))
	if code != exitOK || !strings.Contains(out, "\n- [x] pumps checked\n- [ ] filter 2 backwashed\n- [x] log signed\n") {
		t.Errorf("exit %d, stderr %q:\n%s", code, errOut, out)
	}
}
