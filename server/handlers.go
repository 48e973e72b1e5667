package server

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gorilla/websocket"
	"github.com/zishang520/socket.io/servers/socket/v3"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// attach creates the member for an authenticated socket and registers its
// listeners. It runs in the namespace middleware, before the CONNECT packet
// goes out, so no event can arrive before a listener exists.
func (s *Server) attach(sock *socket.Socket) *member {
	role, _ := sock.Handshake().Auth["role"].(string)
	m := &member{
		sid:     string(sock.Id()),
		role:    role,
		version: sock.Request().Query().Peek(protocol.QueryVersion),
		conn:    sock,
	}
	on := func(ev string, h func(*member, []any)) {
		_ = sock.On(ev, func(args ...any) { h(m, args) })
	}
	on(protocol.EventJoinOffice, s.onJoin)
	on(protocol.EventLeaveOffice, s.onLeave)
	on(protocol.EventListRoom, s.onListRoom)
	on(protocol.EventToolCallCancel, s.onToolCallCancel)
	for ev, notify := range map[string]string{
		protocol.EventUpdateConfig:   protocol.NotifyUpdateConfig,
		protocol.EventUpdateToolList: protocol.NotifyUpdateToolList,
		protocol.EventUpdateDesktop:  protocol.NotifyUpdateDesktop,
	} {
		on(ev, func(m *member, args []any) { s.onComputerUpdate(m, ev, notify, args) })
	}
	// client:* is open-ended (events.md §事件分类规则: future client: events
	// are routed too), so it is caught with an any-listener. Any-listeners
	// run when a packet is taken off the socket's task queue, before the On
	// handlers of earlier packets (which dispatch re-queues) have run; so the
	// route is queued too, behind a join emitted just before it.
	sock.OnAny(func(args ...any) {
		ev, _ := first(args).(string)
		switch {
		case strings.HasPrefix(ev, protocol.ClientPrefix):
			sock.Enqueue(func() { s.route(m, ev, args[1:]) })
		case strings.HasPrefix(ev, "server:") && !knownServerEvent(ev):
			sock.Enqueue(func() {
				_, ack := splitArgs(args[1:])
				s.refuse(m, ev, ack, protocol.CodeNotFound, fmt.Sprintf("unknown event %s", truncate(ev, 64)))
			})
		}
	})
	_ = sock.On("disconnect", func(args ...any) {
		reason, _ := first(args).(string)
		if len(args) > 1 {
			if err, ok := args[1].(error); ok && errors.Is(err, websocket.ErrReadLimit) {
				// The websocket library refuses the frame from its header,
				// before reading the payload, and closes the connection;
				// this is the one line that says why.
				s.log.Warn("closed connection: message over the size limit", "sid", m.sid, "role", m.role,
					"limit_bytes", s.opt.maxMessageBytes())
			}
		}
		s.onDisconnect(m, reason)
	})
	return m
}

func knownServerEvent(ev string) bool {
	switch ev {
	case protocol.EventJoinOffice, protocol.EventLeaveOffice, protocol.EventListRoom, protocol.EventToolCallCancel,
		protocol.EventUpdateConfig, protocol.EventUpdateToolList, protocol.EventUpdateDesktop:
		return true
	}
	return false
}

// onConnection runs after the CONNECT packet: the session becomes visible.
func (s *Server) onConnection(sock *socket.Socket) {
	m, ok := sock.Data().(*member)
	if !ok {
		return
	}
	if s.offices.add(m) {
		s.log.Info("connected", "sid", m.sid, "role", m.role, "a2c_version", m.version,
			"remote", sock.Handshake().Address)
	}
	// The library has recorded the socket on its connection by now: let the
	// packets that arrived meanwhile through (gate.go).
	if m.gate != nil {
		m.gate.release(protocol.Namespace)
	}
}

func (s *Server) onDisconnect(m *member, reason string) {
	office, name := s.offices.where(m)
	notices := s.offices.remove(m)
	s.cluster.release(m.sid, office)
	s.failPending(m, fmt.Sprintf("computer %s disconnected before answering", name))
	s.deliver(notices)
	s.log.Info("disconnected", "sid", m.sid, "role", m.role, "name", name, "office", office, "reason", reason)
}

// onJoin answers [true, null] or [false, "reason"] (events.md §server:join_office).
func (s *Server) onJoin(m *member, args []any) {
	data, ack := splitArgs(args)
	reply := func(ok bool, reason any) {
		if ack != nil {
			ack([]any{ok, reason}, nil)
		}
	}
	var req protocol.EnterOfficeReq
	if err := decode(first(data), &req); err != nil {
		s.log.Warn("refused join", "sid", m.sid, "reason", err.Error())
		reply(false, "server:join_office: "+err.Error())
		return
	}
	if m.role == "" {
		// 0.3+ without auth.role: the first join fixes the session's role.
		s.offices.adoptRole(m, req.Role)
	}
	refused := func(err error) {
		s.log.Warn("refused join", "sid", m.sid, "role", m.role, "name", truncate(req.Name, 64),
			"office", truncate(req.OfficeID, 64), "reason", err.Error())
		reply(false, err.Error())
	}
	oldOffice, oldName := s.offices.where(m)
	// In a cluster the room rules are decided in Redis first, atomically
	// across nodes; the local check below still runs (it is the only one
	// while Redis is down).
	claimed := false
	if s.cluster.isUp() && validJoin(m, req) && (oldOffice != req.OfficeID || oldName != req.Name) {
		err := s.cluster.claim(m, req.OfficeID, req.Name)
		var conflict errConflict
		switch {
		case errors.As(err, &conflict):
			refused(err)
			return
		case err != nil:
			s.cluster.fail(err)
		default:
			claimed = true
		}
	}
	notices, err := s.offices.join(m, req)
	if err != nil {
		if claimed {
			s.cluster.release(m.sid, req.OfficeID)
		}
		refused(err)
		return
	}
	if oldOffice != "" && oldOffice != req.OfficeID {
		s.cluster.release(m.sid, oldOffice)
	}
	if sk, ok := m.conn.(*socket.Socket); ok && oldOffice != req.OfficeID {
		if oldOffice != "" {
			sk.Leave(officeRoom(oldOffice))
		}
		sk.Join(officeRoom(req.OfficeID))
	}
	reply(true, nil)
	s.deliver(notices)
	s.log.Info("joined", "sid", m.sid, "role", m.role, "name", req.Name, "office", req.OfficeID)
}

// onLeave answers [true, null] or [false, "reason"] like join.
func (s *Server) onLeave(m *member, args []any) {
	data, ack := splitArgs(args)
	reply := func(ok bool, reason any) {
		if ack != nil {
			ack([]any{ok, reason}, nil)
		}
	}
	var req protocol.LeaveOfficeReq
	if p := first(data); p != nil {
		if err := decode(p, &req); err != nil {
			reply(false, "server:leave_office: "+err.Error())
			return
		}
	}
	office, name := s.offices.where(m)
	notices, err := s.offices.leave(m, req.OfficeID)
	if err != nil {
		s.log.Warn("refused leave", "sid", m.sid, "reason", err.Error())
		reply(false, err.Error())
		return
	}
	s.cluster.release(m.sid, office)
	if sk, ok := m.conn.(*socket.Socket); ok {
		sk.Leave(officeRoom(office))
	}
	s.deliver(notices)
	reply(true, nil)
	s.log.Info("left", "sid", m.sid, "role", m.role, "name", name, "office", office)
}

// onListRoom answers ListRoomRet to members of the office only.
func (s *Server) onListRoom(m *member, args []any) {
	data, ack := splitArgs(args)
	var req protocol.ListRoomReq
	if p := first(data); p != nil {
		if err := decode(p, &req); err != nil {
			s.refuse(m, protocol.EventListRoom, ack, protocol.CodeBadRequest, "server:list_room: "+err.Error())
			return
		}
	}
	office, _ := s.offices.where(m)
	switch {
	case office == "":
		s.refuse(m, protocol.EventListRoom, ack, protocol.CodeNotInRoom, "join an office before server:list_room")
		return
	case req.OfficeID != "" && req.OfficeID != office:
		s.refuse(m, protocol.EventListRoom, ack, protocol.CodeCrossRoom,
			fmt.Sprintf("server:list_room: not a member of office %s", truncate(req.OfficeID, 64)))
		return
	}
	if ack != nil {
		ack([]any{wire(protocol.ListRoomRet{Sessions: s.sessions(office), ReqID: req.ReqID})}, nil)
	}
}

// onComputerUpdate turns server:update_* into notify:* for the office.
func (s *Server) onComputerUpdate(m *member, ev, notify string, args []any) {
	_, ack := splitArgs(args)
	if m.role != protocol.RoleComputer {
		s.refuse(m, ev, ack, protocol.CodeForbidden, ev+" is for computers")
		return
	}
	office, name, to := s.offices.others(m)
	if office == "" {
		s.refuse(m, ev, ack, protocol.CodeNotInRoom, "join an office before "+ev)
		return
	}
	s.deliver([]notice{{event: notify, payload: protocol.ComputerNotification{Computer: name}, to: to, office: office, except: m.sid}})
	if ack != nil {
		ack([]any{}, nil)
	}
}

// onToolCallCancel relays an agent's cancel to its office.
func (s *Server) onToolCallCancel(m *member, args []any) {
	data, ack := splitArgs(args)
	ev := protocol.EventToolCallCancel
	if m.role != protocol.RoleAgent {
		s.refuse(m, ev, ack, protocol.CodeForbidden, ev+" is for agents")
		return
	}
	var req protocol.AgentCallData
	if err := decode(first(data), &req); err != nil {
		s.refuse(m, ev, ack, protocol.CodeBadRequest, ev+": "+err.Error())
		return
	}
	office, name, to := s.offices.others(m)
	if office == "" {
		s.refuse(m, ev, ack, protocol.CodeNotInRoom, "join an office before "+ev)
		return
	}
	s.deliver([]notice{{event: protocol.NotifyToolCallCancel,
		payload: protocol.AgentCallData{Agent: name, ReqID: req.ReqID}, to: to, office: office, except: m.sid}})
	if ack != nil {
		ack([]any{}, nil)
	}
}

// refuse answers with the flat ErrorPayload (when an ack was asked for) and
// logs the refusal.
func (s *Server) refuse(m *member, ev string, ack ackFunc, code int, msg string) {
	s.log.Warn("refused event", "event", truncate(ev, 64), "sid", m.sid, "role", m.role, "code", code, "reason", msg)
	if ack != nil {
		ack([]any{wire(&protocol.Error{Code: code, Message: msg})}, nil)
	}
}

// deliver sends notices outside the offices lock, to this node's members;
// in a cluster with Redis up, also to the other nodes, each of which
// delivers to its own members of the office (rpc.go).
func (s *Server) deliver(notices []notice) {
	clustered := s.cluster.isUp()
	for _, n := range notices {
		payload := wire(n.payload)
		if clustered && n.office != "" {
			s.cluster.rpc.note(n.office, n.except, n.event, payload)
		}
		for _, to := range n.to {
			if to.conn != nil {
				_ = to.conn.Emit(n.event, payload)
			}
		}
	}
}

// failPending answers every request still waiting on m.
func (s *Server) failPending(m *member, why string) {
	for _, p := range m.pending.close() {
		p.finish([]any{wire(&protocol.Error{Code: protocol.CodeInternal, Message: why})})
	}
}
