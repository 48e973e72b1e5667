package server

import (
	"crypto/rand"
	"encoding/hex"
	"sync"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/dpe-tui/dpe-tui/internal/rawack"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// The socket.io server library (v3.0.6) writes the namespace CONNECT reply
// before it records the socket for that namespace on the connection
// (namespace._doConnect: socket._onconnect() then fn(socket)). A client that
// emits as soon as it sees "connect" (every SMCP client joins its office
// right away) can have its first EVENT decoded in that window; the library
// then finds no socket, logs "invalid state" and closes the connection.
// Measured here: about one connect in thirty under -race.
//
// The gate closes that window without touching the library: a parser
// wrapper holds a connection's packets for /smcp from the CONNECT until the
// server's connection handler has run (the library records the socket
// before it fires "connection"), then releases them in order. The decoder
// tags the CONNECT's auth with a one-time token so the middleware and the
// connection handler can find the gate of their connection.

// gateAuthKey is the auth field carrying the token; the middleware removes
// it before anything else reads auth.
const gateAuthKey = "\x00smcp-gate"

// gates finds a connection's decoder by token.
type gates struct {
	mu sync.Mutex
	m  map[string]*gatedDecoder
}

func newGates() *gates { return &gates{m: map[string]*gatedDecoder{}} }

func (g *gates) add(d *gatedDecoder) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	tok := hex.EncodeToString(b[:])
	g.mu.Lock()
	defer g.mu.Unlock()
	g.m[tok] = d
	return tok
}

// take removes and returns the decoder for tok.
func (g *gates) take(tok string) *gatedDecoder {
	g.mu.Lock()
	defer g.mu.Unlock()
	d := g.m[tok]
	delete(g.m, tok)
	return d
}

func (g *gates) forget(d *gatedDecoder) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for tok, v := range g.m {
		if v == d {
			delete(g.m, tok)
		}
	}
}

// Acks on /smcp are relayed, never read: the server routes a computer's ack
// to the agent that asked, and nothing in between looks inside it. The
// library's parser would decode each ack into maps of []any / float64 and
// its encoder would marshal them again for the agent, which is most of the
// server's work on a listing (a 30 KB page is decoded and re-encoded once
// per page). So the gated decoder reads a text ACK for /smcp itself: it
// splits the argument array into one json.RawMessage per argument (checked
// to be valid JSON, never decoded), and the encoder (rawack.Encoder) writes
// arguments that are all raw back as they came. Everything else goes through the library's
// parser unchanged. The websocket read limit (MaxMessageBytes) still bounds
// the whole message before any of it is read, and rawack.MaxArgs
// bounds how many arguments one ack may carry. The reading itself is
// rawack.Read, the same reader the agent uses.
//
// gateParser is the server's parser: gated decoders, and both sides relay
// acks on /smcp as raw JSON.
type gateParser struct {
	base  parser.Parser
	gates *gates
}

func (p gateParser) NewEncoder() parser.Encoder { return rawack.Encoder{Base: p.base.NewEncoder()} }

func (p gateParser) NewDecoder() parser.Decoder {
	d := &gatedDecoder{EventEmitter: types.NewEventEmitter(), inner: p.base.NewDecoder(), gates: p.gates}
	_ = d.inner.On("decoded", d.onDecoded)
	return d
}

// gatedDecoder forwards the inner decoder's packets, holding those for a
// namespace whose CONNECT is still in flight.
type gatedDecoder struct {
	types.EventEmitter
	inner parser.Decoder
	gates *gates

	// fwd serialises every forward, in arrival order, and is held across
	// the emit. mu guards held/holding and is the only lock Destroy takes:
	// the library may destroy the decoder from inside an emit (a packet for
	// a namespace the peer never connected closes the connection), on this
	// same goroutine, so Destroy must not wait for fwd.
	fwd     sync.Mutex
	mu      sync.Mutex
	held    map[string][]*parser.Packet
	holding map[string]bool
}

func (d *gatedDecoder) Add(data any) error {
	pkt, ok, err := rawack.Read(data, protocol.Namespace)
	if err != nil {
		return err
	}
	if !ok {
		return d.inner.Add(data)
	}
	d.onDecoded(pkt)
	return nil
}

func (d *gatedDecoder) Destroy() {
	d.inner.Destroy()
	d.gates.forget(d)
	d.mu.Lock()
	d.held, d.holding = nil, nil
	d.mu.Unlock()
}

func (d *gatedDecoder) onDecoded(args ...any) {
	pkt, ok := first(args).(*parser.Packet)
	if !ok || pkt == nil {
		d.Emit("decoded", args...)
		return
	}
	d.fwd.Lock()
	defer d.fwd.Unlock()
	d.mu.Lock()
	if pkt.Type == parser.CONNECT && pkt.Nsp == protocol.Namespace {
		auth, _ := pkt.Data.(map[string]any)
		if auth == nil {
			auth = map[string]any{}
		}
		auth[gateAuthKey] = d.gates.add(d)
		pkt.Data = auth
		if d.holding == nil {
			d.holding = map[string]bool{}
		}
		d.holding[pkt.Nsp] = true
		d.mu.Unlock()
		// Emitting runs the namespace middleware synchronously; it must not
		// call release on this goroutine (see Server.authenticate).
		d.Emit("decoded", pkt)
		return
	}
	if d.holding[pkt.Nsp] {
		if d.held == nil {
			d.held = map[string][]*parser.Packet{}
		}
		d.held[pkt.Nsp] = append(d.held[pkt.Nsp], pkt)
		d.mu.Unlock()
		return
	}
	d.mu.Unlock()
	d.Emit("decoded", pkt)
}

// release forwards the packets held for nsp and stops holding.
func (d *gatedDecoder) release(nsp string) {
	d.fwd.Lock()
	defer d.fwd.Unlock()
	d.mu.Lock()
	if !d.holding[nsp] {
		d.mu.Unlock()
		return
	}
	held := d.held[nsp]
	delete(d.held, nsp)
	delete(d.holding, nsp)
	d.mu.Unlock()
	for _, pkt := range held {
		d.Emit("decoded", pkt)
	}
}

// takeGate removes the token from auth and returns its decoder (nil when the
// CONNECT did not pass through a gate).
func (g *gates) takeGate(auth map[string]any) *gatedDecoder {
	tok, _ := auth[gateAuthKey].(string)
	delete(auth, gateAuthKey)
	if tok == "" {
		return nil
	}
	return g.take(tok)
}
