package dpe_test

import (
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// Check against full decoding, on document (a) (51 MB, 2,000 pages): the
// target is ratio ≤ 1 (checking costs no more than decoding every page).
// Both start from the same bytes and include dpe.Decode.

func decodeFull(b *testing.B, data []byte) *dpe.Document {
	d, err := dpe.Decode(data, dpe.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	for i := range d.Pages {
		if err := d.EnsurePage(i, dpe.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
	return d
}

func check(b *testing.B, data []byte) []dpe.Finding {
	d, err := dpe.Decode(data, dpe.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	return dpe.Check(d, dpe.CheckOptions{})
}

func BenchmarkDecodeFull(b *testing.B) {
	data := docA(b)
	for b.Loop() {
		decodeFull(b, data)
	}
}

func BenchmarkCheck(b *testing.B) {
	data := docA(b)
	for b.Loop() {
		check(b, data)
	}
}

// BenchmarkCheckVsDecodeFull times both in one loop and reports their
// ratio, so a noisy machine affects both alike (scripts/bench prints it).
func BenchmarkCheckVsDecodeFull(b *testing.B) {
	data := docA(b)
	var ours, yard time.Duration
	for b.Loop() {
		t0 := time.Now()
		check(b, data)
		t1 := time.Now()
		decodeFull(b, data)
		t2 := time.Now()
		ours += t1.Sub(t0)
		yard += t2.Sub(t1)
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "check-ns/op")
	b.ReportMetric(float64(yard.Nanoseconds())/float64(b.N), "decode-full-ns/op")
	b.ReportMetric(float64(ours)/float64(yard), "ratio")
}
