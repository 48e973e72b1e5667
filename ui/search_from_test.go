package ui

import (
	"strings"
	"testing"
)

// A search typed with / starts where you are, as less and vim search
// from the cursor: its first match is the first at or after the page
// and element shown, and only when there is none after it the first of
// the document, which the status says.
func TestSearch_StartsWhereYouAre(t *testing.T) {
	para := func(s string) map[string]any { return map[string]any{"category": "NarrativeText", "text": s} }
	doc := map[string]any{"doc_ref": "f", "title": "From", "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{para("needle early"), para("only here: lonely")}},
		map[string]any{"page_index": 1, "elements": []any{para("nothing"), para("still nothing")}},
		map[string]any{"page_index": 2, "elements": []any{para("needle late")}},
	}}
	m := openJSON(t, 80, 24, doc)
	press(t, m, "]")
	if d := m.docS(); d.page != 1 {
		t.Fatalf("] went to page %d, want 2", d.page+1)
	}
	press(t, m, "/", "n", "e", "e", "d", "l", "e", "enter")
	d := m.docS()
	if d.page != 2 || d.search.cur != 1 {
		t.Fatalf("/needle from page 2: page %d, match %d of %d; want page 3, the second match", d.page+1, d.search.cur+1, len(d.search.hits))
	}
	if s := m.statusText(); strings.Contains(s, "none after") {
		t.Fatalf("a match after the place was found, yet the status says %q", s)
	}
	press(t, m, "n")
	if d.page != 0 || d.search.cur != 0 || !strings.Contains(m.statusText(), "wrapped to the first match (1/2)") {
		t.Fatalf("n from the last match: page %d, match %d, status %q", d.page+1, d.search.cur+1, m.statusText())
	}

	// From page 3, a word only on page 1 is found there, and said.
	press(t, m, "]", "]")
	press(t, m, "/", "l", "o", "n", "e", "l", "y", "enter")
	d = m.docS()
	if d.page != 0 || d.search.cur != 0 || !strings.Contains(m.statusText(), "none after where you were: showing the first") {
		t.Fatalf("/lonely from page 3: page %d, match %d, status %q", d.page+1, d.search.cur+1, m.statusText())
	}
}
