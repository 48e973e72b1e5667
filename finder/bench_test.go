package finder

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	dpegen "github.com/dpe-tui/dpe-tui/internal/dpegen"
)

// Benchmark corpus: 1,000 generated documents of 10 pages (20 elements of
// about 300 bytes each, a table every 4th page), each with one rare word
// on page 7 (dpegen counts pages from 0).
const (
	benchDocs  = 1000
	benchPages = 10
)

func benchCorpus() []Doc {
	docs := make([]Doc, benchDocs)
	for i := range docs {
		ref := fmt.Sprintf("gen-%04d", i)
		o := dpegen.Options{Pages: benchPages, Seed: uint64(i), DocRef: ref, Host: "bench.example",
			TableEvery: 4, RareWord: fmt.Sprintf("zephyr%04d", i), RarePage: 6}
		data := dpegen.Document(o)
		docs[i] = Doc{URI: "dpe://bench.example/" + ref, Name: ref, Title: "Generated " + ref, FileType: "pdf",
			PageCount: benchPages, Key: ref, Load: func() ([]byte, error) { return data, nil }}
	}
	return docs
}

func buildBench(b *testing.B, docs []Doc) *Finder {
	b.Helper()
	f, err := New(Options{Source: staticSource(docs)})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if err := f.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	if st := f.Status(); st.Indexed != benchDocs {
		b.Fatalf("indexed %s", st)
	}
	return f
}

// BenchmarkBuild1000x10 is the time to index the whole corpus (in memory,
// the embedded demo's mode; the on-disk index differs by its fsyncs).
func BenchmarkBuild1000x10(b *testing.B) {
	docs := benchCorpus()
	b.ResetTimer()
	for b.Loop() {
		f := buildBench(b, docs)
		b.StopTimer()
		_ = f.Close()
		b.StartTimer()
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/build")
}

// BenchmarkFind1000x10 measures find on the built corpus over a mix of
// queries (a rare word, a common word, a phrase, a prefix, a filtered
// query) and reports the latency percentiles of single calls.
func BenchmarkFind1000x10(b *testing.B) {
	f := buildBench(b, benchCorpus())
	defer func() { _ = f.Close() }()
	ctx := context.Background()
	queries := []FindParams{
		{Query: "zephyr0421"},
		{Query: "kalo"},
		{Query: `"ka lo"`},
		{Query: "shi*"},
		{Query: "den par", FileType: "pdf", Limit: 50},
	}
	// Check once that the rare word opens at its place.
	res, err := f.Find(ctx, queries[0])
	if err != nil || len(res.Hits) == 0 || res.Hits[0].URI != "dpe://bench.example/gen-0421" || res.Hits[0].Page != 7 {
		b.Fatalf("rare word: %v %+v", err, res)
	}
	var lat []time.Duration
	b.ResetTimer()
	i := 0
	for b.Loop() {
		t0 := time.Now()
		if _, err := f.Find(ctx, queries[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		i++
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
