package stack

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
)

// BenchmarkP3_ResourcesThroughTheWire pages a generated library through
// server → computer → agent over loopback, 100 per page (issue 5, P3; the
// full 100k figure comes from scripts/bench with separate processes).
func BenchmarkP3_ResourcesThroughTheWire(b *testing.B) {
	const n = 20000
	ctx := context.Background()
	st, err := Start(ctx, Options{BenchResources: n})
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
	b.ReportMetric(float64(total)/time.Since(t0).Seconds(), "resources/s")
}
