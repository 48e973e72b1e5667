package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// get prints a sheet's cells as LibreOffice shows them: colours,
// conditions, the text section, rounding ties, fractions inside literal
// text and parentheses, thousands scaling. The reference is LibreOffice's
// own CSV of the cells as shown (shown/openpyxl-conditions.csv, from
// make-fixtures), read cell by cell, trimmed at the ends as every cell's
// text is; the XLSX (number formats applied by the reader) and
// LibreOffice's ODS of it (its own text) both print it.
func TestGet_NumberFormatsAsLibreOfficeShowsThem(t *testing.T) {
	f, err := os.Open(filepath.Join(realFixtures, "shown", "openpyxl-conditions.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, err := csv.NewReader(f).ReadAll()
	if err != nil || len(want) < 10 {
		t.Fatalf("%v, %d rows", err, len(want))
	}
	for _, name := range []string{"openpyxl-conditions.xlsx", "soffice-conditions.ods"} {
		code, out, errOut := runCLI(t, "get", "--format", "json", filepath.Join(realFixtures, name))
		if code != exitOK || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", name, code, errOut)
		}
		var doc struct {
			Pages []struct {
				Elements []struct {
					Category string `json:"category"`
					Text     string `json:"text"`
				} `json:"elements"`
			} `json:"pages"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Pages) == 0 || len(doc.Pages[0].Elements) == 0 {
			t.Fatalf("%s: %v: %.300s", name, err, out)
		}
		rows := strings.Split(doc.Pages[0].Elements[0].Text, "\n")
		if len(rows) != len(want) {
			t.Errorf("%s: %d rows, LibreOffice %d", name, len(rows), len(want))
		}
		for i := range min(len(rows), len(want)) {
			got := strings.Split(rows[i], "\t")
			for j, w := range want[i] {
				g := ""
				if j < len(got) {
					g = got[j]
				}
				if g != strings.TrimSpace(w) {
					t.Errorf("%s row %d (%s) column %d: %q, LibreOffice shows %q", name, i+1, want[i][0], j+1, g, w)
				}
			}
		}
	}
}
