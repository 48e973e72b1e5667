package server

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func newMember(o *offices, sid, role string) *member {
	m := &member{sid: sid, role: role, version: protocol.Version}
	o.add(m)
	return m
}

func req(role, name, office string) protocol.EnterOfficeReq {
	return protocol.EnterOfficeReq{Role: role, Name: name, OfficeID: office}
}

// summary renders notices as "event office who -> recipients".
func summary(ns []notice) []string {
	var out []string
	for _, n := range ns {
		p := n.payload.(protocol.OfficeNotification)
		who := ""
		if p.Agent != nil {
			who = "agent=" + *p.Agent
		}
		if p.Computer != nil {
			who = "computer=" + *p.Computer
		}
		var to []string
		for _, m := range n.to {
			to = append(to, m.sid)
		}
		out = append(out, fmt.Sprintf("%s %s %s -> %v", n.event, p.OfficeID, who, to))
	}
	return out
}

func TestOffices_JoinRules(t *testing.T) {
	o := newOffices()
	a := newMember(o, "A", protocol.RoleAgent)
	c := newMember(o, "C", protocol.RoleComputer)
	a2 := newMember(o, "A2", protocol.RoleAgent)
	c2 := newMember(o, "C2", protocol.RoleComputer)

	steps := []struct {
		name    string
		m       *member
		req     protocol.EnterOfficeReq
		err     string
		notices []string
	}{
		{"agent opens office", a, req("agent", "alice", "o1"), "", []string{"notify:enter_office o1 agent=alice -> []"}},
		{"computer joins", c, req("computer", "c", "o1"), "", []string{"notify:enter_office o1 computer=c -> [A]"}},
		{"second agent", a2, req("agent", "bob", "o1"), "office o1 already has an agent", nil},
		{"name taken by a computer", c2, req("computer", "c", "o1"), `name "c" is already taken in office o1`, nil},
		{"name taken by the agent", c2, req("computer", "alice", "o1"), `name "alice" is already taken in office o1`, nil},
		{"same name elsewhere", c2, req("computer", "c", "o2"), "", []string{"notify:enter_office o2 computer=c -> []"}},
		{"repeat join is a no-op", c, req("computer", "c", "o1"), "", nil},
		{"computer switches office", c, req("computer", "c9", "o3"), "", []string{
			"notify:leave_office o1 computer=c -> [A]", "notify:enter_office o3 computer=c9 -> []"}},
		{"refused switch keeps the old office", c2, req("computer", "c9", "o3"), `name "c9" is already taken in office o3`, nil},
		{"long name", c2, req("computer", strings.Repeat("n", 257), "o4"), "name is 257 bytes long, at most 256 allowed", nil},
		{"long office", c2, req("computer", "x", strings.Repeat("o", 300)), "office_id is 300 bytes long, at most 256 allowed", nil},
		{"role mismatch", c2, req("agent", "x", "o4"), `role "agent" does not match the connection's role "computer"`, nil},
	}
	for _, st := range steps {
		ns, err := o.join(st.m, st.req)
		if got := fmt.Sprint(err); (st.err == "" && err != nil) || (st.err != "" && got != st.err) {
			t.Fatalf("%s: err %v, want %q", st.name, err, st.err)
		}
		if got := summary(ns); !reflect.DeepEqual(got, st.notices) {
			t.Fatalf("%s: notices %v, want %v", st.name, got, st.notices)
		}
	}
	if office, name := o.where(c2); office != "o2" || name != "c" {
		t.Errorf("c2 at %s/%s after refused switch, want o2/c", office, name)
	}
	if got, res := o.computer("o1", "c9"); got != nil || res != computerElsewhere {
		t.Errorf("lookup of c9 from o1 = %v, %v; want elsewhere", got, res)
	}
	if got, res := o.computer("o3", "c9"); got != c || res != computerHere {
		t.Errorf("lookup of c9 in o3 = %v, %v", got, res)
	}
	if _, res := o.computer("o1", "ghost"); res != computerMissing {
		t.Errorf("lookup of ghost = %v", res)
	}
	// Disconnect counts as leaving; a removed member cannot come back.
	if got := summary(o.remove(a)); !reflect.DeepEqual(got, []string{"notify:leave_office o1 agent=alice -> []"}) {
		t.Errorf("remove: %v", got)
	}
	if _, err := o.join(a, req("agent", "alice", "o1")); err == nil {
		t.Error("removed member joined")
	}
	if o.add(a) {
		t.Error("removed member re-added")
	}
	if _, err := o.join(a2, req("agent", "bob", "o1")); err != nil {
		t.Errorf("office o1 not free after its agent left: %v", err)
	}
}

// Racing agents: exactly one wins an office.
func TestOffices_OneAgentPerOfficeUnderRace(t *testing.T) {
	o := newOffices()
	const n = 16
	var wg sync.WaitGroup
	wins := make(chan string, n)
	for i := range n {
		m := newMember(o, fmt.Sprint("A", i), protocol.RoleAgent)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := o.join(m, req("agent", fmt.Sprint("agent", i), "o")); err == nil {
				wins <- m.sid
			}
		}()
	}
	wg.Wait()
	close(wins)
	if got := len(wins); got != 1 {
		t.Fatalf("%d agents joined one office", got)
	}
	if s := o.sessions("o"); len(s) != 1 || s[0].Role != protocol.RoleAgent {
		t.Errorf("sessions %v", s)
	}
}
