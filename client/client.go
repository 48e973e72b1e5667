package client

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/sioconn"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// Client is a connected agent. It is safe for concurrent use.
type Client struct {
	opt    Options
	log    *slog.Logger
	events *eventQueue
	// call sends one request and waits for its ack. Dial sets it to
	// emitCall; unit tests replace it with a fake.
	call func(ctx context.Context, r request) ([]any, error)
	// sc is the connection (transports, probe, reconnects, acks): shared
	// with the computer side in internal/sioconn. Nil in unit tests.
	sc *sioconn.Conn
	// version is the A2C-SMCP version spoken on sc; renegotiated is true
	// when the server's 4008 chose it.
	version      string
	renegotiated bool

	mu         sync.Mutex
	state      StateEvent
	joined     bool // joined the office on the current connection
	everJoined bool // the first join succeeded
	left       bool // Leave was called: do not re-join on reconnect
	offline    bool // gave up for good
	lastErr    error

	reqPrefix string
	reqSeq    atomic.Uint64

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
	v := opt.Version
	if v == "" {
		v = protocol.Version
	}
	return &Client{
		opt:       opt,
		log:       opt.Logger,
		events:    newEventQueue(eventQueueSize),
		version:   v,
		reqPrefix: hex.EncodeToString(b[:]),
		ctx:       ctx,
		cancel:    cancel,
	}
}

// Dial connects to the server and joins opt.Office as agent opt.Name. It
// returns after the first successful join, or an error:
//   - *protocol.Error with code 4008 when the server speaks a protocol
//     version this build does not (both versions and the supported range
//     are in it). When the 4008 names a version this build speaks and
//     opt.Version does not force one, Dial reconnects once with it (see
//     Version); it never retries otherwise (versioning.md §4);
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
	c, err := dialVersion(ctx, opt, opt.Version)
	var perr *protocol.Error
	if err == nil || opt.Version != "" || !errors.As(err, &perr) || perr.Code != protocol.CodeVersionMismatch {
		return c, err
	}
	v, ok := protocol.Negotiate(perr.ServerVersion)
	if !ok || v == protocol.Version {
		return nil, err
	}
	opt.Logger.Info("smcp: the server speaks another A2C-SMCP version; reconnecting with it",
		"server_version", perr.ServerVersion, "version", v)
	c, err = dialVersion(ctx, opt, v)
	if err != nil {
		return nil, err
	}
	c.renegotiated = true
	return c, nil
}

func dialVersion(ctx context.Context, o Options, version string) (*Client, error) {
	opt := o
	opt.Version = version
	c := newClient(opt)
	c.call = c.emitCall
	auth := map[string]any{}
	if protocol.RoleInAuth(c.version) {
		auth["role"] = protocol.RoleAgent
	}
	sc, err := sioconn.New(sioconn.Options{
		URL:            opt.URL,
		URLs:           opt.URLs,
		Path:           opt.Path,
		Version:        c.version,
		Headers:        opt.headers(),
		Auth:           auth,
		TLS:            tlsConfig(opt),
		ConnectTimeout: opt.ConnectTimeout,
		MaxMessage:     opt.MaxAckBytes,
		Logger:         opt.Logger,
		// Acks on /smcp arrive as raw JSON: decodeAck reads each answer
		// once, straight into its typed struct. Notifications (events) are
		// decoded by the library as before.
		Parser:             sioconn.RawAckParser(protocol.Namespace),
		OnConnect:          c.onConnect,
		OnDisconnect:       c.onDisconnect,
		OnReconnectAttempt: c.onReconnectAttempt,
		OnConnectError:     c.onConnectError,
	})
	if err != nil {
		c.shutdown("dial failed")
		return nil, fmt.Errorf("dial: %w", err)
	}
	c.sc = sc
	for _, name := range notifyNames {
		sc.On(name, func(args ...any) { c.events.push(decodeNotify(name, args)) })
	}
	c.setState(StateEvent{State: Connecting})
	if err := sc.Connect(ctx); err != nil {
		c.shutdown("dial failed")
		return nil, fmt.Errorf("connect to %s: %w", c.URL(), err)
	}
	return c, nil
}

func tlsConfig(opt Options) *tls.Config {
	if !opt.InsecureTLS {
		return nil
	}
	return &tls.Config{InsecureSkipVerify: true} //nolint:gosec // explicit --insecure flag for development
}

// onConnect is sioconn's OnConnect: server:join_office on every connect
// (re-join after a reconnect). Its first result is Dial's.
func (c *Client) onConnect(ctx context.Context) error {
	c.mu.Lock()
	skip := c.offline || c.left || c.ctx.Err() != nil
	c.mu.Unlock()
	if skip {
		return nil
	}
	err := c.joinOnce(ctx)
	c.mu.Lock()
	first := !c.everJoined
	lost := errors.Is(err, ErrConnectionLost) || c.ctx.Err() != nil
	switch {
	case err == nil:
		c.joined, c.everJoined, c.lastErr = true, true, nil
		c.setStateLocked(StateEvent{State: Connected})
	case lost:
		// The connection dropped during the join: the next connect retries.
		c.lastErr = err
	}
	c.mu.Unlock()
	if err != nil && !lost && !first {
		// Someone else took the office while we were away, or the server
		// stopped answering joins: reconnecting again cannot help.
		c.goOffline(err, "re-join refused: "+err.Error())
	}
	return err
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

// onConnectError is told connect failures after Dial; a fatal one (the
// server refuses us at the HTTP layer) ends the session.
func (c *Client) onConnectError(err error) {
	c.mu.Lock()
	live := !c.offline && c.ctx.Err() == nil
	if live {
		c.lastErr = err
	}
	c.mu.Unlock()
	if live && sioconn.Fatal(err) {
		c.goOffline(err, err.Error())
	}
}

func (c *Client) onDisconnect(reason string, desc error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.joined = false
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
	c.setStateLocked(StateEvent{State: Offline, Err: err, Reason: oneLine(reason)})
	c.mu.Unlock()
	if c.sc == nil {
		return
	}
	c.sc.StopReconnecting()
	// Close from a goroutine of ours: goOffline may run inside one of the
	// Conn's, which Close waits for.
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.sc.Close()
	}()
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

// shutdown stops everything once: the connection, our goroutines, and
// finally the events channel.
func (c *Client) shutdown(reason string) {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.cancel()
		c.joined = false
		c.mu.Unlock()
		if c.sc != nil {
			c.sc.Close()
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
// ErrClosed; Events() is closed after the final Offline event.
//
// A joined client leaves the office first (bounded to a second): a server
// frees the office's agent seat when it handles the leave, whereas a
// closed socket is noticed only later, and an agent started right after
// this one (the next command of a script) would be refused as a second
// agent in the office.
func (c *Client) Close() error {
	c.mu.Lock()
	joined := c.joined && !c.offline && !c.left
	c.mu.Unlock()
	if joined {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = c.Leave(ctx)
		cancel()
	}
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

// Version is the A2C-SMCP protocol version this client speaks with the
// server, e.g. "0.2.0" or "0.3.0".
func (c *Client) Version() string { return c.version }

// Renegotiated reports whether the server's 4008 chose Version: the first
// attempt with the default version was refused and Dial reconnected.
func (c *Client) Renegotiated() bool { return c.renegotiated }

// Office is the office this client joined.
func (c *Client) Office() string { return c.opt.Office }

// Name is the agent name.
func (c *Client) Name() string { return c.opt.Name }

// URL is the server URL, without credentials.
func (c *Client) URL() string {
	if c.sc != nil {
		return c.sc.URL()
	}
	return sanitize.URL(c.opt.URL)
}

// MaxAckBytes is the ack size limit in force.
func (c *Client) MaxAckBytes() int64 { return c.opt.MaxAckBytes }
