package server

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Close must leave nothing running: sockets, engine.io timers, the HTTP
// server and the timers of pending requests.
func TestClose_LeaksNoGoroutines(t *testing.T) {
	opts := []goleak.Option{goleak.IgnoreCurrent()}
	t.Run("session", func(t *testing.T) {
		s, base := startServer(t, Options{})
		agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
		comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
		comp.answer(protocol.EventGetConfig, func(map[string]any) []any { return []any{map[string]any{}} })
		pending := comp.answer(protocol.EventToolCall, nil) // never answers
		agent.join(protocol.RoleAgent, "a", "o")
		comp.join(protocol.RoleComputer, "c", "o")
		agent.call(protocol.EventGetConfig, map[string]any{"computer": "c"})
		agent.sock.Emit(protocol.EventToolCall, map[string]any{"computer": "c", "timeout": 600},
			func([]any, error) {})
		<-pending
		// Close with everything still connected and a request pending.
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	})
	goleak.VerifyNone(t, opts...)
}

// Close ends every session: clients see the server disconnect them.
func TestClose_DisconnectsEverySession(t *testing.T) {
	s, base := startServer(t, Options{})
	var gone []chan struct{}
	for _, role := range []string{protocol.RoleAgent, protocol.RoleComputer} {
		p := mustDial(t, base, peerConfig{Role: role})
		p.join(role, role, "o")
		ch := make(chan struct{})
		_ = p.sock.Once("disconnect", func(...any) { close(ch) })
		gone = append(gone, ch)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for i, ch := range gone {
		select {
		case <-ch:
		case <-time.After(wait):
			t.Fatalf("peer %d still connected after Close", i)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
