package server

import (
	"reflect"
	"testing"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func TestComputerUpdates_BecomeOfficeNotifications(t *testing.T) {
	_, base := startServer(t, Options{})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	other := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp.join(protocol.RoleComputer, "c1", "o1")
	other.join(protocol.RoleAgent, "bob", "o2")

	for ev, notify := range map[string]string{
		protocol.EventUpdateConfig:   protocol.NotifyUpdateConfig,
		protocol.EventUpdateToolList: protocol.NotifyUpdateToolList,
		protocol.EventUpdateDesktop:  protocol.NotifyUpdateDesktop,
	} {
		// The name in the payload is not trusted: the server's name is sent.
		if got := comp.call(ev, map[string]any{"computer": "spoofed"}); len(got) != 0 {
			t.Errorf("%s ack %v, want empty", ev, got)
		}
		if got, want := agent.waitNote(notify), map[string]any{"computer": "c1"}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", notify, got, want)
		}
		// Only the agent may not send it.
		e := errorAck(t, agent.call(ev, map[string]any{"computer": "c1"}))
		if e.Code != protocol.CodeForbidden || e.Message != ev+" is for computers" {
			t.Errorf("%s from agent: %+v", ev, e)
		}
	}
	// Without an ack the update still goes out.
	if err := comp.sock.Emit(protocol.EventUpdateConfig, map[string]any{"computer": "c1"}); err != nil {
		t.Fatal(err)
	}
	agent.waitNote(protocol.NotifyUpdateConfig)

	// Another office hears nothing: its agent's first notification is its own
	// computer's.
	c2 := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	c2.join(protocol.RoleComputer, "c2", "o2")
	c2.call(protocol.EventUpdateConfig, map[string]any{"computer": "c2"})
	if got := other.waitNote(protocol.NotifyUpdateConfig); got["computer"] != "c2" {
		t.Errorf("o2 agent saw %v first", got)
	}

	lonely := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	e := errorAck(t, lonely.call(protocol.EventUpdateToolList, map[string]any{"computer": "x"}))
	if e.Code != protocol.CodeNotInRoom {
		t.Errorf("update outside an office: %+v", e)
	}
}

func TestToolCallCancel_ReachesTheOffice(t *testing.T) {
	_, base := startServer(t, Options{})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp.join(protocol.RoleComputer, "c1", "o1")

	if got := agent.call(protocol.EventToolCallCancel, map[string]any{"agent": "mallory", "req_id": "r9"}); len(got) != 0 {
		t.Errorf("cancel ack %v, want empty", got)
	}
	if got, want := comp.waitNote(protocol.NotifyToolCallCancel), map[string]any{"agent": "alice", "req_id": "r9"}; !reflect.DeepEqual(got, want) {
		t.Errorf("cancel notification %v, want %v", got, want)
	}
	e := errorAck(t, comp.call(protocol.EventToolCallCancel, map[string]any{"agent": "alice", "req_id": "r9"}))
	if e.Code != protocol.CodeForbidden {
		t.Errorf("cancel from a computer: %+v", e)
	}
}
