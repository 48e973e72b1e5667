package library

import (
	"context"
	"io/fs"
	"runtime"
	"testing"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/internal/jsonfast"
)

// BenchmarkNew_100kGeneratedResources measures building a 100,000-resource
// library (the P3 yardstick): listing entries only, nothing converted. It
// reports what the library keeps per resource once built (live heap bytes
// and objects after a collection): the heap every GC cycle of a serving
// process marks.
func BenchmarkNew_100kGeneratedResources(b *testing.B) {
	const n = 100_000
	var live, objects float64
	for b.Loop() {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		l, err := New(Options{FS: emptyFS(), Generated: n, PageSize: 100})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		live = float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / n
		objects = float64(int64(m1.HeapObjects)-int64(m0.HeapObjects)) / n
		runtime.KeepAlive(l)
	}
	b.ReportMetric(live, "live-B/resource")
	b.ReportMetric(objects, "live-objects/resource")
}

func BenchmarkConvert_MarkdownReport(b *testing.B) {
	data, err := fs.ReadFile(Corpus(), "reports/annual-operations-2026.md")
	if err != nil {
		b.Fatal(err)
	}
	conv := convert.New(convert.Options{})
	defer conv.Close()
	ref := sourceRef{files: &folder{fsys: Corpus()}, path: "reports/annual-operations-2026.md", uri: escapeDocRef(DefaultHost, "reports/annual-operations-2026.md")}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := convertFile(context.Background(), conv, ref, data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLargeDocument_300Pages(b *testing.B) {
	for b.Loop() {
		if _, err := LargeDocument("dpe://h.example.x/m", "m", 300); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListedJSON_Note is one generated note's listing JSON, made on
// its first listing: encoded by reflection from its mcp.Resource (as it
// was made before appendListing; the resource built beforehand, not
// counted) against appendListing.
func BenchmarkListedJSON_Note(b *testing.B) {
	l, err := Open(Options{FS: emptyFS(), Generated: 1, PageSize: 100})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	var s *source
	for _, c := range l.lib.sources {
		if c.slim {
			s = c
		}
	}
	b.Run("marshal", func(b *testing.B) {
		r := s.resource()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jsonfast.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = s.appendListing(make([]byte, 0, s.listingSize()))
		}
	})
}
