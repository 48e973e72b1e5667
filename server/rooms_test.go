package server

import (
	"reflect"
	"testing"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func joinArgs(role, name, office string) map[string]any {
	return map[string]any{"role": role, "name": name, "office_id": office}
}

func TestJoinOffice_AckShapeAndRefusals(t *testing.T) {
	_, base := startServer(t, Options{})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp.join(protocol.RoleComputer, "c1", "o1")

	tests := []struct {
		name    string
		p       peerConfig
		payload any
		reason  string
	}{
		{"second agent", peerConfig{Role: protocol.RoleAgent}, joinArgs(protocol.RoleAgent, "bob", "o1"), "office o1 already has an agent"},
		{"duplicate computer name", peerConfig{Role: protocol.RoleComputer}, joinArgs(protocol.RoleComputer, "c1", "o1"), `name "c1" is already taken in office o1`},
		{"computer named like the agent", peerConfig{Role: protocol.RoleComputer}, joinArgs(protocol.RoleComputer, "alice", "o1"), `name "alice" is already taken in office o1`},
		{"role differs from auth.role", peerConfig{Role: protocol.RoleComputer}, joinArgs(protocol.RoleAgent, "x", "o2"), `role "agent" does not match the connection's role "computer"`},
		{"unknown role", peerConfig{Role: protocol.RoleComputer}, joinArgs("admin", "x", "o2"), `role must be "agent" or "computer", got "admin"`},
		{"missing name", peerConfig{Role: protocol.RoleComputer}, joinArgs(protocol.RoleComputer, "", "o2"), "name is required"},
		{"missing office", peerConfig{Role: protocol.RoleComputer}, joinArgs(protocol.RoleComputer, "x", ""), "office_id is required"},
		{"no payload", peerConfig{Role: protocol.RoleComputer}, nil, "server:join_office: missing payload"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustDial(t, base, tc.p)
			got := p.call(protocol.EventJoinOffice, tc.payload)
			want := []any{false, tc.reason}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ack %#v, want %#v", got, want)
			}
		})
	}
	// The same name is fine in another office.
	other := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	other.join(protocol.RoleComputer, "c1", "o2")
	// A repeated identical join is accepted and changes nothing.
	comp.join(protocol.RoleComputer, "c1", "o1")
}

func TestJoinOffice_NotifiesOthers(t *testing.T) {
	_, base := startServer(t, Options{})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	comp.join(protocol.RoleComputer, "c1", "o1")

	if got, want := agent.waitNote(protocol.NotifyEnterOffice), map[string]any{"office_id": "o1", "computer": "c1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("enter notification %v, want %v", got, want)
	}
}

func TestJoinOffice_ComputerSwitchingOfficesLeavesOldOne(t *testing.T) {
	_, base := startServer(t, Options{})
	a1 := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	a1.join(protocol.RoleAgent, "a1", "o1")
	a2 := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	a2.join(protocol.RoleAgent, "a2", "o2")
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	comp.join(protocol.RoleComputer, "c", "o1")
	a1.waitNote(protocol.NotifyEnterOffice)

	comp.join(protocol.RoleComputer, "c", "o2")
	if got, want := a1.waitNote(protocol.NotifyLeaveOffice), map[string]any{"office_id": "o1", "computer": "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("old office got %v, want %v", got, want)
	}
	if got, want := a2.waitNote(protocol.NotifyEnterOffice), map[string]any{"office_id": "o2", "computer": "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("new office got %v, want %v", got, want)
	}
	if got := sessionNames(t, a1, "o1"); !reflect.DeepEqual(got, []string{"agent:a1"}) {
		t.Errorf("o1 after switch: %v", got)
	}
	if got := sessionNames(t, a2, "o2"); !reflect.DeepEqual(got, []string{"agent:a2", "computer:c"}) {
		t.Errorf("o2 after switch: %v", got)
	}
}

func TestLeaveOffice_AcksAndNotifies(t *testing.T) {
	_, base := startServer(t, Options{})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	comp.join(protocol.RoleComputer, "c1", "o1")

	if got := comp.call(protocol.EventLeaveOffice, map[string]any{"office_id": "o2"}); !reflect.DeepEqual(got, []any{false, "not in office o2"}) {
		t.Errorf("leave of another office: %#v", got)
	}
	if got := comp.call(protocol.EventLeaveOffice, map[string]any{"office_id": "o1"}); !reflect.DeepEqual(got, []any{true, nil}) {
		t.Errorf("leave ack %#v, want [true <nil>]", got)
	}
	if got, want := agent.waitNote(protocol.NotifyLeaveOffice), map[string]any{"office_id": "o1", "computer": "c1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("leave notification %v, want %v", got, want)
	}
	if got := comp.call(protocol.EventLeaveOffice, map[string]any{"office_id": "o1"}); !reflect.DeepEqual(got, []any{false, "not in an office"}) {
		t.Errorf("second leave: %#v", got)
	}
	// The agent leaving frees the office for another agent.
	if got := agent.call(protocol.EventLeaveOffice, map[string]any{"office_id": "o1"}); !reflect.DeepEqual(got, []any{true, nil}) {
		t.Errorf("agent leave: %#v", got)
	}
	mustDial(t, base, peerConfig{Role: protocol.RoleAgent}).join(protocol.RoleAgent, "bob", "o1")
}

func TestDisconnect_CountsAsLeaving(t *testing.T) {
	_, base := startServer(t, Options{})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	comp.join(protocol.RoleComputer, "c1", "o1")
	agent.waitNote(protocol.NotifyEnterOffice)

	comp.close()
	if got, want := agent.waitNote(protocol.NotifyLeaveOffice), map[string]any{"office_id": "o1", "computer": "c1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("leave notification %v, want %v", got, want)
	}
	if got := sessionNames(t, agent, "o1"); !reflect.DeepEqual(got, []string{"agent:alice"}) {
		t.Errorf("office after disconnect: %v", got)
	}
	// The name is free again.
	c2 := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	c2.join(protocol.RoleComputer, "c1", "o1")

	// An agent's disconnect is announced to the computers and frees the office.
	agent.close()
	if got, want := c2.waitNote(protocol.NotifyLeaveOffice), map[string]any{"office_id": "o1", "agent": "alice"}; !reflect.DeepEqual(got, want) {
		t.Errorf("agent leave notification %v, want %v", got, want)
	}
	mustDial(t, base, peerConfig{Role: protocol.RoleAgent}).join(protocol.RoleAgent, "bob", "o1")
}

// sessionNames lists an office through server:list_room as "role:name".
func sessionNames(t *testing.T, p *peer, office string) []string {
	t.Helper()
	args := p.call(protocol.EventListRoom, map[string]any{"agent": "x", "req_id": "r", "office_id": office})
	ret, _ := first(args).(map[string]any)
	sessions, _ := ret["sessions"].([]any)
	var out []string
	for _, s := range sessions {
		m, _ := s.(map[string]any)
		out = append(out, m["role"].(string)+":"+m["name"].(string))
	}
	return out
}
