package server

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// countRequests makes p count ev without ever answering.
func (p *peer) countRequests(ev string) (*atomic.Int64, <-chan map[string]any) {
	var n atomic.Int64
	last := make(chan map[string]any, 1)
	_ = p.sock.On(types.EventName(ev), func(args ...any) {
		n.Add(1)
		data, _ := splitArgs(args)
		payload, _ := first(data).(map[string]any)
		select {
		case last <- payload:
		default:
		}
	})
	return &n, last
}

// waitCount waits until n reaches want (a deadlock guard, not a timing
// assertion).
func waitCount(t *testing.T, n *atomic.Int64, want int64) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for n.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("count %d, want %d", n.Load(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// 300 requests to a computer that never answers: the first 256 are routed
// and stay pending, the other 44 are refused at once with 403; once the
// pending ones are answered (here: the computer leaves) the agent may ask
// again.
func TestRoute_CapsPendingRequestsPerAgent(t *testing.T) {
	_, base := startServer(t, Options{})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	routed, _ := comp.countRequests(protocol.EventToolCall)
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp.join(protocol.RoleComputer, "c1", "o1")

	const total, limit = 300, 256
	var (
		mu      sync.Mutex
		refused []*protocol.Error
		others  [][]any
	)
	answered := make(chan struct{}, total)
	for i := range total {
		payload := map[string]any{"agent": "alice", "req_id": fmt.Sprint("r", i), "computer": "c1",
			"tool_name": "t", "params": map[string]any{}, "timeout": 60}
		agent.sock.Timeout(2*wait).EmitWithAck(protocol.EventToolCall, payload)(func(args []any, err error) {
			mu.Lock()
			defer mu.Unlock()
			if e, ok := protocol.DecodeError(first(args)); ok && err == nil && e.Code == protocol.CodeForbidden {
				refused = append(refused, e)
			} else {
				others = append(others, args)
			}
			answered <- struct{}{}
		})
	}
	for range total - limit {
		select {
		case <-answered:
		case <-time.After(wait):
			t.Fatal("the requests past the cap were not answered at once")
		}
	}
	waitCount(t, routed, limit)
	mu.Lock()
	if len(refused) != total-limit || len(others) != 0 {
		t.Fatalf("refused %d, other answers %v; want %d refusals and nothing else yet", len(refused), others, total-limit)
	}
	want := "client:tool_call: too many pending requests (limit 256); wait for answers before sending more"
	for _, e := range refused {
		if e.Message != want {
			t.Fatalf("refusal %q, want %q", e.Message, want)
		}
	}
	mu.Unlock()
	if got := routed.Load(); got != limit {
		t.Fatalf("computer received %d requests, want exactly %d", got, limit)
	}

	// The computer leaves: its 256 pending requests are answered with 500
	// and the agent's quota is free again.
	comp.close()
	for range limit {
		select {
		case <-answered:
		case <-time.After(wait):
			t.Fatal("pending requests were not answered when the computer left")
		}
	}
	mu.Lock()
	if len(others) != limit {
		t.Fatalf("%d answers after the computer left, want %d", len(others), limit)
	}
	for _, a := range others {
		if e, ok := protocol.DecodeError(first(a)); !ok || e.Code != protocol.CodeInternal {
			t.Fatalf("pending request answered %v, want a 500", a)
		}
	}
	mu.Unlock()
	comp2 := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	comp2.answer(protocol.EventGetConfig, func(map[string]any) []any { return []any{"cfg"} })
	comp2.join(protocol.RoleComputer, "c2", "o1")
	if got := agent.call(protocol.EventGetConfig, map[string]any{"computer": "c2"}); len(got) != 1 || got[0] != "cfg" {
		t.Errorf("request after the pending ones were answered: %v", got)
	}
}

// The cap is per agent: another office's agent is not refused because one
// agent is at its limit.
func TestRoute_PendingCapIsPerAgent(t *testing.T) {
	_, base := startServer(t, Options{MaxPendingPerAgent: 2})
	greedy := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	routed, _ := comp.countRequests(protocol.EventGetTools)
	greedy.join(protocol.RoleAgent, "greedy", "o1")
	comp.join(protocol.RoleComputer, "c1", "o1")
	other := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	comp2 := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	comp2.answer(protocol.EventGetTools, func(map[string]any) []any { return []any{"tools"} })
	other.join(protocol.RoleAgent, "other", "o2")
	comp2.join(protocol.RoleComputer, "c2", "o2")

	for range 2 {
		greedy.sock.Emit(protocol.EventGetTools, map[string]any{"computer": "c1"}, func([]any, error) {})
	}
	waitCount(t, routed, 2)
	e := errorAck(t, greedy.call(protocol.EventGetTools, map[string]any{"computer": "c1"}))
	if e.Code != protocol.CodeForbidden || e.Message != "client:get_tools: too many pending requests (limit 2); wait for answers before sending more" {
		t.Errorf("third request: %+v", e)
	}
	if got := other.call(protocol.EventGetTools, map[string]any{"computer": "c2"}); len(got) != 1 || got[0] != "tools" {
		t.Errorf("other agent: %v", got)
	}
}

// A request asking for timeout 100000 s is lowered to the configured cap:
// the computer sees the cap, and the server's own time-out fires at the cap
// plus the grace period (the message names it).
func TestRoute_ClampsRequestedTimeout(t *testing.T) {
	_, base := startServer(t, Options{MaxRequestTimeout: 200 * time.Millisecond})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	_, seen := comp.countRequests(protocol.EventToolCall)
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp.join(protocol.RoleComputer, "c1", "o1")

	e := errorAck(t, agent.call(protocol.EventToolCall,
		map[string]any{"computer": "c1", "tool_name": "t", "params": map[string]any{}, "timeout": 100000}))
	if e.Code != protocol.CodeTimeout || e.Message != "computer c1 did not answer client:tool_call within 5.2s" {
		t.Errorf("time-out: %+v", e)
	}
	payload := <-seen
	if payload["timeout"] != 0.2 || payload["tool_name"] != "t" || payload["computer"] != "c1" {
		t.Errorf("computer received %v, want timeout 0.2 and the rest unchanged", payload)
	}
}

// A message over MaxMessageBytes closes the sender's connection (one WARN
// says why); other connections, and the sender's office, go on.
func TestServer_OversizeMessageClosesSenderOnly(t *testing.T) {
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	_, base := startServer(t, Options{MaxMessageBytes: 64 << 10, Logger: log})
	hostile := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	hostile.join(protocol.RoleAgent, "hostile", "o1")
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	comp.answer(protocol.EventGetConfig, func(map[string]any) []any { return []any{"cfg"} })
	comp.join(protocol.RoleComputer, "c1", "o1")
	bystander := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	bystander.join(protocol.RoleAgent, "bystander", "o2")

	gone := make(chan struct{})
	_ = hostile.sock.Once("disconnect", func(...any) { close(gone) })
	hostile.sock.Emit(protocol.EventGetConfig, map[string]any{"computer": "c1", "junk": strings.Repeat("x", 100<<10)})
	select {
	case <-gone:
	case <-time.After(wait):
		t.Fatal("the sender of an oversize message is still connected")
	}
	comp.waitNote(protocol.NotifyLeaveOffice)
	if got := bystander.call(protocol.EventListRoom, map[string]any{"office_id": "o2"}); len(got) != 1 {
		t.Errorf("bystander list_room: %v", got)
	}
	// The computer's connection is intact: a new agent reaches it.
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	agent.join(protocol.RoleAgent, "next", "o1")
	if got := agent.call(protocol.EventGetConfig, map[string]any{"computer": "c1"}); len(got) != 1 || got[0] != "cfg" {
		t.Errorf("computer after the oversize message: %v", got)
	}
	if n := strings.Count(logs.String(), "message over the size limit"); n != 1 {
		t.Errorf("logged the oversize message %d times, want once:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "limit_bytes=65536") {
		t.Errorf("the WARN does not name the limit:\n%s", logs.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the logger's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
