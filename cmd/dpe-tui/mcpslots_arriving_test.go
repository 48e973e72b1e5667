//go:build linux

package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// slotPair is a slot listener of one slot holding one accepted connection
// (srv, its client end cli) that has been idle for longer than newGrace.
func slotPair(t *testing.T) (l *slotListener, srv, cli net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l = newSlotListener(ln, 1)
	t.Cleanup(func() { ln.Close() })
	cli, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	if srv, err = l.Accept(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	l.mu.Lock()
	l.conns[srv] = slotState{state: http.StateIdle, since: time.Now().Add(-2 * newGrace)}
	l.mu.Unlock()
	return l, srv, cli
}

// A keep-alive connection whose client has sent its next request, not
// yet read by the server, keeps its slot: the newcomer is answered 503
// and the request already on its way is not broken (with 300 idle sockets
// a client saw BrokenPipe and "Remote end closed connection").
func TestSlotListener_RequestOnItsWayKeepsItsSlot(t *testing.T) {
	l, srv, cli := slotPair(t)
	req := "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
	if _, err := io.WriteString(cli, req); err != nil {
		t.Fatal(err)
	}
	deadline := testbudget.Until(t, 10*time.Second)
	for !requestArriving(srv) {
		if time.Now().After(deadline) {
			t.Fatal("the request never showed as unread bytes")
		}
		time.Sleep(time.Millisecond)
	}
	go func() { _, _ = l.Accept() }() // answers the newcomer, then waits for the next
	nc, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("newcomer: %v %v, want 503", resp, err)
	}
	// The held connection is open both ways and its request whole.
	_ = srv.SetReadDeadline(time.Now().Add(10 * time.Second))
	got := make([]byte, len(req))
	if _, err := io.ReadFull(srv, got); err != nil || string(got) != req {
		t.Fatalf("server side read %q, %v", got, err)
	}
	_ = cli.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := cli.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("client side: %v, want its connection still open", err)
	}
}

// Without a request on its way, the same idle connection gives its slot
// to the newcomer (so the test above can fail).
func TestSlotListener_IdleConnectionGivesItsSlot(t *testing.T) {
	l, _, cli := slotPair(t)
	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	nc, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := <-accepted; err != nil {
		t.Fatal(err)
	}
	_ = cli.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := cli.Read(make([]byte, 1)); err == nil || strings.Contains(err.Error(), "timeout") {
		t.Fatalf("idle connection read %v, want it closed", err)
	}
}
