package finder

import (
	"context"
	"fmt"
	"os"
	"sort"
	"syscall"
	"testing"
	"time"

	dpegen "github.com/dpe-tui/dpe-tui/internal/dpegen"
)

// Benchmark corpus: generated documents of 10 pages (20 elements of about
// 300 bytes each, a table every 4th page), each with one rare word on
// page 7 (dpegen counts pages from 0). CI runs every benchmark once, so
// the default corpus is 200 documents; DPE_BENCH_FULL=1 runs the 1,000 of
// the numbers of docs/performance.md. ms/doc makes the two comparable.
const (
	benchDocsCI   = 200
	benchDocsFull = 1000
	benchPages    = 10
)

func benchDocs() int {
	if os.Getenv("DPE_BENCH_FULL") != "" {
		return benchDocsFull
	}
	return benchDocsCI
}

func benchCorpus() []Doc {
	docs := make([]Doc, benchDocs())
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
	if st := f.Status(); st.Indexed != len(docs) {
		b.Fatalf("indexed %s", st)
	}
	return f
}

// BenchmarkBuild1000x10 is the time to index the whole corpus (in memory,
// the embedded demo's mode; the on-disk index differs by its fsyncs).
func BenchmarkBuild1000x10(b *testing.B) {
	docs := benchCorpus()
	var cpu time.Duration
	b.ResetTimer()
	for b.Loop() {
		c0 := cpuTime(b)
		f := buildBench(b, docs)
		cpu += cpuTime(b) - c0
		b.StopTimer()
		_ = f.Close()
		b.StartTimer()
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/build")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/build")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/float64(len(docs)), "ms/doc")
	b.ReportMetric(float64(len(docs)), "docs")
}

// BenchmarkFind1000x10 measures find on the built corpus over a mix of
// queries (a rare word, a common word, a phrase, a prefix, a filtered
// query) and reports the latency percentiles of single calls.
func BenchmarkFind1000x10(b *testing.B) {
	f := buildBench(b, benchCorpus())
	defer func() { _ = f.Close() }()
	ctx := context.Background()
	queries := []FindParams{
		{Query: "zephyr0142"},
		{Query: "kalo"},
		{Query: `"ka lo"`},
		{Query: "shi*"},
		{Query: "den par", FileType: "pdf", Limit: 50},
	}
	// Check once that the rare word opens at its place.
	res, err := f.Find(ctx, queries[0])
	if err != nil || len(res.Hits) == 0 || res.Hits[0].URI != "dpe://bench.example/gen-0142" || res.Hits[0].Page != 7 {
		b.Fatalf("rare word: %v %+v", err, res)
	}
	var lat []time.Duration
	b.ResetTimer()
	c0 := cpuTime(b)
	i := 0
	for b.Loop() {
		t0 := time.Now()
		if _, err := f.Find(ctx, queries[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		i++
	}
	cpu := cpuTime(b) - c0
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(lat)), "cpu-ms/find")
}

// cpuTime is the process's user and system CPU time so far: the
// benchmarks report it beside wall time, which a loaded machine
// stretches while the CPU a build or a query costs stays put.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
