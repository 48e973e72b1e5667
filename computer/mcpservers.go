package computer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/internal/version"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// Limits of the host scan done when a server registers: enough for large
// libraries, bounded so a hostile server cannot keep registration busy.
const (
	maxScanPages       = 1000
	maxCachedResources = 20000
)

// mcpServer is one registered MCP server.
type mcpServer struct {
	cfg   protocol.MCPServerConfig
	order int
	// session is nil for disabled servers, which are registered (they show
	// in get_config) but never started, and for servers that failed to.
	session *mcp.ClientSession
	// start says why a server failed to start (serverstate.go): its row
	// stays in get_config and get_resources answers with it.
	start startInfo
	caps  *mcp.ServerCapabilities
	// timeout is the per-request timeout from the config (streamable/sse);
	// zero means the Computer's RequestTimeout.
	timeout time.Duration
	// stop releases what the transport needs besides the session
	// (the in-process server side).
	stop func()

	mu sync.Mutex
	// hosts are the dpe:// hosts seen in this server's resources/list.
	hosts map[string]bool
	// scanned is true once a full resources/list walk succeeded.
	scanned bool
	// resources caches resources/list entries by URI: get_dpe builds the
	// resolver's A2CResource input from them (dpe.md §Computer 处理流程 step 7).
	// They are kept as listed (go-sdk's decoding, or the raw JSON of an
	// in-process server) and converted to the wire shape only when get_dpe
	// asks: a listing forwards raw JSON and converts none.
	resources map[string]listedResource
	// raw keeps the raw results of resources/list calls on transports that
	// can (in-process); nil for the others.
	raw *rawPages
	// ahead is the get_resources page being fetched ahead of its request
	// (ahead.go); nil when none.
	ahead *aheadPage
}

func newMCPServer(cfg protocol.MCPServerConfig) *mcpServer {
	return &mcpServer{cfg: cfg, order: -1}
}

// registered reports whether s is in the Computer's list; hosts of servers
// still registering are indexed when registration completes.
func (s *mcpServer) registered() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order >= 0
}

func (s *mcpServer) hasResources() bool { return s.caps != nil && s.caps.Resources != nil }

func (s *mcpServer) hasTools() bool { return s.caps != nil && s.caps.Tools != nil }

func (s *mcpServer) hasHost(h string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hosts[h]
}

// listedResource is one cached resources/list entry: decoded by go-sdk
// (r), or raw JSON decoded as go-sdk would when asked for.
type listedResource struct {
	r   *mcp.Resource
	raw json.RawMessage
}

func (s *mcpServer) cachedResource(uri string) (protocol.Resource, bool) {
	s.mu.Lock()
	lr, ok := s.resources[uri]
	s.mu.Unlock()
	if !ok {
		return protocol.Resource{}, false
	}
	r := lr.r
	if r == nil {
		r = new(mcp.Resource)
		if json.Unmarshal(lr.raw, r) != nil {
			return protocol.Resource{}, false
		}
	}
	pr, err := wireResource(r)
	return pr, err == nil
}

// remember caches a page's resources and returns the dpe hosts not seen
// before.
func (s *mcpServer) remember(p resourcePage) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hosts == nil {
		s.hosts = map[string]bool{}
		s.resources = map[string]listedResource{}
	}
	var fresh []string
	// seen is "dpe://" and the authority of the last uri whose host is
	// known: a uri with the same authority has that host or none, so it
	// brings no fresh host and is not parsed (a page's uris share one).
	seen := ""
	keep := func(uri string, lr listedResource) {
		if _, ok := s.resources[uri]; ok || len(s.resources) < maxCachedResources {
			s.resources[uri] = lr
		}
		if seen != "" && strings.HasPrefix(uri, seen) {
			return
		}
		h := hostOf(uri)
		if h == "" {
			return
		}
		seen = authorityPrefix(uri)
		if !s.hosts[h] {
			s.hosts[h] = true
			fresh = append(fresh, h)
		}
	}
	if p.rawPage != nil {
		for _, e := range p.entries {
			keep(e.uri, listedResource{raw: e.raw})
		}
		return fresh
	}
	for _, r := range p.list {
		keep(r.URI, listedResource{r: r})
	}
	return fresh
}

func (s *mcpServer) close() {
	s.dropAnyAhead()
	if s.session != nil {
		_ = s.session.Close()
	}
	if s.stop != nil {
		s.stop()
	}
}

// AddServer starts an MCP server from its SMCP config (stdio, streamable or
// sse) and registers it after the servers added before it. A disabled server
// is registered but not started. After Start, the office is told with
// server:update_config.
func (c *Computer) AddServer(ctx context.Context, cfg protocol.MCPServerConfig) error {
	if err := ValidateServerConfig(cfg); err != nil {
		return err
	}
	if err := c.checkNewName(cfg.Name); err != nil {
		return err
	}
	s := newMCPServer(cfg)
	if !cfg.Disabled {
		run, err := resolveInputs(cfg, c.opt.Inputs)
		if err != nil {
			return err
		}
		t, timeout, err := c.transportFor(run)
		if err != nil {
			return fmt.Errorf("mcp server %q: %w", cfg.Name, err)
		}
		s.timeout = timeout
		if err := c.connect(ctx, s, t, nil); err != nil {
			return err
		}
	}
	return c.register(ctx, s)
}

// AddInProcess registers an in-process go-sdk server (such as the library)
// over an in-memory transport. cfg.Type and cfg.ServerParameters are shown by
// get_config as given; when empty they default to type "stdio" with command
// "(in-process)" so that agents that type-check configs can still parse the
// entry.
func (c *Computer) AddInProcess(ctx context.Context, cfg protocol.MCPServerConfig, srv *mcp.Server) error {
	if strings.TrimSpace(cfg.Name) == "" {
		return &ConfigError{Field: "name", Reason: "missing"}
	}
	if srv == nil {
		return fmt.Errorf("mcp server %q: nil *mcp.Server", cfg.Name)
	}
	if cfg.Type == "" {
		cfg.Type = protocol.ServerTypeStdio
	}
	if len(cfg.ServerParameters) == 0 {
		cfg.ServerParameters = json.RawMessage(`{"command":"(in-process)","args":[],"env":null,"cwd":null}`)
	}
	if err := c.checkNewName(cfg.Name); err != nil {
		return err
	}
	s := newMCPServer(cfg)
	if !cfg.Disabled {
		serverT, clientT := inProcessTransports()
		// We own both ends: listings forward the server's raw JSON.
		s.raw = clientT.raw()
		// Like the client side (connect), the server session gets a
		// context that lives as long as the Computer, not the call.
		ss, err := srv.Connect(c.ctx, serverT, nil)
		if err != nil {
			return fmt.Errorf("mcp server %q: start in-process session: %w", cfg.Name, err)
		}
		s.stop = func() { _ = ss.Close() }
		if err := c.connect(ctx, s, clientT, inProcessSession()); err != nil {
			s.stop()
			return err
		}
	}
	return c.register(ctx, s)
}

func (c *Computer) checkNewName(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("computer is closed")
	}
	if c.serverByNameLocked(name) != nil {
		return &ConfigError{Server: name, Field: "name", Reason: "a server with this name is already registered"}
	}
	return nil
}

func (c *Computer) serverByNameLocked(name string) *mcpServer {
	for _, s := range c.servers {
		if s.cfg.Name == name {
			return s
		}
	}
	return nil
}

func (c *Computer) server(name string) *mcpServer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.serverByNameLocked(name)
}

func (c *Computer) snapshot() []*mcpServer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.servers)
}

// connect opens the MCP session and records the server's capabilities;
// opts nil is go-sdk's default (its latest protocol).
func (c *Computer) connect(ctx context.Context, s *mcpServer, t mcp.Transport, opts *mcp.ClientSessionOptions) error {
	// Version is the build's (the A2C-SMCP version is not MCP's business),
	// and the go-sdk logs its session trouble where the computer logs.
	client := mcp.NewClient(&mcp.Implementation{Name: "dpe-tui-computer", Version: version.Read().Short()}, &mcp.ClientOptions{
		Logger: c.log,
		// A changed list may bring new hosts: rescan on the next miss.
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			s.mu.Lock()
			s.scanned = false
			s.mu.Unlock()
			// A page fetched ahead may predate the change.
			s.dropAnyAhead()
		},
	})
	// The context given to Connect outlives the handshake: the SSE
	// transport ties its event stream to it. So it lives until the server is
	// closed, and the handshake is bounded separately.
	sessCtx, sessCancel := context.WithCancel(c.ctx)
	type result struct {
		sess *mcp.ClientSession
		err  error
	}
	done := make(chan result, 1)
	go func() {
		sess, err := client.Connect(sessCtx, t, opts)
		done <- result{sess, err}
	}()
	wctx, cancel := c.callContext(ctx, s.timeout)
	defer cancel()
	var r result
	select {
	case r = <-done:
	case <-wctx.Done():
		sessCancel()
		r = <-done
		if r.err == nil {
			_ = r.sess.Close()
		}
		r.err = fmt.Errorf("initialize: %w", wctx.Err())
	}
	if r.err != nil {
		sessCancel()
		return fmt.Errorf("mcp server %q: connect: %w", s.cfg.Name, r.err)
	}
	sess := r.sess
	prev := s.stop
	s.stop = func() {
		if prev != nil {
			prev()
		}
		sessCancel()
	}
	s.session = sess
	if ir := sess.InitializeResult(); ir != nil {
		s.caps = ir.Capabilities
	}
	if s.caps == nil {
		s.caps = &mcp.ServerCapabilities{}
	}
	return nil
}

// register appends s in registration order, indexes its dpe hosts and
// tells the office.
func (c *Computer) register(ctx context.Context, s *mcpServer) error {
	if s.session != nil && s.hasResources() {
		if err := c.scanHosts(ctx, s); err != nil {
			// Not fatal: the server still serves get_resources, and
			// get_dpe rescans on a host miss.
			c.log.Warn("mcp server resources/list failed; dpe hosts unknown for now",
				"mcp_server", s.cfg.Name, "err", err)
		}
	}
	c.mu.Lock()
	if c.closed || c.serverByNameLocked(s.cfg.Name) != nil {
		closed := c.closed
		c.mu.Unlock()
		s.close()
		if closed {
			return errors.New("computer is closed")
		}
		return &ConfigError{Server: s.cfg.Name, Field: "name", Reason: "a server with this name is already registered"}
	}
	s.mu.Lock()
	s.order = len(c.servers)
	s.mu.Unlock()
	c.servers = append(c.servers, s)
	c.mu.Unlock()

	s.mu.Lock()
	hosts := make([]string, 0, len(s.hosts))
	for h := range s.hosts {
		hosts = append(hosts, h)
	}
	s.mu.Unlock()
	slices.Sort(hosts)
	c.indexHosts(s, hosts)
	c.log.Info("mcp server registered", "mcp_server", s.cfg.Name, "type", s.cfg.Type,
		"disabled", s.cfg.Disabled, "dpe_hosts", hosts)
	c.configChanged()
	return nil
}

// scanHosts walks resources/list once to learn the server's dpe hosts.
func (c *Computer) scanHosts(ctx context.Context, s *mcpServer) error {
	cursor := ""
	for range maxScanPages {
		page, err := c.listResources(ctx, s, cursor, 0)
		if err != nil {
			return err
		}
		next := page.next
		if next == "" || next == cursor {
			s.mu.Lock()
			s.scanned = true
			s.mu.Unlock()
			return nil
		}
		cursor = next
	}
	return fmt.Errorf("more than %d resources/list pages", maxScanPages)
}

// resourcePage is one resources/list page: the raw page, when the
// transport kept the result (the in-process one), else list, what go-sdk
// decoded (nil entries left out).
type resourcePage struct {
	*rawPage
	list []*mcp.Resource
	next string
}

// listResources is one resources/list call, its results remembered for
// get_dpe and the host index.
func (c *Computer) listResources(ctx context.Context, s *mcpServer, cursor string, timeout time.Duration) (resourcePage, error) {
	page, err := c.fetchResources(ctx, s, cursor, timeout)
	if err != nil {
		return resourcePage{}, err
	}
	c.recordResources(s, page)
	return page, nil
}

// fetchResources is one resources/list call, nothing remembered: a page
// fetched ahead is remembered only once it is asked for.
func (c *Computer) fetchResources(ctx context.Context, s *mcpServer, cursor string, timeout time.Duration) (resourcePage, error) {
	if timeout <= 0 {
		timeout = s.timeout
	}
	cctx, cancel := c.callContext(ctx, timeout)
	defer cancel()
	var kept *rawResult
	if s.raw != nil {
		kept = &rawResult{}
		cctx = context.WithValue(cctx, rawResultKey{}, kept)
	}
	res, err := s.session.ListResources(cctx, &mcp.ListResourcesParams{Cursor: cursor})
	if err != nil {
		return resourcePage{}, err
	}
	var page resourcePage
	if raw := kept.get(); raw != nil {
		page = resourcePage{rawPage: raw, next: raw.next}
	} else {
		page = resourcePage{list: make([]*mcp.Resource, 0, len(res.Resources)), next: res.NextCursor}
		for _, r := range res.Resources {
			if r != nil {
				page.list = append(page.list, r)
			}
		}
	}
	return page, nil
}

// recordResources remembers a page's resources for get_dpe and indexes
// the dpe hosts it brings.
func (c *Computer) recordResources(s *mcpServer, page resourcePage) {
	if fresh := s.remember(page); len(fresh) > 0 && s.registered() {
		c.indexHosts(s, fresh)
	}
}

// wire is the page's resources in the wire shape, for a page without raw.
func (p resourcePage) wire() ([]protocol.Resource, error) {
	out := make([]protocol.Resource, 0, len(p.list))
	for _, r := range p.list {
		pr, err := wireResource(r)
		if err != nil {
			return nil, fmt.Errorf("resource %s: %w", quoteTrunc(r.URI), err)
		}
		out = append(out, pr)
	}
	return out, nil
}

// wireResource converts through JSON so that _meta and annotations reach
// the agent exactly as the go-sdk encodes them.
func wireResource(r *mcp.Resource) (protocol.Resource, error) {
	// Field by field rather than a JSON round trip of the whole resource:
	// listings are the hot path (docs/performance.md, P3). The JSON shape is the same:
	// MCP omits a zero size, nil annotations and empty _meta.
	pr := protocol.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MimeType: r.MIMEType}
	if r.Size != 0 {
		size := r.Size
		pr.Size = &size
	}
	if r.Annotations != nil {
		b, err := json.Marshal(r.Annotations)
		if err != nil {
			return protocol.Resource{}, err
		}
		pr.Annotations = b
	}
	if len(r.Meta) > 0 {
		b, err := json.Marshal(r.Meta)
		if err != nil {
			return protocol.Resource{}, err
		}
		pr.Meta = b
	}
	return pr, nil
}
