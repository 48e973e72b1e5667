package rawack

import (
	"encoding/json"
	"strconv"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
	"github.com/zishang520/socket.io/v3/pkg/types"
)

// Encoder writes an ACK whose arguments are all json.RawMessage as they
// are, where the library's encoder would marshal them again (compacting
// every byte of a 30 KB page); every other packet goes to Base. The bytes
// must be valid JSON: they are a relayed ack Read checked, or an answer
// built from JSON that was checked (a computer's raw resource page). A
// peer reading them checks again.
type Encoder struct{ Base parser.Encoder }

func (e Encoder) Encode(pkt *parser.Packet) []types.BufferInterface {
	args, ok := pkt.Data.([]any)
	if pkt.Type != parser.ACK || pkt.Id == nil || !ok || len(args) == 0 {
		return e.Base.Encode(pkt)
	}
	size := 64 + len(pkt.Nsp)
	for _, a := range args {
		r, ok := a.(json.RawMessage)
		if !ok || len(r) == 0 {
			return e.Base.Encode(pkt)
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
