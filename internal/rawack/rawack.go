// Package rawack reads a Socket.IO text ACK packet without decoding its
// arguments: each stays the JSON the peer sent (json.RawMessage), checked
// to be one valid JSON array and bounded in count. The agent's parser
// (internal/sioconn) and the server's relay (server) both read acks this
// way, so the rule lives once, here.
package rawack

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/dpe-tui/dpe-tui/internal/jsonfast"
)

// MaxArgs bounds the arguments of one ack read by Read; an
// SMCP ack has one. An ack with more is refused like any packet the parser
// refuses: the connection is closed ("parse error") and reconnected.
const MaxArgs = 16

// ErrTooManyArgs is Read's refusal of an ack over MaxArgs.
var ErrTooManyArgs = errors.New("ack has too many arguments")

// maxAckIDDigits is the longest packet id (a uint64) in decimal.
const maxAckIDDigits = 20

// Read parses data (a string or *types.StringBuffer, as the
// library's decoders receive it) as a text ACK for namespace nsp whose
// arguments stay raw: one json.RawMessage each, checked to be one valid
// JSON array, at most MaxArgs of them (more is ErrTooManyArgs).
// ok is false for anything else (other packet types and namespaces, binary
// data, a payload that is not a JSON array): the library's decoder decides
// those, exactly as without this path. It is the one reader of raw acks,
// used by the agent (sioconn.RawAckParser) and by the server's relay.
func Read(data any, nsp string) (pkt *parser.Packet, ok bool, err error) {
	var b []byte
	switch t := data.(type) {
	case string:
		if !hasAckPrefix(t, nsp) {
			return nil, false, nil
		}
		b = []byte(t)
	case *types.StringBuffer:
		// Not consumed, so a fallback still sees the bytes; copied, so the
		// arguments own their memory once the buffer is reused.
		if !hasAckPrefix(t.Bytes(), nsp) {
			return nil, false, nil
		}
		b = bytes.Clone(t.Bytes())
	default:
		return nil, false, nil
	}
	rest := b[len(nsp)+2:]
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
	args, ok, err := SplitJSONArray(rest[n:], MaxArgs)
	if !ok || err != nil {
		return nil, ok, err
	}
	return &parser.Packet{Type: parser.ACK, Nsp: nsp, Id: &id, Data: args}, true, nil
}

// hasAckPrefix says whether b starts a text ACK packet for nsp ("3/smcp,"),
// without building the prefix: it runs on every packet read.
func hasAckPrefix[T string | []byte](b T, nsp string) bool {
	return len(b) >= len(nsp)+2 && b[0] == '0'+byte(parser.ACK) &&
		string(b[1:1+len(nsp)]) == nsp && b[1+len(nsp)] == ','
}

// SplitJSONArray returns the elements of the JSON array b, each as the bytes
// it was sent as (json.RawMessage, sharing b's memory). ok is false when b
// is not one valid JSON array; err is ErrTooManyArgs past max elements.
// One validity scan (jsonfast.Valid), then a split at the top-level commas: a
// decoder into json.RawMessage would scan each element twice and copy it.
func SplitJSONArray(b []byte, max int) (args []any, ok bool, err error) {
	b = bytes.Trim(b, jsonSpace)
	if len(b) < 2 || b[0] != '[' || !jsonfast.Valid(b) {
		return nil, false, nil
	}
	args = []any{}
	inner := bytes.TrimSpace(b[1 : len(b)-1])
	if len(inner) == 0 {
		return args, true, nil
	}
	// b is valid JSON, so brackets balance and strings end: only strings
	// (with their escapes) and nesting need tracking to find the commas.
	depth, start := 0, 0
	for i := 0; i < len(inner); i++ {
		switch inner[i] {
		case '"':
			i = jsonfast.StringEnd(inner, i)
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				if len(args) == max {
					return nil, true, ErrTooManyArgs
				}
				args = append(args, json.RawMessage(bytes.TrimSpace(inner[start:i])))
				start = i + 1
			}
		}
	}
	if len(args) == max {
		return nil, true, ErrTooManyArgs
	}
	return append(args, json.RawMessage(bytes.TrimSpace(inner[start:]))), true, nil
}

// jsonSpace is the whitespace JSON allows between tokens (a form feed or
// U+00A0 around the array is not valid JSON).
const jsonSpace = " \t\r\n"
