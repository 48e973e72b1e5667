package ui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestTable_WidthKeysSayWhenTheTableFits: on a table that fits the width
// (pandoc's), w and W change nothing, and the status says so and what
// they are for, instead of nothing.
func TestTable_WidthKeysSayWhenTheTableFits(t *testing.T) {
	s := start80(t, openFileOptions(t, filepath.Join("..", "convert", "testdata", "pandoc.docx"), nil))
	s.waitFor("page 1/")
	s.idle()
	s.keys("t")
	s.idle()
	s.keys("w")
	s.waitFor("this table fits: every column shows whole · w widens a column cut to fit")
	s.keys("W")
	s.waitFor("this table fits: every column shows whole · W narrows a column w widened")
	golden.RequireEqual(t, s.final())
}

// TestTable_WidthKeysSayWhenTheColumnShowsWhole: on a squeezed table, w on
// a column that shows whole says so; on a cut one it widens it, and W
// then narrows it back, and says nothing more once it is back.
func TestTable_WidthKeysSayWhenTheColumnShowsWhole(t *testing.T) {
	m := openTables(t, 80, 24)
	d := m.docS()
	press(t, m, "t", "w")
	if got := m.e.status.text; got != "column 1 shows whole · w widens a column cut to fit" || d.tv[d.sel].ColWidthBonus != 0 {
		t.Fatalf("w on a whole column: status %q, bonus %d", got, d.tv[d.sel].ColWidthBonus)
	}
	press(t, m, "l")
	before := frame(m)
	press(t, m, "w")
	if d.tv[d.sel].ColWidthBonus != 8 || frame(m) == before || strings.Contains(m.e.status.text, "shows whole") {
		t.Fatalf("w on the cut column 2 did not widen it (bonus %d, status %q)", d.tv[d.sel].ColWidthBonus, m.e.status.text)
	}
	press(t, m, "W")
	if d.tv[d.sel].ColWidthBonus != 0 || frame(m) != before {
		t.Fatalf("W did not narrow column 2 back (bonus %d)", d.tv[d.sel].ColWidthBonus)
	}
	press(t, m, "W")
	if got := m.e.status.text; got != "no column is widened · W narrows a column w widened" {
		t.Fatalf("W with nothing widened: status %q", got)
	}
}
