package sioconn

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
	"github.com/zishang520/socket.io/v3/pkg/types"
)

// MaxRawAckArgs bounds the arguments of one ack read by RawAckParser; an
// SMCP ack has one. An ack with more is refused like any packet the parser
// refuses: the connection is closed ("parse error") and reconnected.
const MaxRawAckArgs = 16

// ErrTooManyAckArgs is RawAckParser's refusal of an ack over MaxRawAckArgs.
var ErrTooManyAckArgs = errors.New("ack has too many arguments")

// maxAckIDDigits is the longest packet id (a uint64) in decimal.
const maxAckIDDigits = 20

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
// message before any of it is read; MaxRawAckArgs bounds the arguments.
func RawAckParser(nsp string) parser.Parser {
	return rawAckParser{base: parser.NewParser(), prefix: []byte(strconv.Itoa(int(parser.ACK)) + nsp + ",")}
}

type rawAckParser struct {
	base   parser.Parser
	prefix []byte // "3/smcp,": how a text ACK for the namespace starts
}

func (p rawAckParser) NewEncoder() parser.Encoder { return p.base.NewEncoder() }

func (p rawAckParser) NewDecoder() parser.Decoder {
	return &rawAckDecoder{Decoder: p.base.NewDecoder(), prefix: p.prefix}
}

// rawAckDecoder is the library's decoder with text ACKs for one namespace
// read here. Its packets are emitted on the library decoder's own emitter,
// which is the one the manager listens to, so order is kept: Add is called
// by the manager one message at a time and each emit is synchronous.
type rawAckDecoder struct {
	parser.Decoder
	prefix []byte
}

func (d *rawAckDecoder) Add(data any) error {
	pkt, ok, err := d.rawAck(data)
	if err != nil {
		return err
	}
	if !ok {
		return d.Decoder.Add(data)
	}
	d.Emit("decoded", pkt)
	return nil
}

// rawAck parses data as a text ACK for the namespace with raw arguments. ok
// is false for anything else: the library's decoder decides those, exactly
// as without this path.
func (d *rawAckDecoder) rawAck(data any) (pkt *parser.Packet, ok bool, err error) {
	var b []byte
	switch t := data.(type) {
	case string:
		if len(t) < len(d.prefix) || t[:len(d.prefix)] != string(d.prefix) {
			return nil, false, nil
		}
		b = []byte(t)
	case *types.StringBuffer:
		// Not consumed, so a fallback still sees the bytes; copied, so the
		// arguments own their memory once the buffer is reused.
		if !bytes.HasPrefix(t.Bytes(), d.prefix) {
			return nil, false, nil
		}
		b = bytes.Clone(t.Bytes())
	default:
		return nil, false, nil
	}
	rest := b[len(d.prefix):]
	n := 0
	for n < len(rest) && n <= maxAckIDDigits && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 || n > maxAckIDDigits {
		return nil, false, nil
	}
	id, perr := strconv.ParseUint(string(rest[:n]), 10, 64)
	if perr != nil {
		return nil, false, nil
	}
	args, ok, err := SplitJSONArray(rest[n:], MaxRawAckArgs)
	if !ok || err != nil {
		return nil, ok, err
	}
	nsp := string(d.prefix[1 : len(d.prefix)-1])
	return &parser.Packet{Type: parser.ACK, Nsp: nsp, Id: &id, Data: args}, true, nil
}

// SplitJSONArray returns the elements of the JSON array b, each as the bytes
// it was sent as (json.RawMessage, sharing b's memory). ok is false when b
// is not one valid JSON array; err is ErrTooManyAckArgs past max elements.
// One validity scan (json.Valid), then a split at the top-level commas: a
// decoder into json.RawMessage would scan each element twice and copy it.
func SplitJSONArray(b []byte, max int) (args []any, ok bool, err error) {
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '[' || !json.Valid(b) {
		return nil, false, nil
	}
	args = []any{}
	inner := bytes.TrimSpace(b[1 : len(b)-1])
	if len(inner) == 0 {
		return args, true, nil
	}
	// b is valid JSON, so brackets balance and strings end: only strings
	// (with their escapes) and nesting need tracking to find the commas.
	depth, start, inString := 0, 0, false
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				if len(args) == max {
					return nil, true, ErrTooManyAckArgs
				}
				args = append(args, json.RawMessage(bytes.TrimSpace(inner[start:i])))
				start = i + 1
			}
		}
	}
	if len(args) == max {
		return nil, true, ErrTooManyAckArgs
	}
	return append(args, json.RawMessage(bytes.TrimSpace(inner[start:]))), true, nil
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
