package sioconn

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/zishang520/socket.io/clients/engine/v3"
	"github.com/zishang520/socket.io/parsers/engine/v3/packet"

	"github.com/dpe-tui/dpe-tui/internal/bytesize"
)

// gatedCtor wraps the library's websocket transport constructor so that
// every transport it makes
//
//   - opens only once the manager listens. This is the cause of the
//     "missed open": engine.NewSocket opens its transport inside the
//     constructor, and the websocket transport dials synchronously there
//     and starts its reader, so on a fast loopback the server's open packet
//     was handled — and the engine's "open" (or a dial "error") emitted —
//     before Manager.Open subscribed to it. The manager then waited for an
//     attempt timeout (the ~1.1 s connects). The gate defers the dial to a
//     goroutine that waits until the engine has the manager's listeners.
//   - refuses an inbound message larger than MaxMessage on its frame
//     headers, before its payload is read (framelimit.go), and closes the
//     connection.
//   - closes the transport on an engine.io CLOSE packet, which the
//     library ignores: python-engineio's disconnect() sends it and leaves
//     the websocket open, so a server-side disconnect would otherwise be
//     noticed only at the ping timeout.
//
// Only websocket: the library's polling transport runs writes behind the
// long-poll on one queue (every emit waits up to a ping interval) and its
// chunked POSTs are dropped by python-engineio; measured broken against our
// server, Node socket.io and python-socketio.
type gatedCtor struct {
	inner engine.TransportCtor
	c     *Conn
}

func (g *gatedCtor) Name() string { return g.inner.Name() }

func (g *gatedCtor) New(s engine.Socket, o engine.SocketOptionsInterface) engine.Transport {
	// Each transport goes to the current server (failover, Options.URLs):
	// the engine took host, port and path from the manager's fixed URL.
	cur := g.c.target()
	secure := cur.base.Scheme == "https"
	port := cur.base.Port()
	if port == "" {
		port = map[bool]string{true: "443", false: "80"}[secure]
	}
	o.SetHostname(cur.base.Hostname())
	o.SetPort(port)
	o.SetSecure(secure)
	path := strings.TrimRight(cur.path, "/")
	if o.AddTrailingSlash() {
		path += "/" // as the engine does with the manager's path
	}
	o.SetPath(path)
	t := g.inner.New(s, o)
	if d := wsDialer(t); d != nil {
		limitDialer(d, g.c.opt.MaxMessage, func(n int64) {
			g.c.tooLarge(&MessageTooLargeError{Size: n, Limit: g.c.opt.MaxMessage})
		})
	} else {
		g.c.opt.Logger.Warn("smcp: cannot reach the websocket dialer; inbound messages are not size-limited")
	}
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
		// Stops early when the transport is closed meanwhile (the attempt
		// was abandoned): nothing is left waiting after a Close.
		for i := 0; w.sock.ListenerCount("error") == 0 && time.Since(start) < managerListenWait &&
			w.ReadyState() != engine.TransportStateClosed; i++ {
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
		switch w.ReadyState() {
		case engine.TransportStateClosed:
			w.Transport.DoClose() // closed during the dial: release it
		case engine.TransportStateOpen:
			// The library starts the reader before it marks the transport
			// writable (websocket.addEventListeners: go message(), then
			// OnOpen). When the reader wins, the server's OPEN is handled
			// and the engine flushes the namespace CONNECT while the
			// transport is not writable yet: the packet stays in the
			// engine's write buffer until the next flush, which only the
			// server's first ping brings (25 s on our server, 10 min on
			// the hostile peer). Flush again now that it is writable; an
			// empty buffer makes this a no-op.
			w.sock.Flush()
		}
	}()
}

func (w *gatedTransport) onPacket(args ...any) {
	p, _ := firstArg(args).(*packet.Packet)
	if p == nil {
		return
	}
	if p.Type == packet.CLOSE {
		w.c.opt.Logger.Debug("smcp: server sent an engine.io close packet; closing the transport")
		go w.Close() // not inside the transport's own emit: Close takes its locks
	}
}

// MessageTooLargeError is an inbound message over Options.MaxMessage.
// Size is what its frames announced when the limit was hit (at least).
type MessageTooLargeError struct{ Size, Limit int64 }

func (e *MessageTooLargeError) Error() string {
	return fmt.Sprintf("the server sent a message of at least %d bytes, over the limit of %s; dropped the connection instead of reading it",
		e.Size, bytesize.Format(e.Limit))
}
