package client

import (
	"context"
	"encoding/json"
	"testing"
)

// fakeClient is a Client whose calls are answered by answer(event, payload)
// without a network: for unit tests of decoding and choosing logic.
func fakeClient(t *testing.T, answer func(event string, payload map[string]any) []any) *Client {
	t.Helper()
	opt, err := Options{URL: "http://127.0.0.1:1", Office: "office-a", Name: "agent"}.normalized()
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(opt)
	t.Cleanup(c.cancel)
	c.call = func(ctx context.Context, r request) ([]any, error) {
		m, err := toWire(r.Payload)
		if err != nil {
			t.Fatalf("encode %s: %v", r.Event, err)
		}
		return answer(r.Event, m), nil
	}
	return c
}

// jsonArgs turns a JSON value into one ack argument as the library delivers it.
func jsonArgs(t *testing.T, js string) []any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatalf("bad JSON %s: %v", js, err)
	}
	return []any{v}
}
