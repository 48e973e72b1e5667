package sioconn

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/zishang520/socket.io/servers/socket/v3"

	"github.com/dpe-tui/dpe-tui/protocol"

	"github.com/dpe-tui/dpe-tui/internal/rawack"
)

// ackServer is a libServer: "answer" acks with the arguments it was sent
// (a list), "many" acks with n arguments, and every connect gets a
// "notify:x" event carrying an object, so that events and acks can be told
// apart on the same connection.
func ackServer(t *testing.T) *libServer {
	t.Helper()
	return startLibServer(t, 0, func(s *socket.Socket) {
		_ = s.Emit("notify:x", map[string]any{"office_id": "o", "n": 1})
		_ = s.On("answer", func(args ...any) {
			list, _ := args[0].([]any)
			if ack, ok := args[len(args)-1].(socket.Ack); ok {
				ack(list, nil)
			}
		})
		_ = s.On("many", func(args ...any) {
			n, _ := args[0].(float64)
			if ack, ok := args[len(args)-1].(socket.Ack); ok {
				ack(make([]any, int(n)), nil)
			}
		})
	})
}

// answerArgs is every shape an ack argument takes, with the characters that
// could fool a comma split: commas, brackets and escaped quotes in strings.
var answerArgs = []any{
	map[string]any{"resources": []any{map[string]any{"uri": "dpe://h/a,b", "name": `q"],[{`}}, "next_cursor": "c"},
	"a, \"b\" ]",
	float64(3),
	nil,
	[]any{true, map[string]any{}},
}

// dialRaw connects to srv with p, waits until srv has recorded the
// connection (its n-th), and returns the Conn and the events it heard
// (first argument).
func dialRaw(t *testing.T, srv *libServer, n int32, p Options) (*Conn, chan any) {
	t.Helper()
	p.URL = srv.url
	c, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	events := make(chan any, 4)
	c.On("notify:x", func(args ...any) {
		select {
		case events <- firstArg(args):
		default:
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	srv.waitRecorded(t, n)
	return c, events
}

// With RawAckParser an ack's arguments are the bytes the server sent, one
// json.RawMessage each, that decode to what the library's parser gives;
// events on the same connection are still decoded by the library.
func TestRawAckParser_AcksRawEventsDecoded(t *testing.T) {
	srv := ackServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	plain, plainEvents := dialRaw(t, srv, 1, Options{})
	want, err := plain.EmitWithAck(ctx, 5*time.Second, "answer", answerArgs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, answerArgs) {
		t.Fatalf("library parser: %#v", want)
	}

	raw, rawEvents := dialRaw(t, srv, 2, Options{Parser: RawAckParser(protocol.Namespace)})
	got, err := raw.EmitWithAck(ctx, 5*time.Second, "answer", answerArgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(answerArgs) {
		t.Fatalf("raw parser: %d arguments, want %d", len(got), len(answerArgs))
	}
	for i, a := range got {
		r, ok := a.(json.RawMessage)
		if !ok {
			t.Fatalf("argument %d is %T, want json.RawMessage", i, a)
		}
		enc, _ := json.Marshal(answerArgs[i])
		if string(r) != string(enc) {
			t.Errorf("argument %d = %s, want the bytes sent %s", i, r, enc)
		}
	}
	if d := DecodeRawArgs(got); !reflect.DeepEqual(d, want) {
		t.Errorf("DecodeRawArgs = %#v, want the library's %#v", d, want)
	}
	if _, still := got[0].(json.RawMessage); !still {
		t.Error("DecodeRawArgs changed its argument")
	}
	for name, ch := range map[string]chan any{"library": plainEvents, "raw": rawEvents} {
		select {
		case ev := <-ch:
			m, ok := ev.(map[string]any)
			if !ok || m["office_id"] != "o" || m["n"] != float64(1) {
				t.Errorf("%s parser: event argument %#v, want the decoded map", name, ev)
			}
		case <-ctx.Done():
			t.Fatalf("%s parser: no event", name)
		}
	}
	// An empty ack is an empty list, as with the library.
	if got, err := raw.EmitWithAck(ctx, 5*time.Second, "answer", []any{}); err != nil || len(got) != 0 {
		t.Errorf("empty ack: %#v %v", got, err)
	}
}

// An ack with more than rawack.MaxArgs arguments is a parse error: the wait
// fails as a lost connection, which comes back by itself; an ack at the
// bound is read.
func TestRawAckParser_TooManyArgumentsDropsTheConnection(t *testing.T) {
	srv := ackServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, _ := dialRaw(t, srv, 1, Options{Parser: RawAckParser(protocol.Namespace), ConnectTimeout: 5 * time.Second})
	if got, err := c.EmitWithAck(ctx, 5*time.Second, "many", rawack.MaxArgs); err != nil || len(got) != rawack.MaxArgs {
		t.Fatalf("at the bound: %d args, %v", len(got), err)
	}
	if _, err := c.EmitWithAck(ctx, 5*time.Second, "many", rawack.MaxArgs+1); !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("over the bound: err = %v, want ErrConnectionLost", err)
	}
	eventually(t, "reconnected", c.Connected)
}
