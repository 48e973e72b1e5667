package server

import (
	"bytes"
	"encoding/json"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// answerOrNoAnswer is the ack to relay for a computer's reply to ev: the
// reply itself, or protocol.NoAnswer naming the computer and the event
// when the reply is empty. Relayed as it is, an empty ack would read to the
// agent as the server's own "not routed" (what the python-sdk server sends
// for events it does not route), blaming the server for the computer's
// silence.
func answerOrNoAnswer(computer, ev string, reply []any) []any {
	if !emptyAck(reply) {
		return reply
	}
	return []any{wire(protocol.NoAnswer(truncate(computer, 64), truncate(ev, 64)))}
}

// emptyAck reports whether an ack carries nothing: no arguments, or one
// argument that is null, {}, [] or "". Every other shape is an answer
// (possibly a wrong one, which is the agent's to judge) and passes through
// untouched.
func emptyAck(args []any) bool {
	switch len(args) {
	case 0:
		return true
	case 1:
	default:
		return false
	}
	switch v := args[0].(type) {
	case nil:
		return true
	case json.RawMessage:
		t := bytes.TrimSpace(v)
		if len(t) == 0 || string(t) == "null" || string(t) == `""` {
			return true
		}
		if t[0] == '{' || t[0] == '[' {
			inner := bytes.TrimSpace(t[1 : len(t)-1])
			return len(inner) == 0
		}
		return false
	case string:
		return v == ""
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}
