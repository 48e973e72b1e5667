package identity

import (
	"reflect"
	"testing"
)

// A table's edited cell is named by its row and column (the new grid's,
// with the column's header), a row only one side has is added or removed
// whole, and rows that stayed are not listed.
func TestCellChanges_NamesTheCellNotTheTable(t *testing.T) {
	old := [][]string{{"Item", "Count"}, {"Keys", "2"}, {"Logbooks", "10"}, {"Pens", "4"}}
	new := [][]string{{"Item", "Count"}, {"Keys", "3"}, {"Logbooks", "10"}, {"Torch", "1"}, {"Pens", "4"}}
	got := CellChanges(old, new, 1)
	want := []CellChange{
		{Op: "changed", Row: 1, Col: 1, Header: "Count", Old: "2", New: "3"},
		{Op: "added", Row: 3, Col: -1, New: "Torch | 1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("CellChanges:\n got %+v\nwant %+v", got, want)
	}
}

// An element whose text stayed and whose metadata changed is one
// "changed" element naming the keys, not one removed and one added; an
// element whose text changed still is (a table aside).
func TestDiff_MetadataOnlyChangeIsChanged(t *testing.T) {
	doc := func(meta, text string) *Result {
		el := func(text, meta string) InputElement {
			return InputElement{Category: "NarrativeText", Text: &text, Metadata: []byte(meta)}
		}
		ft := "md"
		return Compute(&Input{FileType: &ft, Pages: []InputPage{{Elements: []InputElement{
			el("kept", `{}`), el("same text", meta), el(text, `{}`)}}}})
	}
	c := Diff(doc(`{"a":1,"b":2}`, "old"), doc(`{"a":1,"b":3,"c":true}`, "new"))
	if len(c.Pages) != 1 {
		t.Fatalf("pages %+v", c.Pages)
	}
	var ops []string
	for _, e := range c.Pages[0].Elements {
		ops = append(ops, e.Op+" "+e.Text)
	}
	if want := []string{"changed same text", "added new", "removed old"}; !reflect.DeepEqual(ops, want) {
		t.Fatalf("ops %q, want %q", ops, want)
	}
	e := c.Pages[0].Elements[0]
	if !reflect.DeepEqual(e.MetadataChanged, []string{"b", "c"}) || !reflect.DeepEqual(e.Fields, []string{"metadata"}) ||
		e.Was == nil || e.Was.Index != 1 {
		t.Fatalf("changed element %+v", e)
	}
}
