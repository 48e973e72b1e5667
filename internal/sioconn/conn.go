package sioconn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zishang520/socket.io/clients/engine/v3"
	sio "github.com/zishang520/socket.io/clients/socket/v3"
	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/dpe-tui/dpe-tui/internal/rawack"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// ErrConnectionLost is wrapped by an ack wait that the connection dropped
// under, or that started while it was down.
var ErrConnectionLost = errors.New("connection lost")

// ErrClosed is wrapped by calls on a closed Conn.
var ErrClosed = errors.New("connection closed")

// ErrAckTimeout is wrapped by an ack wait whose own timeout expired.
var ErrAckTimeout = errors.New("no answer")

// Conn is one Socket.IO client connection to a namespace, with the traps of
// the zishang520 v3 client handled (see doc.go). Make it with New, register
// listeners with On / OnAny, then Connect. It is safe for concurrent use.
type Conn struct {
	opt     Options
	targets []target     // URL, then URLs
	cur     atomic.Int32 // index of the current target
	http    *http.Client
	mgr     *sio.Manager
	sock    *sio.Socket

	// emitMu serialises emits and (dis)connects: the library keeps
	// per-emit flags in state shared by the socket.
	emitMu sync.Mutex

	first chan error // Connect's outcome; buffered 1

	mu         sync.Mutex
	started    bool
	connectRun bool   // an OnConnect is running
	everUp     bool   // Connect succeeded
	recovering bool   // a reopen is running
	ep         *epoch // the current connection

	opens       atomic.Uint64 // manager "open" events
	disconnects atomic.Uint64 // socket "disconnect" events
	attempts    atomic.Uint64 // reconnect attempts started
	announced   atomic.Uint64 // missed opens re-announced (should stay 0)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New checks opt and builds the connection. It does no I/O.
func New(opt Options) (*Conn, error) {
	opt, targets, err := opt.normalized()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{opt: opt, targets: targets, http: newHTTPClient(opt), first: make(chan error, 1),
		ep: newEpoch(), ctx: ctx, cancel: cancel}
	close(c.ep.lost) // not connected yet
	// The manager's URL is fixed; with failover each transport is pointed
	// at the current target instead (gatedCtor.New).
	c.mgr = sio.NewManager(targets[0].base.String(), c.managerOptions())
	c.sock = c.mgr.Socket(opt.Namespace, c.managerOptions())
	c.listen()
	return c, nil
}

// managerOptions apply the known traps: one explicit transport (gated, see
// transport.go), no permessage-deflate (aiohttp rejects it), no upgrade,
// autoConnect off, reconnection with backoff and jitter, and the manager's
// own connect timer out of reach (it leaks, see onManagerError): attempts
// are timed out by superviseAttempt instead.
func (c *Conn) managerOptions() *sio.Options {
	o := sio.DefaultOptions()
	o.SetTransports(types.NewSet[engine.TransportCtor](&gatedCtor{inner: sio.WebSocket, c: c}))
	o.SetUpgrade(false)
	o.SetRememberUpgrade(false)
	o.SetPerMessageDeflate(nil)
	o.SetAutoConnect(false)
	o.SetForceNew(true)
	o.SetMultiplex(false)
	o.SetReconnection(true)
	o.SetReconnectionDelay(500)     // ms
	o.SetReconnectionDelayMax(5000) // ms
	o.SetRandomizationFactor(0.5)
	o.SetTimeout(managerTimeout)
	o.SetRequestTimeout(c.opt.ConnectTimeout)
	o.SetPath(c.opt.Path)
	o.SetQuery(c.opt.query())
	if len(c.opt.Headers) > 0 {
		o.SetExtraHeaders(c.opt.Headers.Clone())
	}
	if c.opt.Auth != nil {
		o.SetAuth(c.opt.Auth)
	}
	if c.opt.TLS != nil {
		o.SetTLSClientConfig(c.opt.TLS)
	}
	p := c.opt.Parser
	if p == nil {
		p = parser.NewParser()
	}
	o.SetParser(rawEncoding{p})
	return o
}

// rawEncoding is a parser whose encoder writes an ack answered with raw
// JSON (a computer's resource page) as it is, instead of marshalling and
// compacting it again (rawack.Encoder); everything else is the parser's.
type rawEncoding struct{ parser.Parser }

func (p rawEncoding) NewEncoder() parser.Encoder { return rawack.Encoder{Base: p.Parser.NewEncoder()} }

// connectFailures is how many failed engine attempts end Connect.
const connectFailures = 3

// managerTimeout is the manager's own connect timeout: far beyond any
// session, so its leaked timer never fires in practice.
const managerTimeout = 30 * 24 * time.Hour

// On registers a listener for a server event. Register before Connect.
// Listeners run on the library's goroutine and must not block; the last
// argument is the ack function (func([]any, error)) when the server wants
// one.
func (c *Conn) On(event string, fn func(args ...any)) {
	_ = c.sock.On(types.EventName(event), fn)
}

// OnAny registers a listener for every server event: args[0] is its name.
func (c *Conn) OnAny(fn func(args ...any)) { c.sock.OnAny(fn) }

// URL is the current server's base URL, without credentials.
func (c *Conn) URL() string { return Redact(c.target().base) }

// target is the server in use (or being tried) now.
func (c *Conn) target() target { return c.targets[int(c.cur.Load())%len(c.targets)] }

// failover moves to the next server of URLs after a failed attempt on the
// current one; false when there is only one.
func (c *Conn) failover(why string) bool {
	if len(c.targets) < 2 {
		return false
	}
	from := c.URL()
	n := c.cur.Add(1)
	if int(n) >= len(c.targets) {
		c.cur.CompareAndSwap(n, n%int32(len(c.targets)))
	}
	c.opt.Logger.Warn("smcp: trying the next server", "from", from, "to", c.URL(), "why", why)
	return true
}

// Connected reports whether the namespace is connected now.
func (c *Conn) Connected() bool { return c.sock.Connected() }

// ID is the namespace session id, "" when not connected.
func (c *Conn) ID() string { return c.sock.Id() }

// Connect probes the handshake, opens the engine, connects the namespace
// once and waits for the first OnConnect, all within ConnectTimeout (and
// ctx). It returns, unretried: a *protocol.Error for an HTTP-layer A2C
// refusal (4008 with both versions, 400, 401, 403) or a CONNECT_ERROR
// carrying one; a *HandshakeError for another HTTP refusal; the network
// error when nothing answers; OnConnect's error; or "no answer within".
// After Connect the Conn reconnects with backoff on its own and runs
// OnConnect on every connect. On error, call Close.
func (c *Conn) Connect(ctx context.Context) error {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return errors.New("sioconn: Connect called twice")
	}
	c.started = true
	c.mu.Unlock()
	timeout := c.opt.ConnectTimeout
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	fail := func(err error) error {
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case c.ctx.Err() != nil:
			return ErrClosed
		case errors.Is(err, context.DeadlineExceeded):
			return fmt.Errorf("no answer within %s", timeout)
		}
		return err
	}
	if err := c.probeAny(dctx); err != nil {
		return fail(err)
	}
	if err := c.openEngine(dctx, connectFailures); err != nil {
		return fail(err)
	}
	c.emitMu.Lock()
	c.sock.Connect()
	c.emitMu.Unlock()
	// The CONNECT used to be lost now and then: not by the server (see
	// doc.go, "early CONNECT") but in the client library's write buffer,
	// fixed in gatedTransport.DoOpen. Should one still go unanswered,
	// sending it again on the same engine is the double-CONNECT trap, so
	// it is retried on a fresh engine (reopen), with a WARN.
	unanswered := time.NewTimer(attemptTimeout(timeout))
	defer unanswered.Stop()
	for {
		select {
		case err := <-c.first:
			if err != nil {
				return err
			}
			c.mu.Lock()
			c.everUp = true
			c.mu.Unlock()
			return nil
		case <-unanswered.C:
			c.spawn(func() {
				c.emitMu.Lock()
				up := c.sock.Connected()
				c.emitMu.Unlock()
				if up {
					return
				}
				c.opt.Logger.Warn("smcp: namespace CONNECT unanswered; reconnecting on a new engine", "url", c.URL())
				c.reopen()
			})
			unanswered.Reset(attemptTimeout(timeout))
		case <-dctx.Done():
			return fail(dctx.Err())
		}
	}
}

// probeAny probes the current server and, with failover, each next one
// that does not answer, once round. A refusal is an answer: it is
// returned at once (the servers of one office share their rules). Else the
// first server's error is returned.
func (c *Conn) probeAny(ctx context.Context) error {
	var first error
	for range c.targets {
		err := c.probe(ctx)
		if err == nil || Fatal(err) || ctx.Err() != nil {
			return err
		}
		if first == nil {
			first = err
		}
		if !c.failover(oneLine(err.Error())) {
			break
		}
	}
	return first
}

// openEngine opens the manager's engine, retrying failed or timed-out
// attempts until ctx ends. It never touches the namespace socket, so the
// later sock.Connect finds the engine open and sends CONNECT exactly once
// (Socket.Connect both listens for "open" and checks "already open": an
// engine opening in between made it send CONNECT twice, which
// python-socketio answers with CONNECT_ERROR).
//
// After maxFail failed (not timed-out) attempts it gives up (0: never):
// the probe has shown the server answers HTTP there, so a websocket that
// keeps failing at once (a proxy without websockets) will not heal within
// Connect, and saying so beats waiting for the timeout.
func (c *Conn) openEngine(ctx context.Context, maxFail int) error {
	var lastErr error
	failed := 0
	for {
		result := make(chan error, 1)
		before, attempt := c.opens.Load(), c.attempts.Load()
		c.mgr.Open(func(err error) {
			select {
			case result <- err:
			default:
			}
		})
		actx, stop := context.WithCancel(ctx)
		c.spawn(func() { c.superviseAttempt(actx, before, attempt) })
		select {
		case err := <-result:
			stop()
			if err == nil {
				return nil
			}
			lastErr = err
			// An attempt superviseAttempt timed out reports "timeout":
			// slow, not refused; it does not count.
			if !strings.Contains(err.Error(), "timeout") {
				failed++
			}
			if maxFail > 0 && failed >= maxFail {
				return fmt.Errorf("the websocket connection failed %d times: %w", failed, err)
			}
			c.opt.Logger.Debug("smcp: connect attempt failed; retrying", "url", c.URL(), "err", err)
			c.failover(oneLine(err.Error()))
			select {
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
			}
		case <-ctx.Done():
			stop()
		}
		if ctx.Err() != nil {
			if lastErr != nil {
				return fmt.Errorf("%w (last attempt: %v)", ctx.Err(), lastErr)
			}
			return ctx.Err()
		}
	}
}

// superviseAttempt stands in for the manager's connect timer: after
// attemptTimeout, if the manager has not opened since before and no newer
// reconnect attempt has started (it has its own supervisor and owns the
// engine now), fail the attempt the way the manager's timer would: report
// "timeout" on the engine, whose pending error handler moves the manager
// on, and close it. An engine found open was a missed "open"; the gated
// transport removed that cause, so it is re-announced and counted, as a
// guard only.
func (c *Conn) superviseAttempt(ctx context.Context, before, attempt uint64) {
	t := time.NewTimer(attemptTimeout(c.opt.ConnectTimeout))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-c.ctx.Done():
		return
	case <-t.C:
	}
	if c.opens.Load() != before || c.attempts.Load() != attempt {
		return
	}
	e := c.mgr.Engine()
	if e == nil {
		return
	}
	if e.ReadyState() == engine.SocketStateOpen {
		c.announced.Add(1)
		c.opt.Logger.Warn("smcp: engine open but the manager missed it; re-announcing", "url", c.URL())
		e.Emit("open")
		return
	}
	c.opt.Logger.Debug("smcp: connect attempt timed out", "url", c.URL())
	e.Emit("error", errors.New("timeout"))
	e.Close()
}

func (c *Conn) listen() {
	log := c.opt.Logger
	_ = c.sock.On("connect", func(...any) {
		c.mu.Lock()
		c.ep = newEpoch()
		c.mu.Unlock()
		log.Debug("smcp: connected", "url", c.URL(), "sid", c.sock.Id())
		c.goConnect()
	})
	_ = c.sock.On("connect_error", func(args ...any) {
		err := argError(args)
		if err == nil {
			err = errors.New("connect failed")
		}
		c.spawn(func() { c.onConnectError(err) })
	})
	_ = c.sock.On("disconnect", func(args ...any) {
		c.disconnects.Add(1)
		reason, _ := ArgAt[string](args, 0)
		desc, _ := ArgAt[error](args, 1)
		c.mu.Lock()
		ep := c.ep
		ep.drop()
		if ep.cause != nil {
			desc = ep.cause
		}
		c.mu.Unlock()
		if c.ctx.Err() != nil {
			return
		}
		log.Debug("smcp: disconnected", "url", c.URL(), "reason", reason)
		if c.opt.OnDisconnect != nil {
			c.opt.OnDisconnect(reason, desc)
		}
		if reason == "io server disconnect" && c.opt.ReconnectOnServerDisconnect {
			c.spawn(func() {
				select {
				case <-time.After(time.Second):
				case <-c.ctx.Done():
					return
				}
				c.reopen()
			})
		}
	})
	_ = c.mgr.On("open", func(...any) { c.opens.Add(1) })
	_ = c.mgr.On("error", func(args ...any) { c.onManagerError(argError(args)) })
	// A failed reconnect attempt (refused, or timed out by
	// superviseAttempt) moves to the next server before the next attempt,
	// which the manager schedules with its backoff.
	_ = c.mgr.On("reconnect_error", func(args ...any) {
		if err := argError(args); err != nil && c.ctx.Err() == nil {
			c.failover(oneLine(err.Error()))
		}
	})
	_ = c.mgr.On("reconnect_attempt", func(args ...any) {
		n := c.attempts.Add(1)
		before := c.opens.Load()
		c.spawn(func() {
			ctx, cancel := context.WithTimeout(c.ctx, 2*attemptTimeout(c.opt.ConnectTimeout))
			defer cancel()
			c.superviseAttempt(ctx, before, n)
		})
		log.Debug("smcp: reconnecting", "url", c.URL(), "attempt", argInt(args))
		if c.opt.OnReconnectAttempt != nil {
			c.opt.OnReconnectAttempt(argInt(args))
		}
	})
}

// goConnect runs OnConnect for this connect unless one is running (a
// flapping connection re-joins once per settled connect).
func (c *Conn) goConnect() {
	c.mu.Lock()
	if c.connectRun || c.ctx.Err() != nil {
		c.mu.Unlock()
		return
	}
	c.connectRun = true
	c.mu.Unlock()
	c.spawn(func() {
		var err error
		if c.opt.OnConnect != nil {
			ctx, cancel := context.WithTimeout(c.ctx, c.opt.ConnectTimeout)
			err = c.opt.OnConnect(ctx)
			cancel()
		}
		c.mu.Lock()
		c.connectRun = false
		c.mu.Unlock()
		c.report(err)
	})
}

func (c *Conn) report(err error) {
	select {
	case c.first <- err:
	default:
	}
}

// onConnectError classifies a connect failure: a CONNECT_ERROR from a
// namespace middleware (its data may be an ErrorPayload), else what the
// HTTP layer says. During Connect it is Connect's result; later a fatal
// one stops reconnecting.
func (c *Conn) onConnectError(err error) {
	if c.ctx.Err() != nil {
		return
	}
	cause := c.classify(err)
	c.mu.Lock()
	up := c.everUp
	c.mu.Unlock()
	c.opt.Logger.Warn("smcp: connect_error", "url", c.URL(), "err", cause)
	if !up {
		c.report(cause)
		return
	}
	if Fatal(cause) {
		c.mgr.SetReconnection(false)
	}
	if c.opt.OnConnectError != nil {
		c.opt.OnConnectError(cause)
	}
}

func (c *Conn) classify(err error) error {
	var xerr *types.ExtendedError
	if errors.As(err, &xerr) {
		if perr, ok := protocol.DecodeError(xerr.Data); ok {
			return fmt.Errorf("the server refused the connection: %w", perr)
		}
		return fmt.Errorf("the server refused the connection: %s", oneLine(xerr.Message))
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.opt.ConnectTimeout)
	defer cancel()
	perr := c.probe(ctx)
	switch {
	case perr == nil:
		return err
	case Fatal(perr):
		return perr
	}
	return fmt.Errorf("%w (%v)", perr, err)
}

// onManagerError recovers from the library's stale Open error handler.
// Manager.Open subscribes its error handler to the engine, arms its connect
// timer, and only then records both for removal; the gated transport
// dials once the handler is subscribed, so an "open" can come in between,
// and the manager's cleanup on open then misses them. The handler
// outlives its attempt: the next engine error on the live connection (a
// message over MaxMessage, a dead peer) runs it, and it removes the
// manager's listeners before the engine closes, so the socket is never
// told ("disconnect") and nothing reconnects. Its timer is out of reach
// (managerTimeout); if it fires, it is the same handler with "timeout".
//
// Both show as a manager "error" while the socket believes it is
// connected. "timeout" rebuilds at once. Any other error also comes
// through the manager's own handler, and then the engine's close tells the
// socket on the same goroutine: so the connection is rebuilt only if no
// "disconnect" has come within an attempt timeout.
func (c *Conn) onManagerError(err error) {
	if err == nil || !c.sock.Connected() || c.ctx.Err() != nil {
		return
	}
	if err.Error() == "timeout" {
		c.opt.Logger.Warn("smcp: connection closed by a stale connect timer; reconnecting", "url", c.URL())
		c.spawn(c.reopen)
		return
	}
	seen := c.disconnects.Load()
	c.spawn(func() {
		t := time.NewTimer(attemptTimeout(c.opt.ConnectTimeout))
		defer t.Stop()
		select {
		case <-t.C:
		case <-c.ctx.Done():
			return
		}
		if c.disconnects.Load() != seen || !c.sock.Connected() {
			return
		}
		c.opt.Logger.Warn("smcp: the connection failed and the socket was not told; reconnecting", "url", c.URL(), "err", oneLine(err.Error()))
		c.reopen()
	})
}

// reopen rebuilds the connection by hand: disconnect the socket (failing
// pending acks, emitting "disconnect"), open the engine, connect once —
// which runs OnConnect (re-join).
func (c *Conn) reopen() {
	c.mu.Lock()
	if c.recovering || c.ctx.Err() != nil {
		c.mu.Unlock()
		return
	}
	c.recovering = true
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.recovering = false
		c.mu.Unlock()
	}()
	c.emitMu.Lock()
	c.sock.Disconnect()
	c.emitMu.Unlock()
	if err := c.openEngine(c.ctx, 0); err != nil {
		return // closed
	}
	c.emitMu.Lock()
	if c.ctx.Err() == nil {
		c.sock.Connect()
	}
	c.emitMu.Unlock()
}

// tooLarge records why the connection dropped.
// The connection under this epoch is closed already (limitConn closed
// it), so its waits end here with that cause rather than when the
// library's "disconnect" gets through its own goroutines.
func (c *Conn) tooLarge(err *MessageTooLargeError) {
	c.opt.Logger.Warn("smcp: inbound message over the size limit; closing the connection", "size", err.Size, "limit", err.Limit)
	c.mu.Lock()
	c.ep.cause = err
	c.ep.drop()
	c.mu.Unlock()
}

// Emit sends an event without waiting for an ack.
func (c *Conn) Emit(event string, args ...any) error {
	if c.ctx.Err() != nil {
		return fmt.Errorf("%s: %w", event, ErrClosed)
	}
	c.emitMu.Lock()
	defer c.emitMu.Unlock()
	return c.sock.Emit(event, args...)
}

// EmitWithAck sends event with payload and waits for its ack, until
// timeout (an error wrapping ErrAckTimeout), ctx, a dropped connection
// (ErrConnectionLost, and *MessageTooLargeError when that was why) or
// Close (ErrClosed), whichever comes first. Ack arguments are returned as
// the parser decodes them: with the library's, []any, numbers as float64;
// with RawAckParser, one json.RawMessage per argument.
//
// The library's own ack timeout is not used: it keeps a per-socket flag
// that concurrent emits race on. An ack that never comes stays registered
// in the library until the connection drops, which is all it costs.
func (c *Conn) EmitWithAck(ctx context.Context, timeout time.Duration, event string, payload any) ([]any, error) {
	if c.ctx.Err() != nil {
		return nil, ErrClosed
	}
	c.mu.Lock()
	ep := c.ep
	c.mu.Unlock()
	select {
	case <-ep.lost:
		return nil, c.lostErr(ep)
	default:
	}
	type result struct {
		args []any
		err  error
	}
	ch := make(chan result, 1)
	ack := func(args []any, err error) {
		select { // never block the library's goroutine
		case ch <- result{args, err}:
		default:
		}
	}
	c.emitMu.Lock()
	err := c.sock.Emit(event, payload, ack)
	c.emitMu.Unlock()
	if err != nil {
		return nil, err
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-ch:
		if r.err != nil {
			// The library fails pending acks when the connection drops.
			return nil, fmt.Errorf("%w (%s)", c.lostErr(ep), oneLine(r.err.Error()))
		}
		return r.args, nil
	case <-ep.lost:
		return nil, c.lostErr(ep)
	case <-timer.C:
		return nil, fmt.Errorf("%w within %s", ErrAckTimeout, timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.ctx.Done():
		return nil, ErrClosed
	}
}

// epoch is one namespace connection: lost is closed when it drops, cause
// says why when known (*MessageTooLargeError). A wait keeps the epoch it
// started in, so a reconnect cannot erase the cause it failed with.
type epoch struct {
	lost  chan struct{}
	cause error // guarded by Conn.mu
}

func newEpoch() *epoch { return &epoch{lost: make(chan struct{})} }

// drop ends the epoch's waits; a second drop does nothing. Conn.mu is held.
func (ep *epoch) drop() {
	select {
	case <-ep.lost:
	default:
		close(ep.lost)
	}
}

func (c *Conn) lostErr(ep *epoch) error {
	if c.ctx.Err() != nil {
		return ErrClosed
	}
	c.mu.Lock()
	cause := ep.cause
	c.mu.Unlock()
	if cause != nil {
		return fmt.Errorf("%w: %w", ErrConnectionLost, cause)
	}
	return ErrConnectionLost
}

// StopReconnecting turns the library's reconnects off (a caller that gave
// up, e.g. after a refused re-join).
func (c *Conn) StopReconnecting() { c.mgr.SetReconnection(false) }

// Close disconnects, stops reconnecting and waits for the Conn's
// goroutines. Pending ack waits fail with ErrClosed. Safe to call twice.
func (c *Conn) Close() {
	c.mu.Lock()
	c.cancel() // under mu: no spawn after this
	c.mu.Unlock()
	c.mgr.SetReconnection(false)
	c.emitMu.Lock()
	c.sock.Disconnect()
	c.emitMu.Unlock()
	c.wg.Wait()
	c.http.CloseIdleConnections()
}

// spawn runs fn in a goroutine Close waits for, unless closed.
func (c *Conn) spawn(fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx.Err() != nil {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		fn()
	}()
}

func firstArg(args []any) any {
	if len(args) == 0 {
		return nil
	}
	return args[0]
}

// ArgAt is args[i] as a T, for listener arguments.
func ArgAt[T any](args []any, i int) (T, bool) {
	var zero T
	if i >= len(args) {
		return zero, false
	}
	v, ok := args[i].(T)
	return v, ok
}

func argError(args []any) error {
	for _, a := range args {
		if err, ok := a.(error); ok && err != nil {
			return err
		}
	}
	if len(args) > 0 && args[0] != nil {
		return fmt.Errorf("%v", args[0])
	}
	return nil
}

func argInt(args []any) int {
	switch n := firstArg(args).(type) {
	case int:
		return n
	case uint64:
		return int(n)
	case int64:
		return int(n)
	case float64:
		return int(n)
	}
	return 0
}

// AckFunc returns the ack function a server event carries as its last
// argument, or nil.
func AckFunc(args []any) func([]any, error) {
	if n := len(args); n > 0 {
		if a, ok := args[n-1].(func([]any, error)); ok {
			return a
		}
	}
	return nil
}
