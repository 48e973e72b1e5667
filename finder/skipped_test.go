package finder

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
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
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
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
