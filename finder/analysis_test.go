package finder

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"

	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// TestWords_AgreesWithUnicodeTokenizerOnASCII: the hand-written ASCII path
// of the text tokenizer cuts the same words at the same offsets as bleve's
// unicode tokenizer, so the index means what the standard analyzer would.
func TestWords_AgreesWithUnicodeTokenizerOnASCII(t *testing.T) {
	uni := unicodetok.NewUnicodeTokenizer()
	w := words{uni: uni}
	for _, s := range []string{
		"The Lantern Creek intake was commissioned in May.",
		"station\tflow\nriverbend\t12\nquarry\t7",
		"don't stop: it's 3.14, 1,000,000 or 2;5 -- e.g. U.S.A. (x:y)",
		"snake_case v1.2 0x1F a.b. foo--bar 'quoted' trailing' 'lead",
		"  leading and trailing spaces  ",
		"",
	} {
		got, want := w.Tokenize([]byte(s)), uni.Tokenize([]byte(s))
		render := func(ts []string) string { return strings.Join(ts, "|") }
		var g, u []string
		for _, tk := range got {
			g = append(g, fmt.Sprintf("%s@%d-%d#%d", tk.Term, tk.Start, tk.End, tk.Position))
		}
		for _, tk := range want {
			u = append(u, fmt.Sprintf("%s@%d-%d#%d", tk.Term, tk.Start, tk.End, tk.Position))
		}
		if render(g) != render(u) {
			t.Errorf("%q:\n got  %s\n want %s", s, render(g), render(u))
		}
	}
	// Text with any non-ASCII byte goes to the unicode tokenizer itself.
	if got := w.Tokenize([]byte("café 社区")); len(got) != len(uni.Tokenize([]byte("café 社区"))) {
		t.Errorf("non-ASCII text not delegated: %d tokens", len(got))
	}
}

func TestHasCJK(t *testing.T) {
	for s, want := range map[string]bool{
		"plain English": false, "café, naïve — Ünïcode": false, "社区图书馆": true,
		"週末の開館時間": true, "ひらがな": true, "カタカナ": true, "한국어": true, "mixed 図書 text": true, "ｆｕｌｌ": true,
	} {
		if got := hasCJK(s); got != want {
			t.Errorf("hasCJK(%q) = %v", s, got)
		}
	}
}

// TestFind_MultiTermClausesAndStems: prefix, wildcard and regexp clauses
// are constant-score and still highlight what they matched; stems match
// across forms; a Japanese phrase is found through the cjk field that only
// elements with CJK text carry.
func TestFind_MultiTermClausesAndStems(t *testing.T) {
	docs := append(corpus(), testDoc("dpe://t.example/hours", "開館", "markdown", "", nil,
		page{{"h1", "Opening hours"}, {"h2", "週末の開館時間は午前十時からです。"}}))
	f := newFinder(t, Options{Source: staticSource(docs)})
	cases := []struct {
		query, uri, element, match string
	}{
		{"commiss*", "dpe://t.example/report", "p2e2", "commissioned"},
		{"river?end", "dpe://t.example/table", "t1", "riverbend"},
		{"/qu[a-z]+y/", "dpe://t.example/table", "t1", "quarry"},
		{"regions", "dpe://t.example/report", "p2e1", "region"},
		{`"週末の開館時間"`, "dpe://t.example/hours", "h2", "週末の開館時間"},
	}
	for _, tc := range cases {
		res := find(t, f, FindParams{Query: tc.query})
		if len(res.Hits) == 0 {
			t.Errorf("%s: no hits", tc.query)
			continue
		}
		h := res.Hits[0]
		if h.URI != tc.uri || h.ElementID != tc.element || len(h.Match) == 0 {
			t.Errorf("%s: first hit %s %s match %v", tc.query, h.URI, h.ElementID, h.Match)
			continue
		}
		r := []rune(h.Snippet)
		if got := string(r[h.Match[0].Start:h.Match[0].End]); !strings.HasPrefix(got, tc.match) {
			t.Errorf("%s: span covers %q of %q, want %q", tc.query, got, h.Snippet, tc.match)
		}
	}
	// Constant score: every element a prefix matches ranks the same.
	many := newFinder(t, Options{Source: staticSource(manyDocs(30))})
	res := find(t, many, FindParams{Query: "comm*", Limit: 30})
	if res.Total != 30 {
		t.Fatalf("comm*: total %d, want 30", res.Total)
	}
	for _, h := range res.Hits {
		if h.Score != res.Hits[0].Score {
			t.Fatalf("comm*: scores differ: %v and %v", res.Hits[0].Score, h.Score)
		}
	}
	// An English element carries no cjk field: a cjk-only query misses it.
	if res := find(t, f, FindParams{Query: "cjk:riverbend"}); res.Total != 0 {
		t.Errorf("an ASCII element was indexed in the cjk field: %+v", res.Hits)
	}
}

// TestStart_HoldsTheBuildAndBackgroundCompletes: with Options.Start the
// source is not even listed until Start is closed; a Background build of
// several batches then indexes everything.
func TestStart_HoldsTheBuildAndBackgroundCompletes(t *testing.T) {
	docs := manyDocs(250)
	var listed atomic.Int64
	start := make(chan struct{})
	f, err := New(Options{Start: start, Background: true, batch: 100, Source: func(context.Context) ([]Doc, error) {
		listed.Add(1)
		return docs, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := f.Wait(short); err == nil {
		t.Fatal("the build completed before Start was closed")
	}
	if n := listed.Load(); n != 0 {
		t.Fatalf("source listed %d times before Start", n)
	}
	if res := find(t, f, FindParams{Query: "common"}); res.Total != 0 || res.Indexed.Indexed != 0 {
		t.Fatalf("before Start: %+v", res)
	}
	close(start)
	ctx, cancel2 := context.WithTimeout(context.Background(), testbudget.Left(t, time.Minute))
	defer cancel2()
	if err := f.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if res := find(t, f, FindParams{Query: "common"}); res.Total != len(docs) || !res.Indexed.Complete {
		t.Fatalf("after the background build: total %d, %s", res.Total, res.Indexed)
	}
}

// TestClose_WhileWaitingForStart returns at once and leaves no builder.
func TestClose_WhileWaitingForStart(t *testing.T) {
	f, err := New(Options{Start: make(chan struct{}), Source: staticSource(corpus())})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- f.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close hangs while the build waits for Start")
	}
}

// TestBuild_ElementsShareNoBuffers: bleve analyzes the records of a batch
// on several goroutines and lower-cases unstored text in place, so no two
// records may share a field's bytes (run with -race: the title of one
// document is on all its elements).
func TestBuild_ElementsShareNoBuffers(t *testing.T) {
	var docs []Doc
	for d := range 60 {
		var pg page
		for i := range 50 {
			pg = append(pg, [2]string{fmt.Sprintf("e%d", i), fmt.Sprintf("Element Number %d of ÄÖÜ %d", i, d)})
		}
		docs = append(docs, testDoc(fmt.Sprintf("dpe://t.example/big%d", d), fmt.Sprintf("Shared UPPER Title %d", d), "pdf", "", nil, pg))
	}
	f := newFinder(t, Options{Source: staticSource(docs)})
	if res := find(t, f, FindParams{Query: "title:upper"}); res.Total != 60*50 {
		t.Fatalf("title:upper: total %d, want %d", res.Total, 60*50)
	}
	if h := find(t, f, FindParams{Query: "title:7 AND number"}).Hits[0]; h.Title != "Shared UPPER Title 7" {
		t.Fatalf("title of a hit %q", h.Title)
	}
}
