package server

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// member is one connected session as room-model.md §成员状态 describes it.
// sid and version are fixed at connect, and so is role when auth.role
// carries it; from 0.3 a role left out there is set once, by the first
// join, under offices.mu (offices.adoptRole). name and office change under
// offices.mu.
type member struct {
	sid     string
	role    string
	version string        // a2c_version from the handshake query (events.md §server:list_room)
	conn    conn          // nil in unit tests of offices
	gate    *gatedDecoder // released once the library has recorded the socket (gate.go)

	name   string
	office string

	pending pendingSet // requests routed to this member, awaiting its ack
	asked   quota      // requests this member routed, awaiting an answer
	gone    bool       // disconnected; guarded by offices.mu
}

// maxIDLen bounds names and office ids: they are echoed in every
// notification and listing.
const maxIDLen = 256

// notice is a notification to deliver once offices.mu is released, so that
// no socket write happens under the lock.
type notice struct {
	event   string
	payload any
	to      []*member // this node's recipients
	// office and except address the same recipients on every node: the
	// office's Socket.IO room without the sender's socket.
	office, except string
}

// offices is the room state. All decisions (one agent per office, unique
// names, computer switching) happen under one mutex so that two racing
// joins cannot both win.
type offices struct {
	mu       sync.Mutex
	members  map[string]*member            // by sid
	byOffice map[string]map[string]*member // office → sid → member
}

func newOffices() *offices {
	return &offices{members: map[string]*member{}, byOffice: map[string]map[string]*member{}}
}

// add registers a connected session. A session that disconnected before
// its connection handler ran is not added.
func (o *offices) add(m *member) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if m.gone {
		return false
	}
	o.members[m.sid] = m
	return true
}

// join puts m into req.OfficeID (room-model.md §验证规则). On success it
// returns the notices to send: leave for the old office (if m switches)
// and enter for the new one. On failure m is left where it was.
func (o *offices) join(m *member, req protocol.EnterOfficeReq) ([]notice, error) {
	if err := checkJoin(m, req); err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.members[m.sid]; !ok {
		return nil, fmt.Errorf("session is closed")
	}
	if m.office == req.OfficeID && m.name == req.Name {
		return nil, nil // a repeated join (e.g. a client retrying) changes nothing
	}
	for _, other := range o.byOffice[req.OfficeID] {
		if other == m {
			continue
		}
		if m.role == protocol.RoleAgent && other.role == protocol.RoleAgent {
			return nil, fmt.Errorf("office %s already has an agent", req.OfficeID)
		}
		if other.name == req.Name {
			return nil, fmt.Errorf("name %q is already taken in office %s", req.Name, req.OfficeID)
		}
	}
	var out []notice
	if m.office != "" {
		out = append(out, o.leaveLocked(m))
	}
	m.name, m.office = req.Name, req.OfficeID
	room := o.byOffice[m.office]
	if room == nil {
		room = map[string]*member{}
		o.byOffice[m.office] = room
	}
	room[m.sid] = m
	out = append(out, notice{
		event:   protocol.NotifyEnterOffice,
		payload: officeNotification(m),
		to:      o.othersLocked(m),
		office:  m.office,
		except:  m.sid,
	})
	return out, nil
}

// leave takes m out of officeID ("" means its current office).
func (o *offices) leave(m *member, officeID string) ([]notice, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if m.office == "" {
		return nil, fmt.Errorf("not in an office")
	}
	if officeID != "" && officeID != m.office {
		return nil, fmt.Errorf("not in office %s", officeID)
	}
	return []notice{o.leaveLocked(m)}, nil
}

// remove forgets m (disconnect counts as leaving, room-model.md §自动离开场景).
func (o *offices) remove(m *member) []notice {
	o.mu.Lock()
	defer o.mu.Unlock()
	m.gone = true
	delete(o.members, m.sid)
	if m.office == "" {
		return nil
	}
	return []notice{o.leaveLocked(m)}
}

// leaveLocked notifies the others before removing m (room-model.md §离开流程:
// the broadcast happens "离开前"; the recipients are computed first).
func (o *offices) leaveLocked(m *member) notice {
	n := notice{event: protocol.NotifyLeaveOffice, payload: officeNotification(m), to: o.othersLocked(m),
		office: m.office, except: m.sid}
	if room := o.byOffice[m.office]; room != nil {
		delete(room, m.sid)
		if len(room) == 0 {
			delete(o.byOffice, m.office)
		}
	}
	m.office, m.name = "", ""
	return n
}

func (o *offices) othersLocked(m *member) []*member {
	var out []*member
	for _, other := range o.byOffice[m.office] {
		if other != m {
			out = append(out, other)
		}
	}
	return out
}

// where returns m's current office and name.
func (o *offices) where(m *member) (office, name string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return m.office, m.name
}

// others returns the office and name of m and the other members of its office.
func (o *offices) others(m *member) (office, name string, to []*member) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return m.office, m.name, o.othersLocked(m)
}

// sessions lists an office, agents first, then by name, so that answers
// are stable.
func (o *offices) sessions(office string) []protocol.SessionInfo {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]protocol.SessionInfo, 0, len(o.byOffice[office]))
	for _, m := range o.byOffice[office] {
		out = append(out, protocol.SessionInfo{SID: m.sid, Name: m.name, Role: m.role, OfficeID: m.office, A2CVersion: m.version})
	}
	sortSessions(out)
	return out
}

func sortSessions(out []protocol.SessionInfo) {
	slices.SortFunc(out, func(a, b protocol.SessionInfo) int {
		if a.Role != b.Role {
			if a.Role == protocol.RoleAgent {
				return -1
			}
			if b.Role == protocol.RoleAgent {
				return 1
			}
		}
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.SID, b.SID))
	})
}

// lookupResult says where a computer name was found.
type lookupResult int

const (
	computerMissing lookupResult = iota
	computerHere
	computerElsewhere
)

// computer finds the computer called name in office, or reports whether
// one of that name exists in another office (4104 rather than 404).
func (o *offices) computer(office, name string) (*member, lookupResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, m := range o.byOffice[office] {
		if m.role == protocol.RoleComputer && m.name == name {
			return m, computerHere
		}
	}
	for _, m := range o.members {
		if m.role == protocol.RoleComputer && m.office != "" && m.name == name {
			return nil, computerElsewhere
		}
	}
	return nil, computerMissing
}

// all returns every member (for shutdown).
func (o *offices) all() []*member {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]*member, 0, len(o.members))
	for _, m := range o.members {
		out = append(out, m)
	}
	return out
}

func officeNotification(m *member) protocol.OfficeNotification {
	n := protocol.OfficeNotification{OfficeID: m.office}
	name := m.name
	if m.role == protocol.RoleAgent {
		n.Agent = &name
	} else {
		n.Computer = &name
	}
	return n
}

// adoptRole gives a session that connected without auth.role (0.3+) the
// role of its first join, when that is a role; later joins must match it.
func (o *offices) adoptRole(m *member, role string) {
	if role != protocol.RoleAgent && role != protocol.RoleComputer {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if m.role == "" {
		m.role = role
	}
}

// checkJoin validates a join request on its own (no room state).
func checkJoin(m *member, req protocol.EnterOfficeReq) error {
	switch {
	case req.Role != protocol.RoleAgent && req.Role != protocol.RoleComputer:
		return fmt.Errorf("role must be %q or %q, got %q", protocol.RoleAgent, protocol.RoleComputer, req.Role)
	case req.Role != m.role:
		return fmt.Errorf("role %q does not match the connection's role %q", req.Role, m.role)
	case req.Name == "":
		return fmt.Errorf("name is required")
	case req.OfficeID == "":
		return fmt.Errorf("office_id is required")
	case len(req.Name) > maxIDLen:
		return fmt.Errorf("name is %d bytes long, at most %d allowed", len(req.Name), maxIDLen)
	case len(req.OfficeID) > maxIDLen:
		return fmt.Errorf("office_id is %d bytes long, at most %d allowed", len(req.OfficeID), maxIDLen)
	}
	return nil
}

func validJoin(m *member, req protocol.EnterOfficeReq) bool { return checkJoin(m, req) == nil }
