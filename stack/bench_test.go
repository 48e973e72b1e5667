package stack

import (
	"context"
	"errors"
	"io"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
)

// BenchmarkP3_ResourcesThroughTheWire pages a generated library through
// server → computer → agent over loopback, 100 per page (docs/performance.md, P3; the
// full 100k figure comes from scripts/bench with separate processes).
func BenchmarkP3_ResourcesThroughTheWire(b *testing.B) {
	const n = 20000
	ctx := context.Background()
	// Without the demo libraries' Finder, whose background indexing would
	// otherwise be counted in the process CPU below (it is not part of
	// the listing); the bench library never had one.
	st, err := Start(ctx, Options{BenchResources: n, NoFinder: []string{ComputerAlpha, ComputerBeta}})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	c, err := client.Dial(ctx, client.Options{URL: st.URL, Office: st.Office, Name: "bench", RequestTimeout: 30 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ResetTimer()
	t0 := time.Now()
	cpu0 := cpuTime()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	total := 0
	for i := 0; i < b.N; i++ {
		p := c.Pager(ComputerAlpha, ServerBench, client.PagerOptions{MaxPages: 100000})
		for {
			page, err := p.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			total += len(page.Resources)
			if p.Done() {
				break
			}
		}
	}
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(total)/time.Since(t0).Seconds(), "resources/s")
	// Per resource, for every process-wide cost (server, computer, MCP
	// server and agent all run here): CPU time and allocations do not
	// depend on what else the machine is running, wall time does.
	if total > 0 {
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(total), "cpu-ns/resource")
		b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(total), "allocs/resource")
		b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(total), "B/resource")
	}
}

// cpuTime is this process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
