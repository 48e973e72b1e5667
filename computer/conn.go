package computer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zishang520/socket.io/clients/engine/v3"
	sio "github.com/zishang520/socket.io/clients/socket/v3"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// conn is the Socket.IO side of a Computer.
//
// Known traps of the zishang520 client (team brief §Known traps), handled
// here: transports are set explicitly to websocket (the default set
// includes WebTransport, tried at random); permessage-deflate is off
// (aiohttp servers reject it); autoConnect is off and the manager is opened
// before the namespace socket connects, so CONNECT is sent exactly once and
// "open" cannot be missed; listeners are registered before connecting; the
// manager reconnects with backoff and we re-join on every "connect"; our own
// timer bounds the first connect, since a websocket-only connect to a closed
// port only fails after the manager timeout.
type conn struct {
	c    *Computer
	url  string // for messages, without query
	mgr  *sio.Manager
	sock *sio.Socket

	firstJoin chan error // Start waits here; buffered 1

	mu         sync.Mutex
	joined     bool
	joining    bool
	recovering bool
	everJoined bool          // Start succeeded; later join failures are retried
	retry      time.Duration // next re-join backoff
	dirty      bool          // config changed while not joined
	closed     bool

	opens    atomic.Uint64 // manager "open" events, to tell a missed open
	attempts atomic.Uint64 // reconnect attempts started, so a supervisor
	// never acts on an attempt newer than its own
}

func newConn(c *Computer) (*conn, error) {
	u, err := url.Parse(c.opt.URL)
	if err != nil {
		return nil, fmt.Errorf("computer: bad URL %s: %w", quoteTrunc(c.opt.URL), err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return nil, fmt.Errorf("computer: bad URL %s: scheme must be http or https", quoteTrunc(c.opt.URL))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("computer: bad URL %s: missing host", quoteTrunc(c.opt.URL))
	}
	q := u.Query()
	q.Set(protocol.QueryVersion, protocol.Version)
	// The engine starts from HTTP(S) either way; ws/wss only say which.
	scheme := map[string]string{"ws": "http", "wss": "https"}[u.Scheme]
	if scheme == "" {
		scheme = u.Scheme
	}
	base := scheme + "://" + u.Host

	opts := sio.DefaultOptions()
	opts.SetTransports(types.NewSet(sio.WebSocket))
	opts.SetPerMessageDeflate(nil)
	opts.SetAutoConnect(false)
	opts.SetReconnection(true)
	opts.SetReconnectionDelay(500)     // ms
	opts.SetReconnectionDelayMax(5000) // ms
	opts.SetRandomizationFactor(0.5)
	// The manager's connect timer leaks when "open" races its arming and
	// later closes the live connection; push it out of reach and time
	// attempts out ourselves (superviseAttempt).
	opts.SetTimeout(managerTimeout)
	opts.SetUpgrade(false)
	opts.SetPath(c.opt.Path)
	opts.SetQuery(q)
	auth := map[string]any{"role": protocol.RoleComputer}
	if c.opt.APIKey != "" {
		auth["api_key"] = c.opt.APIKey
		opts.SetExtraHeaders(http.Header{"X-Api-Key": {c.opt.APIKey}})
	}
	opts.SetAuth(auth)

	cn := &conn{c: c, url: base, firstJoin: make(chan error, 1)}
	cn.mgr = sio.NewManager(base, opts)
	cn.sock = cn.mgr.Socket(protocol.Namespace, opts)
	cn.listen()
	return cn, nil
}

// start opens the transport, connects the namespace and waits for the
// first join, all within ConnectTimeout.
//
// The manager subscribes to the engine's "open" and "error" only after the
// engine socket has dialed, so on a fast loopback the handshake can complete
// unseen ("missed open") and the attempt then hangs until the manager's own
// timeout. Attempts are therefore short (attemptTimeout) and retried until
// the deadline; reconnects use the same short manager timeout and retry by
// themselves. A plain HTTP probe first turns "nothing listens there" and
// HTTP-layer refusals (4008) into an immediate, precise error.
func (cn *conn) start(ctx context.Context) error {
	c := cn.c
	timeout := c.opt.ConnectTimeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fail := func(what string, err error) error {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %s", timeout)
		}
		return fmt.Errorf("computer %s: %s %s: %w", c.opt.Name, what, cn.url, err)
	}
	if err := cn.probe(ctx); err != nil {
		return fail("connect to", err)
	}
	if err := cn.openEngine(ctx); err != nil {
		return fail("connect to", err)
	}
	cn.sock.Connect()
	select {
	case err := <-cn.firstJoin:
		return err
	case <-ctx.Done():
		return fail(fmt.Sprintf("join office %q on", c.opt.Office), ctx.Err())
	}
}

// openEngine opens the manager's engine connection, retrying attempts that
// fail or whose "open" was missed, until ctx ends.
func (cn *conn) openEngine(ctx context.Context) error {
	var lastErr error
	for {
		result := make(chan error, 1)
		cn.mgr.Open(func(err error) {
			select {
			case result <- err:
			default:
			}
		})
		attempt, stop := context.WithCancel(ctx)
		go cn.superviseAttempt(attempt, cn.opens.Load(), cn.attempts.Load())
		select {
		case err := <-result:
			stop()
			if err == nil {
				return nil
			}
			lastErr = err
			cn.c.log.Debug("connect attempt failed; retrying", "url", cn.url, "err", err)
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

// recoverConnection rebuilds a connection that the library tore down
// without telling the socket (see the manager "error" listener in listen):
// disconnect the socket (failing pending acks, emitting "disconnect"), open
// the engine again, and connect, which re-joins the office.
func (cn *conn) recoverConnection() {
	cn.mu.Lock()
	if cn.recovering || cn.closed {
		cn.mu.Unlock()
		return
	}
	cn.recovering = true
	cn.mu.Unlock()
	defer func() {
		cn.mu.Lock()
		cn.recovering = false
		cn.mu.Unlock()
	}()
	cn.sock.Disconnect()
	if err := cn.openEngine(cn.c.ctx); err != nil {
		return // closed
	}
	if !cn.isClosed() {
		cn.sock.Connect()
	}
}

// attemptTimeout bounds one engine connect attempt (see start).
func attemptTimeout(connect time.Duration) time.Duration {
	return min(max(connect/4, 500*time.Millisecond), 3*time.Second)
}

// probe makes one plain HTTP request to the engine path. A transport error
// (connection refused, DNS) or a flat ErrorPayload refusal at the HTTP layer
// (4008 version mismatch, 401/403) fails fast; any other answer — engine.io
// itself answers 400 "Transport unknown" to this request, which carries no
// EIO parameter and so opens no session — means the server is there.
func (cn *conn) probe(ctx context.Context) error {
	u := cn.url + cn.c.opt.Path + "?" + url.Values{protocol.QueryVersion: {protocol.Version}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	if cn.c.opt.APIKey != "" {
		req.Header.Set("X-Api-Key", cn.c.opt.APIKey)
	}
	hc := &http.Client{
		// Following a redirect could hand the API key to another host.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer hc.CloseIdleConnections()
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if perr, ok := protocol.DecodeError(body); ok {
		switch perr.Code {
		case protocol.CodeVersionMismatch, protocol.CodeUnauthorized, protocol.CodeForbidden:
			return perr
		}
	}
	return nil
}

func (cn *conn) reportFirst(err error) {
	select {
	case cn.firstJoin <- err:
	default:
	}
}

func (cn *conn) isClosed() bool {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	return cn.closed
}

func (cn *conn) listen() {
	log := cn.c.log
	cn.sock.On("connect", func(...any) {
		log.Debug("connected", "url", cn.url, "sid", cn.sock.Id())
		go cn.join()
	})
	cn.sock.On("connect_error", func(args ...any) {
		err := connectError(args)
		log.Warn("connect_error", "url", cn.url, "err", err)
		cn.reportFirst(fmt.Errorf("computer %s: connect to %s refused: %w", cn.c.opt.Name, cn.url, err))
	})
	cn.sock.On("disconnect", func(args ...any) {
		reason, _ := firstArg(args).(string)
		cn.mu.Lock()
		cn.joined = false
		closed := cn.closed
		cn.mu.Unlock()
		if closed {
			return
		}
		log.Warn("disconnected", "url", cn.url, "reason", reason)
		if reason == "io server disconnect" {
			// The client library does not reconnect after a server-side
			// disconnect (like socket.io-client); a restarting server
			// should not orphan us, so reconnect by hand.
			go func() {
				select {
				case <-time.After(time.Second):
				case <-cn.c.ctx.Done():
					return
				}
				if !cn.isClosed() {
					cn.sock.Connect()
				}
			}()
		}
	})
	// Manager.Open arms its connect timer after subscribing to "open"; an
	// "open" in between runs the cleanup before the timer is registered, so
	// the timer survives and, attemptTimeout later, closes the live engine
	// after removing the manager's own listeners: the socket never hears of
	// it and nothing reconnects. That timer reports "timeout" through the
	// manager's "error" while the socket still believes it is connected;
	// rebuild the connection then.
	cn.mgr.On("error", func(args ...any) {
		err := connectError(args)
		if err.Error() != "timeout" || !cn.sock.Connected() || cn.isClosed() {
			return
		}
		log.Warn("connection closed by a stale connect timer; reconnecting", "url", cn.url)
		go cn.recoverConnection()
	})
	cn.mgr.On("open", func(...any) { cn.opens.Add(1) })
	cn.mgr.On("reconnect_attempt", func(args ...any) {
		n := cn.attempts.Add(1)
		if !cn.isClosed() {
			ctx, cancel := context.WithTimeout(cn.c.ctx, 2*attemptTimeout(cn.c.opt.ConnectTimeout))
			go func() { defer cancel(); cn.superviseAttempt(ctx, cn.opens.Load(), n) }()
		}
		log.Debug("reconnecting", "url", cn.url, "attempt", firstArg(args))
	})

	handled := map[string]bool{}
	for ev, h := range cn.c.handlers() {
		handled[ev] = true
		cn.sock.On(types.EventName(ev), cn.wrap(ev, h))
	}
	// The server routes every client:* event here; answer the ones this
	// Computer does not implement instead of letting the agent time out.
	cn.sock.OnAny(func(args ...any) {
		ev, _ := firstArg(args).(string)
		if !strings.HasPrefix(ev, protocol.ClientPrefix) || handled[ev] {
			return
		}
		if ack := ackOf(args); ack != nil {
			ack([]any{&protocol.Error{Code: protocol.CodeNotFound,
				Message: fmt.Sprintf("computer %s does not implement %s", cn.c.opt.Name, ev)}}, nil)
		}
	})
}

type handlerFunc func(ctx context.Context, req json.RawMessage) any

// wrap runs a client:* handler off the event loop and acks exactly one
// argument: the result object or a flat protocol.Error.
func (cn *conn) wrap(ev string, h handlerFunc) func(...any) {
	return func(args ...any) {
		ack := ackOf(args)
		if ack != nil {
			args = args[:len(args)-1]
		}
		var raw json.RawMessage
		if len(args) > 0 {
			b, err := json.Marshal(args[0])
			if err == nil {
				raw = b
			}
		}
		go func() {
			var res any
			func() {
				defer func() {
					if r := recover(); r != nil {
						cn.c.log.Error("handler panic", "event", ev, "panic", fmt.Sprint(r))
						res = &protocol.Error{Code: protocol.CodeInternal, Message: ev + ": internal error"}
					}
				}()
				res = h(cn.c.ctx, raw)
			}()
			if ack != nil {
				ack([]any{res}, nil)
			}
		}()
	}
}

func ackOf(args []any) func([]any, error) {
	if n := len(args); n > 0 {
		if a, ok := args[n-1].(func([]any, error)); ok {
			return a
		}
	}
	return nil
}

func firstArg(args []any) any {
	if len(args) == 0 {
		return nil
	}
	return args[0]
}

func connectError(args []any) error {
	switch v := firstArg(args).(type) {
	case error:
		return v
	case nil:
		return errors.New("connect_error")
	default:
		return fmt.Errorf("%v", v)
	}
}

// join sends server:join_office and records the outcome. It runs on every
// "connect", so a reconnect re-joins the office. After the first success a
// refused or unanswered re-join is retried with backoff while connected: the
// server may still hold our previous session (name taken) until its ping
// timeout notices the old connection is gone.
func (cn *conn) join() {
	c := cn.c
	cn.mu.Lock()
	if cn.joining || cn.closed {
		cn.mu.Unlock()
		return
	}
	cn.joining = true
	cn.mu.Unlock()

	ctx, cancel := context.WithTimeout(c.ctx, c.opt.ConnectTimeout)
	defer cancel()
	args, err := cn.emitWithAck(ctx, protocol.EventJoinOffice, protocol.EnterOfficeReq{
		Role: protocol.RoleComputer, Name: c.opt.Name, OfficeID: c.opt.Office,
	})
	if err == nil {
		err = joinAckError(args)
	}
	cn.mu.Lock()
	cn.joining = false
	if err != nil {
		ever := cn.everJoined
		delay := cn.retry
		cn.retry = min(max(2*cn.retry, time.Second), 30*time.Second)
		cn.mu.Unlock()
		err = fmt.Errorf("computer %s: join office %q: %w", c.opt.Name, c.opt.Office, err)
		c.log.Error("join office failed", "office", c.opt.Office, "err", err)
		cn.reportFirst(err)
		if ever {
			time.AfterFunc(max(delay, time.Second), func() {
				cn.mu.Lock()
				again := !cn.closed && !cn.joined
				cn.mu.Unlock()
				if again && cn.sock.Connected() {
					cn.join()
				}
			})
		}
		return
	}
	cn.joined, cn.everJoined = true, true
	cn.retry = 0
	dirty := cn.dirty
	cn.dirty = false
	cn.mu.Unlock()
	c.log.Info("joined office", "office", c.opt.Office, "url", cn.url)
	cn.reportFirst(nil)
	if dirty {
		cn.notifyConfig()
	}
}

// joinAckError reads a server:join_office ack: [true, null] or
// [false, "reason"] (events.md §server:join_office). Some servers wrap the
// tuple in one list argument; that is accepted too.
func joinAckError(args []any) error {
	if len(args) == 1 {
		if inner, ok := args[0].([]any); ok {
			args = inner
		}
	}
	if len(args) == 0 {
		return errors.New("empty ack")
	}
	ok, isBool := args[0].(bool)
	if !isBool {
		if e, isErr := protocol.DecodeError(args[0]); isErr {
			return e
		}
		return fmt.Errorf("unexpected ack %v", args)
	}
	if ok {
		return nil
	}
	reason, _ := firstArg(args[1:]).(string)
	if reason == "" {
		reason = "refused"
	}
	return &JoinError{Reason: reason}
}

// JoinError is a refused server:join_office.
type JoinError struct{ Reason string }

func (e *JoinError) Error() string { return "join refused: " + e.Reason }

// emitWithAck emits ev and waits for the ack under ctx. The library's own
// ack timeout uses a per-socket flag that concurrent emits can race on, so
// the wait is bounded here instead.
func (cn *conn) emitWithAck(ctx context.Context, ev string, payload any) ([]any, error) {
	type result struct {
		args []any
		err  error
	}
	ch := make(chan result, 1)
	err := cn.sock.Emit(ev, payload, func(args []any, err error) {
		select {
		case ch <- result{args, err}:
		default:
		}
	})
	if err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r.args, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: no ack: %w", ev, ctx.Err())
	}
}

// notifyConfig emits server:update_config now if joined, else after the
// next join.
func (cn *conn) notifyConfig() {
	cn.mu.Lock()
	if !cn.joined {
		cn.dirty = true
		cn.mu.Unlock()
		return
	}
	cn.mu.Unlock()
	if err := cn.sock.Emit(protocol.EventUpdateConfig, protocol.ComputerNotification{Computer: cn.c.opt.Name}); err != nil {
		cn.c.log.Warn("emit update_config failed", "err", err)
	}
}

func (cn *conn) close() {
	cn.mu.Lock()
	cn.closed = true
	cn.joined = false
	cn.mu.Unlock()
	cn.sock.Disconnect()
}

// managerTimeout is the manager's own connect timeout: far beyond any
// session, so a leaked timer never fires in practice.
const managerTimeout = 30 * 24 * time.Hour

// superviseAttempt stands in for the manager's connect timer. After
// attemptTimeout, if the manager has not opened since before: an engine
// that is open was a missed "open" (re-announce it); any other engine has
// failed to open (report "timeout" on it, which moves the manager on, and
// close it).
func (cn *conn) superviseAttempt(ctx context.Context, before, attempt uint64) {
	t := time.NewTimer(attemptTimeout(cn.c.opt.ConnectTimeout))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-t.C:
	}
	// A newer reconnect attempt (after a fast failure and the backoff) has
	// its own supervisor; the engine now belongs to it.
	if cn.isClosed() || cn.opens.Load() != before || cn.attempts.Load() != attempt {
		return
	}
	e := cn.mgr.Engine()
	if e == nil {
		return
	}
	if e.ReadyState() == engine.SocketStateOpen {
		cn.c.log.Debug("engine open but the manager missed it; re-announcing", "url", cn.url)
		e.Emit("open")
		return
	}
	cn.c.log.Debug("connect attempt timed out", "url", cn.url)
	e.Emit("error", errors.New("timeout"))
	e.Close()
}
