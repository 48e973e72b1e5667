package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A note (advice, such as a code block naming no language) is counted
// apart from warnings on the conformance screen and marked as advice,
// as check counts it: the trace's "1 finding" is on the screen.
func TestConformance_NotesAreCountedApart(t *testing.T) {
	doc := map[string]any{"doc_ref": "n", "title": "Notes", "page_count": 1, "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"category": "CodeSnippet", "text": "print(1)", "element_id": "e1"},
		}},
	}}
	m := openJSON(t, 80, 24, doc)
	press(t, m, "c")
	fr := ansi.Strip(frame(m))
	if !strings.Contains(fr, "Conformance · 0 violations · 0 warnings · 1 note") {
		t.Fatalf("the head should count the note apart:\n%s", fr)
	}
	if !strings.Contains(fr, "▌i ") {
		t.Fatalf("the note is not listed, marked i:\n%s", fr)
	}
}
