package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The screen draws an element's comments under its text, each a marked
// line with its author and the words it covers; a comment without text,
// and markup in one, are not drawn as given.
func TestElementLines_ShowComments(t *testing.T) {
	r := New(NewTheme("dark"))
	e := el(t, "NarrativeText", "The pump on the left was replaced.", map[string]any{"annotations": []any{
		map[string]any{"author": "Jo Smith", "date": "2024-07-01T09:00:00Z", "text": "Check the \x1b[31mserial\x1b[0m.", "covers": "on the left"},
		map[string]any{"author": "Nobody", "text": ""},
	}})
	got := ansi.Strip(strings.Join(r.ElementLines(e, 80), "\n"))
	want := "The pump on the left was replaced.\n  ✎ Comment by Jo Smith, 2024-07-01, on “on the left”: Check the serial."
	if strings.TrimRight(got, " \n") != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
