package computer

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/skills"
)

// Defaults for Options.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultRequestTimeout = 30 * time.Second
)

// Options configure a Computer. The zero value of every optional field is
// useful.
type Options struct {
	// URL of the SMCP server, e.g. http://127.0.0.1:7800. Any query it
	// carries is kept; a2c_version is set to Version.
	URL string
	// URLs are further nodes serving the same office, tried in order after
	// URL when one fails (at Start or on a later reconnect); the office is
	// re-joined on the node that answers (sioconn.Options.URLs).
	URLs []string
	// Version is the A2C-SMCP version spoken (a2c_version); default
	// protocol.Version. From 0.3 the role travels in server:join_office
	// only and client:get_dpe is not answered (0.3 removed it).
	Version string
	// Office to join and Name to join it under.
	Office, Name string
	// APIKey, when set, is sent as the x-api-key header and auth.api_key.
	APIKey string
	// Path is the engine.io path; default protocol.DefaultPath.
	Path string
	// Resolver is the DPE resolver hook; nil answers get_dpe with 4011.
	Resolver Resolver
	// Logger receives WARNs (host conflicts, dropped URI parts) and
	// connection events; nil discards.
	Logger *slog.Logger
	// ConnectTimeout bounds connecting and joining in Start, and each
	// reconnect attempt; default DefaultConnectTimeout.
	ConnectTimeout time.Duration

	// RequestTimeout is the default budget for one MCP call (and for a
	// client:* request without its own timeout); default
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	// Skills answers the skill channel (get_skills, get_skill, get_blob);
	// nil: no skills.
	Skills *skills.Folder
	// Inputs are the config's input definitions, shown by get_config.
	Inputs []protocol.MCPServerInput
}

// Computer is an A2C-SMCP Computer. Create it with New, add MCP servers,
// then Start it; servers may also be added after Start.
type Computer struct {
	opt Options
	log *slog.Logger
	// pagedBytes is the run size asked of paged reads; 0: PagedMessageBytes
	// (tests use smaller runs).
	pagedBytes int
	// aheadIdle is how long a page fetched ahead waits for its request;
	// 0: aheadIdle (tests use shorter waits).
	aheadIdle time.Duration

	ctx    context.Context // cancelled by Close; parent of handler work
	cancel context.CancelFunc

	mu      sync.Mutex
	servers []*mcpServer
	warned  map[string]bool
	closed  bool
	conn    *conn // nil before Start
}

// New makes a Computer. It does no I/O.
func New(opt Options) *Computer {
	if opt.Path == "" {
		opt.Path = protocol.DefaultPath
	}
	if opt.ConnectTimeout <= 0 {
		opt.ConnectTimeout = DefaultConnectTimeout
	}
	if opt.RequestTimeout <= 0 {
		opt.RequestTimeout = DefaultRequestTimeout
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("computer", opt.Name)
	ctx, cancel := context.WithCancel(context.Background())
	return &Computer{opt: opt, log: log, ctx: ctx, cancel: cancel, warned: map[string]bool{}}
}

// Start connects to the SMCP server and joins the office. It returns once
// the join is acknowledged, or with an error: connect failure or timeout,
// connect_error from the server (e.g. a bad API key), or a refused join.
// After Start, the connection reconnects with backoff and re-joins the
// office on every connect.
func (c *Computer) Start(ctx context.Context) error {
	if c.opt.URL == "" || c.opt.Office == "" || c.opt.Name == "" {
		return errors.New("computer: URL, Office and Name are required")
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errors.New("computer is closed")
	}
	if c.conn != nil {
		c.mu.Unlock()
		return errors.New("computer already started")
	}
	cn, err := newConn(c)
	if err != nil {
		c.mu.Unlock()
		return err
	}
	c.conn = cn
	c.mu.Unlock()
	if err := cn.start(ctx); err != nil {
		cn.close()
		c.mu.Lock()
		c.conn = nil
		c.mu.Unlock()
		return err
	}
	return nil
}

// Close leaves the office, disconnects and stops every MCP server.
func (c *Computer) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	cn := c.conn
	servers := c.servers
	c.mu.Unlock()
	c.cancel()
	if cn != nil {
		cn.close()
	}
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.close()
		}()
	}
	wg.Wait()
	return nil
}

// configChanged tells the office the config changed (server:update_config),
// now if joined, else after the next join.
func (c *Computer) configChanged() {
	c.mu.Lock()
	cn := c.conn
	c.mu.Unlock()
	if cn != nil {
		cn.notifyConfig()
	}
}

// callContext bounds one MCP call: timeout if positive, else the Computer's
// RequestTimeout; cancelled by Close too.
func (c *Computer) callContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		timeout = c.opt.RequestTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	stop := context.AfterFunc(c.ctx, cancel)
	return ctx, func() {
		stop()
		cancel()
	}
}
