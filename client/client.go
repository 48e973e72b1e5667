package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	engine "github.com/zishang520/socket.io/clients/engine/v3"
	sio "github.com/zishang520/socket.io/clients/socket/v3"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Client is a connected agent. It is safe for concurrent use.
type Client struct {
	opt    Options
	log    *slog.Logger
	events *eventQueue
	// call sends one request and waits for its ack. Dial sets it to
	// emitCall; unit tests replace it with a fake.
	call func(ctx context.Context, r request) ([]any, error)

	mgr    *sio.Manager
	sock   *sio.Socket
	emitMu sync.Mutex // the library keeps per-emit flags in shared state

	mu         sync.Mutex
	state      StateEvent
	joined     bool // joined the office on the current connection
	everJoined bool // Dial has returned successfully
	left       bool // Leave was called: do not re-join on reconnect
	offline    bool // gave up for good
	probing    bool
	lastErr    error
	inflight   map[uint64]chan struct{} // closed when the connection drops

	openSeq     atomic.Uint64 // manager "open" events seen
	openWatched atomic.Bool   // a watchOpen for a reconnect is running
	recovering  bool          // guarded by mu: recoverStaleTimer is running
	attempts    atomic.Uint64 // reconnect attempts started (see abandonAttempt)
	// tooLarge counts messages refused by the ack size limit; lastTooLarge
	// is the size the last one announced. Calls that lose the connection
	// after the count moved report *AckTooLargeError.
	tooLarge     atomic.Uint64
	lastTooLarge atomic.Int64

	reqPrefix string
	reqSeq    atomic.Uint64

	first     chan error // Dial's outcome
	ctx       context.Context
	cancel    context.CancelFunc
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// request is one call to the server.
type request struct {
	Event    string
	Computer string // for messages; empty for server:* events
	Payload  any
	Timeout  time.Duration
	// Join is true for server:join_office, which runs before the client is
	// joined and must not wait for it.
	Join bool
}

func newClient(opt Options) *Client {
	ctx, cancel := context.WithCancel(context.Background())
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &Client{
		opt:       opt,
		log:       opt.Logger,
		events:    newEventQueue(eventQueueSize),
		inflight:  map[uint64]chan struct{}{},
		reqPrefix: hex.EncodeToString(b[:]),
		first:     make(chan error, 1),
		ctx:       ctx,
		cancel:    cancel,
	}
}

// Dial connects to the server and joins opt.Office as agent opt.Name. It
// returns after the first successful join, or an error:
//   - *protocol.Error with code 4008 when the server speaks another protocol
//     version (both versions and the supported range are in it); Dial does
//     not retry (versioning.md §4);
//   - *protocol.Error / *HandshakeError for other HTTP-layer refusals;
//   - *JoinError when the office refuses the agent;
//   - a timeout error after opt.ConnectTimeout.
//
// After Dial, the client reconnects with backoff on its own and re-joins the
// office on every connect; Events() reports each state change.
func Dial(ctx context.Context, opt Options) (*Client, error) {
	opt, err := opt.normalized()
	if err != nil {
		return nil, err
	}
	where := redactURL(opt.baseURL())
	dctx, cancel := context.WithTimeout(ctx, opt.ConnectTimeout)
	defer cancel()
	// Read the HTTP-layer verdict first (4008, 400, 401, unreachable): the
	// library would hide it behind its connect timeout (see probeHandshake).
	if err := probeHandshake(dctx, opt); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("connect to %s: %w", where, err)
	}
	c := newClient(opt)
	c.call = c.emitCall
	c.setState(StateEvent{State: Connecting})

	c.mgr = sio.NewManager(opt.baseURL().String(), c.managerOptions())
	c.sock = c.mgr.Socket(protocol.Namespace, c.managerOptions())
	// Listeners first, connect second. The engine is opened before the
	// namespace socket connects: Socket.Connect both listens for "open" and
	// checks "already open", so an engine that opens in between makes it
	// send CONNECT twice, which python-socketio answers with CONNECT_ERROR.
	c.listen()
	opened := make(chan error, 1)
	before := c.openSeq.Load()
	c.mgr.Open(func(err error) {
		select {
		case opened <- err:
		default:
		}
	})
	c.wg.Add(1)
	go c.watchOpen(dctx, before)
	select {
	case err := <-opened:
		if err != nil {
			c.shutdown("dial failed")
			return nil, fmt.Errorf("connect to %s: %w", where, classifyConnectError(dctx, opt, err))
		}
	case <-dctx.Done():
		c.shutdown("dial failed")
		if ctx.Err() != nil {
			return nil, fmt.Errorf("connect to %s: %w", where, ctx.Err())
		}
		return nil, fmt.Errorf("connect to %s: no connection within %s", where, opt.ConnectTimeout)
	}
	c.sock.Connect()

	select {
	case err := <-c.first:
		if err == nil {
			return c, nil
		}
		c.shutdown("dial failed")
		return nil, fmt.Errorf("connect to %s: %w", where, err)
	case <-dctx.Done():
		if ctx.Err() != nil {
			c.shutdown("dial cancelled")
			return nil, fmt.Errorf("connect to %s: %w", where, ctx.Err())
		}
		c.mu.Lock()
		last := c.lastErr
		c.mu.Unlock()
		c.shutdown("dial timed out")
		hint := ""
		if opt.Transport == TransportPolling {
			hint = " (the polling transport of zishang520 v3.0.6 queues writes behind the long-poll; try websocket)"
		}
		if last != nil {
			return nil, fmt.Errorf("connect to %s: no connection within %s%s: %w", where, opt.ConnectTimeout, hint, last)
		}
		return nil, fmt.Errorf("connect to %s: no connection within %s%s", where, opt.ConnectTimeout, hint)
	}
}

// managerOptions apply the known traps of the zishang520 client (see the
// team brief): one explicit transport, no permessage-deflate (aiohttp
// rejects it), autoConnect off, reconnection with backoff, our own timeout.
func (c *Client) managerOptions() *sio.Options {
	o := sio.DefaultOptions()
	if c.opt.Transport == TransportPolling {
		o.SetTransports(types.NewSet(sio.Polling))
	} else {
		o.SetTransports(types.NewSet[engine.TransportCtor](&limitedWebSocket{max: c.opt.MaxAckBytes, onTrip: func(n int64) {
			c.lastTooLarge.Store(n)
			c.tooLarge.Add(1)
			c.log.Warn("message over the ack size limit; dropping the connection", "limit", c.opt.MaxAckBytes, "announced", n)
		}}))
	}
	o.SetUpgrade(false)
	o.SetPerMessageDeflate(nil)
	o.SetAutoConnect(false)
	o.SetForceNew(true)
	o.SetMultiplex(false)
	o.SetReconnection(true)
	o.SetReconnectionDelay(500)
	o.SetReconnectionDelayMax(5000)
	o.SetRandomizationFactor(0.5)
	// The manager's own connect timer leaks when "open" races its arming
	// and later closes the live connection (staletimer.go); push it out of
	// reach and time attempts out ourselves (abandonAttempt).
	o.SetTimeout(managerTimeout)
	o.SetRequestTimeout(c.opt.ConnectTimeout)
	o.SetPath(c.opt.Path)
	o.SetExtraHeaders(c.opt.headers())
	q := map[string][]string{protocol.QueryVersion: {protocol.Version}}
	o.SetQuery(q)
	o.SetAuth(map[string]any{"role": protocol.RoleAgent})
	if cfg := tlsConfig(c.opt); cfg != nil {
		o.SetTLSClientConfig(cfg)
	}
	return o
}

// listen registers every handler. Handlers run on the library's goroutines:
// they never block; anything that waits runs in a goroutine of ours.
func (c *Client) listen() {
	_ = c.sock.On("connect", func(...any) { c.onConnect() })
	_ = c.sock.On("connect_error", func(args ...any) { c.onConnectError(argError(args)) })
	_ = c.sock.On("disconnect", func(args ...any) {
		reason, _ := argAt[string](args, 0)
		desc, _ := argAt[error](args, 1)
		c.onDisconnect(reason, desc)
	})
	_ = c.mgr.On("open", func(...any) {
		c.openSeq.Add(1)
		c.watchClosePacket(c.mgr.Engine())
	})
	_ = c.mgr.On("reconnect_attempt", func(args ...any) { c.onReconnectAttempt(argInt(args)) })
	_ = c.mgr.On("error", func(args ...any) { c.onManagerError(argError(args)) })
	for _, name := range notifyNames {
		_ = c.sock.On(types.EventName(name), func(args ...any) {
			c.events.push(decodeNotify(name, args))
		})
	}
}

func (c *Client) onConnect() {
	c.mu.Lock()
	skip := c.offline || c.left || c.ctx.Err() != nil
	c.mu.Unlock()
	if skip {
		return
	}
	c.wg.Add(1)
	go c.join()
}

// join runs server:join_office on every connect (re-join after reconnect).
func (c *Client) join() {
	defer c.wg.Done()
	ctx, cancel := context.WithTimeout(c.ctx, c.opt.ConnectTimeout)
	defer cancel()
	err := c.joinOnce(ctx)
	c.mu.Lock()
	first := !c.everJoined
	switch {
	case err == nil:
		c.joined, c.everJoined, c.lastErr = true, true, nil
		c.setStateLocked(StateEvent{State: Connected})
	case errors.Is(err, ErrConnectionLost) || c.ctx.Err() != nil:
		// The connection dropped during the join: the next connect retries.
		c.lastErr = err
	}
	c.mu.Unlock()
	switch {
	case err == nil:
		if first {
			c.signalFirst(nil)
		}
	case errors.Is(err, ErrConnectionLost) || c.ctx.Err() != nil:
	case first:
		c.signalFirst(err)
	default:
		// Someone else took the office while we were away, or the server
		// stopped answering joins: reconnecting again cannot help.
		c.goOffline(err, "re-join refused: "+err.Error())
	}
}

func (c *Client) joinOnce(ctx context.Context) error {
	args, err := c.call(ctx, request{
		Event:   protocol.EventJoinOffice,
		Payload: protocol.EnterOfficeReq{Role: protocol.RoleAgent, Name: c.opt.Name, OfficeID: c.opt.Office},
		Timeout: c.opt.ConnectTimeout,
		Join:    true,
	})
	if err != nil {
		return err
	}
	return decodeJoinAck(c.opt.Office, args)
}

func (c *Client) signalFirst(err error) {
	select {
	case c.first <- err:
	default:
	}
}

func (c *Client) onConnectError(err error) {
	if err == nil {
		err = errors.New("connect failed")
	}
	c.mu.Lock()
	if c.offline || c.ctx.Err() != nil {
		c.mu.Unlock()
		return
	}
	c.lastErr = err
	dialing := !c.everJoined
	startProbe := !c.probing
	c.probing = true
	c.mu.Unlock()
	if dialing {
		// Dial reports the first failure instead of looping: stop the
		// library's reconnect timer before it fires.
		c.mgr.SetReconnection(false)
	}
	if !startProbe {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		cause := classifyConnectError(c.ctx, c.opt, err)
		c.mu.Lock()
		c.probing = false
		c.lastErr = cause
		c.mu.Unlock()
		switch {
		case dialing:
			c.signalFirst(cause)
		case fatalConnectError(cause):
			c.goOffline(cause, cause.Error())
		}
	}()
}

// classifyConnectError turns a connect failure into the most useful error:
// an A2C refusal read from the HTTP layer, else the library's error.
func classifyConnectError(ctx context.Context, opt Options, err error) error {
	var xerr *types.ExtendedError
	if errors.As(err, &xerr) {
		// A CONNECT_ERROR packet from a namespace middleware; its data may
		// itself be an ErrorPayload.
		if perr, ok := protocol.DecodeError(xerr.Data); ok {
			return perr
		}
		return fmt.Errorf("the server refused the connection: %s", oneLine(xerr.Message))
	}
	perr := probeHandshake(ctx, opt)
	if perr == nil {
		return err
	}
	if fatalConnectError(perr) {
		return perr
	}
	return fmt.Errorf("%w (%v)", perr, err)
}

func (c *Client) onDisconnect(reason string, desc error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.joined = false
	c.failInflightLocked()
	if c.offline || c.ctx.Err() != nil {
		return
	}
	if desc != nil {
		c.lastErr = desc
	} else if reason != "" {
		c.lastErr = errors.New(reason)
	}
	if reason == "io server disconnect" {
		// The server ended the session at the namespace level; the
		// library does not reconnect after that, and neither do we.
		c.offline = true
		c.setStateLocked(StateEvent{State: Offline, Err: c.lastErr, Reason: "the server closed the session"})
		if !c.everJoined {
			c.signalFirst(errors.New("the server closed the session"))
		}
		return
	}
	if c.everJoined {
		c.setStateLocked(StateEvent{State: Reconnecting, Err: c.lastErr, Reason: oneLine(reason)})
	}
}

func (c *Client) onReconnectAttempt(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.offline || c.ctx.Err() != nil || !c.everJoined {
		return
	}
	attempt := c.attempts.Add(1)
	if c.openWatched.CompareAndSwap(false, true) {
		c.wg.Add(1)
		before := c.openSeq.Load()
		go func() {
			defer c.openWatched.Store(false)
			ctx, cancel := context.WithTimeout(c.ctx, c.opt.ConnectTimeout)
			defer cancel()
			c.watchAttempt(ctx, before, attempt)
		}()
	}
	ev := StateEvent{State: Reconnecting, Attempt: n, Err: c.lastErr}
	if c.lastErr != nil {
		ev.Reason = oneLine(c.lastErr.Error())
	}
	c.setStateLocked(ev)
}

// goOffline gives up: no more reconnects; calls fail with ErrConnectionLost.
func (c *Client) goOffline(err error, reason string) {
	c.mu.Lock()
	if c.offline || c.ctx.Err() != nil {
		c.mu.Unlock()
		return
	}
	c.offline = true
	c.joined = false
	c.failInflightLocked()
	c.setStateLocked(StateEvent{State: Offline, Err: err, Reason: oneLine(reason)})
	c.mu.Unlock()
	c.mgr.SetReconnection(false)
	c.emitMu.Lock()
	c.sock.Disconnect()
	c.emitMu.Unlock()
}

func (c *Client) failInflightLocked() {
	for id, lost := range c.inflight {
		close(lost)
		delete(c.inflight, id)
	}
}

func (c *Client) setState(ev StateEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setStateLocked(ev)
}

func (c *Client) setStateLocked(ev StateEvent) {
	c.state = ev
	c.log.Debug("smcp connection", "state", ev.State.String(), "attempt", ev.Attempt, "reason", ev.Reason)
	c.events.push(ev)
}

// shutdown stops everything once: reconnects, the socket, our goroutines,
// and finally the events channel.
func (c *Client) shutdown(reason string) {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.cancel()
		c.joined = false
		c.failInflightLocked()
		c.mu.Unlock()
		if c.mgr != nil {
			c.mgr.SetReconnection(false)
		}
		if c.sock != nil {
			c.emitMu.Lock()
			c.sock.Disconnect()
			c.emitMu.Unlock()
		}
		c.wg.Wait()
		c.mu.Lock()
		c.offline = true
		c.setStateLocked(StateEvent{State: Offline, Reason: reason})
		c.mu.Unlock()
		c.events.close()
	})
}

// Close disconnects and releases everything. Calls in flight fail with
// ErrConnectionLost; Events() is closed after the final Offline event.
func (c *Client) Close() error {
	c.shutdown("closed")
	return nil
}

// Events delivers state changes and notifications. The channel is buffered
// and never blocks the client: when the reader falls behind, the oldest
// events are dropped (see Dropped). It is closed by Close.
func (c *Client) Events() <-chan Event { return c.events.ch }

// Dropped counts events dropped because the reader of Events fell behind.
func (c *Client) Dropped() int64 { return c.events.dropped.Load() }

// State is the current connection state.
func (c *Client) State() StateEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Office is the office this client joined.
func (c *Client) Office() string { return c.opt.Office }

// Name is the agent name.
func (c *Client) Name() string { return c.opt.Name }

// URL is the server URL, without credentials.
func (c *Client) URL() string { return redactURL(c.opt.baseURL()) }

// MaxAckBytes is the ack size limit in force.
func (c *Client) MaxAckBytes() int64 { return c.opt.MaxAckBytes }

func argAt[T any](args []any, i int) (T, bool) {
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
	if len(args) == 0 {
		return 0
	}
	switch n := args[0].(type) {
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
