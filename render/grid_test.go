package render

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
)

func TestParseTable_SourcesAndSpans(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		html    string
		source  string
		header  int
		rows    [][]string
		spanned [][]bool
	}{
		{
			name: "html rowspan repeats, colspan spans", html: htmlTable, source: "html", header: 1,
			rows: [][]string{
				{"Region", "2024", "", "Notes"},
				{"North", "Q1", "1,200", "steady"},
				{"North", "Q2", "1,450", "new store opened"},
				{"South", "Q1", "980", ""},
			},
			spanned: [][]bool{{false, false, true, false}, {false, false, false, false}, {false, false, false, false}, {false, false, false, false}},
		},
		{
			name: "html th row without thead is header", source: "html", header: 1,
			html: "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td></tr></table>",
			rows: [][]string{{"a", "b"}, {"1", ""}},
		},
		{
			name: "html without header markup takes first row", source: "html", header: 1,
			html: "<table><tr><td>a</td></tr><tr><td>1</td></tr></table>",
			rows: [][]string{{"a"}, {"1"}},
		},
		{
			name: "html nested table flattened into its cell", source: "html", header: 1,
			html: "<table><tr><td>x<table><tr><td>in</td></tr></table></td><td>y</td></tr><tr><td>1</td><td>2</td></tr></table>",
			rows: [][]string{{"x in", "y"}, {"1", "2"}},
		},
		{
			name: "html hostile cell sanitized", source: "html", header: 0,
			html: "<table><tr><td>a\x1b[2Jb\u202E</td></tr></table>",
			rows: [][]string{{"ab<U+202E>"}},
		},
		{
			name: "markdown with escaped pipe", source: "markdown", header: 1,
			text: "intro\n| a | b |\n|:--|--:|\n| 1 | x \\| y |\n",
			rows: [][]string{{"a", "b"}, {"1", "x | y"}},
		},
		{
			name: "tsv ragged rows padded", source: "tsv", header: 1,
			text: "a\tb\tc\n1\t2\n",
			rows: [][]string{{"a", "b", "c"}, {"1", "2", ""}},
		},
		{
			name: "csv quoted comma", source: "csv", header: 1,
			text: "city,pop\n\"Paris, FR\",2\n",
			rows: [][]string{{"city", "pop"}, {"Paris, FR", "2"}},
		},
		{
			name: "text used when html has no table", source: "csv", header: 1,
			html: "<p>no table</p>", text: "a,b\n1,2",
			rows: [][]string{{"a", "b"}, {"1", "2"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			meta := map[string]any(nil)
			if tc.html != "" {
				meta = map[string]any{"text_as_html": tc.html}
			}
			g, err := parseTable(el(t, "Table", tc.text, meta))
			if err != nil {
				t.Fatalf("ParseTable: %v", err)
			}
			if g.Source != tc.source || g.HeaderRows != tc.header {
				t.Errorf("source %q header %d, want %q %d", g.Source, g.HeaderRows, tc.source, tc.header)
			}
			if !reflect.DeepEqual(g.Rows, tc.rows) {
				t.Errorf("rows = %q, want %q", g.Rows, tc.rows)
			}
			if tc.spanned != nil && !reflect.DeepEqual(g.Spanned, tc.spanned) {
				t.Errorf("spanned = %v, want %v", g.Spanned, tc.spanned)
			}
			for _, row := range g.Rows {
				if len(row) != g.Cols {
					t.Errorf("row %q has %d cells, want %d", row, len(row), g.Cols)
				}
			}
		})
	}
}

func TestParseTable_ProseIsNotATable(t *testing.T) {
	for _, text := range []string{"", "just words", "one, two and three\nand more words here\nthird line"} {
		if g, err := parseTable(el(t, "Table", text, nil)); err == nil {
			t.Errorf("parseTable(%q) = %+v, want error", text, g)
		}
	}
}

func TestParseTable_CellLimitCutsWithMessage(t *testing.T) {
	g, err := ParseTableLimits(el(t, "Table", wideTableText(10, 100), nil), TableLimits{MaxCells: 200, MaxCols: 4, MaxCellChars: 5})
	if err != nil {
		t.Fatal(err)
	}
	if g.Cols != 4 || len(g.Rows) != 50 {
		t.Errorf("got %d cols × %d rows, want 4 × 50", g.Cols, len(g.Rows))
	}
	if !strings.Contains(g.Truncated, "cut at 50 rows") {
		t.Errorf("Truncated = %q", g.Truncated)
	}
	if g.Rows[1][0] != "value…" {
		t.Errorf("cell not clipped to 5 chars: %q", g.Rows[1][0])
	}
}

func TestParseHTMLTable_HugeSpansAreBounded(t *testing.T) {
	h := `<table><tr><td colspan="999999999" rowspan="999999999">x</td></tr><tr><td>y</td></tr></table>`
	g, err := ParseHTMLTable(h, TableLimits{MaxCols: 50})
	if err != nil {
		t.Fatal(err)
	}
	if g.Cols != 50 || len(g.Rows) != 2 {
		t.Errorf("got %d cols × %d rows, want 50 × 2", g.Cols, len(g.Rows))
	}
}

func TestTable_ScrollKeepsFirstColumnAndHeader(t *testing.T) {
	r := New(NewTheme("notty"))
	e := el(t, "Table", wideTableText(12, 30), nil)
	for _, tc := range []struct {
		off         int
		first, last int
		marker      string
	}{
		{0, 1, 5, "cols 2–6 of 12 ▸"},
		{3, 4, 8, "◂ cols 5–9 of 12 ▸"},
		{100, 8, 11, "◂ cols 9–12 of 12"},
	} {
		v := TableView{XOffset: tc.off}
		info, err := r.TableInfo(e, 80, v)
		if err != nil {
			t.Fatal(err)
		}
		if info.FirstCol != tc.first || info.LastCol != tc.last || !info.Clipped || info.MaxXOffset != 7 {
			t.Errorf("offset %d: info %+v", tc.off, info)
		}
		sticky, body, total := r.TableWindow(e, 80, v, 20, 5)
		if total != 29 || len(body) != 5 {
			t.Fatalf("total %d body %d", total, len(body))
		}
		if sticky[0] != tc.marker {
			t.Errorf("marker %q, want %q", sticky[0], tc.marker)
		}
		if !strings.HasPrefix(sticky[1], "Column A ") {
			t.Errorf("header lost its first column: %q", sticky[1])
		}
		if !strings.HasPrefix(body[0], "value r21c0 ") || !strings.Contains(body[0], "r21c"+itoa(tc.first)+" ") {
			t.Errorf("row 21 = %q", body[0])
		}
	}
}

func TestTable_SqueezesBeforeScrolling(t *testing.T) {
	r := New(NewTheme("notty"))
	e := el(t, "Table", "a\tb\tc\n"+strings.Repeat("x", 30)+"\t"+strings.Repeat("y", 30)+"\tz\n", nil)
	info, _ := r.TableInfo(e, 40, TableView{})
	if info.Clipped {
		t.Fatalf("3 columns should fit 40 cells squeezed: %+v", info)
	}
	out := r.Table(e, 40, TableView{})
	if !strings.Contains(out, "…") || !strings.Contains(out, "│ z") {
		t.Errorf("expected ellipsized wide cells and the narrow one intact:\n%s", out)
	}
}

// A column is as wide as its content up to the room the terminal has: no
// fixed cap clips a 60-cell value on a wide screen.
func TestTable_ColumnsTakeTheTerminalsRoom(t *testing.T) {
	r := New(NewTheme("notty"))
	long := strings.Repeat("x", 60)
	e := el(t, "Table", "a\tb\n"+long+"\ty\n", nil)
	for _, w := range []int{200, 80} {
		if out := r.Table(e, w, TableView{}); strings.Contains(out, "…") || !strings.Contains(out, long+" │ y") {
			t.Errorf("width %d: the cell is not whole:\n%s", w, out)
		}
	}
	if out := r.Table(e, 40, TableView{}); !strings.Contains(out, "…") {
		t.Errorf("width 40: the cell should be squeezed:\n%s", out)
	}
}

// w (ColWidthBonus on WideCol) widens one squeezed column, taking the
// cells from the others.
func TestTable_ColWidthBonusWidensColumns(t *testing.T) {
	r := New(NewTheme("notty"))
	e := el(t, "Table", "a\tb\n"+strings.Repeat("x", 40)+"\t"+strings.Repeat("y", 40)+"\n", nil)
	even := r.Table(e, 50, TableView{})
	wide := r.Table(e, 50, TableView{WideCol: 1, ColWidthBonus: 10})
	if strings.Count(wide, "x") < strings.Count(even, "x")+10 || strings.Count(wide, "y") >= strings.Count(even, "y") {
		t.Errorf("the bonus should widen the first column:\neven:\n%s\nwide:\n%s", even, wide)
	}
}

// parseTable is ParseTableLimits with the default limits.
func parseTable(e *dpe.Element) (*Grid, error) {
	d := DefaultLimits()
	return ParseTableLimits(e, TableLimits{MaxCells: d.MaxTableCells, MaxCols: d.MaxTableCols, MaxCellChars: d.MaxChars})
}

// TestTable_OneColumnShownIsNamedOnce: when only one column besides the
// first fits, the marker names it once ("col 4 of 4", not "cols 4–4").
func TestTable_OneColumnShownIsNamedOnce(t *testing.T) {
	r := New(NewTheme("notty"))
	e := el(t, "Table", wideTableText(4, 3), nil)
	v := TableView{XOffset: 100}
	info, err := r.TableInfo(e, 30, v)
	if err != nil {
		t.Fatal(err)
	}
	if info.FirstCol != info.LastCol {
		t.Fatalf("at 30 columns %d–%d shown; the test wants one", info.FirstCol, info.LastCol)
	}
	sticky, _, _ := r.TableWindow(e, 30, v, 3, 3)
	if want := "◂ col 4 of 4"; sticky[0] != want {
		t.Errorf("marker %q, want %q", sticky[0], want)
	}
}
