package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// get of spreadsheets: fractions as LibreOffice shows them, a formula
// without a cached value shows its formula (openpyxl writes none), and
// the JSON keeps each formula beside its value and flags the hidden sheet.
func TestGet_SheetFormulasFractionsHidden(t *testing.T) {
	code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, "openpyxl-formats.xlsx"))
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, w := range []string{"| three eighths | 3/8 |", "| two and eleven sixteenths | 2 11/16 |", "| red, no sign | 3.50 |", "| sum | 5.6125 |", "Page 2: Workings"} {
		if !strings.Contains(out, w) {
			t.Errorf("%q missing in:\n%s", w, out)
		}
	}
	code, out, errOut = runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, "openpyxl-nocache.xlsx"))
	if code != exitOK || !strings.Contains(out, "| South | 8 | 9 | =B3+C3 |") {
		t.Errorf("exit %d, stderr %q, uncached formula not shown:\n%s", code, errOut, out)
	}
	code, out, errOut = runCLI(t, "get", "--format", "json", filepath.Join(realFixtures, "openpyxl-formats.xlsx"))
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var d struct {
		Pages []struct {
			Metadata map[string]any `json:"metadata"`
			Elements []struct {
				Meta map[string]any `json:"ele_metadata"`
			} `json:"elements"`
		} `json:"pages"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Pages) != 2 || len(d.Pages[0].Elements) == 0 {
		t.Fatalf("%v: %.300s", err, out)
	}
	if f, _ := d.Pages[0].Elements[0].Meta["formulas"].(map[string]any); f["B10"] != "=SUM(B2:B7)" {
		t.Errorf("formulas %v", d.Pages[0].Elements[0].Meta["formulas"])
	}
	if d.Pages[1].Metadata["sheet_state"] != "hidden" || d.Pages[0].Metadata["sheet_state"] != nil {
		t.Errorf("sheet_state %v / %v", d.Pages[0].Metadata, d.Pages[1].Metadata)
	}
}
