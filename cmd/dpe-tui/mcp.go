package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/config"
	"github.com/dpe-tui/dpe-tui/internal/localfile"
	"github.com/dpe-tui/dpe-tui/library"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

type mcpFlags struct {
	docs, addr, host, indexDir string

	// --http bounds (httpLimits).
	tokenEnv       string
	insecureBind   bool
	sessionTimeout time.Duration
	readTimeout    time.Duration
	maxConns       int
	maxSessions    int
	budgets        budgetFlags
}

func (a *app) mcpCmd() *cobra.Command {
	f := &mcpFlags{}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the library with Finder as a standalone MCP server (stdio or HTTP)",
		Long: "mcp serves a folder (default: the embedded corpus) with its Finder as an MCP server: on stdio\n" +
			"(stdout is the protocol, logs go to stderr) or, with --http, on MCP Streamable HTTP at ADDR/mcp.",
		Example: `  dpe-tui mcp --docs ~/papers
  dpe-tui mcp --http 127.0.0.1:7801`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(a.ctx, f, &a.g, a.stdin, a.stdout, a.stderr)
		},
	}
	fs := cmd.Flags()
	// Local to mcp: --docs here is the one folder served, not the
	// repeatable global flag.
	fs.StringVar(&f.docs, "docs", "", "serve this folder (default: the embedded corpus)")
	fs.StringVar(&f.addr, "http", "", "serve MCP Streamable HTTP on ADDR (e.g. 127.0.0.1:7801) instead of stdio")
	fs.StringVar(&f.host, "host", library.DefaultHost, "dpe:// host of the documents")
	fs.StringVar(&f.indexDir, "index-dir", "", "keep the Finder index here (default: under the XDG cache dir, keyed by the folder)")
	fs.StringVar(&f.tokenEnv, "token-env", "", "with --http: require the bearer token held by this environment variable (else --profile's token_cmd)")
	fs.BoolVar(&f.insecureBind, "insecure-bind", false, "with --http on an address beyond loopback: serve without a token")
	fs.DurationVar(&f.sessionTimeout, "session-timeout", 30*time.Minute, "with --http: close a session idle this long")
	fs.DurationVar(&f.readTimeout, "read-timeout", 30*time.Second, "with --http: how long a client may take to send one request")
	fs.IntVar(&f.maxConns, "max-conns", 256, "with --http: connections served at once; past it a new one takes the slot of the oldest idle one, or of one that sent no request within 1s, or is answered 503 with Retry-After")
	fs.IntVar(&f.maxSessions, "max-sessions", 1024, "with --http: sessions open at once; a new one past it is refused (503) until one ends or expires")
	f.budgets.define(fs)
	return cmd
}

// runMCP serves the library with Finder as a standalone MCP server: on
// stdio (stdout is the protocol, logs go to stderr) or, with --http, on
// MCP Streamable HTTP at ADDR/mcp.
func runMCP(ctx context.Context, f *mcpFlags, g *globalFlags, stdin io.Reader, stdout, stderr io.Writer) error {
	docs, addr, host, indexDir := &f.docs, &f.addr, &f.host, &f.indexDir
	if *docs != "" {
		if err := localfile.Dir(*docs); err != nil {
			return usageErrorf("--docs %v", err)
		}
	}
	switch {
	case f.sessionTimeout <= 0, f.readTimeout <= 0:
		return usageErrorf("--session-timeout and --read-timeout must be > 0")
	case f.maxConns <= 0:
		return usageErrorf("--max-conns must be > 0, not %d", f.maxConns)
	case f.maxSessions <= 0:
		return usageErrorf("--max-sessions must be > 0, not %d", f.maxSessions)
	}
	if err := f.budgets.check(); err != nil {
		return err
	}
	var token string
	if *addr != "" {
		var err error
		if token, err = mcpToken(ctx, f, g); err != nil {
			return err
		}
		if err := checkBind(*addr, token != "", f.insecureBind); err != nil {
			return err
		}
	}
	// The logger and the Finder's ready line write from different
	// goroutines: one lock for both.
	stderr = &lockedWriter{w: stderr}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	lib, err := library.Open(library.Options{Dir: *docs, Host: *host, Logger: log, ConvertTimeout: f.budgets.convert,
		Finder: &library.FinderOptions{IndexDir: *indexDir, Limits: f.budgets.findLimits()}})
	if err != nil {
		return err
	}
	defer lib.Close()
	stopReady := reportFinderReady(ctx, lib, stderr)
	defer stopReady() // before lib.Close: the line is never written after
	srv := lib.Server()
	if *addr == "" {
		pending := newStdioPending()
		t := &mcp.IOTransport{Reader: io.NopCloser(pending.reader(stdin)), Writer: nopWriteCloser{pending.writer(stdout)}}
		err := srv.Run(ctx, t)
		if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, io.EOF)) {
			return nil
		}
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", *addr, err)
	}
	if !loopbackAddr(*addr) {
		if token == "" {
			log.Warn("mcp --http serves beyond loopback without a token (--insecure-bind): anyone who reaches it reads the library", "addr", ln.Addr().String())
		} else {
			log.Warn("mcp --http serves beyond loopback; the bearer token travels in clear over http: put TLS in front", "addr", ln.Addr().String())
		}
	}
	// A connection cap, and per-connection time limits: 20,000 slow bodies
	// once held every file descriptor; idle sessions held memory forever.
	// A slow client's connection gives its slot up to a new one, and its
	// headers and body have --read-timeout.
	slots := newSlotListener(ln, f.maxConns)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{SessionTimeout: f.sessionTimeout})
	mux := http.NewServeMux()
	mux.Handle("/mcp", requireBearer(token, capSessions(srv, f.maxSessions, h)))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: f.readTimeout, ReadTimeout: f.readTimeout, IdleTimeout: 2 * time.Minute,
		ConnState: slots.track}
	fmt.Fprintf(stderr, "dpe-tui mcp: serving MCP Streamable HTTP at http://%s/mcp\n", ln.Addr())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(slots); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// reportFinderReady writes "dpe-tui mcp: Finder index ready: N documents"
// to w when the background build started at Open ends, so whoever runs
// the server knows when find answers from everything (until then it says
// how much it has). A build that stopped early says how far it got; its
// cause is already logged. stop ends the wait and returns once nothing
// more will be written.
func reportFinderReady(ctx context.Context, lib *library.Library, w io.Writer) (stop func()) {
	f := lib.Finder()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if f.Wait(ctx) != nil {
			return
		}
		if st := f.Status(); st.Complete {
			fmt.Fprintf(w, "dpe-tui mcp: Finder index ready: %d documents\n", st.Total)
		} else {
			fmt.Fprintf(w, "dpe-tui mcp: Finder index build stopped; find answers from %s\n", st)
		}
	}()
	return func() { cancel(); <-done }
}

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// mcpToken is the bearer token `mcp --http` requires: the variable named by
// --token-env, else the token_cmd of the profile named by --profile; ""
// when neither is given.
func mcpToken(ctx context.Context, f *mcpFlags, g *globalFlags) (string, error) {
	if f.tokenEnv != "" {
		v := os.Getenv(f.tokenEnv)
		if v == "" {
			return "", usageErrorf("--token-env %s: the variable is not set or empty", sanitize.Line(f.tokenEnv))
		}
		return v, nil
	}
	if g.Profile == "" {
		return "", nil
	}
	path, explicit := g.ConfigFile, g.ConfigFile != ""
	if !explicit {
		p, err := config.DefaultPath()
		if err != nil {
			return "", usageErrorf("--profile %s: %v", sanitize.Line(g.Profile), err)
		}
		path = p
	}
	file, err := loadConfig(path, explicit)
	if err != nil {
		return "", err
	}
	p, err := file.Lookup(g.Profile)
	if err != nil {
		return "", usageErrorf("--profile: %v", err)
	}
	return p.ResolveToken(ctx)
}

// loopbackAddr reports whether a listen address stays on this machine.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkBind refuses to serve beyond loopback without a token unless told to.
func checkBind(addr string, hasToken, insecure bool) error {
	if loopbackAddr(addr) || hasToken || insecure {
		return nil
	}
	return usageErrorf("--http %s listens beyond loopback: give a token (--token-env VAR or a profile's token_cmd), or --insecure-bind", sanitize.Line(addr))
}

// requireBearer answers 401 to a request without "Authorization: Bearer
// TOKEN" (compared in constant time); no token, no check.
func requireBearer(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="dpe-tui mcp"`)
			http.Error(w, "401 unauthorized: a bearer token is required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// capSessions refuses a request that would open a session (one without
// Mcp-Session-Id) while max sessions are open: 503, until one ends or
// expires (--session-timeout). 40,000 sessions once held 800 MB.
func capSessions(srv *mcp.Server, max int, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") == "" {
			n := 0
			for range srv.Sessions() {
				n++
			}
			if n >= max {
				w.Header().Set("Retry-After", "10")
				http.Error(w, fmt.Sprintf("503 too many sessions: %d open, the limit (--max-sessions)", n), http.StatusServiceUnavailable)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
