package server

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// route forwards a client:* event from an agent to the computer named in
// its payload, in the agent's office, and relays the computer's ack
// unchanged (all its arguments). Unlike the reference server it always
// answers when an ack was asked for: 403 (caller is not an agent), 4103
// (caller not in an office), 400 (no "computer"), 4104 (computer in another
// office), 404 (no such computer), 408 (no ack in time), 500 (computer left,
// or, in a cluster cut off from Redis, a computer this node cannot see),
// 403 (the agent already has Options.MaxPendingPerAgent requests waiting).
func (s *Server) route(m *member, ev string, args []any) {
	data, ack := splitArgs(args)
	if m.role != protocol.RoleAgent {
		s.refuse(m, ev, ack, protocol.CodeForbidden, ev+" may only be sent by an agent")
		return
	}
	office, _ := s.offices.where(m)
	if office == "" {
		s.refuse(m, ev, ack, protocol.CodeNotInRoom, "join an office before "+ev)
		return
	}
	payload, _ := first(data).(map[string]any)
	if payload == nil {
		s.refuse(m, ev, ack, protocol.CodeBadRequest, ev+": payload must be an object")
		return
	}
	name, _ := payload["computer"].(string)
	if name == "" {
		s.refuse(m, ev, ack, protocol.CodeBadRequest, ev+`: payload needs a "computer" field`)
		return
	}
	target, found := s.offices.computer(office, name)
	linkDown := false
	if found != computerHere && s.cluster != nil {
		e, ok, err := s.cluster.remoteComputer(office, name)
		switch {
		case err != nil:
			s.cluster.fail(err)
			linkDown = true
		case ok:
			s.routeRemote(m, ev, office, e, payload, data, ack)
			return
		}
	}
	switch {
	case found == computerElsewhere:
		s.refuse(m, ev, ack, protocol.CodeCrossRoom,
			fmt.Sprintf("computer %s is not in office %s", truncate(name, 64), office))
		return
	case found == computerMissing && linkDown:
		// The computer may be on another node this one cannot see now: a
		// 404 would tell the agent it left. 500 is the spec's retryable
		// code for a server fault (error-handling.md §重试策略).
		s.refuse(m, ev, ack, protocol.CodeInternal, fmt.Sprintf(
			"office unavailable on this node (cluster link down): computer %s may be on another node of office %s; retry", truncate(name, 64), office))
		return
	case found == computerMissing:
		s.refuse(m, ev, ack, protocol.CodeNotFound,
			fmt.Sprintf("no computer named %s in office %s", truncate(name, 64), office))
		return
	}
	if ack == nil {
		// Nothing to relay: forward as a plain event.
		_ = target.conn.Emit(ev, data...)
		return
	}

	// Refused at once past the cap: queueing would let one agent pin
	// unbounded memory and timers on the server. The spec has no "too many
	// requests" code; 403 is its code for an operation the server's policy
	// does not allow the caller (not a malformed request, 400, nor a server
	// fault, 500), and its retry rule ("do not retry") is the right one for
	// an agent that already has that many requests unanswered.
	if !m.asked.acquire(s.opt.maxPending()) {
		s.refuse(m, ev, ack, protocol.CodeForbidden,
			fmt.Sprintf("%s: too many pending requests (limit %d); wait for answers before sending more", ev, s.opt.maxPending()))
		return
	}
	timeout, data := s.clampTimeout(payload, data)
	p := &pendingRequest{reply: ack, quota: &m.asked}
	if !target.pending.add(p) {
		m.asked.release()
		s.refuse(m, ev, ack, protocol.CodeInternal, fmt.Sprintf("computer %s disconnected", truncate(name, 64)))
		return
	}
	start := time.Now()
	p.start(timeout, func() {
		msg := fmt.Sprintf("computer %s did not answer %s within %s", truncate(name, 64), ev, timeout)
		if p.finish([]any{wire(&protocol.Error{Code: protocol.CodeTimeout, Message: msg})}) {
			s.log.Warn("routed request timed out", "event", ev, "computer", name, "office", office, "timeout", timeout)
		}
	})
	// Emit to the computer's socket, never to a room: EmitWithAck on a room
	// races inside the library under -race. The ack is the library's own
	// callback shape; the library acks carry the arguments as decoded.
	fwd := append(slices.Clone(data), func(reply []any, _ error) {
		if p.finish(answerOrNoAnswer(name, ev, reply)) {
			s.log.Debug("routed", "event", ev, "computer", name, "office", office, "took", time.Since(start))
		}
	})
	_ = target.conn.Emit(ev, fwd...)
}

// clampTimeout returns how long to wait for the computer, and the event
// arguments to forward: the computer sees the clamped "timeout" and bounds
// its own work by it.
func (s *Server) clampTimeout(payload map[string]any, data []any) (time.Duration, []any) {
	timeout, asked := s.timeoutFor(payload)
	if asked > 0 {
		clamped := maps.Clone(payload)
		clamped["timeout"] = asked.Seconds()
		data = slices.Clone(data)
		data[0] = clamped
	}
	return timeout, data
}

// routeRemote forwards a request to a computer connected to another node,
// as a request/reply over Redis (rpc.go): the computer's node emits it to
// the computer's socket and publishes the ack (all its arguments) back to
// this node. Timeouts, the pending cap and shutdown behave as for a local
// computer, and a computer that disconnects from its node before answering
// is answered at once by that node (500), as here.
func (s *Server) routeRemote(m *member, ev, office string, target entry, payload map[string]any, data []any, ack ackFunc) {
	name := target.Name
	if ack == nil {
		// Nothing to answer: the computer's node delivers a plain event.
		s.cluster.rpc.emit(target, ev, data)
		return
	}
	if !m.asked.acquire(s.opt.maxPending()) {
		s.refuse(m, ev, ack, protocol.CodeForbidden,
			fmt.Sprintf("%s: too many pending requests (limit %d); wait for answers before sending more", ev, s.opt.maxPending()))
		return
	}
	timeout, data := s.clampTimeout(payload, data)
	start := time.Now()
	p := &pendingRequest{quota: &m.asked, reply: func(reply []any, err error) {
		s.log.Debug("routed", "event", ev, "computer", name, "office", office, "node", target.Node, "took", time.Since(start))
		ack(reply, err)
	}}
	id := s.cluster.rpc.expect(p)
	if !s.remote.add(p) {
		s.cluster.rpc.forget(id)
		m.asked.release()
		s.refuse(m, ev, ack, protocol.CodeInternal, "server shutting down")
		return
	}
	p.start(timeout, func() {
		msg := fmt.Sprintf("computer %s did not answer %s within %s", truncate(name, 64), ev, timeout)
		if p.finish([]any{wire(&protocol.Error{Code: protocol.CodeTimeout, Message: msg})}) {
			s.log.Warn("routed request timed out", "event", ev, "computer", name, "office", office, "node", target.Node, "timeout", timeout)
		}
	})
	s.cluster.rpc.send(id, p, target, ev, data, timeout)
}

// timeoutFor is the request's own "timeout" (seconds, at most
// Options.MaxRequestTimeout) plus a grace period, or the server default
// (error-handling.md §Server 端超时). clamped is the lowered timeout when
// the request asked for more than the cap, else 0.
func (s *Server) timeoutFor(payload map[string]any) (wait, clamped time.Duration) {
	secs, ok := payload["timeout"].(float64)
	if !ok || secs <= 0 || math.IsNaN(secs) {
		return s.opt.requestTimeout(), 0
	}
	limit := s.opt.maxRequestTimeout()
	if secs > limit.Seconds() {
		return limit + timeoutGrace, limit
	}
	return time.Duration(secs*float64(time.Second)) + timeoutGrace, 0
}
