package ui

import (
	"errors"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// The document screen's parts hold their rules on their own: these drive
// each part as the screen does, without a screen.

func TestSearchState_StepWrapsAndSaysSo(t *testing.T) {
	s := searchState{hits: []hit{{page: 0, el: 1}, {page: 2, el: 0}, {page: 2, el: 3}}, cur: 2}
	if !s.step(+1) || s.cur != 0 {
		t.Fatalf("n from the last match: cur %d, want 0 and wrapped", s.cur)
	}
	if s.step(+1) || s.cur != 1 {
		t.Fatalf("n from the first: cur %d, want 1, not wrapped", s.cur)
	}
	s.cur = 0
	if !s.step(-1) || s.cur != 2 {
		t.Fatalf("N from the first: cur %d, want 2 and wrapped", s.cur)
	}
	one := searchState{hits: []hit{{}}, cur: 0}
	if one.step(+1) {
		t.Fatal("one match: n goes nowhere else, no wrap to say")
	}
}

func TestSearchState_AtOrAfterFindsTheElementByID(t *testing.T) {
	ps := docPages{pages: []pageUI{{}, {p: &dpe.Page{Elements: []*dpe.Element{{ID: "a"}, {ID: "b"}, {ID: "c"}}}}}}
	s := searchState{hits: []hit{{page: 0, el: 4}, {page: 1, el: 0}, {page: 1, el: 2}}}
	// The id names element 2 though the place's index says 0.
	if i := s.atOrAfter(&ps, nearHit{page: 1, elementID: "c", el: 0}); i != 2 {
		t.Fatalf("at c: hit %d, want 2", i)
	}
	if i := s.atOrAfter(&ps, nearHit{page: 1, el: 1}); i != 2 {
		t.Fatalf("at index 1 of page 2: hit %d, want 2", i)
	}
	if i := s.atOrAfter(&ps, nearHit{page: 3}); i != -1 {
		t.Fatalf("past the last hit: %d, want -1", i)
	}
	if i := s.firstFrom(&ps, nearHit{page: 3}, true); i != 2 {
		t.Fatalf("past the last hit, search done: %d, want the last (2)", i)
	}
	if i := s.firstFrom(&ps, nearHit{page: 3}, false); i != -1 {
		t.Fatalf("past the last hit, still searching: %d, want -1", i)
	}
}

func TestSearchState_AddStopsAtMaxHits(t *testing.T) {
	var s searchState
	s.add(make([]hit, maxHits-1), 3)
	s.add(make([]hit, 5), 4)
	if len(s.hits) != maxHits || !s.capped || s.scanned != 4 {
		t.Fatalf("hits %d capped %v scanned %d, want %d true 4", len(s.hits), s.capped, s.scanned, maxHits)
	}
}

func TestDocPages_FailuresAndOfflineRetry(t *testing.T) {
	ps := docPages{pages: make([]pageUI, 3), failedOffline: map[int]bool{}}
	ps.markLoading([]int{0, 1, 2}, 7, true)
	if ps.loadOp != 7 || !ps.pages[1].loading {
		t.Fatalf("loadOp %d loading %v", ps.loadOp, ps.pages[1].loading)
	}
	if ps.failed(0, errors.New("connection lost"), true) != true {
		t.Fatal("a lost connection is a failure to report")
	}
	if ps.failed(1, &noContentError{}, true) {
		t.Fatal("content not on this machine is no failure")
	}
	ps.keep(2, &dpe.Page{})
	ps.loadEnded(7)
	if ps.loadOp != 0 {
		t.Fatal("the shown page's load ended")
	}
	idx := ps.takeOffline()
	if len(idx) != 1 || idx[0] != 0 || ps.pages[0].err != "" || len(ps.failedOffline) != 0 {
		t.Fatalf("offline retry: %v err %q left %v", idx, ps.pages[0].err, ps.failedOffline)
	}
	if !ps.pages[1].noContent || ps.failedOffline[1] {
		t.Fatal("page 2 keeps its no-content mark and is not retried")
	}
}

func TestImageLoader_ChargeNamesTheBudget(t *testing.T) {
	var l imageLoader
	l.pageUsed = map[int]int64{}
	if p := l.charge(0, 600, 1000, 1500); p != "" {
		t.Fatalf("first image: %q", p)
	}
	if p := l.charge(0, 600, 1000, 1500); !strings.Contains(p, "page pixel budget") {
		t.Fatalf("over the page budget: %q", p)
	}
	if p := l.charge(1, 600, 1000, 1500); p != "" {
		t.Fatalf("another page: %q", p)
	}
	if p := l.charge(2, 600, 1000, 1500); !strings.Contains(p, "document pixel budget") {
		t.Fatalf("over the document budget: %q", p)
	}
	if l.inflight != 2 || l.decodes != 2 {
		t.Fatalf("inflight %d decodes %d, want 2 2", l.inflight, l.decodes)
	}
}
