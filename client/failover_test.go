package client

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/server"
)

// serveSMCP runs our server on 127.0.0.1:0; stop closes it (also at cleanup).
func serveSMCP(t *testing.T) (url string, stop func()) {
	t.Helper()
	s, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	stop = func() { _ = s.Close() }
	t.Cleanup(stop)
	return "http://" + l.Addr().String(), stop
}

// Agent failover: with Options.URLs the agent connects to the first
// server that answers, and when that one stops it reconnects to the next,
// joins the office again there, and calls work.
func TestFailover_AgentMovesToTheNextServerAndRejoins(t *testing.T) {
	ua, stopA := serveSMCP(t)
	ub, _ := serveSMCP(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	_ = l.Close()

	opt := testOptions("", "office-f", "agent-f")
	opt.URLs = []string{dead, ua, ub}
	opt.ConnectTimeout = 3 * time.Second
	c := dialT(t, opt)
	if c.URL() != ua {
		t.Fatalf("connected to %s, want %s (the first one that answers)", c.URL(), ua)
	}
	stopA()
	waitEvent(t, c, "the drop", func(ev Event) bool {
		s, ok := ev.(StateEvent)
		return ok && s.State == Reconnecting
	})
	waitEvent(t, c, "connected again", func(ev Event) bool {
		s, ok := ev.(StateEvent)
		return ok && s.State == Connected
	})
	if c.URL() != ub {
		t.Fatalf("reconnected to %s, want %s", c.URL(), ub)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Computers(ctx); err != nil {
		t.Fatalf("a call after the switch: %v", err)
	}
}
