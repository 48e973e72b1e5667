package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
)

func item(t *testing.T, text string, depth int, meta map[string]any) *dpe.Element {
	t.Helper()
	m := map[string]any{"category_depth": depth}
	for k, v := range meta {
		m[k] = v
	}
	return el(t, "ListItem", text, m)
}

func ordered(n int, style string) map[string]any {
	m := map[string]any{"ordered": true, "item_number": n}
	if style != "" {
		m["list_style"] = style
	}
	return m
}

func TestListLabel_FromSourceNumberingAndStyle(t *testing.T) {
	for _, tc := range []struct {
		meta map[string]any
		want string
	}{
		{nil, ""},
		{map[string]any{"ordered": false, "item_number": 3}, ""},
		{map[string]any{"ordered": true}, "1."},
		{ordered(5, ""), "5."},
		{ordered(5, "decimal"), "5."},
		{ordered(3, "lower-alpha"), "c."},
		{ordered(28, "lower-alpha"), "ab."},
		{ordered(2, "upper-alpha"), "B."},
		{ordered(4, "lower-roman"), "iv."},
		{ordered(1994, "upper-roman"), "MCMXCIV."},
		{ordered(0, ""), "1."},
		{ordered(999999, ""), "9999."},
		{map[string]any{"ordered": "yes", "item_number": "7"}, "7."},
	} {
		if got := listLabel(item(t, "x", 0, tc.meta)); got != tc.want {
			t.Errorf("listLabel(%v) = %q, want %q", tc.meta, got, tc.want)
		}
	}
}

// The numbers a converter recorded are what a reader sees, in the
// browser and in both exports; bullets stay bullets.
func TestListItems_OrderedShowSourceLabelsEverywhere(t *testing.T) {
	p := &dpe.Page{Decoded: true, Elements: []*dpe.Element{
		item(t, "Collect", 0, ordered(5, "")),
		item(t, "Upload", 0, ordered(6, "")),
		item(t, "first step", 1, ordered(1, "lower-alpha")),
		item(t, "second step", 1, ordered(2, "lower-alpha")),
		item(t, "Check", 0, ordered(7, "")),
		item(t, "a bullet", 0, nil),
	}}
	r := New(NewTheme("notty"))
	var screen []string
	for _, e := range p.Elements {
		for _, l := range r.ElementLines(e, 80) {
			screen = append(screen, strings.TrimRight(ansi.Strip(l), " "))
		}
	}
	wantScreen := []string{"5. Collect", "6. Upload", "  a. first step", "  b. second step", "7. Check", "• a bullet"}
	if strings.Join(screen, "\n") != strings.Join(wantScreen, "\n") {
		t.Errorf("screen:\n%s\nwant:\n%s", strings.Join(screen, "\n"), strings.Join(wantScreen, "\n"))
	}
	if got, want := pagePlainText(p), "5. Collect\n6. Upload\n  a. first step\n  b. second step\n7. Check\n• a bullet\n"; got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
	// CommonMark: numbers with the real start, lettered items as bullet
	// items that start with their label (it has no letter markers),
	// children at their parent's content column, one tight list.
	if got, want := PageMarkdown(p), "5. Collect\n6. Upload\n   - a. first step\n   - b. second step\n7. Check\n- a bullet\n"; got != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, want)
	}
}

// An item deeper than anything before it on the page (a list continued
// from the previous page) must not be indented into a code block.
func TestPageMarkdown_OrphanNestedItemIsNotACodeBlock(t *testing.T) {
	p := &dpe.Page{Decoded: true, Elements: []*dpe.Element{
		item(t, "continued", 2, nil),
		item(t, "deeper", 3, nil),
		el(t, "NarrativeText", "prose", nil),
		item(t, "again", 1, nil),
	}}
	if got, want := PageMarkdown(p), "- continued\n  - deeper\n\nprose\n\n- again\n"; got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// Markers a PDF or the text carries: bullets become Markdown bullets, a
// decimal marker stays one, and a letter label (not a CommonMark marker)
// stays in the text of a bullet item.
func TestPageMarkdown_MarkersInTheTextBecomeValidMarkers(t *testing.T) {
	p := &dpe.Page{Decoded: true, Elements: []*dpe.Element{
		item(t, "• from a PDF", 0, nil),
		item(t, "3) third", 0, nil),
		item(t, "a) lettered", 0, nil),
	}}
	if got, want := PageMarkdown(p), "- from a PDF\n3) third\n- a) lettered\n"; got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestMarkdown_DocumentTitleIsNotRepeatedByItsHeading(t *testing.T) {
	d := &dpe.Document{Title: "Handbook", Pages: []*dpe.Page{{Decoded: true, Elements: []*dpe.Element{
		el(t, "Title", "Handbook", nil),
		el(t, "Title", "Scope", map[string]any{"category_depth": 1}),
	}}}}
	got := Markdown(d)
	if strings.Count(got, "Handbook") != 1 || !strings.Contains(got, "\n# Handbook\n") || !strings.Contains(got, "\n## Scope\n") {
		t.Errorf("got:\n%s", got)
	}
}
