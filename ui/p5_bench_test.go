package ui

import (
	"bytes"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/dpegen"
)

// BenchmarkP5_UISearchRareWordVsBytesIndex is the P5 figure on the path
// the browser runs: `/` for a rare word across every page of document (a)
// (51 MB, 2,000 pages), through the document screen's own search (page
// prefilter, then decoding only candidate pages), ÷ bytes.Index of the word
// over the whole file. Target ≤ 1.5.
func BenchmarkP5_UISearchRareWordVsBytesIndex(b *testing.B) {
	preset := dpegen.PresetA()
	raw := dpegen.Document(preset)
	b.SetBytes(int64(len(raw)))
	var ours, yard time.Duration
	for b.Loop() {
		b.StopTimer()
		m := openForBench(b, 120, 40, decodedDoc(b, raw))
		d := m.docS()
		b.StartTimer()
		t0 := time.Now()
		run(b, m, d.startSearch(preset.RareWord))
		t1 := time.Now()
		if !bytes.Contains(raw, []byte(preset.RareWord)) {
			b.Fatal("yardstick missed the word")
		}
		t2 := time.Now()
		if len(d.search.hits) != 1 || d.search.scanned != len(d.doc().Pages) {
			b.Fatalf("%d hits after %d of %d pages", len(d.search.hits), d.search.scanned, len(d.doc().Pages))
		}
		ours += t1.Sub(t0)
		yard += t2.Sub(t1)
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "search-ns/op")
	b.ReportMetric(float64(yard.Nanoseconds())/float64(b.N), "bytes-index-ns/op")
	b.ReportMetric(float64(ours)/float64(yard), "ratio")
}
