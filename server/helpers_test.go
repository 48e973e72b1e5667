package server

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	sio "github.com/zishang520/socket.io/clients/socket/v3"
	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// wait bounds every network wait in these tests; it is a deadlock guard,
// not a timing assertion.
const wait = 10 * time.Second

// testLogger discards logs unless -v, where they help to read a failure.
func testLogger(t testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// startServer serves on 127.0.0.1:0 and returns the base URL.
func startServer(t testing.TB, opt Options) (*Server, string) {
	t.Helper()
	if opt.Logger == nil {
		opt.Logger = testLogger(t)
	}
	s, err := New(opt)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(wait):
			t.Errorf("Serve did not return after Close")
		}
	})
	return s, "http://" + l.Addr().String()
}

// peerConfig describes how a test peer connects.
type peerConfig struct {
	Role      string
	Version   string // default protocol.Version; "-" for none
	APIKey    string // sent in auth.api_key
	HeaderKey string // sent in x-api-key
	Path      string // default protocol.DefaultPath
	Polling   bool   // polling transport instead of websocket
	Namespace string // default protocol.Namespace
	Timeout   time.Duration
	Parser    parser.Parser // the client's Socket.IO parser; the library's by default
}

// peer is a zishang client connected to /smcp. It records notify:* events.
type peer struct {
	t    testing.TB
	sock *sio.Socket
	// emitMu serialises emits: the library keeps per-emit flags (Timeout)
	// in state shared by the socket.
	emitMu sync.Mutex

	mu     sync.Mutex
	notes  []note
	notify chan struct{}
}

type note struct {
	Event   string
	Payload map[string]any
}

// dial connects with the traps applied: explicit websocket transport, no
// permessage-deflate, autoConnect off, listeners first, the manager opened
// before the socket connects (Socket.Connect racing an opening manager sends
// CONNECT twice, and the server closes a connection that repeats CONNECT).
//
// One client race remains: the engine may emit "open" before the manager
// listens for it, and the manager then waits for its timeout. dial detects
// exactly that case (engine open, manager not) and retries with a fresh
// manager; any other failure is returned.
func dial(t testing.TB, base string, cfg peerConfig) (*peer, error) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		p, err := dialOnce(t, base, cfg)
		if errors.Is(err, errMissedOpen) && attempt < 5 {
			t.Logf("dial: client missed the engine open event (attempt %d); retrying", attempt)
			continue
		}
		return p, err
	}
}

var errMissedOpen = errors.New("client missed the engine open event")

func dialOnce(t testing.TB, base string, cfg peerConfig) (*peer, error) {
	t.Helper()
	opts := sio.DefaultOptions()
	if cfg.Polling {
		opts.SetTransports(types.NewSet(sio.Polling))
	} else {
		opts.SetTransports(types.NewSet(sio.WebSocket))
	}
	opts.SetPerMessageDeflate(nil)
	if cfg.Parser != nil {
		opts.SetParser(cfg.Parser)
	}
	opts.SetAutoConnect(false)
	opts.SetReconnection(false)
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = wait
	}
	opts.SetTimeout(timeout)
	path := cfg.Path
	if path == "" {
		path = protocol.DefaultPath
	}
	opts.SetPath(path)
	ver := cfg.Version
	if ver == "" {
		ver = protocol.Version
	}
	if ver != "-" {
		opts.SetQuery(url.Values{protocol.QueryVersion: {ver}})
	}
	auth := map[string]any{"role": cfg.Role}
	if cfg.APIKey != "" {
		auth["api_key"] = cfg.APIKey
	}
	opts.SetAuth(auth)
	if cfg.HeaderKey != "" {
		opts.SetExtraHeaders(map[string][]string{"X-Api-Key": {cfg.HeaderKey}})
	}
	nsp := cfg.Namespace
	if nsp == "" {
		nsp = protocol.Namespace
	}
	mgr := sio.NewManager(base, opts)
	sock := mgr.Socket(nsp, opts)
	p := &peer{t: t, sock: sock, notify: make(chan struct{}, 1)}
	result := make(chan error, 1)
	_ = sock.Once("connect", func(...any) {
		select {
		case result <- nil:
		default:
		}
	})
	_ = sock.Once("connect_error", func(args ...any) {
		err, _ := first(args).(error)
		if err == nil {
			err = fmt.Errorf("connect_error: %v", args)
		}
		select {
		case result <- err:
		default:
		}
	})
	for _, ev := range []string{protocol.NotifyEnterOffice, protocol.NotifyLeaveOffice, protocol.NotifyUpdateConfig,
		protocol.NotifyUpdateToolList, protocol.NotifyUpdateDesktop, protocol.NotifyToolCallCancel} {
		_ = sock.On(types.EventName(ev), func(args ...any) {
			payload, _ := first(args).(map[string]any)
			p.mu.Lock()
			p.notes = append(p.notes, note{Event: ev, Payload: payload})
			p.mu.Unlock()
			select {
			case p.notify <- struct{}{}:
			default:
			}
		})
	}
	opened := make(chan error, 1)
	mgr.Open(func(err error) {
		select {
		case opened <- err:
		default:
		}
	})
	if err := waitOpen(mgr, opened, timeout); err != nil {
		// Disconnect closes the manager (its open timer included) and the engine.
		sock.Disconnect()
		return nil, err
	}
	t.Cleanup(p.close)
	sock.Connect()
	select {
	case err := <-result:
		if err != nil {
			return nil, err
		}
		return p, nil
	case <-time.After(timeout + wait):
		return nil, errors.New("connect: no answer")
	}
}

// waitOpen waits for the manager's open callback. An engine that has been
// open for a while without the callback is the missed-open race.
func waitOpen(mgr *sio.Manager, opened <-chan error, timeout time.Duration) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(timeout + wait)
	openSeen := 0
	for {
		select {
		case err := <-opened:
			if err != nil {
				return fmt.Errorf("open: %w", err)
			}
			return nil
		case <-tick.C:
			if eng := mgr.Engine(); eng != nil && eng.ReadyState() == "open" {
				openSeen++
				if openSeen >= 25 { // open for 0.5s and the manager never heard
					return errMissedOpen
				}
			}
		case <-deadline:
			return errors.New("open: no answer")
		}
	}
}

func mustDial(t testing.TB, base string, cfg peerConfig) *peer {
	t.Helper()
	p, err := dial(t, base, cfg)
	if err != nil {
		t.Fatalf("dial as %s: %v", cfg.Role, err)
	}
	return p
}

func (p *peer) close() { p.sock.Disconnect() }

// call emits ev with payload and waits for the ack arguments.
func (p *peer) call(ev string, payload any) []any {
	p.t.Helper()
	type res struct {
		args []any
		err  error
	}
	ch := make(chan res, 1)
	p.emitMu.Lock()
	p.sock.Timeout(wait).EmitWithAck(ev, payload)(func(args []any, err error) { ch <- res{args, err} })
	p.emitMu.Unlock()
	r := <-ch
	if r.err != nil {
		p.t.Fatalf("%s: no ack: %v", ev, r.err)
	}
	return r.args
}

// join joins an office and fails the test unless the ack is [true, null].
func (p *peer) join(role, name, office string) {
	p.t.Helper()
	got := p.call(protocol.EventJoinOffice, map[string]any{"role": role, "name": name, "office_id": office})
	if len(got) != 2 || got[0] != true || got[1] != nil {
		p.t.Fatalf("join %s as %s: ack %v, want [true <nil>]", office, name, got)
	}
}

// waitNote waits for the first recorded notification matching ev and
// removes it (and everything before it).
func (p *peer) waitNote(ev string) map[string]any {
	p.t.Helper()
	deadline := time.After(wait)
	for {
		p.mu.Lock()
		for i, n := range p.notes {
			if n.Event == ev {
				p.notes = p.notes[i+1:]
				p.mu.Unlock()
				return n.Payload
			}
		}
		p.mu.Unlock()
		select {
		case <-p.notify:
		case <-deadline:
			p.t.Fatalf("no %s notification", ev)
			return nil
		}
	}
}

// errorAck decodes a single flat ErrorPayload ack.
func errorAck(t *testing.T, args []any) *protocol.Error {
	t.Helper()
	if len(args) != 1 {
		t.Fatalf("ack %v: want one argument", args)
	}
	e, ok := protocol.DecodeError(args[0])
	if !ok {
		t.Fatalf("ack %v: not an ErrorPayload", args)
	}
	return e
}
