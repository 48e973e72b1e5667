package render

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/convert"
)

// The chunks of a 2,100-row sheet written by openpyxl are drawn with one
// set of column widths: the long remark in the first chunk widens its
// column in every chunk, so the rule under each chunk's header is the
// same line.
func TestPageView_ChunksShareColumnWidths(t *testing.T) {
	conv := convert.New(convert.Options{})
	defer conv.Close()
	doc, err := conv.OpenFile(context.Background(), filepath.Join("..", "convert", "testdata", "openpyxl-chunked.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	p, err := doc.Page(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	r := New(NewTheme("notty"))
	// A chunk drawn alone first (as a cached line) must not keep its own widths.
	_ = r.ElementLines(p.Elements[len(p.Elements)-1], 120)
	var rules []string
	for _, b := range r.PageView(p, 120, nil) {
		if b.ElementIndex >= 0 && isChunk(p.Elements[b.ElementIndex]) && len(b.Lines) > 2 {
			rules = append(rules, ansi.Strip(b.Lines[1]))
		}
	}
	if len(rules) != 3 {
		t.Fatalf("%d chunks drawn, want 3", len(rules))
	}
	long := len("log opened at the start of the night shift by the duty officer")
	for i, rule := range rules {
		if rule != rules[0] || ansi.StringWidth(rule) < long {
			t.Errorf("chunk %d's rule %q (%d cells), want %q, wider than the first chunk's long remark (%d)", i, rule, ansi.StringWidth(rule), rules[0], long)
		}
	}
}
