package stack

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
)

// The demo's Finders do not index while a listing pages through the
// demo's libraries: each resources/list pushes their start back by
// finderDelay, so a listing longer than finderDelay runs without them,
// and they start once it has ended.
func TestDemoFinders_IndexOnceTheListingEnds(t *testing.T) {
	ctx := context.Background()
	st, err := Start(ctx, Options{BenchResources: 5000})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := client.Dial(ctx, client.Options{URL: st.URL, Office: st.Office, Name: "lister", RequestTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Listings back to back for longer than finderDelay.
	until := time.Now().Add(finderDelay + finderDelay/2)
	for listings := 0; time.Now().Before(until) || listings == 0; listings++ {
		p := c.Pager(ComputerAlpha, ServerBench, client.PagerOptions{MaxPages: 1000})
		for {
			if indexStarted(st) {
				t.Fatalf("the Finders started indexing during listing %d", listings+1)
			}
			_, err := p.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Done() {
				break
			}
		}
	}
	deadline := time.Now().Add(finderDelay + 30*time.Second)
	for !indexStarted(st) {
		if time.Now().After(deadline) {
			t.Fatal("the Finders did not start indexing after the listing ended")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func indexStarted(st *Stack) bool {
	st.index.mu.Lock()
	defer st.index.mu.Unlock()
	return st.index.started
}
