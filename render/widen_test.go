package render

import "testing"

// TestLayout_WidenInASqueezedTable: w on a column of a squeezed table makes
// that column wider, taking cells from the others; the table still fits.
func TestLayout_WidenInASqueezedTable(t *testing.T) {
	g := &Grid{Cols: 4, HeaderRows: 1}
	natural := []int{20, 20, 20, 20}
	const width = 50
	plain := layoutTable(g, natural, width, TableView{})
	wide := layoutTable(g, natural, width, TableView{WideCol: 2, ColWidthBonus: 8})
	sum := func(ws []int) int {
		s := colSepWidth * (len(ws) - 1)
		for _, w := range ws {
			s += w
		}
		return s
	}
	if len(plain.widths) != 4 || len(wide.widths) != 4 {
		t.Fatalf("not the squeezed layout: %v / %v", plain.widths, wide.widths)
	}
	if wide.widths[1] <= plain.widths[1] {
		t.Errorf("column 2 not wider: %v → %v", plain.widths, wide.widths)
	}
	if sum(wide.widths) != sum(plain.widths) || sum(wide.widths) > width {
		t.Errorf("total changed: %v (%d) vs %v (%d), width %d", wide.widths, sum(wide.widths), plain.widths, sum(plain.widths), width)
	}
	for i, w := range wide.widths {
		if i != 1 && w < colMinSqueeze {
			t.Errorf("column %d squeezed below %d: %v", i+1, colMinSqueeze, wide.widths)
		}
	}
}
