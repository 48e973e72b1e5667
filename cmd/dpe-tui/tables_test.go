package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A 2,100-row sheet written by openpyxl is read in 1,000-row chunks: in
// get --format md every chunk's table starts with the sheet's header row
// (from header_info after the first), and row 1,000 stays a body row.
func TestGet_ChunkedSheetRepeatsItsHeader(t *testing.T) {
	code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, "openpyxl-chunked.xlsx"))
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	head := "| Entry | Shift | Remark |\n| --- | --- | --- |\n"
	if n := strings.Count(out, head); n != 3 {
		t.Errorf("header row starts %d tables, want 3 (one per chunk)", n)
	}
	for _, w := range []string{head + "| 1000 | late | ok |\n", head + "| 2000 | night | ok |\n", "| 1001 | night | checked twice \\| signed |\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("%q missing", w)
		}
	}
}

// A pipe table with a right-aligned and a centred column, written by
// pandoc to DOCX, ODT, HTML and EPUB and by LibreOffice to ODT, keeps its
// alignment: get --format md writes the delimiter row the source had.
func TestGet_TableAlignmentFromTheSource(t *testing.T) {
	for _, file := range []string{"handbook.docx", "handbook.odt", "handbook-soffice.odt", "handbook.html", "handbook.epub"} {
		t.Run(file, func(t *testing.T) {
			code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, file))
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if want := "| Item | Count | Where |\n| --- | ---: | :---: |\n| Keys | 2 | desk |\n"; !strings.Contains(out, want) {
				t.Errorf("aligned table %q missing in:\n%s", want, out)
			}
		})
	}
}
