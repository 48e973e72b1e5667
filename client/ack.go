package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// decodeAck turns the arguments of one ack into out (a pointer to a typed
// answer) and returns the answer's JSON as received.
//
// Ack arguments arrive as []any with float64 numbers, so the answer is
// re-marshalled to JSON and decoded into the typed struct. Shapes accepted,
// because servers differ (events.md only says "ack callback first argument"):
//   - zero arguments, or a single nil / "" / {} / []: the event was not routed
//     (the reference Python server acks handlers that return None this way);
//   - a flat ErrorPayload {code, message, …} → *protocol.Error;
//   - [answer] wrapped in one more array, or (nil, answer) Node-style;
//   - a JSON string holding the answer.
func decodeAck(event, computer string, args []any, out any) (json.RawMessage, error) {
	v, ok := ackValue(args)
	if !ok {
		return nil, &NotRoutedError{Event: event, Computer: computer}
	}
	if perr, ok := protocol.DecodeError(v); ok {
		return nil, callError(event, computer, perr)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, &MalformedAckError{Event: event, Reason: err.Error()}
	}
	if out == nil {
		return raw, nil
	}
	if _, isObj := v.(map[string]any); !isObj {
		return raw, &MalformedAckError{Event: event, Reason: "want a JSON object, got " + jsonKind(v)}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return raw, &MalformedAckError{Event: event, Reason: oneLine(err.Error())}
	}
	return raw, nil
}

// ackValue picks the answer out of the ack arguments; false means empty.
func ackValue(args []any) (any, bool) {
	switch {
	case len(args) == 0:
		return nil, false
	case len(args) > 1 && args[0] == nil:
		// Node-style callback(err, result) with err null.
		return ackValue(args[1:])
	}
	v := args[0]
	for range 4 { // unwrap [[answer]] a few levels, no more
		a, ok := v.([]any)
		if !ok || len(a) != 1 {
			break
		}
		v = a[0]
	}
	if s, ok := v.(string); ok {
		t := strings.TrimSpace(s)
		if t == "" {
			return nil, false
		}
		// Some servers send the answer JSON-encoded as a string.
		if strings.HasPrefix(t, "{") {
			var m map[string]any
			if d := json.NewDecoder(strings.NewReader(t)); d.Decode(&m) == nil && !d.More() {
				v = m
			}
		}
	}
	switch t := v.(type) {
	case nil:
		return nil, false
	case map[string]any:
		if len(t) == 0 {
			return nil, false
		}
	case []any:
		if len(t) == 0 {
			return nil, false
		}
	case json.RawMessage:
		if len(bytes.TrimSpace(t)) == 0 || string(bytes.TrimSpace(t)) == "null" {
			return nil, false
		}
	}
	return v, true
}

// callError wraps a protocol error with the event and computer it answered.
func callError(event, computer string, perr *protocol.Error) error {
	if computer == "" {
		return fmt.Errorf("%s: %w", event, perr)
	}
	return fmt.Errorf("%s to computer %s: %w", event, computer, perr)
}

// decodeJoinAck reads the server:join_office answer. The spec shape is
// (ok, msg) → two ack arguments [true, null] / [false, "msg"]; also accepted:
// the pair wrapped in an array, a bare true/false, {ok|success, msg|message|error}
// objects, and an ErrorPayload (e.g. 4101 Room Full).
func decodeJoinAck(office string, args []any) error {
	const ev = protocol.EventJoinOffice
	if len(args) == 1 {
		if a, ok := args[0].([]any); ok {
			args = a
		}
	}
	if len(args) == 0 || (len(args) == 1 && args[0] == nil) {
		return &NotRoutedError{Event: ev}
	}
	if perr, ok := protocol.DecodeError(args[0]); ok {
		return callError(ev, "", perr)
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
	return &MalformedAckError{Event: ev, Reason: "want [ok, msg], got " + jsonKind(args[0])}
}

// stringish renders a message argument that should be a string.
func stringish(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func jsonKind(v any) string {
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

// oneLine folds newlines so a message from the network stays one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
