package ui

import (
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpev1"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/internal/contentcache"
)

// A remote document's page opens as a page whatever it holds: an empty
// page (no elements) is shown as empty, and a page none of whose
// elements has content here says so, naming the page from 1 — not the
// decoder's "page JSON has no elements array".
func TestRemoteSource_EmptyPageAndPageWithoutContent(t *testing.T) {
	h := wire.HashPrefix + strings.Repeat("ab", 32)
	sk := &dpev1.Skeleton{Document: &wire.Document{FileType: "md"}, Pages: []*wire.Page{{Elements: []string{}}, {Elements: []string{h, h}}}}
	src := &remoteSource{rc: &remoteConn{caps: &wire.Capabilities{}}, sk: sk, lim: dpe.DefaultLimits()}
	pg, err := src.Page(t.Context(), 0)
	if err != nil || len(pg.Elements) != 0 {
		t.Fatalf("empty page: %v, %v", pg, err)
	}
	_, err = src.Page(t.Context(), 1)
	if err == nil || !strings.Contains(err.Error(), "page 2: none of its 2 elements has content on this machine") {
		t.Fatalf("page without content: %v", err)
	}
}

// In the document view, a remote page with no content on this machine
// (extension off, nothing cached) says so: no "failed", no "r retries".
func TestRemote_PageWithoutContentIsNoFailure(t *testing.T) {
	tr := newTestRemote(t, false)
	remoteFixture(t, tr)
	s := start(t, remoteOptions(tr, 100, 30))
	s.waitFor("file:///proj/")
	s.keys("enter")
	s.waitFor("notes/")
	s.keys("down", "enter") // c.md: only remote, nothing cached
	s.waitFor("PAGE 1 ELEMENTS")
	s.keys("enter")
	s.waitFor("page 1: none of its 1 element has content on this machine")
	if f := s.frame(); strings.Contains(f, "failed") || strings.Contains(f, "retries") {
		t.Fatalf("a page with no content here is shown as a failure:\n%s", f)
	}
	s.final()
}

// At 80x24 a 9-element page's list ends in how many more it has, and
// the category column holds UncategorizedText whole.
func TestRemote_SkeletonElementsMoreAndWideCategory(t *testing.T) {
	tr := newTestRemote(t, true)
	els := []string{"UncategorizedText", "wide category"}
	for i := range 8 {
		els = append(els, "NarrativeText", "paragraph "+string(rune('a'+i)))
	}
	commitV1(t, tr.c, "file:///nine.md", v1Doc("Nine", "One", els...))
	cache, err := contentcache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr.cache = cache
	s := start(t, remoteOptions(tr, 80, 24))
	s.waitFor("file:///")
	s.keys("enter")
	s.waitFor("nine.md")
	s.keys("enter")
	s.waitFor("wide category")
	f := s.frame()
	if !strings.Contains(f, "more · enter shows the page") {
		t.Fatalf("no more marker on a page cut short:\n%s", f)
	}
	if !strings.Contains(f, "UncategorizedText  dpe1:") || !strings.Contains(f, "NarrativeText      dpe1:") {
		t.Fatalf("the category column is not as wide as its widest category:\n%s", f)
	}
	s.final()
}
