package sioconn

import (
	"encoding/json"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"

	"github.com/dpe-tui/dpe-tui/internal/rawack"
)

// RawAckParser is the library's Socket.IO parser, except that a text ACK
// for namespace nsp is not decoded: its arguments reach EmitWithAck as one
// json.RawMessage each, the bytes the peer sent (checked to be one valid
// JSON array, never decoded into maps). The library would decode each ack
// into []any / map[string]any / float64, which a caller decoding into typed
// structs then has to marshal again; on a resource listing that was most
// of the agent's work. Everything else — events (notifications), CONNECT,
// binary packets, acks on other namespaces, a payload that is not a JSON
// array — goes through the library's decoder unchanged, and the encoder is
// the library's. The websocket read limit (MaxMessage) bounds the whole
// message before any of it is read; rawack.MaxArgs bounds the arguments.
func RawAckParser(nsp string) parser.Parser {
	return rawAckParser{base: parser.NewParser(), nsp: nsp}
}

type rawAckParser struct {
	base parser.Parser
	nsp  string
}

func (p rawAckParser) NewEncoder() parser.Encoder { return p.base.NewEncoder() }

func (p rawAckParser) NewDecoder() parser.Decoder {
	return &rawAckDecoder{Decoder: p.base.NewDecoder(), nsp: p.nsp}
}

// rawAckDecoder is the library's decoder with text ACKs for one namespace
// read here. Its packets are emitted on the library decoder's own emitter,
// which is the one the manager listens to, so order is kept: Add is called
// by the manager one message at a time and each emit is synchronous.
type rawAckDecoder struct {
	parser.Decoder
	nsp string
}

func (d *rawAckDecoder) Add(data any) error {
	pkt, ok, err := rawack.Read(data, d.nsp)
	if err != nil {
		return err
	}
	if !ok {
		return d.Decoder.Add(data)
	}
	d.Emit("decoded", pkt)
	return nil
}

// DecodeRawArgs returns args with every json.RawMessage decoded as the
// library's parser would have decoded it (objects as map[string]any,
// numbers as float64), for callers that read an ack loosely. A raw value
// that is not valid JSON (RawAckParser never produces one) becomes nil.
func DecodeRawArgs(args []any) []any {
	out := args
	copied := false
	for i, a := range args {
		r, ok := a.(json.RawMessage)
		if !ok {
			continue
		}
		if !copied { // the caller's slice is left as it was
			out, copied = append([]any(nil), args...), true
		}
		var v any
		if json.Unmarshal(r, &v) != nil {
			v = nil
		}
		out[i] = v
	}
	return out
}
