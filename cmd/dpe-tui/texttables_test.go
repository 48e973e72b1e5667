package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGet_TextLaysTablesOutInColumns: get --format text writes a table
// (openpyxl's sheet, recalculated by LibreOffice) as aligned columns
// under a dashed header line, not as Markdown's pipe table, which
// --format md keeps.
func TestGet_TextLaysTablesOutInColumns(t *testing.T) {
	file := filepath.Join(realFixtures, "openpyxl.xlsx")
	code, out, errOut := runCLI(t, "get", "--format", "text", file)
	if code != exitOK {
		t.Fatalf("get: exit %d: %s", code, errOut)
	}
	want := "\nRegion       Q1  Q2  Total  Updated\n" +
		"-----------  --  --  -----  ----------------\n" +
		"North        10  12  22     2024-03-31\n" +
		"South        8   9   17     2024-06-30\n" +
		"All regions          39     2024-07-01 09:30\n"
	if !strings.Contains(out, want) || strings.Contains(out, "| Region") {
		t.Errorf("get --format text:\n%s\nwant the columns\n%s", out, want)
	}
	code, md, _ := runCLI(t, "get", "--format", "md", file)
	if code != exitOK || !strings.Contains(md, "| Region | Q1 | Q2 | Total | Updated |\n| --- |") {
		t.Errorf("get --format md lost its pipe table:\n%s", md)
	}
}
