package client

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/server"
)

// The library's leaked connect timer (see staletimer.go) announces itself
// as a manager "error" of "timeout" while the socket is connected. The race
// that leaks it cannot be forced, so the test raises the same signal and
// checks the agent rebuilds its session and re-joins the office.
func TestStaleConnectTimer_AgentReconnectsAndRejoins(t *testing.T) {
	srv, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, Options{URL: "http://" + ln.Addr().String(), Office: "o", Name: "agent", RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	oldSID := c.sock.Id()

	c.mgr.Emit("error", errors.New("timeout"))

	deadline := time.Now().Add(20 * time.Second)
	for {
		c.mu.Lock()
		joined := c.joined
		c.mu.Unlock()
		if joined && c.sock.Connected() && c.sock.Id() != oldSID {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new joined session after the stale-timer signal; state %+v", c.State())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := c.Computers(ctx); err != nil {
		t.Fatalf("agent unusable after recovery: %v", err)
	}
}
