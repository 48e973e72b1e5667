// Package stack wires the other side of the wire — SMCP server, computers
// and library MCP servers — into one in-process deployment. The embedded
// demo (`dpe-tui` with no arguments), `dpe-tui serve` and the end-to-end
// tests all start the same stack, so what a user demos is what CI tests.
package stack

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/computer"
	"github.com/dpe-tui/dpe-tui/finder"
	"github.com/dpe-tui/dpe-tui/internal/localfile"
	"github.com/dpe-tui/dpe-tui/library"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/server"
	"github.com/dpe-tui/dpe-tui/skills"
)

// Demo layout (docs/browser.md, the demo office): two computers; alpha has two
// servers, one of which lists ≥ 250 resources so paging takes ≥ 5 cursor
// pages at the library's page size of 50.
const (
	ComputerAlpha = "alpha"
	ComputerBeta  = "beta"

	ServerLibrary = "library"
	ServerNotes   = "notes"
	ServerArchive = "archive"
	ServerBench   = "bench"

	HostLibrary = "io.github.dpetui.library"
	HostNotes   = "io.github.dpetui.notes"
	HostArchive = "io.github.dpetui.archive"
	HostBench   = "io.github.dpetui.bench"

	NotesCount = 260
	PageSize   = 50
)

// Options configures a stack. The zero value is the embedded demo on a free
// loopback port with the http resolver.
type Options struct {
	Addr string // listen address; default 127.0.0.1:0
	// A2CVersion is the A2C-SMCP version the server and the computers
	// speak (0.2, 0.3 or 0.4 line); default protocol.Version.
	A2CVersion string
	Office     string // default "demo"
	APIKey     string // required from clients when set
	DocsDir    string // serve this folder as the library instead of the corpus
	// SkillsDir is a folder of skill folders computer alpha serves to the
	// skill channel; empty: the demo skills (SkillDPEReview, SkillPDFTriage).
	SkillsDir string
	MCPConfig string // extra MCP servers for computer alpha
	Resolver  string // "http" (default), "file" or "s3"
	CacheDir  string // file resolver cache; default a temp dir removed on Close
	// S3 configures the s3 resolver (endpoint, bucket, prefix, presign
	// expiry; credentials come from the AWS_* environment variables).
	S3 computer.S3ResolverOptions
	// ResolverTTL overrides the http resolver's URL lifetime (tests of expiry).
	ResolverTTL time.Duration
	// Now overrides the clock of the http resolver (tests of expiry).
	Now func() time.Time
	// BenchResources > 0 adds server "bench" to alpha listing that many
	// generated resources, BenchPageSize (default 100) per cursor page
	// (docs/performance.md, P3).
	BenchResources int
	BenchPageSize  int
	// WrapResolver, when set, wraps the resolver every computer uses:
	// tests inject faults (slow, failing, lying resolvers) through it.
	WrapResolver func(computer.Resolver) computer.Resolver
	// Limits of the SMCP server (server.Options); zero picks its defaults.
	MaxPendingPerAgent int
	MaxRequestTimeout  time.Duration
	MaxMessageBytes    int64
	// ComputerRequestTimeout is each demo computer's budget for one MCP
	// call (computer.Options.RequestTimeout); zero picks its default.
	ComputerRequestTimeout time.Duration
	// Redis makes the server one node of a cluster (server.Options.Redis);
	// NodeTTL is its heartbeat expiry (server.Options.NodeTTL).
	Redis   string
	NodeTTL time.Duration
	// ClusterSecret and InsecureCluster: server.Options.
	ClusterSecret   string
	InsecureCluster bool
	// NoComputers runs only the server node, without the demo computers.
	NoComputers bool
	Logger      *slog.Logger
	// FinderDir keeps the library's Finder index there; empty: under the
	// XDG cache dir for DocsDir, in memory for the embedded corpus.
	FinderDir string
	// ConvertTimeout, FindTimeout and FindMaxExpansion are the
	// libraries' DocsOptions of the same names.
	ConvertTimeout, FindTimeout time.Duration
	FindMaxExpansion            int
	// Notice is told the libraries' converter notices (DocsOptions.Notice).
	Notice func(string)
	// NoFinder names demo computers (ComputerAlpha, ComputerBeta) whose
	// library is served without Finder: an office where one computer
	// cannot search.
	NoFinder []string
	// HoldFinder, when set, runs before every Finder tool call (MCP
	// tools/call) on a demo computer, with that computer's name, and the
	// call waits for it: a test makes one computer's Finder slow or
	// silent while the computer and the server in between are the real
	// ones. It must return when ctx ends (the call's own bound); an error
	// fails the call.
	HoldFinder func(ctx context.Context, computer string) error
}

// Stack is a running deployment.
type Stack struct {
	URL       string
	Office    string
	Server    *server.Server
	Computers []*computer.Computer
	HTTP      *computer.HTTPResolver // nil with the file resolver

	names   []string
	closers []func() error
	key     []byte
	local   *Local // set by StartLocal
	// index starts the demo Finders' indexing (nil without the demo
	// computers).
	index *indexStart
}

// OriginKey is the secret this stack's computers tag their get_dpe answers
// with (client.OriginTag under client.OriginAnnotation). An agent in the
// same process passes it as client.Options.OwnComputerKey: then, and only
// then, it accepts file:// access URIs from these computers. Any local
// process can join a loopback office under any free name, so names and
// the server's address prove nothing; a tag made with this key does.
func (s *Stack) OriginKey() []byte { return append([]byte(nil), s.key...) }

// tagOrigin wraps r so every answer of computer name carries its origin tag.
func (s *Stack) tagOrigin(name string, r computer.Resolver) computer.Resolver {
	return computer.ResolverFunc(func(ctx context.Context, res protocol.A2CResource, contents computer.Contents, hint computer.Hint) (protocol.A2CResource, error) {
		out, err := r.Resolve(ctx, res, contents, hint)
		if err != nil {
			return out, err
		}
		ann := map[string]any{}
		if len(out.Annotations) > 0 {
			_ = json.Unmarshal(out.Annotations, &ann)
			if ann == nil {
				ann = map[string]any{}
			}
		}
		ann[client.OriginAnnotation] = client.OriginTag(s.key, name, out.URI)
		b, err := json.Marshal(ann)
		if err != nil {
			return out, err
		}
		out.Annotations = b
		return out, nil
	})
}

// ComputerNames lists the computers in join order.
func (s *Stack) ComputerNames() []string { return append([]string(nil), s.names...) }

// Start brings the stack up and returns once every computer has joined.
func Start(ctx context.Context, opt Options) (_ *Stack, err error) {
	if opt.Addr == "" {
		opt.Addr = "127.0.0.1:0"
	}
	if opt.Office == "" {
		opt.Office = "demo"
	}
	if opt.Resolver == "" {
		opt.Resolver = "http"
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	st := &Stack{Office: opt.Office, key: make([]byte, 32)}
	if _, err := rand.Read(st.key); err != nil {
		return nil, fmt.Errorf("origin key: %w", err)
	}
	defer func() {
		if err != nil {
			st.Close()
		}
	}()

	srv, err := server.New(server.Options{Version: opt.A2CVersion, APIKey: opt.APIKey, Logger: log.With("component", "server"),
		MaxPendingPerAgent: opt.MaxPendingPerAgent, MaxRequestTimeout: opt.MaxRequestTimeout, MaxMessageBytes: opt.MaxMessageBytes,
		Redis: opt.Redis, NodeTTL: opt.NodeTTL, ClusterSecret: opt.ClusterSecret, InsecureCluster: opt.InsecureCluster})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	ln, err := net.Listen("tcp", opt.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", opt.Addr, err)
	}
	st.Server = srv
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, net.ErrClosed) {
			log.Debug("server stopped", "err", err)
		}
	}()
	st.closers = append(st.closers, srv.Close)
	st.URL = "http://" + ln.Addr().String()
	if opt.NoComputers {
		return st, nil
	}

	resolver, err := st.newResolver(opt, log)
	if err != nil {
		return nil, err
	}
	if opt.WrapResolver != nil {
		resolver = opt.WrapResolver(resolver)
	}

	// alpha: the library (corpus or --docs) and a big generated notes server.
	// No DocsDir: the embedded corpus plus its generated documents. A
	// folder is opened by the library with os.OpenRoot (library.Options.Dir).
	if opt.DocsDir != "" {
		if err := localfile.Dir(opt.DocsDir); err != nil {
			return nil, fmt.Errorf("--docs %w", err)
		}
	}
	// The config file is read first: its inputs belong to alpha, whose
	// get_config shows them.
	var (
		extra  []protocol.MCPServerConfig
		inputs []protocol.MCPServerInput
	)
	if opt.MCPConfig != "" {
		if extra, inputs, err = LoadMCPConfig(opt.MCPConfig); err != nil {
			return nil, fmt.Errorf("--mcp-config: %w", err)
		}
	}
	sk, cleanup, err := openSkills(opt.SkillsDir, log)
	if err != nil {
		return nil, err
	}
	st.closers = append(st.closers, cleanup)
	alpha := st.newComputer(opt, ComputerAlpha, resolver, log, inputs, sk)
	// The library and the archive carry Finder (find, list_documents);
	// one per computer, since tool_call routes a tool name to one server.
	// They index at low priority (the index shares the CPU with every
	// request the demo serves), from the first tool call or once the
	// libraries have had no listing for finderDelay after the computers
	// joined (indexStart): a headless command (ls, get) is done before then
	// and pays nothing for it, nor does a long listing.
	up := make(chan struct{})
	startIndex := newIndexStart(sync.OnceFunc(func() { close(up) }))
	st.index = startIndex
	lib, err := AddDocs(ctx, alpha, DocsOptions{Dir: opt.DocsDir, FinderDir: opt.FinderDir, NoFinder: slices.Contains(opt.NoFinder, ComputerAlpha),
		Start: up, Logger: log, Middleware: append([]mcp.Middleware{indexOnCall(startIndex)}, holdFinder(opt, ComputerAlpha)...), ConvertTimeout: opt.ConvertTimeout, FindTimeout: opt.FindTimeout, FindMaxExpansion: opt.FindMaxExpansion, Notice: opt.Notice})
	if err != nil {
		return nil, err
	}
	st.closers = append(st.closers, lib.Close)
	if err := st.addLibrary(ctx, alpha, ServerNotes, library.Options{FS: emptyFS{}, Host: HostNotes, PageSize: PageSize, Name: ServerNotes, Generated: NotesCount}, indexOnCall(startIndex)); err != nil {
		return nil, err
	}
	if opt.BenchResources > 0 {
		ps := opt.BenchPageSize
		if ps <= 0 {
			ps = 100
		}
		if err := st.addLibrary(ctx, alpha, ServerBench, library.Options{FS: emptyFS{}, Host: HostBench, PageSize: ps, Name: ServerBench, Generated: opt.BenchResources}, indexOnCall(startIndex)); err != nil {
			return nil, err
		}
	}
	if opt.MCPConfig != "" {
		for _, cfg := range extra {
			if err := alpha.AddServer(ctx, cfg); err != nil {
				return nil, fmt.Errorf("--mcp-config server %s: %w", cfg.Name, err)
			}
		}
	}

	// beta: a small archive on another host, so the office has two computers
	// whose dpe hosts differ (exercises choosing a computer for a typed URI).
	beta := st.newComputer(opt, ComputerBeta, resolver, log, nil, nil)
	if err := st.addLibrary(ctx, beta, ServerArchive, library.Options{FS: emptyFS{}, Host: HostArchive, PageSize: PageSize, Name: ServerArchive, Generated: 12,
		Finder: finderFor(opt, ComputerBeta, &library.FinderOptions{Start: up, Background: true, Limits: finder.QueryLimits{Timeout: opt.FindTimeout, MaxExpansion: opt.FindMaxExpansion}})}, append([]mcp.Middleware{indexOnCall(startIndex)}, holdFinder(opt, ComputerBeta)...)...); err != nil {
		return nil, err
	}

	for _, c := range st.Computers {
		if err := c.Start(ctx); err != nil {
			return nil, fmt.Errorf("computer join: %w", err)
		}
	}
	startIndex.arm()
	st.closers = append(st.closers, func() error { startIndex.stop(); return nil })
	return st, nil
}

func (st *Stack) newResolver(opt Options, log *slog.Logger) (computer.Resolver, error) {
	switch opt.Resolver {
	case "file":
		dir := opt.CacheDir
		if dir == "" {
			d, err := os.MkdirTemp("", "dpe-tui-cache-")
			if err != nil {
				return nil, fmt.Errorf("file resolver cache: %w", err)
			}
			dir = d
			st.closers = append(st.closers, func() error { return os.RemoveAll(d) })
		}
		return computer.NewFileResolver(filepath.Clean(dir)), nil
	case "http":
		h, err := computer.NewHTTPResolver(computer.HTTPResolverOptions{TTL: opt.ResolverTTL, Now: opt.Now, Logger: log.With("component", "http-resolver")})
		if err != nil {
			return nil, fmt.Errorf("http resolver: %w", err)
		}
		st.HTTP = h
		st.closers = append(st.closers, h.Close)
		return h, nil
	case "s3":
		s3opt := opt.S3
		if s3opt.Logger == nil {
			s3opt.Logger = log.With("component", "s3-resolver")
		}
		r, err := computer.NewS3Resolver(context.Background(), s3opt) // bounded inside
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	return nil, fmt.Errorf("unknown resolver %q (want file, http or s3)", opt.Resolver)
}

func (st *Stack) newComputer(opt Options, name string, r computer.Resolver, log *slog.Logger, inputs []protocol.MCPServerInput, sk *skills.Folder) *computer.Computer {
	c := computer.New(computer.Options{
		URL: st.URL, Office: st.Office, Name: name, APIKey: opt.APIKey, Version: opt.A2CVersion, Skills: sk,
		Resolver: st.tagOrigin(name, r), Logger: log.With("component", "computer", "computer", name), Inputs: inputs,
		RequestTimeout: opt.ComputerRequestTimeout,
	})
	st.Computers = append(st.Computers, c)
	st.names = append(st.names, name)
	st.closers = append(st.closers, c.Close)
	return c
}

// finderFor is computer's Finder options, or nil when opt.NoFinder names it.
func finderFor(opt Options, computer string, f *library.FinderOptions) *library.FinderOptions {
	if slices.Contains(opt.NoFinder, computer) {
		return nil
	}
	return f
}

// finderDelay is how long the demo's Finders wait to index after the join,
// and after the last resources/list of a listing, when no tool call asks
// for them sooner; finderMaxDelay is the latest they start after the
// join, however long listings go on.
const (
	finderDelay    = 2 * time.Second
	finderMaxDelay = 30 * time.Second
)

// indexStart starts the demo Finders' indexing once: at the first tool
// call (find or list_documents cannot answer before it), else once the
// demo's libraries have had no resources/list for finderDelay. A listing
// of the 100,000-resource bench library pages for seconds; indexing
// beside it took a fifth of serve's CPU and made the listing's garbage
// collections mark the index too (docs/performance.md, P3).
type indexStart struct {
	start    func() // closes the Finders' Start channel; idempotent
	deadline time.Time

	mu      sync.Mutex
	t       *time.Timer
	started bool
}

func newIndexStart(start func()) *indexStart {
	is := &indexStart{start: start, deadline: time.Now().Add(finderMaxDelay)}
	return is
}

// arm starts the quiet wait (after the join).
func (is *indexStart) arm() {
	is.mu.Lock()
	defer is.mu.Unlock()
	if !is.started && is.t == nil {
		is.t = time.AfterFunc(finderDelay, is.now)
	}
}

// now starts indexing.
func (is *indexStart) now() {
	is.mu.Lock()
	is.started = true
	if is.t != nil {
		is.t.Stop()
	}
	is.mu.Unlock()
	is.start()
}

// listed pushes the start back to finderDelay from now, but not past the
// deadline.
func (is *indexStart) listed() {
	is.mu.Lock()
	defer is.mu.Unlock()
	if is.started || is.t == nil {
		return
	}
	is.t.Reset(max(min(finderDelay, time.Until(is.deadline)), 0))
}

// stop cancels a start not yet made (the stack is closing).
func (is *indexStart) stop() {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.started = true
	if is.t != nil {
		is.t.Stop()
	}
}

// indexOnCall is the middleware of every demo library: a tool call starts
// the Finders' indexing, a resources/list defers it.
func indexOnCall(is *indexStart) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "tools/call":
				is.now()
			case "resources/list":
				is.listed()
			}
			return next(ctx, method, req)
		}
	}
}

// holdFinder is the middleware that makes computer's tool calls wait for
// opt.HoldFinder (none when it is unset).
func holdFinder(opt Options, computer string) []mcp.Middleware {
	if opt.HoldFinder == nil {
		return nil
	}
	hold := opt.HoldFinder
	return []mcp.Middleware{func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				if err := hold(ctx, computer); err != nil {
					return nil, err
				}
			}
			return next(ctx, method, req)
		}
	}}
}

// addLibrary opens a library (and its Finder, closed with the stack);
// mw wraps its MCP server's incoming requests.
func (st *Stack) addLibrary(ctx context.Context, c *computer.Computer, name string, opt library.Options, mw ...mcp.Middleware) error {
	_, err := st.openLibrary(ctx, c, name, opt, mw...)
	return err
}

// openLibrary is addLibrary returning the library (a folder's skipped
// files are asked of it).
func (st *Stack) openLibrary(ctx context.Context, c *computer.Computer, name string, opt library.Options, mw ...mcp.Middleware) (*library.Library, error) {
	lib, err := library.Open(opt)
	if err != nil {
		return nil, fmt.Errorf("library %s: %w", name, err)
	}
	st.closers = append(st.closers, lib.Close)
	srv := lib.Server()
	if len(mw) > 0 {
		srv.AddReceivingMiddleware(mw...)
	}
	cfg := protocol.MCPServerConfig{
		Name: name, Type: protocol.ServerTypeStdio, ForbiddenTools: []string{}, ToolMeta: map[string]protocol.ToolMeta{},
		ServerParameters: []byte(`{"command":"(in-process)","args":[],"env":null,"cwd":null,"encoding":"utf-8","encoding_error_handler":"strict"}`),
	}
	if err := c.AddInProcess(ctx, cfg, srv); err != nil {
		return nil, fmt.Errorf("add %s: %w", name, err)
	}
	return lib, nil
}

// Close stops everything in reverse order of start.
func (st *Stack) Close() error {
	var errs []error
	for i := len(st.closers) - 1; i >= 0; i-- {
		if err := st.closers[i](); err != nil {
			errs = append(errs, err)
		}
	}
	st.closers = nil
	return errors.Join(errs...)
}
