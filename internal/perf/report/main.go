// Command report runs the performance figures (docs/performance.md) and prints each as a
// ratio against its yardstick, measured in the same run:
//
//	P1 open (a) → first page on screen ÷ json.Unmarshal of (a) into any  ≤ 0.10
//	P1p `dpe-tui get (a) --page 1 --format text` as a process ÷ an unmarshal-only process  ≤ 0.10
//	P2 keystroke Update+View scrolling (b) at 200×60, p50/p99      p99 ≤ 16 ms
//	P3 resources/s server → computer → agent, 100k, 100 per page ÷ 20,000/s  ≥ 5.0, agent RSS ≤ 150 MB
//	P4 peak RSS of `dpe-tui get (a) --page 1 --format text`       ≤ 1.25× file size
//	P5 UI search for a rare word across every page of (a) ÷ bytes.Index over the file  ≤ 1.5
//	scale: list_room and routed request p50/p99, 1,000 computers and 50 agents on 3 nodes
//	       with one redis-server ÷ the same on 1 node (server/BenchmarkScale_Office)  ≤ 2.0
//	start: `dpe-tui ls computers` on the embedded demo, median of 7  ≤ 0.25 s, ≤ 80 MB
//
// A figure measured in its own file (its owner's) is one line in run's
// "process figures" list below, given the built binary and document (a).
//
// P1, P2 and P5 come from `go test -bench` benchmarks (dpe, ui) that time
// the contender and its yardstick in the same loop; P3 and P4 run the real
// binary as child processes and read their peak RSS from rusage.
//
// Usage: go run ./internal/perf/report   (scripts/bench wraps it)
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/dpegen"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == launcherFlag {
		os.Exit(launch(os.Args[2:]))
	}
	if len(os.Args) == 3 && os.Args[1] == unmarshalFlag {
		os.Exit(unmarshalAny(os.Args[2]))
	}
	benchtime := flag.String("benchtime", "3x", "-benchtime for the go test benchmarks")
	resources := flag.Int("resources", 100000, "P3 library size")
	scale := flag.String("scale", "1000x50", "scale benchmark size, COMPUTERSxAGENTS; \"\" skips it (it needs redis-server)")
	p4 := flag.Bool("p4", false, "measure P4 only (peak RSS of get --page 1)")
	p4Dir := flag.String("p4-dir", "", "with -p4, -p1-process or -startup: build the binary (and for -p4 and -p1-process write (a)) here, and keep them")
	startup := flag.Bool("startup", false, "measure the start-up guard only (ls computers on the demo)")
	p1p := flag.Bool("p1-process", false, "measure process-level P1 only (get --page 1 ÷ an unmarshal-only process)")
	p3n := flag.Int("p3", 0, "measure P3 only, with this many resources")
	runs := flag.Int("runs", 1, "with -p3: how many listings, each on a fresh server")
	binFlag := flag.String("bin", "", "with -p3 or -pdf: measure this dpe-tui binary instead of building one (to compare two builds back to back)")
	pdfOnly := flag.Bool("pdf", false, "measure the PDF figures only (conversion and get --page 1 ÷ pdftotext)")
	flag.Parse()
	if *pdfOnly {
		if err := runPDF(*binFlag); err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(1)
		}
		return
	}
	if *p3n > 0 {
		if err := runP3(*binFlag, *p3n, *runs); err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(1)
		}
		return
	}
	if *p4 || *startup || *p1p {
		if err := runOne(*p4Dir, *startup, *p1p); err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*benchtime, *resources, *scale); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

type figure struct {
	id, what, value, target string
	ok                      bool
}

func run(benchtime string, resources int, scale string) error {
	dir, err := os.MkdirTemp("", "dpe-perf-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	fmt.Printf("machine: %d CPUs (GOMAXPROCS %d), %s, %s/%s\n", runtime.NumCPU(), runtime.GOMAXPROCS(0), memTotal(), runtime.GOOS, runtime.GOARCH)
	bin := filepath.Join(dir, "dpe-tui")
	if err := build(bin); err != nil {
		return err
	}
	docA := filepath.Join(dir, "a.json")
	if err := os.WriteFile(docA, dpegen.Document(dpegen.PresetA()), 0o644); err != nil {
		return err
	}
	fi, _ := os.Stat(docA)
	fmt.Printf("document (a): %.1f MB\n\n", float64(fi.Size())/1e6)

	var figs []figure

	m, err := benchMetrics("./dpe/", "BenchmarkP1_", benchtime)
	if err != nil {
		return err
	}
	// P1 is the open path's first page (the rest is read, validated and
	// indexed after it: "whole open"); the figure before incremental
	// opening (whole index, then page 1) is printed beside it.
	p1 := m["BenchmarkP1_FirstPageVsUnmarshalAny"]
	p1d := m["BenchmarkP1_DecodeFirstPageVsUnmarshalAny"]
	figs = append(figs, figure{"P1", fmt.Sprintf("first page %s ÷ unmarshal-any %s (whole open %s; whole index first: %.3f)",
		ms(p1["first-page-ns/op"]), ms(p1["unmarshal-any-ns/op"]), ms(p1["whole-open-ns/op"]), p1d["ratio"]),
		fmt.Sprintf("%.3f", p1["ratio"]), "≤ 0.10", p1["ratio"] > 0 && p1["ratio"] <= 0.10})
	// P5 runs the document screen's own search (ui), not a unit below it.
	m, err = benchMetrics("./ui/", "BenchmarkP5_", benchtime)
	if err != nil {
		return err
	}
	p5 := m["BenchmarkP5_UISearchRareWordVsBytesIndex"]
	figs = append(figs, figure{"P5", fmt.Sprintf("UI search %s ÷ bytes.Index %s", ms(p5["search-ns/op"]), ms(p5["bytes-index-ns/op"])),
		fmt.Sprintf("%.3f", p5["ratio"]), "≤ 1.5", p5["ratio"] > 0 && p5["ratio"] <= 1.5})

	m, err = benchMetrics("./ui/", "BenchmarkP2_", "1x")
	if err != nil {
		return err
	}
	for _, name := range []string{"BenchmarkP2_ScrollLines", "BenchmarkP2_ScrollPages"} {
		p2 := m[name]
		p99 := p2["p99-ms"]
		figs = append(figs, figure{"P2", fmt.Sprintf("%s p50 %.2f ms, p99 %.2f ms (frame 16 ms)", strings.TrimPrefix(name, "BenchmarkP2_"), p2["p50-ms"], p99),
			fmt.Sprintf("%.3f", p99/16), "p99 ÷ 16 ms ≤ 1", p99 > 0 && p99 <= 16})
	}

	if scale != "" {
		sc, err := measureScale(scale)
		if err != nil {
			figs = append(figs, figure{"scale", "error: " + err.Error(), "-", "≤ 2.0", false})
		}
		figs = append(figs, sc...)
	}

	p3, err := measureP3(bin, resources)
	if err != nil {
		figs = append(figs, figure{"P3", "error: " + err.Error(), "-", p3RateTarget, false})
	}
	figs = append(figs, p3...)

	figs = append(figs, measureP4(bin, docA, fi.Size()))
	figs = append(figs, measureP1Process(bin, docA))

	// Process figures: the real binary as a child process, one line each.
	figs = append(figs, measureStartup(bin)...)
	figs = append(figs, measureV1Push(bin)...)
	figs = append(figs, measureV1TUI())
	figs = append(figs, measurePDF(bin)...)

	fmt.Printf("%-5s %-8s %-18s %s\n", "", "ratio", "target", "measured")
	pass := 0
	for _, f := range figs {
		mark := "FAIL"
		if f.ok {
			mark, pass = "ok", pass+1
		}
		fmt.Printf("%-5s %-8s %-18s %-4s %s\n", f.id, f.value, f.target, mark, f.what)
	}
	fmt.Printf("\n%d of %d figures meet their target\n", pass, len(figs))
	return nil
}

// p4Target: peak RSS of `get (a) --page 1` ÷ file size.
const p4Target = 1.25

// measureP4 runs `dpe-tui get (a) --page 1 --format text` and rates its
// peak RSS against the file size.
func measureP4(bin, docA string, size int64) figure {
	target := fmt.Sprintf("≤ %.2f", p4Target)
	rss, dur, err := childRSS(bin, "get", docA, "--page", "1", "--format", "text")
	if err != nil {
		return figure{"P4", "error: " + err.Error(), "-", target, false}
	}
	ratio := float64(rss) / float64(size)
	return figure{"P4", fmt.Sprintf("get (a) --page 1: peak RSS %.1f MB for a %.1f MB file, %s", float64(rss)/1e6, float64(size)/1e6, dur.Round(time.Millisecond)),
		fmt.Sprintf("%.2f", ratio), target, ratio <= p4Target}
}

// runOne is `report -p4` (P4 alone, for work on the get path's memory),
// `report -p1-process` (process-level P1 alone) or `report -startup` (the
// start-up guard alone).
func runOne(dir string, startup, p1p bool) error {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "dpe-perf-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	bin := filepath.Join(dir, "dpe-tui")
	if err := build(bin); err != nil {
		return err
	}
	var figs []figure
	if startup {
		figs = measureStartup(bin)
	} else {
		docA := filepath.Join(dir, "a.json")
		data := dpegen.Document(dpegen.PresetA())
		if err := os.WriteFile(docA, data, 0o644); err != nil {
			return err
		}
		if p1p {
			figs = []figure{measureP1Process(bin, docA)}
		} else {
			figs = []figure{measureP4(bin, docA, int64(len(data)))}
		}
	}
	for _, f := range figs {
		fmt.Printf("%-5s %-8s %-18s %s\n", f.id, f.value, f.target, f.what)
	}
	return nil
}

// build builds the binary at bin, as a copy of what the linker wrote.
// A file written in large pieces (the linker's output; a copy in 256 KiB
// writes) can sit in the page cache as huge pages; a process started from
// it then maps its text 2 MB at a time, and its peak RSS counts text it
// never touched (dpe-tui version: 57 MB from the linker's file, 42 MB
// from a copy in 64 KiB writes; ls computers on the demo: 64 and 53 MB).
// A binary read back from disk is cached in readahead-sized pieces and
// maps as the copy does: what a user's process costs.
// binOrBuild is bin, or when it is "" a dpe-tui built from this tree in
// a temporary folder that done removes (the single-figure runs, -p3 and
// -pdf, take either).
func binOrBuild(bin string) (_ string, done func(), _ error) {
	if bin != "" {
		return bin, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "dpe-perf-")
	if err != nil {
		return "", nil, err
	}
	bin = filepath.Join(dir, "dpe-tui")
	if err := build(bin); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

func build(bin string) error {
	linked := bin + ".linked"
	if out, err := exec.Command("go", "build", "-o", linked, "./cmd/dpe-tui").CombinedOutput(); err != nil {
		return fmt.Errorf("build: %v\n%s", err, out)
	}
	defer os.Remove(linked)
	src, err := os.Open(linked)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	// Plain 64 KiB reads and writes (io.Copy could use copy_file_range).
	if _, err := io.CopyBuffer(struct{ io.Writer }{dst}, struct{ io.Reader }{src}, make([]byte, 64<<10)); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// benchMetrics runs go test -bench and returns each benchmark's metrics.
func benchMetrics(pkg, pattern, benchtime string) (map[string]map[string]float64, error) {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", pattern, "-benchtime", benchtime, pkg)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go test -bench %s %s: %v\n%s", pattern, pkg, err, out)
	}
	return parseBench(out), nil
}

// parseBench reads each benchmark line's metrics (value unit pairs).
func parseBench(out []byte) map[string]map[string]float64 {
	res := map[string]map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		mm := benchLine.FindStringSubmatch(sc.Text())
		if mm == nil {
			continue
		}
		f := strings.Fields(mm[2])
		vals := map[string]float64{}
		for i := 0; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				vals[f[i+1]] = v
			}
		}
		res[mm[1]] = vals
	}
	return res
}

// childRSS runs the binary and returns its peak RSS (bytes) and wall time.
func childRSS(bin string, args ...string) (int64, time.Duration, error) {
	u, err := childUsage(bin, args...)
	return u.rss, u.wall, err
}

// usage is what one child process cost: peak RSS (bytes), wall time, and
// user+system CPU time (which, unlike wall time, does not grow with the
// load other processes put on the machine).
type usage struct {
	rss       int64
	wall, cpu time.Duration
}

// childUsage runs the binary and returns what it cost.
//
// Linux charges a child's ru_maxrss with the RSS of the process it was
// forked from, so a child of this (large) process would report this
// process's size. The child is therefore started by a small launcher: this
// binary re-executed (fresh, small), which runs the target and prints the
// target's own peak RSS and CPU time.
func childUsage(bin string, args ...string) (usage, error) {
	self, err := os.Executable()
	if err != nil {
		return usage{}, err
	}
	cmd := exec.Command(self, append([]string{launcherFlag, bin}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return usage{}, fmt.Errorf("%s %v: %v: %s", filepath.Base(bin), args, err, stderr.String())
	}
	u := usage{wall: time.Since(t0)}
	var kb, cpuUS int64
	if _, err := fmt.Sscanf(stdout.String(), "%d %d", &kb, &cpuUS); err != nil {
		return u, fmt.Errorf("launcher printed %q", stdout.String())
	}
	u.rss, u.cpu = kb*1024, time.Duration(cpuUS)*time.Microsecond
	return u, nil
}

const launcherFlag = "-launch-rusage"

// launch runs args (output discarded) and prints its ru_maxrss in KiB and
// its user+system CPU time in microseconds.
func launch(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "no rusage")
		return 1
	}
	fmt.Println(ru.Maxrss, (ru.Utime.Nano()+ru.Stime.Nano())/1e3)
	return 0
}

// scaleTarget: each percentile on 3 nodes ÷ the same on 1 node.
const scaleTarget = 2.0

// measureScale runs server/BenchmarkScale_Office once at scaleSize and
// reports 3 nodes against 1 node, each percentile as a ratio.
func measureScale(scaleSize string) ([]figure, error) {
	var computers, agents int
	if _, err := fmt.Sscanf(scaleSize, "%dx%d", &computers, &agents); err != nil {
		return nil, fmt.Errorf("-scale %q: want COMPUTERSxAGENTS", scaleSize)
	}
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "BenchmarkScale_Office$", "-benchtime", "1x", "-timeout", "10m", "./server/")
	cmd.Env = append(os.Environ(), fmt.Sprintf("DPE_SCALE_COMPUTERS=%d", computers), fmt.Sprintf("DPE_SCALE_AGENTS=%d", agents))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go test -bench BenchmarkScale_Office: %v\n%s", err, tail(out, 2000))
	}
	m := parseBench(out)
	one, three := m["BenchmarkScale_Office/nodes=1"], m["BenchmarkScale_Office/nodes=3"]
	if one == nil || three == nil {
		return nil, fmt.Errorf("BenchmarkScale_Office printed no figures:\n%s", tail(out, 2000))
	}
	var figs []figure
	for _, k := range []struct{ key, what string }{
		{"list_room-p50-ms", "list_room p50"}, {"list_room-p99-ms", "list_room p99"},
		{"routed-p50-ms", "routed request p50"}, {"routed-p99-ms", "routed request p99"},
	} {
		ratio := 0.0
		if one[k.key] > 0 {
			ratio = three[k.key] / one[k.key]
		}
		figs = append(figs, figure{"scale", fmt.Sprintf("%s: 3 nodes %.2f ms ÷ 1 node %.2f ms (%d computers, %d agents)", k.what, three[k.key], one[k.key], computers, agents),
			fmt.Sprintf("%.2f", ratio), "≤ 2.0", three[k.key] > 0 && ratio <= scaleTarget})
	}
	return figs, nil
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

func ms(ns float64) string { return fmt.Sprintf("%.1f ms", ns/1e6) }

func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "memory unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "MemTotal:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				kb, _ := strconv.ParseFloat(f[1], 64)
				return fmt.Sprintf("%.1f GiB RAM", kb/1024/1024)
			}
		}
	}
	return "memory unknown"
}
