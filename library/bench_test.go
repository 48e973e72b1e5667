package library

import (
	"context"
	"io/fs"
	"testing"

	"github.com/dpe-tui/dpe-tui/convert"
)

// BenchmarkNew_100kGeneratedResources measures building a 100,000-resource
// library (the P3 yardstick): listing entries only, nothing converted.
func BenchmarkNew_100kGeneratedResources(b *testing.B) {
	for b.Loop() {
		if _, err := New(Options{FS: emptyFS(), Generated: 100_000, PageSize: 100}); err != nil {
			b.Fatal(err)
		}
	}
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
