package ui

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// editedReport is the annual report as served the second time: one
// element of page 2 edited and one appended, the rest as it was.
func editedReport(t *testing.T) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(reportJSON(t), &doc); err != nil {
		t.Fatal(err)
	}
	p2 := doc["pages"].([]any)[1].(map[string]any)
	els := p2["elements"].([]any)
	els[1].(map[string]any)["text"] = "South revenue recovered after Q2."
	p2["elements"] = append(els, map[string]any{"element_id": "n9", "category": "NarrativeText", "text": "A new closing remark."})
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDiff_RefetchShowsChangedPagesDeltaAndWalksChanges: the resolver
// serves another version on the second fetch; D marks page 2 ±, says the
// delta, and n walks to the edited element (changed, its old text shown)
// and the added one.
func TestDiff_RefetchShowsChangedPagesDeltaAndWalksChanges(t *testing.T) {
	f := newFakeAgent(t)
	s := start80(t, testOptions(f))
	s.toDocument()
	s.idle()
	f.mu.Lock()
	resolvedBefore := f.resolved
	f.mu.Unlock()
	if err := os.WriteFile(f.docs[reportURI], editedReport(t), 0o644); err != nil {
		t.Fatal(err)
	}
	s.keys("D")
	s.waitFor("changed: +2 −1")
	s.idle()
	f.mu.Lock()
	if f.resolved <= resolvedBefore {
		t.Errorf("D did not call get_dpe again (%d resolves before, %d after)", resolvedBefore, f.resolved)
	}
	f.mu.Unlock()
	frame := s.frame()
	if !strings.Contains(frame, "±  2 Details") {
		t.Errorf("page 2 is not marked ±:\n%s", frame)
	}
	if strings.Contains(frame, "±  1 Overview") || strings.Contains(frame, "±  3 Appendix") {
		t.Errorf("an unchanged page is marked ±:\n%s", frame)
	}
	s.keys("n")
	// The edited paragraph is one element changed, its old text under
	// it; it was "added", the old text nowhere.
	s.waitFor("change 1/2: changed")
	s.waitFor("page 2/3")
	s.waitFor("recovered after Q2.")
	s.waitFor("was: South revenue recovered after Q1.")
	frame = s.frame()
	if !strings.Contains(frame, "± South revenue recovered after Q2.") && !strings.Contains(frame, "▌±South revenue recovered after Q2.") {
		t.Errorf("the edited element is not marked changed in the gutter:\n%s", frame)
	}
	golden.RequireEqual(t, normalize(maskDir(frame, f)))
	s.keys("n")
	s.waitFor("change 2/2: added")
	s.waitFor("A new closing remark.")
	s.keys("N")
	s.waitFor("change 1/2")
	s.keys("esc")
	s.waitFor("comparison cleared")
	if frame := s.frame(); strings.Contains(frame, "±") {
		t.Errorf("esc left the ± marks:\n%s", frame)
	}
	s.final()
}

// TestDiff_IdenticalRefetchSaysIdentical: the same bytes served again
// are said to be identical, and leave no comparison mode behind: n is
// not "next change" (it answered "no changed element on screen" and took
// the search's key), the footer does not offer the changes, and one esc
// leaves the document.
func TestDiff_IdenticalRefetchSaysIdentical(t *testing.T) {
	f := newFakeAgent(t)
	s := start80(t, testOptions(f))
	s.toDocument()
	s.idle()
	s.keys("D")
	s.waitFor("identical (doc_hash dpe1:")
	if frame := s.frame(); strings.Contains(frame, "±") {
		t.Errorf("an identical refetch marked pages:\n%s", frame)
	}
	if frame := s.frame(); strings.Contains(frame, "next change") {
		t.Errorf("an identical refetch offers the changes:\n%s", frame)
	}
	s.keys("n")
	s.waitFor("no search: press / to search all pages")
	s.final()
}

// TestIdentity_InspectorShowsContentAndPageHash: the inspector of an
// element shows its content_hash and its page's page_hash; the manifest
// page not loaded yet leaves the doc_hash uncomputed and says so.
func TestIdentity_InspectorShowsContentAndPageHash(t *testing.T) {
	f := newFakeAgent(t)
	s := start80(t, testOptions(f))
	s.toDocument()
	s.idle()
	s.keys(".")
	s.waitFor("Identity (dpe1)")
	s.waitUntil("hashes", func(fr string) bool {
		return strings.Count(fr, "dpe1:") >= 2 && strings.Contains(fr, "page not loaded")
	})
	fr := s.frame()
	for _, want := range []string{"content_hash", "page_hash", "doc_hash"} {
		if !strings.Contains(fr, want) {
			t.Errorf("inspector lacks %s:\n%s", want, fr)
		}
	}
	s.final()
}

// TestDiff_UnhashableUnchangedIsNotChanged: D on a document that dpe1
// cannot hash (file_type outside the enum) and that did not change says
// so, never "changed".
func TestDiff_UnhashableUnchangedIsNotChanged(t *testing.T) {
	f := newFakeAgent(t)
	var doc map[string]any
	if err := json.Unmarshal(reportJSON(t), &doc); err != nil {
		t.Fatal(err)
	}
	doc["file_type"] = "Not A Type" // outside the open file_type rule ^[a-z0-9][a-z0-9_]{0,31}$
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.docs[reportURI], b, 0o644); err != nil {
		t.Fatal(err)
	}
	s := start80(t, testOptions(f))
	s.toDocument()
	s.idle()
	s.keys("D")
	s.waitFor("no change found")
	if frame := s.frame(); strings.Contains(frame, "changed: +") || !strings.Contains(frame, "not hashable") {
		t.Errorf("unchanged unhashable document:\n%s", frame)
	}
}

// D names the doc_metadata fields that changed (it said only
// "doc_metadata changed"): ~ changed, + added, - removed.
func TestDiff_NamesTheMetadataFieldsThatChanged(t *testing.T) {
	f := newFakeAgent(t)
	s := start80(t, testOptions(f))
	s.toDocument()
	s.idle()
	var doc map[string]any
	if err := json.Unmarshal(reportJSON(t), &doc); err != nil {
		t.Fatal(err)
	}
	meta, _ := doc["doc_metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	old := map[string]any{}
	for k, v := range meta {
		old[k] = v
	}
	doc["doc_metadata"] = meta
	meta["revision"] = "7"
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.docs[reportURI], b, 0o644); err != nil {
		t.Fatal(err)
	}
	s.keys("D")
	s.waitFor("doc_metadata changed (+revision)")
	s.final()
	if _, had := old["revision"]; had {
		t.Fatal("the fixture already had a revision")
	}
}
