package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Acks on /smcp are relayed, never read: the server routes a computer's ack
// to the agent that asked, and nothing in between looks inside it. The
// library's parser would decode each ack into maps of []any / float64 and
// its encoder would marshal them again for the agent, which is most of the
// server's work on a listing (a 30 KB page is decoded and re-encoded once
// per page). So the gated decoder reads a text ACK for /smcp itself: it
// splits the argument array into one json.RawMessage per argument (checked
// to be valid JSON, never decoded), and the encoder writes arguments that
// are all raw back as they came. Everything else goes through the library's
// parser unchanged. The websocket read limit (MaxMessageBytes) still bounds
// the whole message before any of it is read, and maxAckArgs bounds how many
// arguments one ack may carry.

// maxAckArgs bounds the arguments of one ack; an SMCP ack has one. An ack
// with more is a protocol violation and closes the sender's connection, as
// any packet the parser refuses does.
const maxAckArgs = 16

// errTooManyAckArgs is the decoder's refusal of an ack over maxAckArgs.
var errTooManyAckArgs = errors.New("ack has too many arguments")

// ackPrefix is how a text ACK packet for /smcp starts: type 3, namespace.
var ackPrefix = []byte("3" + protocol.Namespace + ",")

// maxAckIDDigits is the longest packet id (a uint64) in decimal.
const maxAckIDDigits = 20

// rawAck parses data as a text ACK for /smcp with raw arguments. ok is false
// for anything else (other packet types and namespaces, binary data, a
// payload that is not a JSON array of valid values): the library's parser
// decides those, exactly as without this path.
func rawAck(data any) (pkt *parser.Packet, ok bool, err error) {
	var b []byte
	switch t := data.(type) {
	case string:
		if len(t) < len(ackPrefix) || t[:len(ackPrefix)] != string(ackPrefix) {
			return nil, false, nil
		}
		b = []byte(t)
	case *types.StringBuffer:
		// The unread bytes, not consumed, so a fallback still sees them;
		// copied, so the relayed arguments own their memory.
		if !bytes.HasPrefix(t.Bytes(), ackPrefix) {
			return nil, false, nil
		}
		b = bytes.Clone(t.Bytes())
	default:
		return nil, false, nil
	}
	if !bytes.HasPrefix(b, ackPrefix) {
		return nil, false, nil
	}
	rest := b[len(ackPrefix):]
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
	args, ok, err := splitArray(rest[n:])
	if !ok || err != nil {
		return nil, ok, err
	}
	return &parser.Packet{Type: parser.ACK, Nsp: protocol.Namespace, Id: &id, Data: args}, true, nil
}

// splitArray returns the elements of the JSON array b, each as the bytes it
// was sent as. ok is false when b is not one valid JSON array. One validity
// scan (json.Valid), then a split at the top-level commas: a decoder into
// json.RawMessage would scan each element twice and copy it twice.
func splitArray(b []byte) (args []any, ok bool, err error) {
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
				if len(args) == maxAckArgs {
					return nil, true, errTooManyAckArgs
				}
				args = append(args, json.RawMessage(bytes.TrimSpace(inner[start:i])))
				start = i + 1
			}
		}
	}
	if len(args) == maxAckArgs {
		return nil, true, errTooManyAckArgs
	}
	return append(args, json.RawMessage(bytes.TrimSpace(inner[start:]))), true, nil
}

// rawEncoder writes an ACK whose arguments are all json.RawMessage (a relayed
// ack) without marshalling them again; every other packet goes to the
// library's encoder.
type rawEncoder struct{ base parser.Encoder }

func (e rawEncoder) Encode(pkt *parser.Packet) []types.BufferInterface {
	args, ok := pkt.Data.([]any)
	if pkt.Type != parser.ACK || pkt.Id == nil || !ok || len(args) == 0 {
		return e.base.Encode(pkt)
	}
	size := 64 + len(pkt.Nsp)
	for _, a := range args {
		r, ok := a.(json.RawMessage)
		if !ok || len(r) == 0 {
			return e.base.Encode(pkt)
		}
		size += len(r) + 1
	}
	buf := make([]byte, 0, size)
	buf = append(buf, '0'+byte(parser.ACK))
	if pkt.Nsp != "" && pkt.Nsp != "/" {
		buf = append(buf, pkt.Nsp...)
		buf = append(buf, ',')
	}
	buf = strconv.AppendUint(buf, *pkt.Id, 10)
	buf = append(buf, '[')
	for i, a := range args {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, a.(json.RawMessage)...)
	}
	buf = append(buf, ']')
	return []types.BufferInterface{types.NewStringBuffer(buf)}
}
