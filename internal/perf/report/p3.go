package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// P3: resources per second from `dpe-tui serve --bench-resources N` (the
// library, its computer and the server in one process) to an agent process
// (`dpe-tui ls resources --json`) paging through all of it, 100 per page,
// the first listing of a fresh server; ÷ 20,000/s.
const (
	p3Yardstick  = 20000.0
	p3RateRatio  = 5.0
	p3RSS        = 150e6
	p3RateTarget = "÷ 20,000/s ≥ 5"
)

// p3Run is one listing: its wall time, the agent's peak RSS and CPU, and
// the CPU serve spent while it ran (from /proc, so serve's start-up and
// library generation are not counted).
type p3Run struct {
	wall, agentCPU, serveCPU time.Duration
	agentRSS                 int64
}

// measureP3 rates one listing against its targets.
func measureP3(bin string, n int) ([]figure, error) {
	r, err := listP3(bin, n)
	if err != nil {
		return nil, err
	}
	return p3Figures(n, r), nil
}

func p3Figures(n int, r p3Run) []figure {
	rate := float64(n) / r.wall.Seconds()
	return []figure{
		{"P3", fmt.Sprintf("%d resources in %s, 100 per page (%.0f/s; CPU agent %s, serve %s)", n, r.wall.Round(time.Millisecond), rate,
			r.agentCPU.Round(time.Millisecond), r.serveCPU.Round(time.Millisecond)),
			fmt.Sprintf("%.2f", rate/p3Yardstick), p3RateTarget, rate/p3Yardstick >= p3RateRatio},
		{"P3", fmt.Sprintf("agent peak RSS %.1f MB", float64(r.agentRSS)/1e6), fmt.Sprintf("%.2f", float64(r.agentRSS)/p3RSS), "÷ 150 MB ≤ 1", float64(r.agentRSS) <= p3RSS},
	}
}

// runP3 is `report -p3 N`: P3 alone, runs times, each listing on a fresh
// server, with the given binary or one built from this tree.
func runP3(bin string, n, runs int) error {
	bin, done, err := binOrBuild(bin)
	if err != nil {
		return err
	}
	defer done()
	for range max(runs, 1) {
		r, err := listP3(bin, n)
		if err != nil {
			return err
		}
		for _, f := range p3Figures(n, r) {
			fmt.Printf("%-5s %-8s %-18s %s\n", f.id, f.value, f.target, f.what)
		}
	}
	return nil
}

// listP3 starts `dpe-tui serve` with a generated library and times an
// agent process (`dpe-tui ls resources`) paging through all of it.
func listP3(bin string, n int) (p3Run, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0", "--bench-resources", strconv.Itoa(n), "--bench-page-size", "100", "--log", os.DevNull)
	stdout, err := srv.StdoutPipe()
	if err != nil {
		return p3Run{}, err
	}
	if err := srv.Start(); err != nil {
		return p3Run{}, err
	}
	defer func() { _ = srv.Process.Signal(syscall.SIGTERM); _ = srv.Wait() }()
	url := ""
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "dpe-tui serve: listening on "); ok {
			url = u
		}
		if strings.HasPrefix(sc.Text(), "connect with:") {
			break
		}
	}
	if url == "" {
		return p3Run{}, fmt.Errorf("serve did not print its URL")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	cpu0 := procCPU(srv.Process.Pid)
	u, err := childUsage(bin, "ls", "resources", "--url", url, "--computer", "alpha", "--server", "bench", "--json", "--limit-pages", "0")
	if err != nil {
		return p3Run{}, err
	}
	return p3Run{wall: u.wall, agentCPU: u.cpu, agentRSS: u.rss, serveCPU: procCPU(srv.Process.Pid) - cpu0}, nil
}

// procCPU is a process's user+system CPU time so far (/proc/PID/stat),
// zero where it cannot be read.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; fields after it count
	// from its closing parenthesis: utime and stime are fields 14 and 15.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	// USER_HZ is 100 on every Linux this runs on.
	return time.Duration(ut+st) * 10 * time.Millisecond
}
