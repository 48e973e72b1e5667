package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
)

func checkGrid(t *testing.T, g *Grid) {
	t.Helper()
	for r, row := range g.Rows {
		if len(row) != g.Cols {
			t.Fatalf("row %d has %d cells, Cols %d", r, len(row), g.Cols)
		}
		for _, c := range row {
			if strings.ContainsAny(c, "\x1b\n\r\t\x00\x7f") {
				t.Fatalf("unsanitized cell %q", c)
			}
		}
		if g.Spanned != nil && len(g.Spanned[r]) != g.Cols {
			t.Fatalf("spanned row %d has %d flags", r, len(g.Spanned[r]))
		}
	}
	if g.HeaderRows > len(g.Rows) {
		t.Fatalf("HeaderRows %d > rows %d", g.HeaderRows, len(g.Rows))
	}
}

// FuzzParseTable drives the HTML table parser (and the renderer on its
// result) with arbitrary markup.
func FuzzParseTable(f *testing.F) {
	for _, s := range []string{
		htmlTable, "<table>", "<table><tr><td rowspan=0 colspan=-1>x", "<td>a</td>",
		"<table><tr><td colspan=9999999>a</td></tr></table>", "<table><table><tr><th>\x1b[2J</th>",
		"<table><thead><tr><th rowspan=3>a</th><th>b</th></tr></thead><tr><td colspan=2>c</td></tr></table>",
	} {
		f.Add(s)
	}
	r := New(NewTheme("dark"))
	f.Fuzz(func(t *testing.T, in string) {
		g, err := ParseHTMLTable(in, TableLimits{MaxCells: 5000, MaxCols: 64, MaxCellChars: 200})
		if err != nil {
			return
		}
		checkGrid(t, g)
		for _, w := range []int{7, 60} {
			out := r.Table(el(t, "Table", "", map[string]any{"text_as_html": in}), w, TableView{XOffset: 1})
			for _, l := range strings.Split(out, "\n") {
				if ansi.StringWidth(l) > w {
					t.Fatalf("line wider than %d: %q", w, l)
				}
			}
		}
	})
}

// FuzzParseTextTable drives the Markdown/TSV/CSV parser.
func FuzzParseTextTable(f *testing.F) {
	for _, s := range []string{"a|b\n-|-\n1|2", "a\tb\n1", "a,b\n\"1,2\",3", "| x |\n|---|\n| \\| |", "\"", "|\n-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		g, err := ParseTextTable(in, TableLimits{MaxCells: 5000})
		if err != nil {
			return
		}
		checkGrid(t, g)
	})
}

// FuzzElement renders arbitrary elements of every category: no panic, no
// line wider than the width, nothing but theme SGR.
func FuzzElement(f *testing.F) {
	f.Add("Title", "x\x1b[2J", "category_depth", `3`, 10)
	f.Add("Table", "a|b\n-|-\n1|2", "text_as_html", `"<table><tr><td colspan=2>x"`, 5)
	f.Add("Image", "", "image_base64", `"iVBORw0KGgo="`, 1)
	f.Add("FormKeysValues", "k: v", "key_value_pairs", `[{"key":{"text":1},"value":null}]`, 30)
	f.Add("CodeSnippet", "\tfunc(){}", "languages", `["eng",7]`, 12)
	f.Add("CheckBox", "", "checked", `"yes"`, 2)
	r := New(NewTheme("dark"))
	f.Fuzz(func(t *testing.T, category, text, key, value string, width int) {
		width = width % 300
		e := &dpe.Element{Category: category, Text: text}
		if key != "" && json.Valid([]byte(value)) {
			e.Metadata = map[string]json.RawMessage{key: json.RawMessage(value)}
		}
		out := r.Table(e, width, TableView{XOffset: width % 3, ColWidthBonus: width % 5})
		for _, l := range strings.Split(out, "\n") {
			if ansi.StringWidth(l) > max(width, 1) {
				t.Fatalf("line wider than %d: %q", width, l)
			}
		}
		assertOnlySGR(t, "fuzz element", out)
		_ = plainText(&dpe.Document{Pages: []*dpe.Page{{Decoded: true, Elements: []*dpe.Element{e}}}})
	})
}
