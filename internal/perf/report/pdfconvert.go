package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The PDF figures: dpe-tui against poppler's pdftotext on the same files,
// both as child processes, median wall time of pdfRuns each.
//
//	pdf   convert of the 193-page concatenation ÷ pdftotext of it  ≤ 2.0
//	pdf   convert of its first 5 pages ÷ pdftotext of them         ≤ 4.0
//	pdf   get --page 1 of its first 200 pages ÷ pdftotext -f 1 -l 1  ≤ 3.0
//
// The concatenation is the PDF manuals Debian ships under /usr/share/doc
// (pdfTeX, DocBook and LibreOffice output; gzipped ones unpacked), in path
// order, joined by qpdf and cut to 193, 200 and 5 pages.
const (
	pdfRuns      = 3
	pdfBigPages  = 193
	pdfGetPages  = 200
	pdfFewPages  = 5
	pdfBigTarget = 2.0
	pdfFewTarget = 4.0
	pdfGetTarget = 3.0
)

// measurePDF makes the corpus and measures the three figures; a missing
// tool or manual is one failed figure saying so.
func measurePDF(bin string) []figure {
	fail := func(err error) []figure {
		return []figure{{"pdf", "error: " + err.Error(), "-", fmt.Sprintf("≤ %.1f", pdfBigTarget), false}}
	}
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		return fail(fmt.Errorf("pdftotext (poppler-utils) is not installed"))
	}
	dir, err := os.MkdirTemp("", "dpe-perf-pdf-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	files, err := pdfCorpus(dir)
	if err != nil {
		return fail(err)
	}
	// The PDF engine is compiled once per machine: done here, not timed.
	if _, err := childUsage(bin, "warmup"); err != nil {
		return fail(err)
	}
	out := filepath.Join(dir, "out")
	median := func(name string, args ...string) (time.Duration, time.Duration, error) {
		var walls, cpus []time.Duration
		for range pdfRuns {
			u, err := childUsage(name, args...)
			if err != nil {
				return 0, 0, err
			}
			walls, cpus = append(walls, u.wall), append(cpus, u.cpu)
		}
		slices.Sort(walls)
		slices.Sort(cpus)
		return walls[len(walls)/2], cpus[len(cpus)/2], nil
	}
	ratio := func(id, what string, target float64, ours, theirs []string) figure {
		tg := fmt.Sprintf("≤ %.1f", target)
		ow, oc, err := median(bin, ours...)
		if err != nil {
			return figure{id, "error: " + err.Error(), "-", tg, false}
		}
		tw, tc, err := median(pdftotext, theirs...)
		if err != nil {
			return figure{id, "error: " + err.Error(), "-", tg, false}
		}
		// The figure is wall time, what a user waits; the CPU ratio
		// beside it is the one a loaded machine does not move.
		r := ow.Seconds() / tw.Seconds()
		return figure{id, fmt.Sprintf("%s: %s ÷ pdftotext %s (CPU %s ÷ %s = %.2f), median of %d", what,
			ow.Round(time.Millisecond), tw.Round(time.Millisecond), oc.Round(time.Millisecond), tc.Round(time.Millisecond),
			oc.Seconds()/max(tc.Seconds(), 1e-3), pdfRuns),
			fmt.Sprintf("%.2f", r), tg, r <= target}
	}
	big, few, get := files[0], files[1], files[2]
	return []figure{
		ratio("pdf", fmt.Sprintf("convert of %d pages", pdfBigPages), pdfBigTarget,
			[]string{"convert", big, "-o", out + ".json"}, []string{big, out + ".txt"}),
		ratio("pdf", fmt.Sprintf("convert of %d pages", pdfFewPages), pdfFewTarget,
			[]string{"convert", few, "-o", out + ".json"}, []string{few, out + ".txt"}),
		ratio("pdf", fmt.Sprintf("get --page 1 of %d pages", pdfGetPages), pdfGetTarget,
			[]string{"get", get, "--page", "1", "--format", "text"}, []string{"-f", "1", "-l", "1", get, out + ".txt"}),
	}
}

// pdfCorpus writes the concatenation cut to pdfBigPages, pdfFewPages and
// pdfGetPages pages into dir and returns the three paths.
func pdfCorpus(dir string) ([]string, error) {
	qpdf, err := exec.LookPath("qpdf")
	if err != nil {
		return nil, fmt.Errorf("qpdf is not installed")
	}
	var srcs []string
	filepath.WalkDir("/usr/share/doc", func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && (strings.HasSuffix(path, ".pdf") || strings.HasSuffix(path, ".pdf.gz")) {
			srcs = append(srcs, path)
		}
		return nil
	})
	slices.Sort(srcs)
	var parts []string
	for k, src := range srcs {
		dst := filepath.Join(dir, fmt.Sprintf("src%02d.pdf", k))
		if err := copyMaybeGzip(src, dst); err != nil {
			return nil, err
		}
		parts = append(parts, dst)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("no PDF under /usr/share/doc")
	}
	all := filepath.Join(dir, "all.pdf")
	args := append([]string{"--empty", "--pages"}, parts...)
	if out, err := exec.Command(qpdf, append(args, "--", all)...).CombinedOutput(); err != nil && !strings.Contains(string(out), "operation succeeded") {
		return nil, fmt.Errorf("qpdf: %v: %s", err, out)
	}
	var paths []string
	for _, n := range []int{pdfBigPages, pdfFewPages, pdfGetPages} {
		p := filepath.Join(dir, fmt.Sprintf("pages%d.pdf", n))
		out, err := exec.Command(qpdf, "--empty", "--pages", all, fmt.Sprintf("1-%d", n), "--", p).CombinedOutput()
		if err != nil && !strings.Contains(string(out), "operation succeeded") {
			return nil, fmt.Errorf("qpdf (%d pages; the manuals have fewer?): %v: %s", n, err, out)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// copyMaybeGzip copies src to dst, unpacking it when it is gzipped.
func copyMaybeGzip(src, dst string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(src, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		defer z.Close()
		r = z
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.LimitReader(r, 256<<20)); err != nil {
		out.Close()
		return fmt.Errorf("%s: %w", src, err)
	}
	return out.Close()
}

// runPDF is `report -pdf` (scripts/bench --pdf-only): the PDF figures
// alone, of bin or of a fresh build when bin is "".
func runPDF(bin string) error {
	bin, done, err := binOrBuild(bin)
	if err != nil {
		return err
	}
	defer done()
	fmt.Printf("%-5s %-8s %-18s %s\n", "", "ratio", "target", "measured")
	for _, f := range measurePDF(bin) {
		mark := "FAIL"
		if f.ok {
			mark = "ok"
		}
		fmt.Printf("%-5s %-8s %-18s %-4s %s\n", f.id, f.value, f.target, mark, f.what)
	}
	return nil
}
