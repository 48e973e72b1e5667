package dpe

import "testing"

// A query and a page that write one accented letter in the two Unicode
// forms still meet: an undecoded page whose raw text is NFD is not ruled
// out by an NFC query, and Find finds the NFD text and the NFC text.
func TestMatcher_FindsTheOtherUnicodeForm(t *testing.T) {
	doc, err := Decode([]byte(`{"doc_ref":"d","title":"T","pages":[{"page_index":0,"elements":[
		{"element_id":"a","category":"NarrativeText","text":"The cafe\u0301 opens."}]}]}`), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	m := NewMatcher("café")
	if p := doc.Pages[0]; !p.Decoded && !m.PageMayMatch(p) {
		t.Fatal("the NFD page is ruled out by the NFC query")
	}
	for _, text := range []string{"The cafe\u0301 opens.", "The caf\u00e9 opens."} {
		if s, _ := m.Find(text, 0); s != 4 {
			t.Errorf("Find in %q: %d, want 4", text, s)
		}
	}
}
