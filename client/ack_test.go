package client

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// args decodes a JSON array the way ack arguments arrive: []any, float64 numbers.
func args(t testing.TB, js string) []any {
	t.Helper()
	var a []any
	if err := json.Unmarshal([]byte(js), &a); err != nil {
		t.Fatalf("bad test JSON %s: %v", js, err)
	}
	return a
}

func TestDecodeAck_Shapes(t *testing.T) {
	type answer struct {
		URI  string `json:"uri"`
		Size int64  `json:"size"`
	}
	tests := []struct {
		name      string
		ack       string
		wantURI   string
		notRouted bool
		wantCode  int
		malformed bool
	}{
		{name: "zero args is not routed", ack: `[]`, notRouted: true},
		{name: "single null is not routed", ack: `[null]`, notRouted: true},
		{name: "empty object is not routed", ack: `[{}]`, notRouted: true},
		{name: "empty string is not routed", ack: `[""]`, notRouted: true},
		{name: "empty array is not routed", ack: `[[]]`, notRouted: true},
		{name: "object answer", ack: `[{"uri":"file:///a","size":12}]`, wantURI: "file:///a"},
		{name: "answer wrapped in an array", ack: `[[{"uri":"file:///b"}]]`, wantURI: "file:///b"},
		{name: "node-style null error first", ack: `[null, {"uri":"file:///c"}]`, wantURI: "file:///c"},
		{name: "answer as a JSON string", ack: `["{\"uri\":\"file:///d\"}"]`, wantURI: "file:///d"},
		{name: "flat ErrorPayload", ack: `[{"code":4014,"message":"MCP Server Not Found","mcp_server_name":"x"}]`, wantCode: 4014},
		{name: "ErrorPayload wrapped in an array", ack: `[[{"code":4011,"message":"no resolver"}]]`, wantCode: 4011},
		{name: "a number is malformed", ack: `[42]`, malformed: true},
		{name: "a wrong field type is malformed", ack: `[{"uri":7}]`, malformed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out answer
			_, err := decodeAck(protocol.EventGetDPE, "box", args(t, tt.ack), &out)
			switch {
			case tt.notRouted:
				if !errors.Is(err, ErrNotRouted) {
					t.Fatalf("err = %v, want ErrNotRouted", err)
				}
				if err.Error() != "the server did not route client:get_dpe (it may not support it)" {
					t.Errorf("message = %q", err)
				}
			case tt.wantCode != 0:
				var perr *protocol.Error
				if !errors.As(err, &perr) || perr.Code != tt.wantCode {
					t.Fatalf("err = %v, want *protocol.Error %d", err, tt.wantCode)
				}
				if !strings.Contains(err.Error(), "client:get_dpe to computer box") {
					t.Errorf("message %q does not name the event and computer", err)
				}
			case tt.malformed:
				var mal *MalformedAckError
				if !errors.As(err, &mal) {
					t.Fatalf("err = %v, want *MalformedAckError", err)
				}
			default:
				if err != nil || out.URI != tt.wantURI {
					t.Fatalf("got %+v, %v; want uri %q", out, err, tt.wantURI)
				}
			}
		})
	}
}

func TestDecodeAck_ErrorDetailsKeptButNeverInMessage(t *testing.T) {
	_, err := decodeAck(protocol.EventGetDPE, "box", args(t,
		`[{"code":4013,"message":"DPE Resolution Failed","category":"upstream_unavailable","uri":"dpe://h/d","details":{"mcp_error":"secret-internal-host:5432"}}]`), nil)
	var perr *protocol.Error
	if !errors.As(err, &perr) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(string(perr.Details), "secret-internal-host") {
		t.Errorf("details lost: %s", perr.Details)
	}
	if strings.Contains(err.Error(), "secret-internal-host") {
		t.Errorf("details leaked into the message: %q", err)
	}
	if !perr.Retryable() {
		t.Error("4013 upstream_unavailable should be retryable")
	}
}

func TestDecodeJoinAck_Shapes(t *testing.T) {
	tests := []struct {
		name       string
		ack        string
		wantReason string // "" with ok
		ok         bool
		notRouted  bool
		code       int
		malformed  bool
	}{
		{name: "python tuple ok", ack: `[true, null]`, ok: true},
		{name: "python tuple refused", ack: `[false, "office demo already has an agent"]`, wantReason: "office demo already has an agent"},
		{name: "pair wrapped in an array", ack: `[[false, "full"]]`, wantReason: "full"},
		{name: "bare true", ack: `[true]`, ok: true},
		{name: "object ok", ack: `[{"ok":true}]`, ok: true},
		{name: "object refused with message", ack: `[{"success":false,"message":"no"}]`, wantReason: "no"},
		{name: "ErrorPayload room full", ack: `[{"code":4101,"message":"Room Full"}]`, code: 4101},
		{name: "empty ack", ack: `[]`, notRouted: true},
		{name: "null ack", ack: `[null]`, notRouted: true},
		{name: "string is malformed", ack: `["yes"]`, malformed: true},
		{name: "object without ok is malformed", ack: `[{"joined":1}]`, malformed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := decodeJoinAck("demo", args(t, tt.ack))
			var je *JoinError
			var perr *protocol.Error
			var mal *MalformedAckError
			switch {
			case tt.ok:
				if err != nil {
					t.Fatalf("err = %v, want ok", err)
				}
			case tt.notRouted:
				if !errors.Is(err, ErrNotRouted) {
					t.Fatalf("err = %v, want ErrNotRouted", err)
				}
			case tt.code != 0:
				if !errors.As(err, &perr) || perr.Code != tt.code {
					t.Fatalf("err = %v, want code %d", err, tt.code)
				}
			case tt.malformed:
				if !errors.As(err, &mal) {
					t.Fatalf("err = %v, want malformed", err)
				}
			default:
				if !errors.As(err, &je) || je.Reason != tt.wantReason {
					t.Fatalf("err = %v, want JoinError %q", err, tt.wantReason)
				}
				if je.Office != "demo" || !strings.HasPrefix(err.Error(), "join office demo: refused") {
					t.Errorf("message = %q", err)
				}
			}
		})
	}
}

// FuzzDecodeAck: the ack decoders never panic on any JSON, and an
// ErrorPayload survives the wire (marshal → []any → decode) intact.
func FuzzDecodeAck(f *testing.F) {
	for _, s := range []string{`[]`, `[null]`, `[true,null]`, `[false,"x"]`, `[{"code":4008,"message":"m"}]`,
		`[[{"uri":"a"}]]`, `[null,{"uri":"b"}]`, `["{\"uri\":1}"]`, `[{"code":1.5,"message":"x"}]`, `[[[[[[1]]]]]]`} {
		f.Add([]byte(s), 4014, "MCP Server Not Found")
	}
	f.Fuzz(func(t *testing.T, data []byte, code int, msg string) {
		var a []any
		if json.Unmarshal(data, &a) != nil {
			a = []any{string(data)}
		}
		var out map[string]any
		_, _ = decodeAck("client:get_config", "c", a, &out)
		_ = decodeJoinAck("o", a)
		_, _ = ackValue(a)

		if code < -1<<31 || code > 1<<31 || !utf8.ValidString(msg) {
			return
		}
		b, err := json.Marshal(&protocol.Error{Code: code, Message: msg, Details: json.RawMessage(`{"k":"v"}`)})
		if err != nil {
			t.Fatal(err)
		}
		var wire any
		if err := json.Unmarshal(b, &wire); err != nil {
			t.Fatal(err)
		}
		_, err = decodeAck("client:get_config", "c", []any{wire}, &out)
		var perr *protocol.Error
		if !errors.As(err, &perr) {
			t.Fatalf("ErrorPayload %s decoded as %v", b, err)
		}
		if perr.Code != code || perr.Message != msg || string(perr.Details) != `{"k":"v"}` {
			t.Fatalf("round trip: got %+v from %s", perr, b)
		}
	})
}
