package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// slotListener caps the connections `mcp --http` serves at once, like
// netutil.LimitListener, but a connection holding a slot with no request
// in progress gives it up to a new one, the oldest first: slow or idle
// clients cannot keep the others waiting in the accept queue. A slot is
// taken from an idle keep-alive connection (closing those is ordinary
// HTTP), or from one that has not sent its request within newGrace (it
// is answered 503 before it is closed), never from one whose client has
// already sent bytes the server has not read, nor from one idle for less
// than newGrace (its client is about to reuse it). When there is none, the new
// connection is answered 503 with Retry-After and closed: a client over
// the cap is told so, never dropped without a response (a flood once saw
// connections closed with nothing said). Its track method is the
// server's ConnState.
type slotListener struct {
	net.Listener
	max   int
	mu    sync.Mutex
	conns map[net.Conn]slotState
	// refusing bounds the 503s being written at once; past it a
	// connection is closed at once, the one case of a close without a
	// response.
	refusing chan struct{}
}

type slotState struct {
	state http.ConnState // StateNew, StateActive or StateIdle
	since time.Time
}

const (
	// newGrace is how long a connection may take to send its request
	// before a newer one may take its slot.
	newGrace = time.Second
	// refuseTime bounds writing one 503 and reading what the client sent.
	refuseTime = 2 * time.Second
	// maxRefusing is how many 503s are written at once. A socket that
	// sends nothing holds its refusal for refuseTime while it is drained,
	// so a burst of silent sockets fills them: at 64, 300 silent sockets
	// left real clients closed without an answer (connection reset). A
	// refusal costs a goroutine (a few KiB) and the descriptor the
	// socket holds anyway.
	maxRefusing = 1024
	// retryAfter is the Retry-After of the 503, in seconds.
	retryAfter = 1
)

func newSlotListener(ln net.Listener, max int) *slotListener {
	return &slotListener{Listener: ln, max: max, conns: map[net.Conn]slotState{}, refusing: make(chan struct{}, maxRefusing)}
}

func (l *slotListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		now := time.Now()
		l.mu.Lock()
		if len(l.conns) >= l.max {
			victim, st, ok := l.victim(now)
			if !ok {
				l.mu.Unlock()
				l.refuse(c, true)
				continue
			}
			delete(l.conns, victim)
			if st.state == http.StateIdle {
				_ = victim.Close()
			} else {
				// The server is still waiting for its request and
				// has written nothing: the 503 is its only answer.
				l.refuse(victim, false)
			}
		}
		l.conns[c] = slotState{state: http.StateNew, since: now}
		l.mu.Unlock()
		return c, nil
	}
}

// victim is the connection whose slot a new one takes: the oldest idle
// one, else the oldest that has not sent its request within newGrace.
func (l *slotListener) victim(now time.Time) (net.Conn, slotState, bool) {
	var idle, slow net.Conn
	var idleSt, slowSt slotState
	for vc, st := range l.conns {
		if st.state == http.StateActive || now.Sub(st.since) < newGrace || requestArriving(vc) {
			// A connection just gone idle is about to be reused by its
			// client, and one with unread bytes has a request on its
			// way: closing either breaks a request (a client saw
			// BrokenPipe and "Remote end closed connection").
			continue
		}
		switch {
		case st.state == http.StateIdle && (idle == nil || st.since.Before(idleSt.since)):
			idle, idleSt = vc, st
		case st.state == http.StateNew && (slow == nil || st.since.Before(slowSt.since)):
			slow, slowSt = vc, st
		}
	}
	if idle != nil {
		return idle, idleSt, true
	}
	return slow, slowSt, slow != nil
}

// refuseBody is the 503's text.
var refuseBody = fmt.Sprintf("dpe-tui mcp: every --max-conns slot is busy; retry in %d s\n", retryAfter)

// refuse answers c 503 with Retry-After and closes it, in the background
// and within refuseTime. drain reads what the client sent first (so the
// close does not reset the connection before the client reads the
// answer); a connection the server also reads from is not drained.
func (l *slotListener) refuse(c net.Conn, drain bool) {
	select {
	case l.refusing <- struct{}{}:
	default:
		_ = c.Close()
		return
	}
	go func() {
		defer func() { <-l.refusing }()
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(refuseTime))
		_, err := fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nRetry-After: %d\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
			retryAfter, len(refuseBody), refuseBody)
		if err != nil || !drain {
			return
		}
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(c, 1<<20))
	}()
}

// track is http.Server.ConnState: a connection is busy while a request is
// active, and gone once closed or hijacked.
func (l *slotListener) track(c net.Conn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.conns[c]; !ok {
		return
	}
	switch s {
	case http.StateActive, http.StateIdle:
		l.conns[c] = slotState{state: s, since: time.Now()}
	case http.StateClosed, http.StateHijacked:
		delete(l.conns, c)
	}
}
