package server

import (
	"encoding/json"
	"fmt"
)

// wire turns a Go value into the plain JSON shapes (maps, slices, float64)
// the Socket.IO parser sends, so that MarshalJSON methods (the flat
// ErrorPayload) are honoured and nothing else is reflected over.
func wire(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return map[string]any{"code": 500, "message": "Internal Error: cannot encode reply"}
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return map[string]any{"code": 500, "message": "Internal Error: cannot encode reply"}
	}
	return out
}

// decode reads an event payload (decoded JSON) into v.
func decode(payload any, v any) error {
	if payload == nil {
		return fmt.Errorf("missing payload")
	}
	b, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	return nil
}

// splitArgs separates an event's arguments from its ack callback (the
// library appends it last when the sender asked for one).
func splitArgs(args []any) (data []any, ack ackFunc) {
	if n := len(args); n > 0 {
		if f, ok := args[n-1].(func([]any, error)); ok {
			return args[:n-1], f
		}
	}
	return args, nil
}

// first returns the payload: the first argument, or nil.
func first(data []any) any {
	if len(data) == 0 {
		return nil
	}
	return data[0]
}
