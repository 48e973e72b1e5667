package server

import (
	"fmt"
	"slices"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// route forwards a client:* event from an agent to the computer named in
// its payload, in the agent's office, and relays the computer's ack
// unchanged (all its arguments). Unlike the reference server it always
// answers when an ack was asked for: 403 (caller is not an agent), 4103
// (caller not in an office), 400 (no "computer"), 4104 (computer in another
// office), 404 (no such computer), 408 (no ack in time), 500 (computer left).
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
	switch found {
	case computerElsewhere:
		s.refuse(m, ev, ack, protocol.CodeCrossRoom,
			fmt.Sprintf("computer %s is not in office %s", truncate(name, 64), office))
		return
	case computerMissing:
		s.refuse(m, ev, ack, protocol.CodeNotFound,
			fmt.Sprintf("no computer named %s in office %s", truncate(name, 64), office))
		return
	}
	if ack == nil {
		// Nothing to relay: forward as a plain event.
		_ = target.conn.Emit(ev, data...)
		return
	}

	timeout := s.timeoutFor(payload)
	p := &pendingRequest{reply: ack}
	if !target.pending.add(p) {
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
		if p.finish(reply) {
			s.log.Debug("routed", "event", ev, "computer", name, "office", office, "took", time.Since(start))
		}
	})
	_ = target.conn.Emit(ev, fwd...)
}

// timeoutFor is the request's own "timeout" (seconds) plus a grace period,
// or the server default (error-handling.md §Server 端超时).
func (s *Server) timeoutFor(payload map[string]any) time.Duration {
	if secs, ok := payload["timeout"].(float64); ok && secs > 0 {
		if secs >= maxRequestTimeout.Seconds() {
			return maxRequestTimeout
		}
		return time.Duration(secs*float64(time.Second)) + timeoutGrace
	}
	return s.opt.requestTimeout()
}
