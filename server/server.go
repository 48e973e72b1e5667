package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
	"github.com/zishang520/socket.io/servers/socket/v3"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Server is an SMCP server. Create it with New, call Serve (on one or more
// listeners), and Close it when done.
type Server struct {
	opt     Options
	log     *slog.Logger
	version protocol.SemVer
	path    string

	io      *socket.Server
	http    *http.Server
	offices *offices
	gates   *gates
	nsp     socket.Namespace
	cluster *cluster   // nil unless Options.Redis
	remote  pendingSet // requests routed to computers on other nodes

	mu     sync.Mutex
	closed bool
}

// shutdownTimeout bounds how long Close waits for in-flight HTTP requests.
const shutdownTimeout = 5 * time.Second

// New builds a server; it does not listen until Serve.
func New(opt Options) (*Server, error) {
	ver, err := opt.version()
	if err != nil {
		return nil, fmt.Errorf("server protocol version: %w", err)
	}
	s := &Server{
		opt:     opt,
		log:     opt.logger().With("component", "smcp-server"),
		version: ver,
		path:    opt.enginePath(),
		offices: newOffices(),
		gates:   newGates(),
	}

	sopt := socket.DefaultServerOptions()
	sopt.SetPath(strings.TrimSuffix(s.path, "/"))
	sopt.SetServeClient(false)
	// websocket: the library's transport with a reader that does not grow
	// each message's buffers from empty (wsread.go).
	sopt.SetTransports(types.NewSet[socket.TransportCtor](socket.Polling, &wsBuilder{}))
	sopt.SetParser(gateParser{base: parser.NewParser(), gates: s.gates})
	// Computers' acks (resource pages, configs, tool results) pass through
	// whole; 1 MB, the engine.io default, is tight for a tool result. The
	// cap is the websocket read limit (checked from the frame header, before
	// the payload is read) and the polling body limit.
	sopt.SetMaxHttpBufferSize(opt.maxMessageBytes())
	if opt.Redis != "" {
		c, err := newCluster(s, opt)
		if err != nil {
			return nil, err
		}
		s.cluster = c
	}
	s.io = socket.NewServer(nil, sopt)

	// The default namespace carries nothing in SMCP (events.md §命名空间).
	s.io.Use(func(_ *socket.Socket, next func(*socket.ExtendedError)) {
		e := &protocol.Error{Code: protocol.CodeNotFound, Message: "unknown namespace: SMCP speaks in " + protocol.Namespace}
		// Data must not be nil: the Go client rejects a connect_error without it.
		next(socket.NewExtendedError(e.Message, wire(e)))
	})
	// The namespace exists from the start: office notifications from other
	// nodes (rpc.go) are emitted to its rooms.
	nsp := s.io.Of(protocol.Namespace, nil)
	s.nsp = nsp
	nsp.Use(s.authenticate)
	if err := nsp.On("connection", func(args ...any) {
		if sock, ok := args[0].(*socket.Socket); ok {
			s.onConnection(sock)
		}
	}); err != nil {
		return nil, fmt.Errorf("register connection handler: %w", err)
	}

	engine := versionCheck(s.io.ServeHandler(nil), s.version, s.log)
	mux := http.NewServeMux()
	mux.Handle(s.path, engine)
	if p := strings.TrimSuffix(s.path, "/"); p != "" {
		mux.Handle(p, engine)
	}
	if s.cluster != nil {
		s.cluster.start()
	}
	s.http = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	return s, nil
}

// Serve accepts connections on l until Close and returns nil then (also
// when called after Close). l is closed when Serve returns.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		_ = l.Close()
		return nil
	}
	s.log.Info("serving", "addr", l.Addr().String(), "path", s.path, "namespace", protocol.Namespace, "version", s.version.String())
	err := s.http.Serve(l)
	// Serve may lose the race with Close and return before owning l.
	_ = l.Close()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("smcp server: serve on %s: %w", l.Addr(), err)
	}
	return nil
}

// Close disconnects every session (answering pending requests), stops
// engine.io and the HTTP server. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()

	// Sockets first: their disconnect handlers answer pending requests and
	// engine.io closes the hijacked websocket connections.
	s.io.Close(nil)
	for _, m := range s.offices.all() {
		s.failPending(m, "server shutting down")
	}
	for _, p := range s.remote.close() {
		p.finish([]any{wire(&protocol.Error{Code: protocol.CodeInternal, Message: "server shutting down"})})
	}
	if s.cluster != nil {
		s.cluster.close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, s.http.Close())
	}
	s.log.Info("closed")
	if err != nil {
		return fmt.Errorf("smcp server: close: %w", err)
	}
	return nil
}
