package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dpe-tui/dpe-tui/internal/jsonfast"
	"github.com/dpe-tui/dpe-tui/internal/sioconn"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// decodeAck turns the arguments of one ack into out (a pointer to a typed
// answer) and returns the answer's JSON as received.
//
// An answer object that arrives as raw JSON (json.RawMessage, from a parser
// that leaves acks undecoded) is decoded once, straight into out. One that
// the Socket.IO parser decoded into []any / float64 is marshalled back to
// JSON first (Raw needs its bytes anyway) and decoded into out from those.
// Shapes accepted, because servers differ (events.md only says "ack callback
// first argument"):
//   - zero arguments, or a single nil / "" / {} / []: the event was not routed
//     (the reference Python server acks handlers that return None this way);
//   - a flat ErrorPayload {code, message, …} → *protocol.Error;
//   - [answer] wrapped in one more array, or (nil, answer) Node-style;
//   - a JSON string holding the answer.
//
// When out implements lenientAck, a field of the wrong JSON type reads as
// its zero value instead of making the whole answer malformed.
func decodeAck(event, computer string, args []any, out any) (json.RawMessage, error) {
	v, ok := ackValue(args)
	if !ok {
		return nil, &NotRoutedError{Event: event, Computer: computer}
	}
	raw, isObj := v.(json.RawMessage) // ackValue leaves only objects raw
	// An ErrorPayload has a "code" key; a raw answer without those bytes
	// (nor an escape that could spell them) is not one, and is not scanned a
	// second time to find out.
	if !isObj || bytes.Contains(raw, []byte(`"code"`)) || bytes.Contains(raw, []byte(`\u`)) {
		if perr, ok := protocol.DecodeError(v); ok {
			return nil, callError(event, computer, perr)
		}
	}
	if !isObj {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, &MalformedAckError{Event: event, Reason: err.Error()}
		}
		raw = b
		_, isObj = v.(map[string]any)
	}
	if out == nil {
		return raw, nil
	}
	if !isObj {
		return raw, &MalformedAckError{Event: event, Reason: "want a JSON object, got " + protocol.JSONKind(v)}
	}
	if err := jsonfast.Unmarshal(raw, out); err != nil {
		var typeErr *json.UnmarshalTypeError
		if _, lenient := out.(lenientAck); !lenient || !errors.As(err, &typeErr) {
			return raw, &MalformedAckError{Event: event, Reason: oneLine(err.Error())}
		}
	}
	return raw, nil
}

// lenientAck marks an answer type whose fields of the wrong JSON type are
// read as zero values (encoding/json goes on decoding past a type error and
// reports only the first), so one bad field does not lose the answer.
type lenientAck interface{ lenientAck() }

// ackValue picks the answer out of the ack arguments; false means empty.
// Raw JSON arguments stay raw when they are objects (the answer); any other
// raw value is decoded first, so every other shape is read as before.
func ackValue(args []any) (any, bool) {
	if len(args) > 0 {
		if r, ok := args[0].(json.RawMessage); ok {
			t := bytes.TrimSpace(r)
			if len(t) > 0 && t[0] == '{' {
				if isEmptyObject(t) {
					return nil, false
				}
				return json.RawMessage(t), true
			}
			var v any
			if jsonfast.Unmarshal(t, &v) != nil {
				return nil, false
			}
			args = append([]any{v}, args[1:]...)
		}
	}
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
	}
	return v, true
}

// isEmptyObject reports whether the JSON object t is {} (with any spacing).
func isEmptyObject(t []byte) bool {
	return len(bytes.TrimSpace(t[1:])) == 1 && bytes.TrimSpace(t[1:])[0] == '}'
}

// callError wraps a protocol error with the event and computer it answered.
func callError(event, computer string, perr *protocol.Error) error {
	if c, ev, ok := perr.NoAnswerFrom(); ok {
		return &NoAnswerError{Event: ev, Computer: c, Err: perr}
	}
	if computer == "" {
		return fmt.Errorf("%s: %w", event, perr)
	}
	return fmt.Errorf("%s to computer %s: %w", event, computer, perr)
}

// decodeJoinAck is protocol.DecodeJoinAck with the agent's errors: an
// empty ack is a *NotRoutedError, an ErrorPayload names the event.
func decodeJoinAck(office string, args []any) error {
	// It reads the ack loosely (bool, object, [ok, msg]); raw arguments are
	// decoded first, as the library's parser would have.
	err := protocol.DecodeJoinAck(office, sioconn.DecodeRawArgs(args))
	var perr *protocol.Error
	var je *JoinError
	switch {
	case errors.Is(err, protocol.ErrEmptyAck):
		return &NotRoutedError{Event: protocol.EventJoinOffice}
	case errors.As(err, &je):
		return je // a 0.5 refusal is a sentence of its own
	case errors.As(err, &perr):
		return callError(protocol.EventJoinOffice, "", perr)
	}
	return err
}

// oneLine folds newlines so a message from the network stays one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
