package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"time"

	ws "github.com/gorilla/websocket"
	"github.com/zishang520/socket.io/parsers/engine/v3/packet"
	"github.com/zishang520/socket.io/parsers/engine/v3/parser"
	"github.com/zishang520/socket.io/servers/engine/v3/transports"
	"github.com/zishang520/socket.io/v3/pkg/queue"
	"github.com/zishang520/socket.io/v3/pkg/types"
)

// The library's websocket transport reads each message into a buffer
// grown from empty (512 bytes, doubled until the message fits), and its
// engine.io parser copies the payload into a second buffer grown the same
// way: a 40 KB resource page costs some 256 KB of allocation and zeroing
// before anything reads it, a third of what serve allocates on a listing
// (docs/performance.md, P3). wsTransport is that transport with one
// change: a message is read into the connection's scratch buffer (grown
// once, kept while it is small) and copied out once at its size, and a
// text packet of engine.io v4 is split from its type byte without the
// parser's second copy. Binary messages, base64 packets and protocol v3
// still go through the parser. Sending, closing and errors are the
// library's (v3.0.6), unchanged.

// wsBuilder is the transport constructor the server registers as
// "websocket" (Options: SetTransports).
type wsBuilder struct{ transports.WebSocketBuilder }

func (wsBuilder) New(ctx *types.HttpContext) transports.Transport {
	w := &wsTransport{Transport: transports.MakeTransport()}
	w.Prototype(w)
	w.Construct(ctx)
	return w
}

// keepScratch is the largest read buffer a connection keeps between
// messages; a larger one (a rare big tool result) is dropped after use.
const keepScratch = 256 << 10

type wsTransport struct {
	transports.Transport

	idleTimeout time.Duration
	socket      *types.WebSocketConn
	writeQueue  *queue.Queue
	scratch     []byte // owned by the reader goroutine
}

func (w *wsTransport) Construct(ctx *types.HttpContext) {
	w.Transport.Construct(ctx)

	w.idleTimeout = ctx.IdleTimeout
	w.socket = ctx.Websocket
	w.writeQueue = queue.New()

	_ = w.socket.On("error", func(errs ...any) {
		err, _ := first(errs).(error)
		w.OnError("websocket error", err)
	})
	_ = w.socket.Once("close", func(...any) {
		w.OnClose()
	})

	w.SetWritable(true)
	w.SetPerMessageDeflate(nil)

	transports.StartReader(w, ctx.TransportReadPermission(), w.message)
}

func (w *wsTransport) Name() string { return transports.WEBSOCKET }

func (w *wsTransport) HandlesUpgrades() bool { return true }

func (w *wsTransport) _error(err error) {
	if ws.IsUnexpectedCloseError(err) || errors.Is(err, net.ErrClosed) {
		w.socket.Emit("close")
	} else {
		w.socket.Emit("error", err)
	}
}

// message is the read loop.
func (w *wsTransport) message() {
	defer func() {
		if !w.writeQueue.IsShuttingDown() {
			w.socket.Emit("close")
		}
	}()
	for {
		if w.idleTimeout > 0 {
			_ = w.socket.SetReadDeadline(time.Now().Add(w.idleTimeout))
		}
		mt, message, err := w.socket.NextReader()
		if err != nil {
			w._error(err)
			return
		}
		switch mt {
		case ws.BinaryMessage, ws.TextMessage:
			data, err := w.readMessage(message)
			if err != nil {
				w._error(err)
			} else if mt == ws.BinaryMessage {
				w.OnData(types.NewBytesBuffer(data))
			} else {
				w.onText(data)
			}
		case ws.CloseMessage:
			w.socket.Emit("close")
			if c, ok := message.(io.Closer); ok {
				_ = c.Close()
			}
			return
		}
		if c, ok := message.(io.Closer); ok {
			_ = c.Close()
		}
	}
}

// readMessage reads r to its end and returns a copy of exactly its bytes.
// The websocket read limit (MaxMessageBytes) bounds r.
func (w *wsTransport) readMessage(r io.Reader) ([]byte, error) {
	buf := w.scratch[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if cap(buf) <= keepScratch {
		w.scratch = buf[:0]
	} else {
		w.scratch = nil
	}
	return bytes.Clone(buf), nil
}

// onText hands a text message on as the parser would decode it.
func (w *wsTransport) onText(data []byte) {
	if p, ok := textPacket(data, w.Protocol()); ok {
		w.OnPacket(p)
		return
	}
	w.OnData(types.NewStringBuffer(data))
}

// textPacket is an engine.io v4 text packet as the library's parser
// decodes it: the type from the first byte, the rest as its data. It
// declines (false) what it leaves to the parser: base64 binary, an unknown
// type, an empty message, protocol v3.
func textPacket(data []byte, protocol int) (*packet.Packet, bool) {
	if protocol != 4 || len(data) == 0 || data[0] == 'b' {
		return nil, false
	}
	pt, ok := parser.PACKET_TYPES_REVERSE[data[0]]
	if !ok {
		return nil, false
	}
	return &packet.Packet{Type: pt, Data: types.NewStringBuffer(data[1:])}, true
}

// Send writes packets, in order, on the write queue.
func (w *wsTransport) Send(packets []*packet.Packet) {
	w.SetWritable(false)
	w.writeQueue.Enqueue(func() { w.send(packets) })
}

// send runs exclusively on writeQueue, including its completion events.
func (w *wsTransport) send(packets []*packet.Packet) {
	defer func() {
		w.Emit("drain")
		w.SetWritable(true)
		w.Emit("ready")
	}()

	for _, p := range packets {
		compress := true
		if p.Options != nil {
			if p.Options.Compress != nil && !*p.Options.Compress {
				compress = false
			}
			if w.PerMessageDeflate() == nil && p.Options.WsPreEncodedFrame != nil {
				mt := ws.BinaryMessage
				if _, ok := p.Options.WsPreEncodedFrame.(*types.StringBuffer); ok {
					mt = ws.TextMessage
				}
				pm, err := ws.NewPreparedMessage(mt, p.Options.WsPreEncodedFrame.Bytes())
				if err != nil {
					w._error(err)
					return
				}
				if err := w.socket.WritePreparedMessage(pm); err != nil {
					w._error(err)
					return
				}
				continue
			}
		}
		data, err := w.Parser().EncodePacket(p, w.SupportsBinary())
		if err != nil {
			w._error(err)
			return
		}
		w.write(data, compress)
	}
}

func (w *wsTransport) write(data types.BufferInterface, compress bool) {
	if w.PerMessageDeflate() != nil && data.Len() < w.PerMessageDeflate().Threshold {
		compress = false
	}
	w.socket.EnableWriteCompression(compress)
	mt := ws.BinaryMessage
	if _, ok := data.(*types.StringBuffer); ok {
		mt = ws.TextMessage
	}
	wr, err := w.socket.NextWriter(mt)
	if err != nil {
		w._error(err)
		return
	}
	defer func() {
		if err := wr.Close(); err != nil {
			w._error(err)
		}
	}()
	if _, err := io.Copy(wr, data); err != nil {
		w._error(err)
	}
}

// OnClose releases the write queue and the hijacked connection on every
// close path, including peer and error closes that bypass DoClose.
func (w *wsTransport) OnClose() {
	w.writeQueue.TryClose()
	w.Transport.OnClose()
	_ = w.socket.Close()
}

// DoClose closes the transport.
func (w *wsTransport) DoClose(fn types.Callable) {
	w.writeQueue.TryClose()
	defer func() { _ = w.socket.Close() }()
	if fn != nil {
		fn()
	}
}
