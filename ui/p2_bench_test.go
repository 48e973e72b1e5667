package ui

import (
	"sort"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/dpegen"
)

// P2 (docs/performance.md): the cost of one keystroke (Update + View) while scrolling
// document (b), a 10,000-row × 12-column table, at 200×60. Every keystroke
// is timed on its own and the p50/p99 are reported as metrics; nothing is
// asserted (scripts/bench compares p99 with one 16 ms frame).

func docB(tb testing.TB) *dpe.Opened {
	tb.Helper()
	raw := dpegen.Document(dpegen.PresetB())
	d, err := dpe.Decode(raw, dpe.DefaultLimits())
	if err != nil {
		tb.Fatal(err)
	}
	return &dpe.Opened{Kind: dpe.KindDocument, Doc: d, Body: raw}
}

func benchKeystrokes(b *testing.B, keys []string, perRun int) {
	m := openForBench(b, 200, 60, docB(b))
	_ = m.view() // the first frame parses the table and fills the caches
	var samples []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := 0; j < perRun; j++ {
			k := keyMsg(keys[(j/(perRun/len(keys)))%len(keys)])
			t0 := time.Now()
			m.update(k)
			_ = m.view()
			samples = append(samples, time.Since(t0))
		}
	}
	b.StopTimer()
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	pct := func(p float64) float64 {
		return float64(samples[int(p*float64(len(samples)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(len(samples)), "keystrokes")
}

// BenchmarkP2_ScrollLines: 2,000 keystrokes down then 2,000 up, line by line.
func BenchmarkP2_ScrollLines(b *testing.B) { benchKeystrokes(b, []string{"down", "up"}, 4000) }

// BenchmarkP2_ScrollPages: 300 page-downs then 300 page-ups.
func BenchmarkP2_ScrollPages(b *testing.B) { benchKeystrokes(b, []string{"pgdown", "pgup"}, 600) }
