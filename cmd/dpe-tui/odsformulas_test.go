package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// get keeps an ODS cell's formula (table:formula, OpenFormula) beside
// its value in the JSON as it keeps an XLSX one: LibreOffice's ODS of a
// workbook names the same cells with the same formulas, in the same A1
// notation, as the XLSX it came from (another sheet's cell, a range, text
// with a comma, a function of two arguments), and prints the same table.
func TestGet_ODSFormulasAsXLSX(t *testing.T) {
	formulas := func(name string) (map[string]string, string) {
		t.Helper()
		pages := getJSONPages(t, name)
		if len(pages) == 0 {
			t.Fatalf("%s: no pages", name)
		}
		var m struct {
			Formulas map[string]string `json:"formulas"`
		}
		for _, e := range pages[0].Elements {
			if e.Type == "Table" {
				if err := json.Unmarshal(e.Metadata, &m); err != nil {
					t.Fatal(err)
				}
			}
		}
		return m.Formulas, tableHTML(t, pages[0])
	}
	for ods, xlsx := range map[string]string{"soffice-refs.ods": "openpyxl-refs.xlsx", "soffice.ods": "openpyxl.xlsx"} {
		of, oh := formulas(ods)
		xf, xh := formulas(xlsx)
		if len(xf) == 0 || len(of) != len(xf) {
			t.Errorf("%s has %d formulas, %s %d:\n%v\n%v", ods, len(of), xlsx, len(xf), of, xf)
		}
		for ref, f := range xf {
			if of[ref] != f {
				t.Errorf("%s %s: %q, %s: %q", ods, ref, of[ref], xlsx, f)
			}
		}
		if oh != xh {
			t.Errorf("tables differ:\n%s: %s\n%s: %s", ods, oh, xlsx, xh)
		}
	}
	// The workbook's formulas that name the other sheet say so.
	if f, _ := formulas("soffice-refs.ods"); !strings.Contains(f["E2"], "'Tax rates'!$B$1") {
		t.Errorf("E2 %q", f["E2"])
	}
}
