package dpe

import (
	"testing"
)

// A page its holder decoded on its own (a converted page, a page copy)
// stands where the page it replaces stood: validating the holder's view
// does not warn that the pages are out of page_index order because the
// lone page's own position is 0.
func TestWithPages_ReplacedPageKeepsItsPlace(t *testing.T) {
	lim := DefaultLimits()
	doc, err := Decode([]byte(`{"doc_ref":"d","title":"T","pages":[
		{"page_index":0,"elements":[{"element_id":"a","category":"Title","text":"A"}]},
		{"page_index":1,"elements":[{"element_id":"b","category":"Title","text":"B"}]},
		{"page_index":2,"elements":[{"element_id":"c","category":"Title","text":"C"}]}]}`), lim)
	if err != nil {
		t.Fatal(err)
	}
	op := &Opened{Kind: KindDocument, Doc: doc}
	for _, f := range Validate(op.Doc) {
		if f.Rule == RulePageOrder {
			t.Fatalf("the document itself is in order: %v", f)
		}
	}
	p, err := DecodePage([]byte(`{"page_index":2,"elements":[{"element_id":"c","category":"Title","text":"C2"}]}`), lim)
	if err != nil {
		t.Fatal(err)
	}
	view := op.WithPages([]*Page{nil, nil, p})
	for _, f := range Validate(view.Doc) {
		if f.Rule == RulePageOrder {
			t.Errorf("a page loaded on its own is reported out of order: %s", f.Message)
		}
	}
	if p.pos != 0 {
		t.Errorf("WithPages wrote the holder's page (pos %d)", p.pos)
	}
}
