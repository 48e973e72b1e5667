package server

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// A computer that acks a routed event with nothing is named, with the
// event, in a 404 the server answers itself; the agent never sees the
// empty ack, which it would read as the server's "not routed".
func TestRoute_EmptyAckFromComputerNamesTheComputerAndEvent(t *testing.T) {
	_, base := startServer(t, Options{})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp.join(protocol.RoleComputer, "c1", "o1")
	empties := map[string][]any{
		"client:get_skills":    {},
		"client:get_config":    {nil},
		"client:get_tools":     {map[string]any{}},
		"client:get_desktop":   {[]any{}},
		"client:get_resources": {""},
	}
	for ev, reply := range empties {
		comp.answer(ev, func(map[string]any) []any { return reply })
	}
	for ev, reply := range empties {
		t.Run(ev, func(t *testing.T) {
			e := errorAck(t, agent.call(ev, map[string]any{"agent": "alice", "req_id": "r", "computer": "c1"}))
			computer, event, ok := noAnswerOf(e)
			if !ok || computer != "c1" || event != ev || e.Code != protocol.CodeNotFound {
				t.Fatalf("computer acked %v; agent got %+v (no-answer %q %q %v), want 404 naming c1 and %s", reply, e, computer, event, ok, ev)
			}
			if want := "computer c1 gave no answer to " + ev; e.Message != want {
				t.Errorf("message %q, want %q", e.Message, want)
			}
		})
	}
}

// Answers that are not empty pass through as they are, even odd ones.
func TestRoute_NonEmptyAcksAreRelayed(t *testing.T) {
	_, base := startServer(t, Options{})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp.join(protocol.RoleComputer, "c1", "o1")
	for _, tc := range []struct {
		ev    string
		reply []any
	}{
		{"client:get_config", []any{map[string]any{"servers": map[string]any{}}}},
		{"client:get_tools", []any{nil, map[string]any{"tools": []any{}}}},
		{"client:get_desktop", []any{false}},
		{"client:get_resources", []any{0}},
	} {
		comp.answer(tc.ev, func(map[string]any) []any { return tc.reply })
		got := agent.call(tc.ev, map[string]any{"agent": "alice", "req_id": "r", "computer": "c1"})
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(tc.reply)
		if string(gb) != string(wb) {
			t.Errorf("%s: agent got %s, want %s", tc.ev, gb, wb)
		}
	}
}

func TestEmptyAck(t *testing.T) {
	for _, tc := range []struct {
		args  []any
		empty bool
	}{
		{nil, true},
		{[]any{json.RawMessage(` null `)}, true},
		{[]any{json.RawMessage(`{ }`)}, true},
		{[]any{json.RawMessage(`[]`)}, true},
		{[]any{json.RawMessage(`""`)}, true},
		{[]any{json.RawMessage(`{"a":1}`)}, false},
		{[]any{json.RawMessage(`[0]`)}, false},
		{[]any{json.RawMessage(`0`)}, false},
		{[]any{json.RawMessage(`false`)}, false},
		{[]any{json.RawMessage(`" "`)}, false},
		{[]any{json.RawMessage(`null`), json.RawMessage(`{}`)}, false},
	} {
		if got := emptyAck(tc.args); got != tc.empty {
			t.Errorf("emptyAck(%s) = %v, want %v", tc.args, got, tc.empty)
		}
	}
}

// Across nodes the computer's node names it: the agent's node relays the
// 404 like any ack.
func TestCluster_EmptyAckFromRemoteComputerNamesIt(t *testing.T) {
	rds := startRedis(t)
	_, base1 := startNode(t, rds.URL(), "na", 1500*time.Millisecond)
	_, base2 := startNode(t, rds.URL(), "na", 1500*time.Millisecond)
	comp := mustDial(t, base2, peerConfig{Role: protocol.RoleComputer})
	comp.answer("client:get_skills", func(map[string]any) []any { return []any{} })
	comp.join(protocol.RoleComputer, "far", "o")
	agent := mustDial(t, base1, peerConfig{Role: protocol.RoleAgent})
	agent.join(protocol.RoleAgent, "a", "o")
	comp.waitNote(protocol.NotifyEnterOffice)
	e := errorAck(t, agent.call("client:get_skills", map[string]any{"computer": "far", "agent": "a", "req_id": "q", "timeout": 3}))
	if c, ev, ok := noAnswerOf(e); !ok || c != "far" || ev != "client:get_skills" {
		t.Fatalf("agent on node 1 got %+v, want a no-answer naming far and client:get_skills", e)
	}
}

// noAnswerOf reads the two fields protocol.NoAnswer adds.
func noAnswerOf(e *protocol.Error) (computer, event string, ok bool) {
	if e == nil || e.Code != protocol.CodeNotFound {
		return "", "", false
	}
	if json.Unmarshal(e.Extra[protocol.FieldNoAnswerComputer], &computer) != nil ||
		json.Unmarshal(e.Extra[protocol.FieldNoAnswerEvent], &event) != nil {
		return "", "", false
	}
	return computer, event, computer != "" && event != ""
}
