package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/sioconn"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// emitCall sends r and waits for its ack (sioconn.EmitWithAck): the
// timeout, the caller's context, a dropped connection or Close, whichever
// comes first.
func (c *Client) emitCall(ctx context.Context, r request) ([]any, error) {
	wire, err := toWire(r.Payload)
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", r.Event, err)
	}
	c.mu.Lock()
	switch {
	case c.ctx.Err() != nil:
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", r.Event, ErrClosed)
	case c.left && !r.Join && r.Event != protocol.EventLeaveOffice:
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: %w %s", target(r), ErrLeft, c.opt.Office)
	case c.offline || (!r.Join && !c.joined && r.Event != protocol.EventLeaveOffice) || !c.sc.Connected():
		st := c.state
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: %w (%s)", target(r), ErrConnectionLost, st.State)
	}
	c.mu.Unlock()
	args, err := c.sc.EmitWithAck(ctx, r.Timeout, r.Event, wire)
	var big *sioconn.MessageTooLargeError
	switch {
	case err == nil:
		return args, nil
	case errors.As(err, &big):
		return nil, &AckTooLargeError{Event: r.Event, Computer: r.Computer, Limit: big.Limit, Announced: big.Size}
	case errors.Is(err, sioconn.ErrAckTimeout):
		return nil, &TimeoutError{Event: r.Event, Computer: r.Computer, After: r.Timeout}
	case errors.Is(err, sioconn.ErrClosed) && c.ctx.Err() == nil:
		// The Conn was closed under us by goOffline: for the caller the
		// connection is lost, the client is not closed.
		return nil, fmt.Errorf("%s: %w", target(r), ErrConnectionLost)
	case errors.Is(err, sioconn.ErrClosed):
		return nil, fmt.Errorf("%s: %w", target(r), ErrClosed)
	}
	return nil, fmt.Errorf("%s: %w", target(r), err)
}

func target(r request) string {
	if r.Computer == "" {
		return r.Event
	}
	return r.Event + " to computer " + r.Computer
}

// toWire turns a request struct into the map the Socket.IO encoder sends.
func toWire(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// newReqID is unique per client and per call (events.md: req_id is used for
// de-duplication and cancellation).
func (c *Client) newReqID() string {
	return fmt.Sprintf("%s-%d", c.reqPrefix, c.reqSeq.Add(1))
}

func (c *Client) agentCall() protocol.AgentCallData {
	return protocol.AgentCallData{Agent: c.opt.Name, ReqID: c.newReqID()}
}

// timeoutSeconds is RequestTimeout as the whole seconds sent on the wire.
func (c *Client) timeoutSeconds() int {
	return int(math.Ceil(c.opt.RequestTimeout.Seconds()))
}

// do runs one typed call: send, wait, decode the ack into out.
func (c *Client) do(ctx context.Context, event, computer string, payload, out any) (json.RawMessage, error) {
	if c.call == nil {
		return nil, fmt.Errorf("%s: %w", event, ErrClosed)
	}
	args, err := c.call(ctx, request{Event: event, Computer: computer, Payload: payload, Timeout: c.opt.RequestTimeout})
	if err != nil {
		return nil, err
	}
	raw, err := decodeAck(event, computer, args, out)
	if err != nil {
		var mal *MalformedAckError
		if c.log != nil && asErr(err, &mal) {
			c.log.Warn("malformed ack", "event", event, "computer", computer, "reason", mal.Reason)
		}
		return raw, err
	}
	return raw, nil
}

// Computers lists the computers in the office (server:list_room, role
// computer only), sorted by name.
func (c *Client) Computers(ctx context.Context) ([]protocol.SessionInfo, error) {
	var ret struct {
		Sessions []json.RawMessage `json:"sessions"`
	}
	_, err := c.do(ctx, protocol.EventListRoom, "", protocol.ListRoomReq{AgentCallData: c.agentCall(), OfficeID: c.opt.Office}, &ret)
	if err != nil {
		return nil, err
	}
	var out []protocol.SessionInfo
	for _, raw := range ret.Sessions {
		var s protocol.SessionInfo
		if json.Unmarshal(raw, &s) != nil {
			s = lenientSession(raw)
		}
		if strings.EqualFold(s.Role, protocol.RoleComputer) && s.Name != "" {
			out = append(out, s)
		}
	}
	sortSessions(out)
	return out, nil
}

// lenientSession keeps the string fields of a session whose other fields
// have unexpected types.
func lenientSession(raw json.RawMessage) protocol.SessionInfo {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	str := func(k string) string { s, _ := m[k].(string); return s }
	return protocol.SessionInfo{SID: str("sid"), Name: str("name"), Role: str("role"), OfficeID: str("office_id"), A2CVersion: str("a2c_version")}
}

// Leave leaves the office (server:leave_office). The client stays connected
// but no longer re-joins on reconnect. Servers that ack with nothing are fine.
func (c *Client) Leave(ctx context.Context) error {
	c.mu.Lock()
	c.left = true
	c.mu.Unlock()
	if c.call == nil {
		return nil
	}
	args, err := c.call(ctx, request{
		Event: protocol.EventLeaveOffice, Payload: protocol.LeaveOfficeReq{OfficeID: c.opt.Office},
		Timeout: min(c.opt.RequestTimeout, 5*time.Second),
	})
	c.mu.Lock()
	c.joined = false
	c.mu.Unlock()
	if err != nil {
		return fmt.Errorf("leave office %s: %w", c.opt.Office, err)
	}
	if _, ok := ackValue(args); !ok {
		return nil
	}
	if err := decodeJoinAck(c.opt.Office, args); err != nil {
		var je *JoinError
		if asErr(err, &je) {
			if je.Code != 0 { // 0.5: a flat ErrorPayload, told as a sentence
				return fmt.Errorf("leave office %s: %s", c.opt.Office, je.Sentence())
			}
			return fmt.Errorf("leave office %s: refused: %s", c.opt.Office, oneLine(je.Reason))
		}
		var mal *MalformedAckError
		if asErr(err, &mal) {
			return nil // some servers answer leave with a status object; leaving happened
		}
		return fmt.Errorf("leave office %s: %w", c.opt.Office, err)
	}
	return nil
}
