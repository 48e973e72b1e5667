package dpe_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/dpegen"
)

// Issue 5 benchmarks. Each P-benchmark times the contender and its
// yardstick in the same loop and reports their ratio ("ratio" metric), so
// a noisy shared machine affects both alike. Run:
//
//	go test -run '^$' -bench . -benchtime 5x ./dpe/
//
// CI runs them once (-benchtime=1x); they never assert times.

func docA(b *testing.B) []byte {
	b.Helper()
	data := dpegen.Document(dpegen.PresetA())
	b.SetBytes(int64(len(data)))
	return data
}

// BenchmarkP1_FirstPageVsUnmarshalAny: Decode + first page decoded, ÷
// json.Unmarshal of the whole file into any. Target ≤ 0.5.
func BenchmarkP1_FirstPageVsUnmarshalAny(b *testing.B) {
	data := docA(b)
	var ours, yard time.Duration
	for b.Loop() {
		t0 := time.Now()
		d, err := dpe.Decode(data, dpe.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		if err := d.EnsurePage(0, dpe.Limits{}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		ours += t1.Sub(t0)
		yard += t2.Sub(t1)
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "first-page-ns/op")
	b.ReportMetric(float64(yard.Nanoseconds())/float64(b.N), "unmarshal-any-ns/op")
	b.ReportMetric(float64(ours)/float64(yard), "ratio")
}

func BenchmarkDecode(b *testing.B) {
	data := docA(b)
	for b.Loop() {
		if _, err := dpe.Decode(data, dpe.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeFirstPage(b *testing.B) {
	data := docA(b)
	for b.Loop() {
		d, err := dpe.Decode(data, dpe.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		if err := d.EnsurePage(0, dpe.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalAny(b *testing.B) {
	data := docA(b)
	for b.Loop() {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	data := docA(b)
	d, err := dpe.Decode(data, dpe.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		dpe.Validate(d)
	}
}

// BenchmarkDecodeBigTablePage: document (b), one page holding a
// 10,000 × 12 table, decoded in full.
func BenchmarkDecodeBigTablePage(b *testing.B) {
	data := dpegen.Document(dpegen.PresetB())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		d, err := dpe.Decode(data, dpe.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		if err := d.EnsurePage(0, dpe.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
