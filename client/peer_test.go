package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// A peer is a test-only SMCP server written on another Socket.IO
// implementation (interop/peers), run as a subprocess.
type peer struct{ *interoptest.Peer }

type peerKind = interoptest.Runtime

// startPeer runs a peer with extra args; it ends with the test.
func startPeer(t *testing.T, k peerKind, args ...string) *peer {
	t.Helper()
	return &peer{interoptest.Start(t, k, args...)}
}

func (p *peer) stop() { p.Stop() }

// stats reads the peer's handshake counters.
func (p *peer) stats(t *testing.T) (handshakes, rejected int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/stats", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("peer stats: %v", err)
	}
	defer resp.Body.Close()
	var s struct{ Handshakes, Rejected int }
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatalf("peer stats: %v", err)
	}
	return s.Handshakes, s.Rejected
}

// forEachPeer runs f as a subtest against every peer implementation.
func forEachPeer(t *testing.T, f func(t *testing.T, k peerKind)) {
	for _, k := range interoptest.Runtimes() {
		t.Run(k.Name, func(t *testing.T) { f(t, k) })
	}
}

func testOptions(url, office, name string) Options {
	return Options{URL: url, Office: office, Name: name, ConnectTimeout: 10 * time.Second, RequestTimeout: 5 * time.Second}
}

func dialT(t *testing.T, opt Options) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, opt)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// waitEvent reads Events until match returns true or the bound passes.
func waitEvent(t *testing.T, c *Client, what string, match func(Event) bool) Event {
	t.Helper()
	bound := time.After(testbudget.Left(t, 20*time.Second))
	var seen []string
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				t.Fatalf("events closed before %s; saw %v", what, seen)
			}
			seen = append(seen, fmt.Sprintf("%+v", ev))
			if match(ev) {
				return ev
			}
		case <-bound:
			t.Fatalf("no %s within 20s; saw %v", what, seen)
		}
	}
}
