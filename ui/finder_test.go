package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/dpe-tui/dpe-tui/protocol"
)

const finderSchema = `{"type":"object","properties":{"query":{"type":"string"},"cursor":{"type":"string"},"limit":{"type":"integer"},"file_type":{"type":"string"}},"required":["query"]}`

// GetTools: laptop hosts a Finder, build-box has only another tool.
func (f *fakeAgent) GetTools(ctx context.Context, computer string) ([]protocol.SMCPTool, error) {
	if err := f.wait(ctx); err != nil {
		return nil, err
	}
	switch computer {
	case "laptop":
		return []protocol.SMCPTool{{Name: "find", ParamsSchema: json.RawMessage(finderSchema)}}, nil
	case "build-box":
		return []protocol.SMCPTool{{Name: "build", ParamsSchema: json.RawMessage(`{"type":"object"}`)}}, nil
	}
	return nil, errors.New("no such computer")
}

// ToolCall answers find on laptop with one hit on page 2 of the annual
// report; its snippet carries an escape sequence.
func (f *fakeAgent) ToolCall(ctx context.Context, computer, tool string, params map[string]any) (json.RawMessage, error) {
	if computer != "laptop" || tool != "find" {
		return nil, errors.New("unexpected tool_call")
	}
	switch params["query"] {
	case "many":
		return manyHits(params["limit"])
	case "copies":
		return copiesHits()
	}
	hit := map[string]any{"uri": reportURI, "title": "Annual report 2026", "page": 2, "element_id": "t2", "category": "Title",
		"snippet": "Regional \x1b[31mdetails of revenue", "match": []map[string]int{{"start": 20, "end": 27}}, "score": 3.5}
	return json.Marshal(map[string]any{"structuredContent": map[string]any{"hits": []any{hit}, "total": 1,
		"indexed": map[string]any{"documents_indexed": 4, "documents_total": 4, "complete": true}}})
}

func TestFinder_FindsAcrossTheOfficeAndOpensAtTheHit(t *testing.T) {
	fa := newFakeAgent(t)
	s := start80(t, testOptions(fa))
	s.waitFor("2 enabled")
	s.keys("F")
	s.waitFor("search /")
	s.typeText("revenue")
	s.keys("enter")
	s.waitFor("build-box: no Finder")
	s.waitFor("laptop: 1")
	s.idle()
	f := s.frame()
	if strings.ContainsRune(f, '\x1b') {
		t.Fatalf("escape sequence reached the screen:\n%q", f)
	}
	if !strings.Contains(f, "Annual report 2026 › p2") || !strings.Contains(f, "revenue") {
		t.Fatalf("hit not listed:\n%s", f)
	}
	golden.RequireEqual(t, normalize(f))
	s.keys("enter")
	s.waitFor("page 2/3")
	s.waitFor("Regional details")
	s.final()
}

// TestFinder_SlashOpensAnEmptyPrompt: the hint matches the open prompt,
// and / after a search opens an empty prompt, so the new
// query is not appended to the old one.
func TestFinder_SlashOpensAnEmptyPrompt(t *testing.T) {
	fa := newFakeAgent(t)
	s := start80(t, testOptions(fa))
	s.waitFor("2 enabled")
	s.keys("F")
	s.waitFor("search /")
	if f := s.frame(); strings.Contains(f, "/ opens the prompt") || !strings.Contains(f, "enter searches") {
		t.Fatalf("hint with the prompt open:\n%s", f)
	}
	s.typeText("revenue")
	s.keys("enter")
	s.waitFor("laptop: 1")
	s.idle()
	s.keys("/")
	s.typeText("details")
	s.keys("enter")
	s.waitFor("Finder · details ·")
	s.idle()
	if f := s.frame(); strings.Contains(f, "revenuedetails") {
		t.Fatalf("the new query was appended to the old one:\n%s", f)
	}
	s.final()
}

// copiesHits answers the query "copies": one element found in three
// identical copies of a document (same title, page, element, snippet), in
// three folders, and one hit elsewhere.
func copiesHits() (json.RawMessage, error) {
	hit := func(uri, title string, page int, score float64) map[string]any {
		return map[string]any{"uri": uri, "title": title, "page": page, "element_id": "e7", "category": "NarrativeText",
			"snippet": "the pump house copies", "match": []map[string]int{{"start": 15, "end": 21}}, "score": score}
	}
	hits := []any{
		hit("dpe://io.github.dpetui.library/ops/handbook.md", "Handbook", 3, 4),
		hit("dpe://io.github.dpetui.library/archive/handbook.md", "Handbook", 3, 4),
		hit("dpe://io.github.dpetui.library/copies/handbook-copy.md", "Handbook", 3, 4),
		hit("dpe://io.github.dpetui.library/notes.md", "Notes", 1, 2),
	}
	return json.Marshal(map[string]any{"structuredContent": map[string]any{"hits": hits, "total": 4,
		"indexed": map[string]any{"documents_indexed": 4, "documents_total": 4, "complete": true}}})
}

// manyHits answers the query "many": 81 matching elements, of which the
// first limit are sent; they alternate between two documents with the
// same title.
func manyHits(limit any) (json.RawMessage, error) {
	n, _ := limit.(int)
	if f, ok := limit.(float64); ok {
		n = int(f)
	}
	n = min(max(n, 1), 81)
	hits := make([]any, 0, n)
	for i := range n {
		uri := "dpe://io.github.dpetui.library/minutes-2025.md"
		if i%2 == 1 {
			uri = "dpe://io.github.dpetui.library/minutes-2026.md"
		}
		hits = append(hits, map[string]any{"uri": uri, "title": "Minutes", "page": 1 + i, "element_id": fmt.Sprintf("e%d", i),
			"category": "NarrativeText", "snippet": "many things", "score": 81.0 - float64(i)})
	}
	return json.Marshal(map[string]any{"structuredContent": map[string]any{"hits": hits, "total": 81,
		"indexed": map[string]any{"documents_indexed": 4, "documents_total": 4, "complete": true}}})
}

// TestFinder_ShowsTotalLoadsMoreAndNamesFiles: the header says how many
// of the total are listed, m asks for more (bounded), and hits whose
// documents share a title show their file names.
func TestFinder_ShowsTotalLoadsMoreAndNamesFiles(t *testing.T) {
	fa := newFakeAgent(t)
	s := start80(t, testOptions(fa))
	s.waitFor("2 enabled")
	s.keys("F")
	s.waitFor("search /")
	s.typeText("many")
	s.keys("enter")
	s.waitFor("20 of 81 hits")
	s.idle()
	f := s.frame()
	if !strings.Contains(f, "Minutes (minutes-2025.md)") || !strings.Contains(f, "Minutes (minutes-2026.md)") {
		t.Fatalf("same-title hits without file names:\n%s", f)
	}
	s.keys("m")
	s.waitFor("40 of 81 hits")
	for range 3 {
		s.idle()
		s.keys("m")
	}
	s.waitFor("81 hits")
	s.idle()
	if f := s.frame(); strings.Contains(f, " of 81") {
		t.Fatalf("all 81 should be listed:\n%s", f)
	}
}

// After opening a Finder hit the document searches for it: the hit's word
// is marked on the page, the current match is the opened hit (not the
// document's first), and n/N walk on from there (n said "no search").
func TestFinder_OpenedHitIsSearchedSoNWalksOnAndThePageMarksIt(t *testing.T) {
	fa := newFakeAgent(t)
	m := newTestModel(t, fa)
	listOffice(t, m)
	press(t, m, "F")
	for _, r := range "revenue" {
		press(t, m, string(r))
	}
	press(t, m, "enter")
	f := findScreen[*finderScreen](m)
	if f == nil || len(f.hits) == 0 || f.hits[0].Page != 2 {
		t.Fatalf("the Finder should list the hit on page 2: %+v", f)
	}
	press(t, m, "enter")
	d := m.docS()
	if d == nil || d.page != 1 {
		t.Fatalf("the hit did not open at page 2 (%v)", d)
	}
	if d.search.query != "revenue" || d.search.cur < 0 || d.search.hits[d.search.cur].page != 1 {
		t.Fatalf("the document does not search for the hit from page 2: %+v", d.search)
	}
	match := cursorSGR(m.e.renderer.Theme().Match)
	if raw := m.view().Content; !strings.Contains(raw, match+"revenue") && !strings.Contains(raw, match+"Revenue") {
		t.Fatalf("the hit's word is not marked on the page:\n%q", raw)
	}
	press(t, m, "n")
	if d.page != 2 || strings.Contains(m.statusText(), "no search") {
		t.Fatalf("n after the hit: page %d, status %q; want page 3", d.page+1, m.statusText())
	}
	press(t, m, "N", "N")
	if d.page != 0 {
		t.Fatalf("N N from page 3 should reach the match on page 1, at page %d", d.page+1)
	}
}

// Identical copies of a document come back as one row naming the copies,
// not as three rows of the same text; enter opens the best placed one.
func TestFinder_IdenticalCopiesAreOneRow(t *testing.T) {
	fa := newFakeAgent(t)
	s := start80(t, testOptions(fa))
	s.waitFor("2 enabled")
	s.keys("F")
	s.waitFor("search /")
	s.typeText("copies")
	s.keys("enter")
	s.waitFor("laptop: 4")
	s.idle()
	f := s.frame()
	if n := strings.Count(f, "Handbook"); n != 1 || !strings.Contains(f, "+2 identical copies (handbook.md, handbook-copy.md)") {
		t.Fatalf("the copies are not one row (%d rows say Handbook):\n%s", n, f)
	}
	if !strings.Contains(f, "Notes") {
		t.Fatalf("the other hit is missing:\n%s", f)
	}
	golden.RequireEqual(t, normalize(f))
	s.final()
}

// n and N after opening a Finder hit go on from the hit even while the
// document's search has not reached it (in a 300-page manual n went to
// the first match of page 1).
func TestFinder_NBeforeTheSearchReachesTheHitGoesOnFromIt(t *testing.T) {
	m := openJSON(t, 80, 24, twoPageTableDoc())
	d := m.docS()
	run(t, m, d.gotoPage(1, 0))
	d.search = searchState{query: "a", cur: -1, running: true, near: &nearHit{page: 1}, hits: []hit{{page: 0, el: 0}}}
	press(t, m, "n")
	if d.page != 1 || !strings.Contains(m.statusText(), "still searching up to this place") {
		t.Fatalf("n before the search reached the hit: page %d, status %q", d.page+1, m.statusText())
	}
	press(t, m, "N")
	if d.page != 0 || d.search.cur != 0 {
		t.Fatalf("N should go to the match before the hit: page %d cur %d", d.page+1, d.search.cur)
	}
	d.search.cur = -1
	d.search.hits = append(d.search.hits, hit{page: 1, el: 0}, hit{page: 1, el: 0, start: 1, end: 2})
	run(t, m, d.gotoPage(1, 0))
	press(t, m, "n")
	if d.search.cur != 2 {
		t.Fatalf("n from the hit should take the match after it, cur %d", d.search.cur)
	}
}
