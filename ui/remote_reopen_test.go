package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/dpe-tui/dpe-tui/dpev1"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
)

// toRemotePage drives the browser of remoteFixture to a.md's page in the
// document view.
func (s *session) toRemotePage() {
	s.t.Helper()
	s.waitFor("file:///proj/")
	for _, want := range []string{"notes/", "a.md", "PAGE 1 ELEMENTS"} {
		s.idle()
		s.keys("enter")
		s.waitFor(want)
	}
	s.idle()
	s.keys("enter")
	s.waitFor("page 1/1")
	s.waitFor("Alpha")
	s.idle()
}

// TestRemote_RReloadsTheRemoteDocumentInPlace: r on a loaded page of a
// document opened from a remote reads its skeleton again and shows what
// the remote holds now, on the same screen (it used to leave for the
// office, or the connecting screen).
func TestRemote_RReloadsTheRemoteDocumentInPlace(t *testing.T) {
	tr := newTestRemote(t, true)
	remoteFixture(t, tr)
	s := start(t, remoteOptions(tr, 100, 30))
	s.toRemotePage()

	// The document changes on the remote while it is shown.
	base, err := tr.c.Head(context.Background(), "file:///proj/notes/a.md")
	if err != nil {
		t.Fatal(err)
	}
	r := v1Objects(t, v1Doc("Report A", "Intro", "Title", "Alpha revised", "NarrativeText", "a third line"))
	req := &wire.CommitRequest{Document: r.Object}
	for _, p := range r.Pages {
		req.Pages = append(req.Pages, p.Object)
		for _, e := range p.Elements {
			req.Objects = append(req.Objects, e.Object)
		}
	}
	if _, err := tr.c.Commit(context.Background(), "file:///proj/notes/a.md", req, dpev1.Precondition{BaseHash: base.DocHash}); err != nil {
		t.Fatal(err)
	}
	if f := s.frame(); strings.Contains(f, "Alpha revised") {
		t.Fatalf("the new version shows before r:\n%s", f)
	}
	s.keys("r")
	s.waitFor("Alpha revised")
	f := s.frame()
	for _, want := range []string{"a third line", "page 1/1", "DPE v1 file:///proj/notes/"} {
		if !strings.Contains(f, want) {
			t.Errorf("after r the frame lacks %q:\n%s", want, f)
		}
	}
	// Still the document over the skeleton: esc goes back to it.
	s.idle()
	s.keys("esc")
	s.waitFor("PAGE 1 ELEMENTS")
}

// TestRemote_InspectorShowsTheSkeletonsHashes: the inspector on a
// document from a remote shows the skeleton's doc_hash, the page's hash
// and the element's content hash (never "page not loaded" or "not
// hashable") and says what was verified (the fixture caches this
// element). Golden at 80×24.
func TestRemote_InspectorShowsTheSkeletonsHashes(t *testing.T) {
	tr := newTestRemote(t, true)
	remoteFixture(t, tr)
	a := v1Objects(t, v1Doc("Report A \x1b]0;pwned\x07", "Intro", "Title", "Alpha", "NarrativeText", "first line\nsecond line"))
	s := start(t, remoteOptions(tr, 80, 24))
	s.toRemotePage()
	s.keys(".")
	s.waitFor("Identity (dpe1)")
	s.waitFor("verified")
	f := s.frame()
	for _, bad := range []string{"page not loaded", "not hashable", "computing"} {
		if strings.Contains(f, bad) {
			t.Errorf("the inspector says %q:\n%s", bad, f)
		}
	}
	// The inspector wraps long values: compare with the line breaks out.
	flat := strings.Join(strings.Fields(f), "")
	for name, want := range map[string]string{
		"content_hash": string(a.Pages[0].Elements[0].ContentHash),
		"page_hash":    string(a.Pages[0].PageHash),
		"doc_hash":     string(a.DocHash),
	} {
		if !strings.Contains(flat, name+want) {
			t.Errorf("%s %s not shown:\n%s", name, want, f)
		}
	}
	if !strings.Contains(flat, "readfromthismachine'scache,hashestocontent_hash") {
		t.Errorf("the inspector does not say what was verified:\n%s", f)
	}
	golden.RequireEqual(t, s.final())
}

// TestRemote_StateColumnFitsAt80: a folder's counts are whole at 80
// columns, and NAME and DOC HASH keep their room.
func TestRemote_StateColumnFitsAt80(t *testing.T) {
	tr := newTestRemote(t, true)
	remoteFixture(t, tr)
	s := start(t, remoteOptions(tr, 80, 24))
	s.waitFor("file:///proj/")
	s.idle()
	if f := s.frame(); !strings.Contains(f, "4 docs · 1 stale 1 local 1 remote") {
		t.Fatalf("the folder's counts are cut at 80 columns:\n%s", f)
	}
	s.keys("enter")
	s.waitFor("notes/")
	s.idle()
	f := s.frame()
	if !strings.Contains(f, "only remote") || !strings.Contains(f, "dpe1:") {
		t.Fatalf("a document's mark or hash is cut at 80 columns:\n%s", f)
	}
	for _, l := range strings.Split(f, "\n") {
		if len([]rune(l)) > 80 {
			t.Fatalf("a line is wider than 80 columns: %q", l)
		}
	}
}
