package convert

import "testing"

// ruleGrid draws the borders of a table with column edges xs and row edges ys
// (top first), leaving out the borders skip names.
func ruleGrid(xs, ys []float64, skip map[[3]int]bool) []pdfBox {
	var out []pdfBox
	for r := 0; r+1 < len(ys); r++ {
		for c := 0; c+1 < len(xs); c++ {
			if !skip[[3]int{'v', r, c}] { // left edge of cell (r, c)
				out = append(out, pdfBox{xs[c] - 0.25, ys[r+1], xs[c] + 0.25, ys[r]})
			}
			if !skip[[3]int{'h', r, c}] { // top edge of cell (r, c)
				out = append(out, pdfBox{xs[c], ys[r] - 0.25, xs[c+1], ys[r] + 0.25})
			}
		}
		out = append(out, pdfBox{xs[len(xs)-1] - 0.25, ys[r+1], xs[len(xs)-1] + 0.25, ys[r]})
	}
	out = append(out, pdfBox{xs[0], ys[len(ys)-1] - 0.25, xs[len(xs)-1], ys[len(ys)-1] + 0.25})
	return out
}

func ruleWord(text string, x, y float64) pdfRun {
	return pdfRun{text: text, left: x, right: x + 6*float64(len(text)), bottom: y, top: y + 9, size: 9}
}

func TestRuledTablesSpansAndWrappedCells(t *testing.T) {
	xs := []float64{100, 200, 300, 400}
	ys := []float64{700, 680, 660, 620}
	// Row 0: "Region" spans two rows; "Harvest" spans two columns.
	skip := map[[3]int]bool{{'h', 1, 0}: true, {'v', 0, 2}: true}
	runs := []pdfRun{
		ruleWord("Region", 105, 675), ruleWord("Harvest", 205, 685), ruleWord("Spring", 205, 665), ruleWord("Autumn", 305, 665),
		ruleWord("North", 105, 645), ruleWord("12", 205, 645), ruleWord("careful", 305, 645), ruleWord("keeper", 305, 632),
		ruleWord("outside", 105, 500),
	}
	tables, rest := ruledTables(ruleGrid(xs, ys, skip), runs)
	if len(tables) != 1 || len(rest) != 1 || rest[0].text != "outside" {
		t.Fatalf("%d tables, rest %v", len(tables), rest)
	}
	tb := tables[0]
	if len(tb.rows) != 3 {
		t.Fatalf("%d rows: %+v", len(tb.rows), tb.rows)
	}
	if c := tb.rows[0][0]; c.text != "Region" || c.rowspan != 2 {
		t.Errorf("first cell %+v; want Region over two rows", c)
	}
	if c := tb.rows[0][1]; c.text != "Harvest" || c.span != 2 {
		t.Errorf("second cell %+v; want Harvest over two columns", c)
	}
	if len(tb.rows[1]) != 2 || tb.rows[1][0].col != 1 {
		t.Errorf("second row %+v; want Spring and Autumn from column 1", tb.rows[1])
	}
	if c := tb.rows[2][2]; c.text != "careful keeper" {
		t.Errorf("wrapped cell %q; want its two lines as one cell", c.text)
	}
}

func TestRuledTablesFrameIsNotATable(t *testing.T) {
	frame := ruleGrid([]float64{100, 500}, []float64{700, 600}, nil)
	runs := []pdfRun{ruleWord("A", 110, 680), ruleWord("framed", 130, 680), ruleWord("note", 200, 680)}
	if tables, rest := ruledTables(frame, runs); len(tables) != 0 || len(rest) != 3 {
		t.Errorf("a framed paragraph gave %d tables, %d runs left", len(tables), len(rest))
	}
}

// A code listing with line numbers in the margin lines up like a table
// (its indents make more columns), and is not one; a table whose first
// column counts its rows but has cells of its own is.
func TestNumberedLinesAreNotATable(t *testing.T) {
	cells := func(rows ...[]string) *pdfTable {
		t := &pdfTable{}
		for _, r := range rows {
			var row []pdfCell
			for c, s := range r {
				if s != "" {
					row = append(row, pdfCell{text: s, col: c, span: 1})
				}
			}
			t.rows = append(t.rows, row)
		}
		return t
	}
	listing := cells([]string{"4", "int n = 0;"}, []string{"5", "for (;;) {", ""}, []string{"6", "", "n++;"}, []string{"7", "}"})
	if !numberedLines(listing) {
		t.Error("a numbered listing was taken for a table")
	}
	table := cells([]string{"1", "Alice", "30"}, []string{"2", "Bob", "41"}, []string{"3", "Carol", "29"})
	if numberedLines(table) {
		t.Error("a table numbering its rows was taken for a listing")
	}
	gap := cells([]string{"4", "a"}, []string{"6", "b"}, []string{"7", "c"})
	if numberedLines(gap) {
		t.Error("numbers that skip were taken for line numbers")
	}
}
