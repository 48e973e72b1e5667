package server

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// answer makes p answer ev with reply (nil: never ack) and records what it got.
func (p *peer) answer(ev string, reply func(payload map[string]any) []any) <-chan map[string]any {
	got := make(chan map[string]any, 16)
	_ = p.sock.On(types.EventName(ev), func(args ...any) {
		data, ack := splitArgs(args)
		payload, _ := first(data).(map[string]any)
		got <- payload
		if ack != nil && reply != nil {
			if r := reply(payload); r != nil {
				ack(r, nil)
			}
		}
	})
	return got
}

func TestListRoom_ListsMembersWithVersions(t *testing.T) {
	_, base := startServer(t, Options{})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	agent.join(protocol.RoleAgent, "alice", "o1")
	c2 := mustDial(t, base, peerConfig{Role: protocol.RoleComputer, Version: "0.2.7"})
	c2.join(protocol.RoleComputer, "zeta", "o1")
	c1 := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	c1.join(protocol.RoleComputer, "beta", "o1")
	mustDial(t, base, peerConfig{Role: protocol.RoleComputer}).join(protocol.RoleComputer, "elsewhere", "o2")

	args := agent.call(protocol.EventListRoom, map[string]any{"agent": "alice", "req_id": "req-7", "office_id": "o1"})
	if len(args) != 1 {
		t.Fatalf("ack %v: want one argument", args)
	}
	ret, _ := args[0].(map[string]any)
	if ret["req_id"] != "req-7" {
		t.Errorf("req_id %v", ret["req_id"])
	}
	sessions, _ := ret["sessions"].([]any)
	var got []map[string]any
	sids := map[any]any{}
	for _, s := range sessions {
		m, _ := s.(map[string]any)
		sids[m["name"]] = m["sid"]
		delete(m, "sid")
		got = append(got, m)
	}
	want := []map[string]any{
		{"name": "alice", "role": "agent", "office_id": "o1", "a2c_version": "0.2.0"},
		{"name": "beta", "role": "computer", "office_id": "o1", "a2c_version": "0.2.0"},
		{"name": "zeta", "role": "computer", "office_id": "o1", "a2c_version": "0.2.7"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sessions\n got %v\nwant %v", got, want)
	}
	// The sid is the member's Socket.IO id.
	for name, p := range map[string]*peer{"alice": agent, "beta": c1, "zeta": c2} {
		if sids[name] != p.sock.Id() {
			t.Errorf("sid of %s = %v, want %s", name, sids[name], p.sock.Id())
		}
	}
	// An empty office_id means the caller's office.
	if names := sessionNames(t, c1, ""); len(names) != 3 {
		t.Errorf("list of own office: %v", names)
	}
}

func TestListRoom_OnlyMembersMayAsk(t *testing.T) {
	_, base := startServer(t, Options{})
	mustDial(t, base, peerConfig{Role: protocol.RoleComputer}).join(protocol.RoleComputer, "c", "o1")
	outsider := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	e := errorAck(t, outsider.call(protocol.EventListRoom, map[string]any{"agent": "x", "req_id": "r", "office_id": "o1"}))
	if e.Code != protocol.CodeNotInRoom || e.Message != "join an office before server:list_room" {
		t.Errorf("not joined: %+v", e)
	}
	outsider.join(protocol.RoleAgent, "x", "o2")
	e = errorAck(t, outsider.call(protocol.EventListRoom, map[string]any{"agent": "x", "req_id": "r", "office_id": "o1"}))
	if e.Code != protocol.CodeCrossRoom || e.Message != "server:list_room: not a member of office o1" {
		t.Errorf("other office: %+v", e)
	}
}

func TestRoute_RelaysComputerAckUnchanged(t *testing.T) {
	_, base := startServer(t, Options{})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	config := map[string]any{
		"servers": map[string]any{"lib": map[string]any{"name": "lib", "type": "stdio", "disabled": false, "extra": []any{1.5, "x", nil}}},
		"inputs":  []any{},
	}
	gotConfig := comp.answer(protocol.EventGetConfig, func(map[string]any) []any { return []any{config} })
	gotFuture := comp.answer("client:future_event", func(p map[string]any) []any { return []any{map[string]any{"echo": p["x"]}, "second", 3.0} })
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp.join(protocol.RoleComputer, "c1", "o1")

	req := map[string]any{"agent": "alice", "req_id": "r1", "computer": "c1"}
	if got := agent.call(protocol.EventGetConfig, req); !reflect.DeepEqual(got, []any{config}) {
		t.Errorf("get_config ack\n got %#v\nwant %#v", got, []any{config})
	}
	if got := <-gotConfig; !reflect.DeepEqual(got, req) {
		t.Errorf("computer received %v, want %v", got, req)
	}
	// A client: event this server has never heard of is routed the same way,
	// and every ack argument comes back.
	future := map[string]any{"agent": "alice", "req_id": "r2", "computer": "c1", "x": map[string]any{"deep": true}}
	want := []any{map[string]any{"echo": map[string]any{"deep": true}}, "second", 3.0}
	if got := agent.call("client:future_event", future); !reflect.DeepEqual(got, want) {
		t.Errorf("future event ack %#v, want %#v", got, want)
	}
	if got := <-gotFuture; !reflect.DeepEqual(got, future) {
		t.Errorf("computer received %v, want %v", got, future)
	}
}

func TestRoute_AlwaysAnswersWithErrorCodes(t *testing.T) {
	_, base := startServer(t, Options{RequestTimeout: 300 * time.Millisecond})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	silent := comp.answer(protocol.EventGetTools, nil) // never acks
	farAgent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	far := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})

	// Before anyone joins: the caller is in no office.
	e := errorAck(t, agent.call(protocol.EventGetConfig, map[string]any{"agent": "alice", "req_id": "r", "computer": "c1"}))
	if e.Code != protocol.CodeNotInRoom || e.Message != "join an office before client:get_config" {
		t.Errorf("not in office: %+v", e)
	}
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp.join(protocol.RoleComputer, "c1", "o1")
	farAgent.join(protocol.RoleAgent, "bob", "o2")
	far.join(protocol.RoleComputer, "far", "o2")

	tests := []struct {
		name    string
		from    *peer
		event   string
		payload any
		code    int
		message string
	}{
		{"unknown computer", agent, protocol.EventGetConfig, map[string]any{"computer": "nobody"}, 404, "no computer named nobody in office o1"},
		{"computer in another office", agent, protocol.EventGetDPE, map[string]any{"computer": "far", "uri": "dpe://h/d"}, 4104, "computer far is not in office o1"},
		{"agent is not a computer", agent, protocol.EventGetConfig, map[string]any{"computer": "alice"}, 404, "no computer named alice in office o1"},
		{"no computer field", agent, protocol.EventGetResources, map[string]any{"mcp_server": "lib"}, 400, `client:get_resources: payload needs a "computer" field`},
		{"payload not an object", agent, protocol.EventGetConfig, "c1", 400, "client:get_config: payload must be an object"},
		{"caller is a computer", comp, protocol.EventGetConfig, map[string]any{"computer": "c1"}, 403, "client:get_config may only be sent by an agent"},
		{"computer never acks", agent, protocol.EventGetTools, map[string]any{"computer": "c1"}, 408, "computer c1 did not answer client:get_tools within 300ms"},
		{"unknown server event", agent, "server:frobnicate", map[string]any{}, 404, "unknown event server:frobnicate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := errorAck(t, tc.from.call(tc.event, tc.payload))
			if e.Code != tc.code || e.Message != tc.message {
				t.Errorf("got {%d %q}, want {%d %q}", e.Code, e.Message, tc.code, tc.message)
			}
		})
	}
	if got := <-silent; got["computer"] != "c1" {
		t.Errorf("silent computer received %v", got)
	}
}

func TestRoute_ComputerLeavingAnswersPendingRequest(t *testing.T) {
	_, base := startServer(t, Options{})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	received := comp.answer(protocol.EventToolCall, nil)
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp.join(protocol.RoleComputer, "c1", "o1")

	res := make(chan []any, 1)
	agent.sock.Timeout(wait).EmitWithAck(protocol.EventToolCall,
		map[string]any{"computer": "c1", "tool_name": "t", "params": map[string]any{}, "timeout": 600})(func(args []any, err error) {
		if err != nil {
			t.Errorf("no ack: %v", err)
		}
		res <- args
	})
	<-received // the request is pending on the computer
	comp.close()
	e := errorAck(t, <-res)
	if e.Code != protocol.CodeInternal || e.Message != "computer c1 disconnected before answering" {
		t.Errorf("got %+v", e)
	}
}

func TestTimeoutFor_UsesRequestTimeoutPlusGrace(t *testing.T) {
	s := &Server{opt: Options{RequestTimeout: 7 * time.Second}}
	tests := []struct {
		payload       map[string]any
		want, clamped time.Duration
	}{
		{map[string]any{}, 7 * time.Second, 0},
		{map[string]any{"timeout": 0.0}, 7 * time.Second, 0},
		{map[string]any{"timeout": -3.0}, 7 * time.Second, 0},
		{map[string]any{"timeout": "30"}, 7 * time.Second, 0},
		{map[string]any{"timeout": math.NaN()}, 7 * time.Second, 0},
		{map[string]any{"timeout": 30.0}, 35 * time.Second, 0},
		{map[string]any{"timeout": 0.5}, 5500 * time.Millisecond, 0},
		{map[string]any{"timeout": 120.0}, 125 * time.Second, 0},
		{map[string]any{"timeout": 120.5}, 125 * time.Second, 120 * time.Second},
		{map[string]any{"timeout": 1e300}, 125 * time.Second, 120 * time.Second},
		{map[string]any{"timeout": math.Inf(1)}, 125 * time.Second, 120 * time.Second},
	}
	for _, tc := range tests {
		if got, clamped := s.timeoutFor(tc.payload); got != tc.want || clamped != tc.clamped {
			t.Errorf("timeoutFor(%v) = %v, %v; want %v, %v", tc.payload, got, clamped, tc.want, tc.clamped)
		}
	}
	if got, _ := (&Server{}).timeoutFor(map[string]any{}); got != 30*time.Second {
		t.Errorf("default = %v, want 30s", got)
	}
	small := &Server{opt: Options{MaxRequestTimeout: 200 * time.Millisecond}}
	if got, clamped := small.timeoutFor(map[string]any{"timeout": 100000.0}); got != 5200*time.Millisecond || clamped != 200*time.Millisecond {
		t.Errorf("configured cap: %v, %v; want 5.2s, 200ms", got, clamped)
	}
}

// A client:* event emitted right after a join, without waiting for the join
// ack, is routed in order (not refused with 4103).
func TestRoute_FollowsAJoinEmittedJustBefore(t *testing.T) {
	_, base := startServer(t, Options{})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	comp.answer(protocol.EventGetConfig, func(map[string]any) []any { return []any{"cfg"} })
	comp.join(protocol.RoleComputer, "c1", "o1")
	for i := range 5 {
		agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
		joined := make(chan []any, 1)
		agent.sock.Emit(protocol.EventJoinOffice, joinArgs(protocol.RoleAgent, "a", "o1"), func(args []any, _ error) { joined <- args })
		if got := agent.call(protocol.EventGetConfig, map[string]any{"computer": "c1"}); !reflect.DeepEqual(got, []any{"cfg"}) {
			t.Fatalf("round %d: get_config right after join: %v", i, got)
		}
		if got := <-joined; !reflect.DeepEqual(got, []any{true, nil}) {
			t.Fatalf("round %d: join %v", i, got)
		}
		agent.close()
		// The next agent may only join once this one has left.
		comp.waitNote(protocol.NotifyLeaveOffice)
	}
}
