package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGet_HiddenSheetIsSaidInExports: a sheet its file hides (openpyxl's
// sheet_state hidden, kept by LibreOffice in XLSX and ODS) is exported
// with the others, and its page line says it is hidden, in md and text;
// nothing in the export told it from a visible sheet.
func TestGet_HiddenSheetIsSaidInExports(t *testing.T) {
	for _, c := range []struct{ file, format, want, visible string }{
		{"openpyxl-formats.xlsx", "md", "<!-- Page 2: Workings (hidden sheet) -->", "<!-- Page 1: Measures -->"},
		{"openpyxl-sparse.xlsx", "text", "==== Page 2: Rates (hidden sheet) ====", "==== Page 1: Book ===="},
		{"soffice-sparse.ods", "md", "<!-- Page 2: Rates (hidden sheet) -->", "<!-- Page 1: Book -->"},
	} {
		t.Run(c.file, func(t *testing.T) {
			code, out, errOut := runCLI(t, "get", "--format", c.format, filepath.Join(realFixtures, c.file))
			if code != exitOK {
				t.Fatalf("get: exit %d: %s", code, errOut)
			}
			if !strings.Contains(out, c.want) || !strings.Contains(out, c.visible) {
				t.Errorf("get --format %s: want %q and %q in:\n%s", c.format, c.want, c.visible, out)
			}
		})
	}
}
