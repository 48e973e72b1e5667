package finder

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// A document the source cannot give (Doc.Err) or that fails to load is
// skipped, not counted as indexed: Status counts it and names it with its
// reason, the readable ones are indexed and found, and a failed document
// is not loaded again while its key is the same (a hostile file is not
// converted on every build).
func TestStatus_CountsAndNamesSkippedDocuments(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	var loads atomic.Int32
	docs := []Doc{
		testDoc("dpe://t.example/good", "Good", "md", "", nil, page{{"e1", "a readable paragraph"}}),
		{URI: "dpe://t.example/listed-bad", Name: "listed-bad.xlsx", Key: "k-listed", Err: "listed-bad.xlsx: output size over the limit: 9 > 8"},
		{URI: "dpe://t.example/load-bad", Name: "load-bad.csv", Key: "k-load", Load: func() ([]byte, error) {
			loads.Add(1)
			return nil, errors.New("load-bad.csv: cell count over the limit: 9 > 8")
		}},
	}
	for round := range 2 {
		f, err := New(Options{Dir: dir, Source: staticSource(docs)})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, time.Minute))
		if err := f.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		st := f.Status()
		if !st.Complete || st.Indexed != 1 || st.Total != 3 || st.Skipped != 2 {
			t.Errorf("round %d: status %+v, want 1 of 3 indexed and 2 skipped", round, st)
		}
		want := "indexed: 1/3 documents; skipped 2 that cannot be read: listed-bad.xlsx (output size over the limit: 9 > 8), load-bad.csv (cell count over the limit: 9 > 8)"
		if got := st.String(); got != want {
			t.Errorf("round %d: %q\nwant %q", round, got, want)
		}
		if res := find(t, f, FindParams{Query: "readable"}); len(res.Hits) != 1 {
			t.Errorf("round %d: %d hits for the readable document", round, len(res.Hits))
		}
		if n := len(f.Documents()); n != 2 {
			t.Errorf("round %d: %d documents listed, want the 2 the source can give", round, n)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("the failing document was loaded %d times, want once for its key", n)
	}
}

// TestStatus_CountsWhatIsSearched: while a changed document is loaded
// again (a slow conversion), its old records are still what a query
// searches, and Status counts it as indexed: a find never says
// "indexed: 0/2" beside the hits it found.
func TestStatus_CountsWhatIsSearched(t *testing.T) {
	a := testDoc("dpe://t.example/a", "A", "markdown", "", nil, page{{"e1", "revenue grew"}})
	b := testDoc("dpe://t.example/b", "B", "markdown", "", nil, page{{"e1", "costs fell"}})
	release := make(chan struct{})
	defer close(release)
	loading := make(chan struct{}, 1)
	changed := b
	changed.Key += "-v2"
	changed.Load = func() ([]byte, error) {
		loading <- struct{}{}
		<-release
		return nil, errors.New("stopped")
	}
	var mu sync.Mutex
	docs := []Doc{a, b}
	f := newFinder(t, Options{Source: func(context.Context) ([]Doc, error) {
		mu.Lock()
		defer mu.Unlock()
		return docs, nil
	}})
	if st := f.Status(); st.Indexed != 2 || st.Total != 2 {
		t.Fatalf("first build: %+v", st)
	}
	mu.Lock()
	docs = []Doc{a, changed}
	mu.Unlock()
	f.Rescan()
	<-loading
	res := find(t, f, FindParams{Query: "revenue costs"})
	if res.Total != 2 || res.Indexed.Indexed != 2 || res.Indexed.Complete {
		t.Errorf("during the rebuild: %d hits, %+v; want 2 hits of 2 indexed documents, incomplete", res.Total, res.Indexed)
	}
}
