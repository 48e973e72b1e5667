package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrEmptyAck is wrapped by the error of an ack without an answer: what the
// reference Python server sends for an event it does not route.
var ErrEmptyAck = errors.New("empty ack")

// JoinError is a refused server:join_office (or leave_office), e.g.
// "office demo already has an agent". Agent and Computer share it.
//
// From 0.5 a refusal is a flat ErrorPayload (migrations/v0.5.0-single-
// computer-room.md): Code is then its code (4101–4105), Role the seat that
// was taken (details.role), Err the payload, and Error() our sentence; the
// peer's message is not repeated.
type JoinError struct {
	Office string
	Reason string // from the peer: one line, not yet sanitized for a screen
	Code   int    // 0 for a (false, msg) refusal
	Role   string // 4101: "agent" or "computer", when the server said
	Err    *Error
}

// Unwrap exposes the ErrorPayload of a 0.5 refusal.
func (e *JoinError) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}

// AgentSeatTaken reports whether the refusal is the office's one agent
// seat being held by another agent: a 0.5 4101 for the agent role, or an
// earlier server's "already has an agent".
func (e *JoinError) AgentSeatTaken() bool {
	if e.Code == CodeRoomFull {
		return e.Role != RoleComputer
	}
	return e.Code == 0 && strings.Contains(strings.ToLower(e.Reason), "already has an agent")
}

// Sentence is the refusal without the "join office" prefix: what a
// leave_office refusal says too.
func (e *JoinError) Sentence() string {
	switch e.Code {
	case CodeRoomFull:
		if e.Role == RoleComputer {
			return fmt.Sprintf("office %s already has a computer, and A2C-SMCP 0.5 allows one per office (4101)", e.Office)
		}
		return fmt.Sprintf("office %s already has an agent (4101)", e.Office)
	case CodeRoomNotFound:
		return fmt.Sprintf("there is no office %s (4102)", e.Office)
	case CodeNotInRoom:
		return fmt.Sprintf("not a member of office %s (4103)", e.Office)
	case CodeCrossRoom:
		return fmt.Sprintf("office %s: access across offices is refused (4104)", e.Office)
	case CodeNameConflict:
		return fmt.Sprintf("office %s already has a member of this name (4105)", e.Office)
	}
	if e.Reason == "" {
		return "refused by the server"
	}
	return "refused: " + oneLine(e.Reason)
}

func (e *JoinError) Error() string {
	if e.Code != 0 {
		return fmt.Sprintf("join office %s: %s", e.Office, e.Sentence())
	}
	if e.Reason == "" {
		return fmt.Sprintf("join office %s: refused by the server", e.Office)
	}
	return fmt.Sprintf("join office %s: refused: %s", e.Office, oneLine(e.Reason))
}

// MalformedAckError is an ack that is neither an answer, an ErrorPayload
// nor empty.
type MalformedAckError struct {
	Event  string
	Reason string
}

func (e *MalformedAckError) Error() string {
	return fmt.Sprintf("%s: malformed answer: %s", e.Event, e.Reason)
}

// DecodeJoinAck reads the ack of server:join_office for office. The spec
// shape (events.md §server:join_office) is (ok, msg): two ack arguments
// [true, null] / [false, "msg"]. Servers differ, so also accepted: the pair
// wrapped in one array, a bare true/false, an {ok|success, msg|message|
// error|reason} object, and a flat ErrorPayload (e.g. 4101 room full).
//
// It returns nil when joined, a *JoinError when refused, a *Error for an
// ErrorPayload, an error wrapping ErrEmptyAck for an empty ack, and a
// *MalformedAckError for anything else. Ack arguments arrive from the
// socket library as []any with float64 numbers; that is what it expects.
func DecodeJoinAck(office string, args []any) error {
	const ev = EventJoinOffice
	if len(args) == 1 {
		if a, ok := args[0].([]any); ok {
			args = a
		}
	}
	if len(args) == 0 || (len(args) == 1 && args[0] == nil) {
		return fmt.Errorf("%s: %w", ev, ErrEmptyAck)
	}
	if perr, ok := DecodeError(args[0]); ok {
		switch perr.Code {
		case CodeRoomFull, CodeRoomNotFound, CodeNotInRoom, CodeCrossRoom, CodeNameConflict:
			return &JoinError{Office: office, Code: perr.Code, Role: perr.DetailRole(), Err: perr}
		}
		return perr
	}
	msg := ""
	if len(args) > 1 {
		msg = stringish(args[1])
	}
	switch t := args[0].(type) {
	case bool:
		if t {
			return nil
		}
		return &JoinError{Office: office, Reason: msg}
	case map[string]any:
		okv, has := t["ok"]
		if !has {
			okv, has = t["success"]
		}
		b, isBool := okv.(bool)
		if !has || !isBool {
			return &MalformedAckError{Event: ev, Reason: "object without a boolean ok"}
		}
		if b {
			return nil
		}
		for _, k := range []string{"msg", "message", "error", "reason"} {
			if s := stringish(t[k]); s != "" {
				msg = s
				break
			}
		}
		return &JoinError{Office: office, Reason: msg}
	}
	return &MalformedAckError{Event: ev, Reason: "want [ok, msg], got " + JSONKind(args[0])}
}

// stringish renders a message argument that should be a string, bounded:
// a peer's reason is one line of at most 200 runes.
func stringish(v any) string {
	var s string
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		s = t
	default:
		b, _ := json.Marshal(v)
		s = string(b)
	}
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// JSONKind names the JSON kind of a decoded value, for messages.
func JSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, int, int64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
