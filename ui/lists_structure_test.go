package ui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// A DOCX made by pandoc, opened as `dpe-tui open FILE` does: the document
// screen shows the source's numbers (the count continuing after a nested
// lettered list, a list starting at 5), not bullets.
func TestOpenFile_NumberedListsShowTheirNumbers(t *testing.T) {
	s := start80(t, openFileOptions(t, filepath.Join("..", "convert", "testdata", "handbook.docx"), nil))
	s.waitFor("Archive the batch")
	s.idle()
	f := s.frame()
	for _, w := range []string{"1. Collect the samples", "b. Sign the form", "3. Archive the batch", "5. Hand over the keys"} {
		if !strings.Contains(f, w) {
			t.Errorf("%q not on screen:\n%s", w, f)
		}
	}
	golden.RequireEqual(t, s.final())
}
