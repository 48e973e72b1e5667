package ui

import (
	"strings"
	"testing"
)

// A page whose metadata says it has no text layer (a scanned PDF page)
// says so in its header line at 80×24; a page with text does not.
func TestDocument_PageWithoutTextLayerSaysSo(t *testing.T) {
	doc := map[string]any{
		"doc_ref": "scan", "title": "Scan", "page_count": 2,
		"pages": []any{
			map[string]any{"page_index": 0, "elements": []any{
				map[string]any{"element_id": "e1", "category": "NarrativeText", "text": "Typed text."},
			}},
			map[string]any{"page_index": 1, "metadata": map[string]any{"no_text_layer": true}, "elements": []any{
				map[string]any{"element_id": "e2", "category": "Image", "text": "A scanned page"},
			}},
		},
	}
	m := openJSON(t, 80, 24, doc)
	if f := frame(m); strings.Contains(f, "no text layer") {
		t.Fatalf("page 1 has text, its header says otherwise:\n%s", f)
	}
	press(t, m, "]")
	if f := frame(m); !strings.Contains(f, "page 2/2 · no text layer (a scan) · 1 element") {
		t.Fatalf("page 2 has no text layer; its header should say so:\n%s", f)
	}
}
