package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func manyPagesDoc(tb testing.TB, n int) []byte {
	pages := make([]any, n)
	for i := range pages {
		els := []any{map[string]any{"category": "Title", "text": fmt.Sprintf("Section %d", i+1)},
			map[string]any{"category": "NarrativeText", "text": fmt.Sprintf("Body of page %d says marker-%04d.", i+1, i+1)}}
		if i%50 == 7 {
			els = append(els, map[string]any{"category": "NarrativeText", "text": "a rare needle here"})
		}
		pages[i] = map[string]any{"page_index": i, "title": fmt.Sprintf("P%d", i+1), "elements": els}
	}
	b, err := json.Marshal(map[string]any{"doc_ref": "many", "title": "Many pages", "page_count": n, "pages": pages})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// A document session in the real program: a search, an export loading
// every page and a stream of paging keys all at once. Run with -race: the
// UI has no mutex, so any state shared with a command shows up here. The
// export must still hold every page.
func TestRace_PagingSearchAndExportWhileKeysArrive(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "many.json")
	if err := os.WriteFile(path, manyPagesDoc(t, 300), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := testOptions(nil)
	opt.Agent, opt.OpenTarget, opt.SaveDir = nil, path, dir
	s := start(t, opt)
	s.waitFor("Section 1")
	s.keys("/")
	s.typeText("needle")
	s.keys("enter", "e")
	s.waitFor("export document to")
	s.keys("enter")
	for i := range 60 {
		s.keys([]string{"]", "j", "[", "k", "]", "n", "G", "g"}[i%8])
	}
	out := filepath.Join(dir, "Many-pages.md")
	s.waitUntil("the export file", func(string) bool { _, err := os.Stat(out); return err == nil })
	s.idle()
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 300; i++ {
		if !strings.Contains(string(b), fmt.Sprintf("marker-%04d", i)) {
			t.Fatalf("the export lacks page %d", i)
		}
	}
	s.idle()
}

// BenchmarkUISearch_AllPages is the UI's search path end to end: / on a
// 2,000-page document (a rare word on a few pages), run through the
// model's steps until the last page, with the dpe.Matcher prefilter
// keeping pages that cannot match undecoded. This is the P5 row of docs/performance.md.
func BenchmarkUISearch_AllPages(b *testing.B) {
	raw := manyPagesDoc(b, 2000)
	for b.Loop() {
		b.StopTimer()
		m := openForBench(b, 120, 40, decodedDoc(b, raw))
		d := m.docS()
		b.StartTimer()
		run(b, m, d.startSearch("needle"))
		if len(d.search.hits) != 40 || d.search.scanned != 2000 {
			b.Fatalf("%d hits after %d pages", len(d.search.hits), d.search.scanned)
		}
	}
}
