package ui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// A workbook with a hidden sheet (openpyxl's, re-saved by LibreOffice; and
// LibreOffice's ODS of it), opened as `dpe-tui open FILE` does: the
// sidebar says which sheet the file hides, before the sheet is read, and
// dims it.
func TestOpenFile_HiddenSheetIsMarkedInTheSidebar(t *testing.T) {
	for _, file := range []string{"openpyxl-sparse.xlsx", "soffice-sparse.ods"} {
		t.Run(file, func(t *testing.T) {
			s := start80(t, openFileOptions(t, filepath.Join("..", "convert", "testdata", file), nil))
			s.waitFor("Apples")
			s.idle()
			f := s.frame()
			if !strings.Contains(f, "2 Rates (hidden)") || strings.Contains(f, "Book (hidden)") {
				t.Errorf("want only Rates marked hidden:\n%s", f)
			}
			golden.RequireEqual(t, s.final())
		})
	}
}
