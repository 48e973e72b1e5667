package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// get prints LibreOffice's ODS of a sheet whose sum row leaves two columns
// empty (one number-columns-repeated="2" cell, then a repeat of 16,380
// empty cells to the sheet's end) as it prints the XLSX it came from: the
// sum stays in its column. The sheet's first row is its header in both.
func TestGet_ODSEmptyCellsKeepColumns(t *testing.T) {
	get := func(name string) string {
		t.Helper()
		code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, name))
		if code != exitOK || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", name, code, errOut)
		}
		_, body, _ := strings.Cut(out, "\n") // the first line names the file
		return body
	}
	ods, xlsx := get("soffice-sparse.ods"), get("openpyxl-sparse.xlsx")
	if !strings.Contains(ods, "\n| Sum |  |  | 24.5 |\n") || ods != xlsx {
		t.Errorf("ODS:\n%s\nXLSX:\n%s", ods, xlsx)
	}
	pages := getJSONPages(t, "soffice-sparse.ods")
	if len(pages) != 2 {
		t.Fatalf("%d pages", len(pages))
	}
	html := tableHTML(t, pages[0])
	if !strings.Contains(html, "<tr><th>Item</th><th>Qty</th><th>Price</th><th>Total</th></tr>") ||
		!strings.Contains(html, "<tr><td>Sum</td><td></td><td></td><td>24.5</td></tr>") {
		t.Errorf("sheet Book: %s", html)
	}
}

// A hidden sheet of an ODS (table:display="false" in its table style) is
// said so in its page's metadata and on its table, as XLSX's is; a shown
// one says nothing.
func TestGet_ODSHiddenSheet(t *testing.T) {
	for _, name := range []string{"soffice-sparse.ods", "openpyxl-sparse.xlsx"} {
		pages := getJSONPages(t, name)
		if len(pages) != 2 {
			t.Fatalf("%s: %d pages", name, len(pages))
		}
		if strings.Contains(string(pages[0].Metadata), "sheet_state") || !strings.Contains(string(pages[1].Metadata), `"sheet_state":"hidden"`) {
			t.Errorf("%s: page metadata %s, %s", name, pages[0].Metadata, pages[1].Metadata)
		}
		if len(pages[1].Elements) != 1 || !strings.Contains(string(pages[1].Elements[0].Metadata), `"sheet_state":"hidden"`) {
			t.Errorf("%s: hidden sheet's elements %+v", name, pages[1].Elements)
		}
	}
}

// An ODT table (LibreOffice Writer's, from pandoc's HTML) whose second
// header cell is empty keeps that cell, and the right alignment of its
// column, as pandoc's DOCX of the same table does.
func TestGet_ODTEmptyHeaderCellKept(t *testing.T) {
	html := tableHTML(t, getJSONPages(t, "soffice-weights.odt")[0])
	if !strings.HasPrefix(html, `<table><tr><th style="text-align: center;">Fruit and weight</th><th></th></tr>`) {
		t.Errorf("header row: %s", html)
	}
	for _, name := range []string{"soffice-weights.odt", "pandoc-weights.docx"} {
		code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, name))
		if code != exitOK || !strings.Contains(out, "| Fruit and weight |  |\n") || !strings.Contains(out, " | ---: |\n| Apples | 3.5 |\n") {
			t.Errorf("%s: exit %d, stderr %q:\n%s", name, code, errOut, out)
		}
	}
}

type jsonElement struct {
	Type     string          `json:"category"`
	Metadata json.RawMessage `json:"ele_metadata"`
}

type jsonPage struct {
	Metadata json.RawMessage `json:"metadata"`
	Elements []jsonElement   `json:"elements"`
}

// getJSONPages is the pages of get --format json of a fixture.
func getJSONPages(t *testing.T, name string) []jsonPage {
	t.Helper()
	code, out, errOut := runCLI(t, "get", "--format", "json", filepath.Join(realFixtures, name))
	if code != exitOK || errOut != "" {
		t.Fatalf("%s: exit %d, stderr %q", name, code, errOut)
	}
	var doc struct {
		Pages []jsonPage `json:"pages"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return doc.Pages
}

// tableHTML is the text_as_html of the page's one Table.
func tableHTML(t *testing.T, p jsonPage) string {
	t.Helper()
	for _, e := range p.Elements {
		if e.Type == "Table" {
			var m struct {
				HTML string `json:"text_as_html"`
			}
			if err := json.Unmarshal(e.Metadata, &m); err != nil {
				t.Fatal(err)
			}
			return m.HTML
		}
	}
	t.Fatalf("no Table in %+v", p)
	return ""
}
