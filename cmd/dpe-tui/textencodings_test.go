package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestGet_TextInTheEncodingsTextComesIn: the same text as Python's
// codecs write it with a UTF-8 byte order mark, in UTF-16 and in Latin-1
// reads the same in get --format md; the mark showed as a character of
// the text, UTF-16 and Latin-1 as replacement characters.
func TestGet_TextInTheEncodingsTextComesIn(t *testing.T) {
	for _, f := range []string{"python-utf8-bom.txt", "python-utf16.txt", "python-latin1.txt"} {
		t.Run(f, func(t *testing.T) {
			code, out, errOut := runCLI(t, "get", filepath.Join(realFixtures, "text", f), "--format", "md")
			if code != exitOK {
				t.Fatalf("get: exit %d: %s", code, errOut)
			}
			if !strings.Contains(out, "\n\nCafé menu\n\nCrème brûlée, 5 euros\n") || strings.ContainsAny(out, "\ufeff\ufffd") {
				t.Errorf("get --format md:\n%q", out)
			}
		})
	}
}

// TestGet_SemicolonCSV: a sheet LibreOffice Calc saves as CSV with
// semicolons (in Windows-1252) is a table of its three columns, the
// cell with a comma in it one cell; it read as one column split at the
// commas.
func TestGet_SemicolonCSV(t *testing.T) {
	code, out, errOut := runCLI(t, "get", filepath.Join(realFixtures, "text", "soffice-semicolon.csv"), "--format", "md")
	if code != exitOK {
		t.Fatalf("get: exit %d: %s", code, errOut)
	}
	want := "| Dish | Price | Note |\n| --- | --- | --- |\n| Café crème | 2.5 | hot, with milk |\n| Crème brûlée | 5 | dessert |\n"
	if !strings.Contains(out, want) {
		t.Errorf("get --format md:\n%s\nwant the table\n%s", out, want)
	}
}

// TestConvert_StdinCSVIsATable: CSV piped to convert - (no name, no
// extension) is sniffed as CSV, a Table; it read as one paragraph of
// text. Lines of prose with a comma each stay text.
func TestConvert_StdinCSVIsATable(t *testing.T) {
	for _, tc := range []struct{ name, in, fileType, category string }{
		{"comma", "time,flow\n00:00,41.5\n03:00,38.2\n", "csv", "Table"},
		{"semicolon", "Dish;Price;Note\nCafé crème;2,50;hot, with milk\n", "csv", "Table"},
		{"tab", "time\tflow\n00:00\t41.5\n", "tsv", "Table"},
		{"prose", "Hello, world.\nGoodbye, all.\n", "txt", "NarrativeText"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runStdin(t, tc.in, "convert", "-")
			if code != exitOK {
				t.Fatalf("convert -: exit %d: %s", code, errOut)
			}
			var d struct {
				FileType string `json:"file_type"`
				Pages    []struct{ Elements []struct{ Category string } }
			}
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatal(err)
			}
			if d.FileType != tc.fileType || len(d.Pages) == 0 || len(d.Pages[0].Elements) == 0 || d.Pages[0].Elements[0].Category != tc.category {
				t.Errorf("convert -: %s", out)
			}
		})
	}
}
