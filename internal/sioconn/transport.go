package sioconn

import (
	"fmt"
	"runtime"
	"time"

	"github.com/zishang520/socket.io/clients/engine/v3"
	"github.com/zishang520/socket.io/parsers/engine/v3/packet"
)

// gatedCtor wraps the library's transport constructor (websocket or
// polling) so that every transport it makes
//
//   - opens only once the manager listens. This is the cause of the
//     "missed open": engine.NewSocket opens its transport inside the
//     constructor, and the websocket transport dials synchronously there
//     and starts its reader, so on a fast loopback the server's open packet
//     was handled — and the engine's "open" (or a dial "error") emitted —
//     before Manager.Open subscribed to it. The manager then waited for an
//     attempt timeout (the ~1.1 s connects). The gate defers the dial to a
//     goroutine that waits until the engine has the manager's listeners.
//   - drops an inbound packet larger than MaxMessage before anything
//     decodes it, and closes the connection. The library has no inbound
//     limit: engine.io's maxPayload (from the server's handshake) only
//     sizes outgoing polling batches, and the websocket transport never
//     calls gorilla's SetReadLimit on its (unexported) connection, so one
//     over-large frame is still buffered once before it is dropped.
//   - closes the transport on an engine.io CLOSE packet, which the
//     library ignores: python-engineio's disconnect() sends it and leaves
//     the websocket open, so a server-side disconnect would otherwise be
//     noticed only at the ping timeout.
type gatedCtor struct {
	inner engine.TransportCtor
	c     *Conn
}

func (g *gatedCtor) Name() string { return g.inner.Name() }

func (g *gatedCtor) New(s engine.Socket, o engine.SocketOptionsInterface) engine.Transport {
	t := g.inner.New(s, o)
	w := &gatedTransport{Transport: t, sock: s, c: g.c}
	// The library calls DoOpen, DoClose and Write through the prototype.
	t.Prototype(w)
	// Registered before the engine subscribes (SetTransport), so it runs
	// first and can neutralise the packet the engine then sees.
	_ = t.On("packet", w.onPacket)
	return w
}

type gatedTransport struct {
	engine.Transport
	sock engine.Socket
	c    *Conn
}

// managerListenWait bounds the gate. Manager.Open subscribes microseconds
// after the engine's constructor returns; the bound only matters for an
// engine nobody listens to, which should then open anyway.
const managerListenWait = 2 * time.Second

func (w *gatedTransport) DoOpen() {
	go func() {
		start := time.Now()
		for i := 0; w.sock.ListenerCount("error") == 0 && time.Since(start) < managerListenWait; i++ {
			if i < 64 {
				runtime.Gosched()
			} else {
				time.Sleep(time.Millisecond)
			}
		}
		if w.ReadyState() == engine.TransportStateClosed {
			return // closed while waiting: do not dial
		}
		w.Transport.DoOpen()
		if w.ReadyState() == engine.TransportStateClosed {
			w.Transport.DoClose() // closed during the dial: release it
		}
	}()
}

func (w *gatedTransport) onPacket(args ...any) {
	p, _ := firstArg(args).(*packet.Packet)
	if p == nil {
		return
	}
	if l, ok := p.Data.(interface{ Len() int }); ok && int64(l.Len()) > w.c.opt.MaxMessage {
		size := l.Len()
		p.Type, p.Data = packet.NOOP, nil
		w.c.tooLarge(&MessageTooLargeError{Size: int64(size), Limit: w.c.opt.MaxMessage})
		go w.Close() // not inside the transport's own emit: Close takes its locks
		return
	}
	if p.Type == packet.CLOSE {
		w.c.opt.Logger.Debug("smcp: server sent an engine.io close packet; closing the transport")
		go w.Close()
	}
}

// MessageTooLargeError is an inbound packet over Options.MaxMessage.
type MessageTooLargeError struct{ Size, Limit int64 }

func (e *MessageTooLargeError) Error() string {
	return fmt.Sprintf("the server sent a message of %d bytes, over the limit of %d", e.Size, e.Limit)
}
