package dpe_test

import (
	"bytes"
	"context"
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

// textFields concatenates every element text of data: the P5 yardstick
// searches these bytes with bytes.Index.
func textFields(b *testing.B, data []byte) []byte {
	var doc struct {
		Pages []struct {
			Elements []struct {
				Text string `json:"text"`
			} `json:"elements"`
		} `json:"pages"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for _, p := range doc.Pages {
		for _, e := range p.Elements {
			buf.WriteString(e.Text)
			buf.WriteByte(0)
		}
	}
	return buf.Bytes()
}

// BenchmarkP5_SearchRareWordVsBytesIndex: Search for a rare word over
// every page of a freshly decoded (lazy) document, ÷ bytes.Index over the
// file's text fields. Target ≤ 1.5.
func BenchmarkP5_SearchRareWordVsBytesIndex(b *testing.B) {
	data := docA(b)
	texts := textFields(b, data)
	word := dpegen.PresetA().RareWord
	var ours, yard time.Duration
	for b.Loop() {
		d, err := dpe.Decode(data, dpe.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		hits, err := dpe.Search(context.Background(), d, word, dpe.Limits{}, nil)
		if err != nil || len(hits) != 1 {
			b.Fatalf("hits=%v err=%v", hits, err)
		}
		t1 := time.Now()
		if !bytes.Contains(texts, []byte(word)) {
			b.Fatal("yardstick missed the word")
		}
		t2 := time.Now()
		ours += t1.Sub(t0)
		yard += t2.Sub(t1)
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "search-ns/op")
	b.ReportMetric(float64(yard.Nanoseconds())/float64(b.N), "bytes-index-ns/op")
	b.ReportMetric(float64(ours)/float64(yard), "ratio")
}

// BenchmarkSearchRareWord: Search alone on an already decoded (lazy) document.
func BenchmarkSearchRareWord(b *testing.B) {
	data := docA(b)
	d, err := dpe.Decode(data, dpe.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if hits, _ := dpe.Search(context.Background(), d, dpegen.PresetA().RareWord, dpe.Limits{}, nil); len(hits) != 1 {
			b.Fatalf("hits=%v", hits)
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
