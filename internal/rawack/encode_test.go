package rawack

import (
	"encoding/json"
	"testing"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
)

func TestRawEncoder_WritesRawAcksAsTheyCame(t *testing.T) {
	enc := Encoder{Base: parser.NewEncoder()}
	id := uint64(42)
	got := enc.Encode(&parser.Packet{Type: parser.ACK, Nsp: "/smcp", Id: &id,
		Data: []any{json.RawMessage(`{"n":1.50}`), json.RawMessage(`[ ]`)}})
	if len(got) != 1 || got[0].String() != `3/smcp,42[{"n":1.50},[ ]]` {
		t.Errorf("raw ack encoded as %v", got)
	}
	// Anything that is not all raw goes through the library's encoder.
	mixed := enc.Encode(&parser.Packet{Type: parser.ACK, Nsp: "/smcp", Id: &id,
		Data: []any{json.RawMessage(`1`), map[string]any{"a": 1.5}}})
	if len(mixed) != 1 || mixed[0].String() != `3/smcp,42[1,{"a":1.5}]` {
		t.Errorf("mixed ack encoded as %v", mixed)
	}
	ev := enc.Encode(&parser.Packet{Type: parser.EVENT, Nsp: "/smcp", Data: []any{"notify:x", map[string]any{}}})
	if len(ev) != 1 || ev[0].String() != `2/smcp,["notify:x",{}]` {
		t.Errorf("event encoded as %v", ev)
	}
}
