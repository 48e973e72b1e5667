package server

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/dpe-tui/dpe-tui/internal/rawack"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// rawFrames is a client parser that records the text of every packet the
// client receives, so a test can see the bytes the server relayed, not what
// the client library made of them.
type rawFrames struct {
	mu     sync.Mutex
	frames []string
}

func (r *rawFrames) NewEncoder() parser.Encoder { return parser.NewEncoder() }
func (r *rawFrames) NewDecoder() parser.Decoder {
	return &recordingDecoder{Decoder: parser.NewDecoder(), r: r}
}

type recordingDecoder struct {
	parser.Decoder
	r *rawFrames
}

func (d *recordingDecoder) Add(data any) error {
	s := ""
	switch t := data.(type) {
	case string:
		s = t
	case *types.StringBuffer:
		s = string(t.Bytes()) // unread bytes, not consumed
	}
	d.r.mu.Lock()
	d.r.frames = append(d.r.frames, s)
	d.r.mu.Unlock()
	return d.Decoder.Add(data)
}

// find waits for a frame starting with prefix.
func (r *rawFrames) find(t *testing.T, prefix string) string {
	t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		for _, f := range r.frames {
			if strings.HasPrefix(f, prefix) {
				r.mu.Unlock()
				return f
			}
		}
		r.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no frame starting with %q", prefix)
	return ""
}

// A computer's ack reaches the agent as the bytes the computer sent: a
// number too large for float64, a trailing zero, an escape and the key order
// all survive, which they would not through a decode and a re-encode.
func TestRoute_RelaysAckBytesVerbatim(t *testing.T) {
	_, base := startServer(t, Options{})
	frames := &rawFrames{}
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent, Parser: frames})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	const answer = `{"z":12345678901234567890,"a":1.50,"s":"caf\u00e9","nested":{"b":[1,2,3],"a":null}}`
	comp.answer(protocol.EventGetResources, func(map[string]any) []any {
		return []any{json.RawMessage(answer), json.RawMessage(`"second"`)}
	})
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp.join(protocol.RoleComputer, "c1", "o1")

	got := agent.call(protocol.EventGetResources, map[string]any{"agent": "alice", "req_id": "r1", "computer": "c1", "mcp_server": "lib"})
	if len(got) != 2 || got[1] != "second" {
		t.Fatalf("ack as the agent decoded it: %#v", got)
	}
	frame := frames.find(t, "3"+protocol.Namespace+",1[") // ack 0 was the join
	if i := strings.IndexByte(frame, '['); i < 0 || frame[i:] != "["+answer+`,"second"]` {
		t.Errorf("relayed ack frame\n got %s\nwant …[%s,\"second\"]", frame, answer)
	}
}

// An ack over rawack.MaxArgs arguments is a protocol violation: the computer's
// connection closes and the agent is answered 500 at once, not left waiting.
func TestRoute_AckWithTooManyArgumentsClosesTheComputer(t *testing.T) {
	_, base := startServer(t, Options{})
	agent := mustDial(t, base, peerConfig{Role: protocol.RoleAgent})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	comp.answer(protocol.EventGetConfig, func(map[string]any) []any {
		out := make([]any, rawack.MaxArgs+1)
		for i := range out {
			out[i] = i
		}
		return out
	})
	agent.join(protocol.RoleAgent, "alice", "o1")
	comp.join(protocol.RoleComputer, "c1", "o1")
	// The request's own timeout (120 s, the server's cap) is far past the
	// ack wait of call: an answer at all means it did not wait for it.
	e := errorAck(t, agent.call(protocol.EventGetConfig, map[string]any{"agent": "alice", "req_id": "r1", "computer": "c1", "timeout": 120}))
	if e.Code != protocol.CodeInternal || !strings.Contains(e.Message, "c1 disconnected") {
		t.Errorf("answer %+v, want 500 computer c1 disconnected", e)
	}
}

func TestRawAck_ParsesOnlyTextAcksForSMCP(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
		ok   bool
		err  error
		args []string
		id   uint64
	}{
		{name: "ack", in: `3/smcp,12[{"a":1} , "x",null]`, ok: true, args: []string{`{"a":1}`, `"x"`, "null"}, id: 12},
		{name: "nested", in: `3/smcp,5[ {"a":[1,2],"s":"x,]\"\\"} ,[3,{"b":","}],"q\\",""]`, ok: true,
			args: []string{`{"a":[1,2],"s":"x,]\"\\"}`, `[3,{"b":","}]`, `"q\\"`, `""`}, id: 5},
		{name: "buffer", in: types.NewStringBufferString(`3/smcp,7[]`), ok: true, args: []string{}, id: 7},
		{name: "event", in: `2/smcp,["x",{}]`},
		{name: "other namespace", in: `3/other,1[1]`},
		{name: "default namespace", in: `31[1]`},
		{name: "no id", in: `3/smcp,[1]`},
		{name: "id too long", in: `3/smcp,123456789012345678901[1]`},
		{name: "not an array", in: `3/smcp,1{"a":1}`},
		{name: "invalid json", in: `3/smcp,1[{"a":}]`},
		{name: "trailing bytes", in: `3/smcp,1[1]x`},
		{name: "two arrays", in: `3/smcp,1[1][2]`},
		{name: "binary", in: []byte(`3/smcp,1[1]`)},
		{name: "too many", in: `3/smcp,1[` + strings.Repeat("0,", rawack.MaxArgs) + `0]`, ok: true, err: rawack.ErrTooManyArgs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pkt, ok, err := rawack.Read(tc.in, protocol.Namespace)
			if ok != tc.ok || !errors.Is(err, tc.err) {
				t.Fatalf("ok %v err %v, want %v %v", ok, err, tc.ok, tc.err)
			}
			if !ok || err != nil {
				return
			}
			if pkt.Type != parser.ACK || pkt.Nsp != protocol.Namespace || pkt.Id == nil || *pkt.Id != tc.id {
				t.Fatalf("packet %+v", pkt)
			}
			args := pkt.Data.([]any)
			if len(args) != len(tc.args) {
				t.Fatalf("args %v, want %v", args, tc.args)
			}
			for i, a := range args {
				if string(a.(json.RawMessage)) != tc.args[i] {
					t.Errorf("arg %d = %s, want %s", i, a, tc.args[i])
				}
			}
		})
	}
}
