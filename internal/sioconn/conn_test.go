package sioconn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zishang520/socket.io/servers/socket/v3"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/dpe-tui/dpe-tui/internal/hostilepeer"
	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/server"
)

// wait is a deadlock guard for every network wait here, not a timing
// assertion.
const wait = 20 * time.Second

type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newLog() (*slog.Logger, *logBuf) {
	lb := &logBuf{}
	return slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug})), lb
}

// startServer runs our SMCP server on 127.0.0.1:0.
func startServer(t *testing.T, opt server.Options) string {
	t.Helper()
	s, err := server.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	addr := serveOn(t, s)
	t.Cleanup(func() { _ = s.Close() })
	return "http://" + addr
}

// serveOn serves s on a free loopback port and returns its address.
func serveOn(t *testing.T, s *server.Server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	return l.Addr().String()
}

// joiner is an OnConnect that joins office o as an agent and counts joins,
// the way both sides use the hook.
type joiner struct {
	c     *Conn
	name  string
	joins atomic.Int32
}

func (j *joiner) onConnect(ctx context.Context) error {
	for {
		err := j.joinOnce(ctx)
		if err == nil {
			j.joins.Add(1)
			return nil
		}
		// A re-join can find the seat still held by the session this Conn
		// has just closed: the server hears of that close on the old
		// connection, which it reads concurrently with this one, and frees
		// the seat once it does. A first join is never retried.
		var je *protocol.JoinError
		if j.joins.Load() == 0 || !errors.As(err, &je) || !je.AgentSeatTaken() {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (j *joiner) joinOnce(ctx context.Context) error {
	args, err := j.c.EmitWithAck(ctx, 5*time.Second, protocol.EventJoinOffice,
		protocol.EnterOfficeReq{Role: protocol.RoleAgent, Name: j.name, OfficeID: "o-" + j.name})
	if err != nil {
		return err
	}
	return protocol.DecodeJoinAck("o-"+j.name, args)
}

func dialAgent(t *testing.T, opt Options, name string) (*Conn, *joiner, error) {
	t.Helper()
	j := &joiner{name: name}
	opt.OnConnect = j.onConnect
	if opt.Auth == nil {
		opt.Auth = map[string]any{"role": protocol.RoleAgent}
	}
	c, err := New(opt)
	if err != nil {
		return nil, nil, err
	}
	j.c = c
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.Connect(ctx); err != nil {
		if e := c.mgr.Engine(); e != nil {
			err = fmt.Errorf("%w [opens=%d engine=%v connected=%v joins=%d]", err, c.opens.Load(), e.ReadyState(), c.sock.Connected(), j.joins.Load())
		}
		c.Close()
		return nil, nil, err
	}
	t.Cleanup(c.Close)
	return c, j, nil
}

// dumpGoroutinesOnFailure logs every goroutine's stack if the test has
// failed by the time its cleanups run (register it after the cleanups it
// must run before).
func dumpGoroutinesOnFailure(t *testing.T) {
	t.Cleanup(func() {
		if t.Failed() {
			var b bytes.Buffer
			_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
			t.Logf("goroutines:\n%s", b.String())
		}
	})
}

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	bound := time.After(wait)
	for !ok() {
		select {
		case <-bound:
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

// Missed open: the engine used to open before the manager listened (about
// one connect in twenty against a loopback server), and the watchdog had to
// re-announce it. With the gated transport the manager hears every open.
func TestConnect_ManagerNeverMissesOpen(t *testing.T) {
	url := startServer(t, server.Options{})
	const n = 100
	var announced uint64
	var slowest time.Duration
	for i := range n {
		log, lb := newLog()
		start := time.Now()
		c, _, err := dialAgent(t, Options{URL: url, Logger: log}, fmt.Sprintf("a%d", i))
		if err != nil {
			t.Fatalf("connect %d: %v\n%s", i, err, lb)
		}
		slowest = max(slowest, time.Since(start))
		announced += c.announced.Load()
		c.Close()
	}
	t.Logf("%d connects; slowest %v (reported, not asserted)", n, slowest)
	if announced != 0 {
		t.Fatalf("%d of %d connects needed a missed open re-announced", announced, n)
	}
}

// Double CONNECT: python-socketio answers a second CONNECT on one engine
// with CONNECT_ERROR; Node ignores it. Every connect must send one.
func TestConnect_InteropPeersSeeOneConnect(t *testing.T) {
	for _, rt := range interoptest.Runtimes() {
		t.Run(rt.Name, func(t *testing.T) {
			p := interoptest.Start(t, rt)
			for i := range 10 {
				log, lb := newLog()
				c, j, err := dialAgent(t, Options{URL: p.URL, Logger: log}, fmt.Sprintf("a%d", i))
				if err != nil {
					t.Fatalf("connect %d: %v", i, err)
				}
				if j.joins.Load() != 1 || strings.Contains(lb.String(), "connect_error") {
					t.Fatalf("connect %d: %d joins, log:\n%s", i, j.joins.Load(), lb)
				}
				c.Close()
			}
		})
	}
}

// 4008 and 401 come back from Connect at once: one handshake request, no
// engine attempt, no retry.
func TestConnect_HTTPRefusalsAreImmediate(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		check  func(error) bool
	}{
		{"VersionMismatch4008", 400, `{"code":4008,"message":"Protocol version mismatch","server_version":"0.3.0","client_version":"0.2.0"}`,
			func(err error) bool {
				var perr *protocol.Error
				return errors.As(err, &perr) && perr.Code == protocol.CodeVersionMismatch && perr.ServerVersion == "0.3.0"
			}},
		{"Unauthorized401", 401, `{"code":401,"message":"bad key"}`, func(err error) bool {
			var perr *protocol.Error
			return errors.As(err, &perr) && perr.Code == 401
		}},
		{"BadRequest400", 400, `{"code":400,"message":"missing a2c_version"}`, func(err error) bool {
			var perr *protocol.Error
			return errors.As(err, &perr) && perr.Code == 400
		}},
		{"WrongPath404", 404, `not found`, func(err error) bool {
			var herr *HandshakeError
			return errors.As(err, &herr) && herr.Status == 404 && Fatal(err)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			})}
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go func() { _ = srv.Serve(l) }()
			t.Cleanup(func() { _ = srv.Close() })
			_, _, err = dialAgent(t, Options{URL: "http://" + l.Addr().String(), Headers: http.Header{"X-Api-Key": {"s3cret"}}}, "a")
			if err == nil || !tc.check(err) {
				t.Fatalf("err = %v (%T)", err, err)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Fatal("the API key reached the error")
			}
			if n := hits.Load(); n != 1 {
				t.Fatalf("%d HTTP requests, want exactly 1 (no retry)", n)
			}
		})
	}
}

// Against real peers: 4008 from a 0.3.0 server and 401 for a wrong key.
func TestConnect_InteropRefusals(t *testing.T) {
	for _, rt := range interoptest.Runtimes() {
		t.Run(rt.Name+"/4008", func(t *testing.T) {
			p := interoptest.Start(t, rt, "--server-version", "0.3.0")
			_, _, err := dialAgent(t, Options{URL: p.URL, ConnectTimeout: 30 * time.Second}, "a")
			var perr *protocol.Error
			if !errors.As(err, &perr) || perr.Code != protocol.CodeVersionMismatch || perr.ServerVersion != "0.3.0" {
				t.Fatalf("err = %v, want 4008 naming 0.3.0", err)
			}
		})
		t.Run(rt.Name+"/401", func(t *testing.T) {
			p := interoptest.Start(t, rt, "--api-key", "right")
			_, _, err := dialAgent(t, Options{URL: p.URL, Headers: http.Header{"X-Api-Key": {"wrong"}}, ConnectTimeout: 30 * time.Second}, "a")
			var perr *protocol.Error
			if !errors.As(err, &perr) || perr.Code != protocol.CodeUnauthorized {
				t.Fatalf("err = %v, want 401", err)
			}
		})
	}
}

// A short connect timeout is honoured: a listener that accepts and never
// answers fails Connect with the timeout named, and a cancelled ctx wins.
func TestConnect_ShortTimeoutAndCancel(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var conns sync.WaitGroup
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() { defer conns.Done(); _, _ = c.Read(make([]byte, 1<<16)); <-time.After(wait); c.Close() }()
		}
	}()
	url := "http://" + l.Addr().String()
	_, _, err = dialAgent(t, Options{URL: url, ConnectTimeout: 300 * time.Millisecond}, "a")
	if err == nil || !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Fatalf("err = %v, want the 300ms timeout named", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := New(Options{URL: url, ConnectTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	if err := c.Connect(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// Reconnect and re-join: the server goes away and comes back on the same
// port; the Conn reconnects with backoff and OnConnect runs again.
func TestReconnect_RejoinsAfterServerRestart(t *testing.T) {
	s1, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveOn(t, s1)
	var attempts atomic.Int32
	var drops atomic.Int32
	_, j, err := dialAgent(t, Options{URL: "http://" + addr, ConnectTimeout: 2 * time.Second,
		OnReconnectAttempt: func(int) { attempts.Add(1) },
		OnDisconnect:       func(string, error) { drops.Add(1) }}, "a")
	if err != nil {
		t.Fatal(err)
	}
	_ = s1.Close()
	eventually(t, "disconnect seen", func() bool { return drops.Load() > 0 })
	s2, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var l2 net.Listener
	eventually(t, "port reusable", func() bool { l2, err = net.Listen("tcp", addr); return err == nil })
	go func() { _ = s2.Serve(l2) }()
	t.Cleanup(func() { _ = s2.Close() })
	eventually(t, "re-joined", func() bool { return j.joins.Load() >= 2 })
	if attempts.Load() == 0 {
		t.Fatal("no reconnect attempt reported")
	}
}

// Stale connect timer: its signature (manager "error" of "timeout" while
// connected) rebuilds the session and re-joins. The race that leaked the
// timer cannot be forced, so the test raises the same signal.
func TestStaleTimer_RebuildsAndRejoins(t *testing.T) {
	url := startServer(t, server.Options{})
	log, lb := newLog()
	c, j, err := dialAgent(t, Options{URL: url, Logger: log}, "a")
	if err != nil {
		t.Fatal(err)
	}
	old := c.ID()
	c.mgr.Emit("error", errors.New("timeout"))
	eventually(t, "new session re-joined", func() bool {
		return j.joins.Load() >= 2 && c.Connected() && c.ID() != old
	})
	if !strings.Contains(lb.String(), "stale connect timer") {
		t.Fatal("recovery not logged")
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := c.EmitWithAck(ctx, 5*time.Second, protocol.EventListRoom,
		protocol.ListRoomReq{AgentCallData: protocol.AgentCallData{Agent: "a", ReqID: "r1"}, OfficeID: "o-a"}); err != nil {
		t.Fatalf("unusable after recovery: %v", err)
	}
}

// Stale Open error handler: a manager error on a live connection that the
// socket is not told of (the handler has removed the manager's listeners)
// rebuilds the session and re-joins. The race that leaves the handler
// subscribed cannot be forced, so the test raises the same signal: a
// manager error with the manager's listeners in place but no engine close.
func TestStaleOpenHandler_RebuildsAndRejoins(t *testing.T) {
	url := startServer(t, server.Options{})
	log, lb := newLog()
	c, j, err := dialAgent(t, Options{URL: url, Logger: log}, "a")
	if err != nil {
		t.Fatal(err)
	}
	old := c.ID()
	c.mgr.Emit("error", errors.New("message over the size limit"))
	eventually(t, "new session re-joined", func() bool {
		return j.joins.Load() >= 2 && c.Connected() && c.ID() != old
	})
	if !strings.Contains(lb.String(), "the socket was not told") {
		t.Fatalf("recovery not logged:\n%s", lb)
	}
}

// The engine.io path comes from the URL, or from Path.
func TestConnect_EnginePathFromURLOrOption(t *testing.T) {
	url := startServer(t, server.Options{Path: "/smcp/"})
	if _, _, err := dialAgent(t, Options{URL: url + "/smcp/"}, "a1"); err != nil {
		t.Fatalf("path in URL: %v", err)
	}
	if _, _, err := dialAgent(t, Options{URL: url, Path: "/smcp/"}, "a2"); err != nil {
		t.Fatalf("Path option: %v", err)
	}
	_, _, err := dialAgent(t, Options{URL: url}, "a3")
	var herr *HandshakeError
	if !errors.As(err, &herr) || herr.Status != 404 || !strings.Contains(err.Error(), "--path") {
		t.Fatalf("default path against /smcp/: err = %v, want a 404 naming --path", err)
	}
}

// libServer is a plain zishang520 server on /smcp, without the server
// package's gate (server/gate.go): the library writes the namespace
// CONNECT reply before it records the socket, and an EVENT read in that
// window closes the connection ("invalid state"). So a test emits only once
// the connection handler has run (waitRecorded): the library records the
// socket before it fires "connection".
type libServer struct {
	url      string
	recorded atomic.Int32 // connection handlers that have run
}

// startLibServer serves a libServer whose connection handler is onConn,
// with a read limit of maxBuffer bytes (0: the library's default).
func startLibServer(t *testing.T, maxBuffer int64, onConn func(*socket.Socket)) *libServer {
	t.Helper()
	opts := socket.DefaultServerOptions()
	opts.SetTransports(types.NewSet(socket.WebSocket, socket.Polling))
	if maxBuffer > 0 {
		opts.SetMaxHttpBufferSize(maxBuffer)
	}
	io := socket.NewServer(nil, opts)
	ls := &libServer{}
	_ = io.Of(protocol.Namespace, nil).On("connection", func(args ...any) {
		onConn(args[0].(*socket.Socket))
		ls.recorded.Add(1)
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: io.ServeHandler(nil)}
	go func() { _ = hs.Serve(l) }()
	t.Cleanup(func() { _ = hs.Close(); io.Close(nil) })
	ls.url = "http://" + l.Addr().String()
	return ls
}

// waitRecorded waits until n connections have been recorded by the server.
func (ls *libServer) waitRecorded(t *testing.T, n int32) {
	t.Helper()
	eventually(t, fmt.Sprintf("%d connections recorded by the server", n), func() bool { return ls.recorded.Load() >= n })
}

// bigServer is a libServer whose "big" event acks n bytes.
func bigServer(t *testing.T) *libServer {
	t.Helper()
	return startLibServer(t, 1<<30, func(s *socket.Socket) {
		_ = s.On("big", func(args ...any) {
			n, _ := args[0].(float64)
			if ack, ok := args[len(args)-1].(socket.Ack); ok {
				ack([]any{strings.Repeat("x", int(n))}, nil)
			}
		})
	})
}

// Size cap: an inbound message over MaxMessage is refused on its frame
// headers; the wait fails naming the size, the connection comes back by itself.
func TestMaxMessage_DropsOversizedAndReconnects(t *testing.T) {
	srv := bigServer(t)
	var connects atomic.Int32
	log, lb := newLog()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log:\n%s", lb)
		}
	})
	c, err := New(Options{URL: srv.url, MaxMessage: 64 << 10, ConnectTimeout: 5 * time.Second, Logger: log,
		OnConnect: func(context.Context) error { connects.Add(1); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	dumpGoroutinesOnFailure(t) // runs before Close: the state of a stuck reconnect
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	srv.waitRecorded(t, 1)
	if args, err := c.EmitWithAck(ctx, 5*time.Second, "big", 1000); err != nil || len(args) != 1 {
		t.Fatalf("small answer: %v %v", args, err)
	}
	_, err = c.EmitWithAck(ctx, 10*time.Second, "big", 200<<10)
	var big *MessageTooLargeError
	if !errors.Is(err, ErrConnectionLost) || !errors.As(err, &big) || big.Limit != 64<<10 {
		t.Fatalf("err = %v, want ErrConnectionLost with *MessageTooLargeError", err)
	}
	eventually(t, "reconnected", func() bool { return connects.Load() >= 2 && c.Connected() })
	srv.waitRecorded(t, 2)
	if _, err := c.EmitWithAck(ctx, 5*time.Second, "big", 10); err != nil {
		t.Fatalf("after reconnect: %v", err)
	}
}

// The ack wait ends with its timeout, with ctx, and with Close.
func TestEmitWithAck_TimeoutCancelClose(t *testing.T) {
	srv := bigServer(t)
	c, err := New(Options{URL: srv.url})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	srv.waitRecorded(t, 1)
	if _, err := c.EmitWithAck(ctx, 100*time.Millisecond, "nobody-answers", 1); !errors.Is(err, ErrAckTimeout) {
		t.Fatalf("err = %v, want ErrAckTimeout", err)
	}
	cctx, ccancel := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); ccancel() }()
	if _, err := c.EmitWithAck(cctx, time.Minute, "nobody-answers", 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	go func() { time.Sleep(50 * time.Millisecond); c.Close() }()
	if _, err := c.EmitWithAck(ctx, time.Minute, "nobody-answers", 1); !errors.Is(err, ErrClosed) && !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
}

// A 300 MB ack is refused on its frame headers: the wait allocates a
// fraction of it, fails with ErrConnectionLost and *MessageTooLargeError,
// and the connection comes back. The library reads a message into a
// doubling buffer (about 4× the bytes read, 8× under -race), so the bound
// is checked with an 8 MiB limit. Fails too if a library upgrade moves the
// websocket dialer the limit hooks into (the log says so).
func TestMaxMessage_RefusesBeforeBuffering(t *testing.T) {
	const ack = 300 << 20
	srv, err := hostilepeer.Start(hostilepeer.Script{
		ListRoom: func() hostilepeer.Reply { return hostilepeer.Reply{Stream: hostilepeer.HugeStream(ack)} },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	log, lb := newLog()
	var connects atomic.Int32
	c, err := New(Options{URL: srv.URL, MaxMessage: 8 << 20, Logger: log,
		OnConnect: func(context.Context) error { connects.Add(1); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	dumpGoroutinesOnFailure(t) // runs before Close: the state of a stuck reconnect
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = c.EmitWithAck(ctx, wait, protocol.EventListRoom, map[string]any{"office_id": srv.Office})
	runtime.ReadMemStats(&after)
	var big *MessageTooLargeError
	if !errors.Is(err, ErrConnectionLost) || !errors.As(err, &big) || big.Limit != 8<<20 || big.Size <= 8<<20 {
		t.Fatalf("err = %v, want ErrConnectionLost with *MessageTooLargeError over 8 MiB\nlog:\n%s", err, lb)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > ack/3 {
		t.Errorf("allocated %d MiB for a refused %d MiB message", d>>20, ack>>20)
	}
	if strings.Contains(lb.String(), "cannot reach the websocket dialer") {
		t.Error("the size limit could not hook the library's websocket dialer")
	}
	// The reconnect used to hang until the peer's first ping (10 min) about
	// once in forty runs under load: its CONNECT stayed in the client
	// library's write buffer (gatedTransport.DoOpen has the fix).
	deadline := time.Now().Add(wait)
	for !(connects.Load() >= 2 && c.Connected()) {
		if time.Now().After(deadline) {
			t.Fatalf("not reconnected after %s\nlog:\n%s", wait, lb)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An accepted probe closes the engine.io session it opened, so it does not
// linger on the server until its ping timeout.
func TestProbe_AcceptedClosesItsSession(t *testing.T) {
	var closed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Query().Get("sid") == "abc" {
			closed.Store(true)
			_, _ = w.Write([]byte("ok"))
			return
		}
		_, _ = w.Write([]byte(`0{"sid":"abc","upgrades":[],"pingInterval":25000,"pingTimeout":20000}`))
	}))
	defer srv.Close()
	c, err := New(Options{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !closed.Load() {
		t.Error("the probe left its engine.io session open")
	}
}

// deadURL is a loopback URL nothing listens on.
func deadURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + l.Addr().String()
	_ = l.Close()
	return u
}

// Failover, first server down: Connect moves on to the next of URLs and
// joins there.
func TestFailover_ConnectSkipsADeadServer(t *testing.T) {
	b := startServer(t, server.Options{})
	log, lb := newLog()
	c, j, err := dialAgent(t, Options{URL: deadURL(t), URLs: []string{b}, ConnectTimeout: 5 * time.Second, Logger: log}, "fa")
	if err != nil {
		t.Fatalf("%v\nlog:\n%s", err, lb)
	}
	if c.URL() != b || j.joins.Load() != 1 {
		t.Fatalf("on %s with %d joins, want %s and 1", c.URL(), j.joins.Load(), b)
	}
	if !strings.Contains(lb.String(), "trying the next server") {
		t.Errorf("the switch was not logged:\n%s", lb)
	}
}

// Failover, current server stops: the reconnect attempts move on to the
// next server (with the usual backoff), the office is joined again there,
// and calls work on it.
func TestFailover_ReconnectMovesToTheNextServer(t *testing.T) {
	a, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ua := "http://" + serveOn(t, a)
	t.Cleanup(func() { _ = a.Close() })
	ub := startServer(t, server.Options{})
	var attempts atomic.Int32
	c, j, err := dialAgent(t, Options{URL: ua, URLs: []string{ub}, ConnectTimeout: 2 * time.Second,
		ReconnectOnServerDisconnect: true,
		OnReconnectAttempt:          func(int) { attempts.Add(1) }}, "fb")
	if err != nil {
		t.Fatal(err)
	}
	if c.URL() != ua {
		t.Fatalf("first on %s, want %s", c.URL(), ua)
	}
	_ = a.Close()
	eventually(t, "re-joined on the second server", func() bool {
		return j.joins.Load() >= 2 && c.Connected() && c.URL() == ub
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	args, err := c.EmitWithAck(ctx, 5*time.Second, protocol.EventListRoom, map[string]any{"office_id": "o-fb"})
	if err != nil || len(args) == 0 {
		t.Fatalf("list_room on the second server: %v %v", args, err)
	}
}

// A namespace CONNECT leaves at once: the library used to leave it in the
// engine's write buffer when its reader handled the server's OPEN before
// the transport was marked writable, and only the server's first ping
// (10 minutes on this peer) flushed it. Connect hid that by retrying on a
// fresh engine after an attempt timeout; a reconnect waited for the ping.
// Here every connect must be answered without that retry.
func TestConnect_CONNECTIsNeverLeftInTheWriteBuffer(t *testing.T) {
	srv, err := hostilepeer.Start(hostilepeer.Script{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	const connects = 60
	for i := range connects {
		log, lb := newLog()
		c, err := New(Options{URL: srv.URL, Logger: log, ConnectTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		err = c.Connect(ctx)
		cancel()
		c.Close()
		if err != nil {
			t.Fatalf("connect %d: %v\nlog:\n%s", i, err, lb)
		}
		if strings.Contains(lb.String(), "CONNECT unanswered") {
			t.Fatalf("connect %d: the CONNECT was not sent until a retry\nlog:\n%s", i, lb)
		}
	}
}
