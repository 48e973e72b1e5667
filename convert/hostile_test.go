package convert_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/hostilefiles"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// hostileRSSCap is what converting one hostile file may hold at its peak:
// the output budget (128 MiB, up to three times that while buffers grow)
// or one PDFium instance (256 MiB, grown in place) plus the Go runtime. Before the
// budgets these files took 2.3 to 9.8 GB, or died out of memory.
const hostileRSSCap = 1 << 30

// pdfRuntimeRSS is what a child converting a PDF holds besides PDFium's
// linear memory: compiled PDFium, the Go heap and runtime (65 MiB
// measured).
const pdfRuntimeRSS = 128 << 20

// hostileResult is what the child process reports about one conversion.
type hostileResult struct {
	Err   string `json:"err"`
	What  string `json:"what"`
	Limit int64  `json:"limit"`
	Got   int64  `json:"got"`
	MS    int64  `json:"ms"`
	// PeakRSS is the child's own high-water mark (VmHWM), read by the
	// child: the rusage the parent gets back is no measure of it, because
	// Linux starts a child's ru_maxrss at the RSS of the process that
	// started it (os/exec's vfork shares the parent's memory until exec),
	// so after the big fixtures every child read as the parent's 985 MiB.
	PeakRSS int64 `json:"peak_rss"`
}

// Every hostile file is stopped by a budget (or, when its Limit is empty,
// converts within them), with a LimitError naming the
// limit and both numbers, before its conversion's own deadline, in a
// process whose RSS stays under hostileRSSCap. Each file is converted in
// a child process of this test binary (GOMEMLIMIT set, peak RSS read from
// its rusage), so one file's memory is measured alone and a converter
// that still blew up would kill the child, not the test.
func TestHostileFiles_StopAtABudgetWithLimitError(t *testing.T) {
	if testing.Short() {
		t.Skip("converts every hostile file (a minute)")
	}
	if testbudget.Race {
		t.Skip("memory and time are measured without the race detector")
	}
	files := hostilefiles.All()
	// The conversion deadline is a share of the test's own: a loaded
	// machine gives every file more time, never a fixed budget.
	per := 2 * time.Minute
	if dl, ok := t.Deadline(); ok {
		per = min(per, time.Until(dl)/time.Duration(2*len(files)+1))
	}
	dir := t.TempDir()
	for _, f := range files {
		t.Run(f.Name, func(t *testing.T) {
			path := filepath.Join(dir, f.Name)
			if err := hostilefiles.WriteFile(path, f); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(path)
			ctx, cancel := context.WithTimeout(context.Background(), 2*per)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHostileChild$")
			cmd.Env = append(os.Environ(), "DPE_HOSTILE_FILE="+path, "DPE_HOSTILE_TIMEOUT="+per.String(), "GOMEMLIMIT=512MiB")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			line := out
			if i := strings.Index(string(out), "{"); i >= 0 {
				line = out[i:]
			}
			if j := strings.IndexByte(string(line), '\n'); j >= 0 {
				line = line[:j]
			}
			var r hostileResult
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatalf("child said %q: %v", out, err)
			}
			rss := r.PeakRSS
			if rss <= 0 { // no /proc: the rusage, an upper bound
				rss = int64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) << 10 // KiB on Linux
			}
			t.Logf("%s: %d ms, peak RSS %d MiB: %s", f.Why, r.MS, rss>>20, r.Err)
			if f.Limit == "" {
				if r.Err != "" {
					t.Errorf("want it converted, got %s", r.Err)
				}
			} else if r.What == "" {
				t.Fatalf("not a LimitError: %q", r.Err)
			}
			matched := false
			for _, want := range strings.Split(f.Limit, "|") {
				matched = matched || strings.Contains(r.What, want)
			}
			if f.Limit != "" && !matched {
				t.Errorf("stopped by %q, want %q", r.What, f.Limit)
			}
			if f.Limit != "" && (r.Got <= r.Limit || !strings.Contains(r.Err, strconv.FormatInt(r.Limit, 10)) || !strings.Contains(r.Err, strconv.FormatInt(r.Got, 10))) {
				t.Errorf("the error does not name both numbers (limit %d, got %d): %s", r.Limit, r.Got, r.Err)
			}
			// A deadline stops a conversion at the parser's next check (a
			// PDF page: when the killed instance notices), so half the
			// deadline again is its bound.
			if bound := per + per/2; time.Duration(r.MS)*time.Millisecond >= bound {
				t.Errorf("took %d ms, not within %v (its deadline %v, and half again)", r.MS, bound, per)
			}
			if rss > hostileRSSCap {
				t.Errorf("peak RSS %d MiB, over %d MiB", rss>>20, hostileRSSCap>>20)
			}
			// A PDF stopped by the engine's memory limit holds one
			// instance's memory, grown in place, and the runtime: not the
			// copies a growing memory once left (700 MiB at a 256 MiB
			// limit).
			if bound := int64(convert.PDFMemoryLimit + pdfRuntimeRSS); strings.Contains(r.What, "PDF engine memory") && rss > bound {
				t.Errorf("peak RSS %d MiB past the PDF engine's memory limit, over %d MiB (the limit and %d MiB)", rss>>20, bound>>20, pdfRuntimeRSS>>20)
			}
		})
	}
}

// TestHostileChild is the child process of the test above; alone it does
// nothing.
func TestHostileChild(t *testing.T) {
	path := os.Getenv("DPE_HOSTILE_FILE")
	if path == "" {
		t.Skip("run by TestHostileFiles_StopAtABudgetWithLimitError")
	}
	timeout, err := time.ParseDuration(os.Getenv("DPE_HOSTILE_TIMEOUT"))
	if err != nil {
		t.Fatal(err)
	}
	c := convert.New(convert.Options{Timeout: timeout, CacheDir: os.Getenv("DPE_HOSTILE_CACHE")})
	defer c.Close()
	start := time.Now()
	_, err = c.ConvertFile(context.Background(), path)
	r := hostileResult{MS: time.Since(start).Milliseconds()}
	if err != nil {
		r.Err = err.Error()
	}
	var le *dpe.LimitError
	if errors.As(err, &le) {
		r.What, r.Limit, r.Got = le.What, le.Limit, le.Got
	}
	r.PeakRSS = peakRSS()
	line, _ := json.Marshal(r)
	os.Stdout.Write(append(line, '\n'))
}

// peakRSS is this process's resident high-water mark in bytes, from
// /proc/self/status (VmHWM, per address space, so it starts afresh at
// exec), or 0 where there is no such file.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
