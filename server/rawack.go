package server

import (
	"encoding/json"
	"strconv"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
	"github.com/zishang520/socket.io/v3/pkg/types"
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
// the whole message before any of it is read, and rawack.MaxArgs
// bounds how many arguments one ack may carry. The reading itself is
// rawack.Read, the same reader the agent uses.

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
