package dpe_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/dpegen"
)

// The performance figures (docs/performance.md). Each P-benchmark times the contender and its
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

// BenchmarkP1_FirstPageVsUnmarshalAny: the shipped open path (Opener,
// file:// fetch of (a) from a temp file) until its first page is decoded
// and handed over (OnFirstPage, what the TUI shows), ÷ json.Unmarshal of
// the whole file, already in memory, into any. Target ≤ 0.10. The open
// itself goes on reading, scanning and indexing the rest: whole-open-ns
// is that (the "validating…" time), reported beside it.
func BenchmarkP1_FirstPageVsUnmarshalAny(b *testing.B) {
	data := docA(b)
	path := filepath.Join(b.TempDir(), "a.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	var ours, whole, yard time.Duration
	for b.Loop() {
		var t1 time.Time
		o := &dpe.Opener{Fetcher: &dpe.Fetcher{AllowFile: true}, OnFirstPage: func(op *dpe.Opened) {
			if len(op.Doc.Pages) == 1 && op.Doc.Pages[0].Decoded {
				t1 = time.Now()
			}
		}}
		t0 := time.Now()
		op, err := o.OpenAccess(context.Background(), "file://"+filepath.ToSlash(path))
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if t1.IsZero() || len(op.Doc.Pages) != 2000 {
			b.Fatal("no first page before the whole document")
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		ours += t1.Sub(t0)
		whole += t2.Sub(t0)
		yard += t3.Sub(t2)
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "first-page-ns/op")
	b.ReportMetric(float64(whole.Nanoseconds())/float64(b.N), "whole-open-ns/op")
	b.ReportMetric(float64(yard.Nanoseconds())/float64(b.N), "unmarshal-any-ns/op")
	b.ReportMetric(float64(ours)/float64(yard), "ratio")
}

// BenchmarkP1_DecodeFirstPageVsUnmarshalAny is the figure before
// incremental opening: Decode (the whole index) + first page, ÷ the same
// yardstick. It is what a caller that waits for the whole index pays.
func BenchmarkP1_DecodeFirstPageVsUnmarshalAny(b *testing.B) {
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
