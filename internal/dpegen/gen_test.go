package dpegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

func TestDocument_IsValidAndDeterministic(t *testing.T) {
	o := Options{Pages: 6, ElementsPerPage: 12, TableEvery: 2, RareWord: "zq", RarePage: 3}
	a, b := Document(o), Document(o)
	if !bytes.Equal(a, b) {
		t.Fatal("same options must give the same bytes")
	}
	var d struct {
		PageCount int `json:"page_count"`
		Pages     []struct {
			Elements []struct{ Category, Text string }
		}
	}
	if err := json.Unmarshal(a, &d); err != nil {
		t.Fatal(err)
	}
	if d.PageCount != 6 || len(d.Pages) != 6 || len(d.Pages[0].Elements) != 12 {
		t.Fatalf("shape: %d pages", len(d.Pages))
	}
	cats := map[string]bool{}
	rare := 0
	for _, p := range d.Pages {
		for _, e := range p.Elements {
			cats[e.Category] = true
			if bytes.Contains([]byte(e.Text), []byte("zq")) {
				rare++
			}
		}
	}
	if len(cats) < 5 || !cats["Table"] || rare != 1 {
		t.Fatalf("categories %v, rare word %d times", cats, rare)
	}
}

func TestManifest_PagesMatchInlineDocument(t *testing.T) {
	o := Options{Pages: 3, ElementsPerPage: 5, TableEvery: 2}
	doc, pages := Manifest(o, func(i int) string { return fmt.Sprintf("p%d.json", i) })
	var inline, man struct{ Pages []json.RawMessage }
	json.Unmarshal(Document(o), &inline)
	if err := json.Unmarshal(doc, &man); err != nil || len(man.Pages) != 3 || len(pages) != 3 {
		t.Fatalf("manifest: %v", err)
	}
	for i := range pages {
		if !bytes.Equal(pages[i], inline.Pages[i]) {
			t.Fatalf("page %d differs from the inline document", i)
		}
		if !bytes.Contains(man.Pages[i], []byte(fmt.Sprintf(`"uri":"p%d.json"`, i))) {
			t.Fatalf("manifest page %d: %s", i, man.Pages[i])
		}
	}
}
