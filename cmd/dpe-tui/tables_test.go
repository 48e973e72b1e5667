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
