package client

import (
	"bytes"
	"encoding/json"
	"errors"
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
		return raw, &MalformedAckError{Event: event, Reason: "want a JSON object, got " + protocol.JSONKind(v)}
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

// decodeJoinAck is protocol.DecodeJoinAck with the agent's errors: an
// empty ack is a *NotRoutedError, an ErrorPayload names the event.
func decodeJoinAck(office string, args []any) error {
	err := protocol.DecodeJoinAck(office, args)
	var perr *protocol.Error
	switch {
	case errors.Is(err, protocol.ErrEmptyAck):
		return &NotRoutedError{Event: protocol.EventJoinOffice}
	case errors.As(err, &perr):
		return callError(protocol.EventJoinOffice, "", perr)
	}
	return err
}

// oneLine folds newlines so a message from the network stays one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
