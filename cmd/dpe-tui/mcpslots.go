package main

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// slotListener caps the connections `mcp --http` serves at once, like
// netutil.LimitListener, but a connection holding a slot with no request
// in progress (none sent yet, or idle between two) gives it up to a new
// one, the oldest first: slow or idle clients cannot keep the others
// waiting in the accept queue. When every slot is busy with a request the
// new connection is closed at once (the client retries) instead of
// waiting behind them. Its track method is the server's ConnState.
type slotListener struct {
	net.Listener
	max   int
	mu    sync.Mutex
	conns map[net.Conn]slotState
}

type slotState struct {
	busy  bool
	since time.Time
}

func newSlotListener(ln net.Listener, max int) *slotListener {
	return &slotListener{Listener: ln, max: max, conns: map[net.Conn]slotState{}}
}

func (l *slotListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if len(l.conns) >= l.max {
			var victim net.Conn
			var oldest time.Time
			for vc, st := range l.conns {
				if !st.busy && (victim == nil || st.since.Before(oldest)) {
					victim, oldest = vc, st.since
				}
			}
			if victim == nil {
				l.mu.Unlock()
				_ = c.Close()
				continue
			}
			delete(l.conns, victim)
			_ = victim.Close()
		}
		l.conns[c] = slotState{since: time.Now()}
		l.mu.Unlock()
		return c, nil
	}
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
	case http.StateActive:
		l.conns[c] = slotState{busy: true, since: time.Now()}
	case http.StateIdle:
		l.conns[c] = slotState{since: time.Now()}
	case http.StateClosed, http.StateHijacked:
		delete(l.conns, c)
	}
}
