package convert

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// bigFixture is a file from scripts/make-fixtures --big $DPE_BIG_FIXTURES.
func bigFixture(b *testing.B, name string) string {
	dir := os.Getenv("DPE_BIG_FIXTURES")
	if dir == "" {
		b.Skip("DPE_BIG_FIXTURES not set (scripts/make-fixtures --big DIR)")
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		b.Skip(err)
	}
	return p
}

// BenchmarkPDF300VsPdftotext converts the 300-page PDF fully and runs
// pdftotext on it in the same iteration, reporting our time over poppler's.
func BenchmarkPDF300VsPdftotext(b *testing.B) {
	file := bigFixture(b, "long-300.pdf")
	if _, err := exec.LookPath("pdftotext"); err != nil {
		b.Skip("pdftotext not installed")
	}
	c := New(Options{})
	defer c.Close()
	var ours, theirs time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := c.ConvertFile(context.Background(), file); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := exec.Command("pdftotext", "-bbox-layout", file, os.DevNull).Run(); err != nil {
			b.Fatal(err)
		}
		ours, theirs = ours+t1.Sub(t0), theirs+time.Since(t1)
	}
	b.ReportMetric(float64(ours)/float64(theirs), "x-pdftotext")
}

// BenchmarkPDF300FirstPage is what `open` waits for: open plus page 1.
func BenchmarkPDF300FirstPage(b *testing.B) {
	file := bigFixture(b, "long-300.pdf")
	c := New(Options{})
	defer c.Close()
	for b.Loop() {
		d, err := c.OpenFile(context.Background(), file)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := d.Page(context.Background(), 0); err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}

// BenchmarkPDF300Full is the whole document, for the first-page ratio.
func BenchmarkPDF300Full(b *testing.B) {
	file := bigFixture(b, "long-300.pdf")
	c := New(Options{})
	defer c.Close()
	for b.Loop() {
		if _, err := c.ConvertFile(context.Background(), file); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkXLSXFirstPage opens the 100,000-row workbook and converts
// its first sheet (the big one, 101 TableChunks). On the 2-core CI machine:
// 9.2 s, 1.6 GB and 30 M allocations per op through excelize; 1.6 s,
// 376 MB and 7.1 M allocations streaming the sheet XML.
func BenchmarkXLSXFirstPage(b *testing.B) {
	file := bigFixture(b, "rows-100k.xlsx")
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	for b.Loop() {
		d, err := c.OpenFile(context.Background(), file)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := d.Page(context.Background(), 0); err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}
