package computer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// ServerStatus is where one configured MCP server is in its start-up.
type ServerStatus string

// The states a configured server goes through: starting, then ready or
// failed; a disabled server is never started.
const (
	ServerStarting ServerStatus = "starting"
	ServerReady    ServerStatus = "ready"
	ServerFailed   ServerStatus = "failed"
	ServerDisabled ServerStatus = "disabled"
)

// Bounds of what a failed server's state carries: its stderr is the
// peer's text, kept short and with secrets masked; it is still untrusted
// and must be sanitized where shown.
const (
	maxStderrTail  = 2048
	maxStateErrLen = 500
	// DefaultStartParallel is how many servers StartServers starts at once.
	DefaultStartParallel = 4
)

// TypeInProcess is ServerState.Type of a server served in this process
// (AddInProcess, such as a folder's library).
const TypeInProcess = "in-process"

// ServerState is one server's row in the servers screen.
type ServerState struct {
	Name   string
	Type   string // stdio, streamable, sse or TypeInProcess
	Status ServerStatus
	// Err is why a failed server failed, one line, secrets masked.
	Err string
	// StderrTail is the end of a failed stdio server's stderr, secrets
	// masked. Untrusted: sanitize it where it is shown.
	StderrTail string
	// NoResources: the server is ready but has no resources capability,
	// so it lists nothing (its tools still work).
	NoResources bool
}

// ServerStates lists the state of every registered server in registration
// order. A server still starting under StartServers is not registered yet:
// Startup.States has it.
func (c *Computer) ServerStates() []ServerState {
	ss := c.snapshot()
	out := make([]ServerState, 0, len(ss))
	for _, s := range ss {
		out = append(out, s.state())
	}
	return out
}

func (s *mcpServer) state() ServerState {
	st := ServerState{Name: s.cfg.Name, Type: s.cfg.Type}
	if s.raw != nil {
		// Its config says stdio (the wire has no other word for it), but
		// no process runs: the server is served in this process.
		st.Type = TypeInProcess
	}
	switch {
	case s.start.err != "":
		st.Status, st.Err = ServerFailed, s.start.err
		if s.start.tail != nil {
			st.StderrTail = s.start.tail.String()
		}
	case s.cfg.Disabled:
		st.Status = ServerDisabled
	default:
		st.Status = ServerReady
		st.NoResources = !s.hasResources()
	}
	return st
}

// startInfo is how a server's start went, when it failed.
type startInfo struct {
	err  string      // one line, secrets masked
	tail *tailBuffer // stdio stderr; nil otherwise
}

// startFailed is get_resources' answer for a server that failed to start:
// 4014 like a disabled one (it is configured but not running), saying why.
// The last line of its stderr comes along: that is usually the reason.
func startFailed(s *mcpServer) *protocol.Error {
	msg := fmt.Sprintf("MCP server %s failed to start: %s", quoteTrunc(s.cfg.Name), s.start.err)
	if s.start.tail != nil {
		if tail := s.start.tail.String(); tail != "" {
			lines := strings.Split(tail, "\n")
			msg += " (stderr: " + oneLine(lines[len(lines)-1], 200) + ")"
		}
	}
	return &protocol.Error{Code: protocol.CodeMCPServerNotFound, Message: msg, MCPServerName: s.cfg.Name}
}

// StartupOptions bound StartServers.
type StartupOptions struct {
	// Parallel is how many servers start at once; default
	// DefaultStartParallel.
	Parallel int
}

// Startup is a set of servers starting in the background.
type Startup struct {
	mu      sync.Mutex
	states  []ServerState // config order
	changed chan struct{} // one pending notice, coalesced
	done    chan struct{}
}

// States is every configured server's state, in config order.
func (u *Startup) States() []ServerState {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]ServerState(nil), u.states...)
}

// Changed receives (coalesced) after any state changed: read States then.
func (u *Startup) Changed() <-chan struct{} { return u.changed }

// Done is closed once every server is ready, failed or disabled.
func (u *Startup) Done() <-chan struct{} { return u.done }

// Wait returns when every server has left "starting", or with ctx's error.
func (u *Startup) Wait(ctx context.Context) error {
	select {
	case <-u.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (u *Startup) set(i int, st ServerState) {
	u.mu.Lock()
	u.states[i] = st
	u.mu.Unlock()
	select {
	case u.changed <- struct{}{}:
	default:
	}
}

// StartServers starts cfgs in the background, at most opt.Parallel at
// once, and returns at once. Each server registers when it is ready, so a
// slow one holds up nobody (registration order, and so which server wins
// a dpe host two of them list, is the order they become ready). One that
// fails to start, or whose placeholders cannot be filled, is registered
// as a failed row: get_config lists it and get_resources answers why. It
// never fails the others. Close of the Computer stops what is starting.
func (c *Computer) StartServers(cfgs []protocol.MCPServerConfig, opt StartupOptions) *Startup {
	par := opt.Parallel
	if par <= 0 {
		par = DefaultStartParallel
	}
	u := &Startup{states: make([]ServerState, len(cfgs)), changed: make(chan struct{}, 1), done: make(chan struct{})}
	for i, cfg := range cfgs {
		st := ServerStarting
		if cfg.Disabled {
			st = ServerDisabled
		}
		u.states[i] = ServerState{Name: cfg.Name, Type: cfg.Type, Status: st}
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-c.ctx.Done():
				u.set(i, ServerState{Name: cfg.Name, Type: cfg.Type, Status: ServerFailed, Err: "computer closed"})
				return
			}
			defer func() { <-sem }()
			u.set(i, c.startOne(c.ctx, cfg))
		}()
	}
	go func() {
		wg.Wait()
		close(u.done)
	}()
	return u
}

// startOne starts and registers one server and says how that went.
func (c *Computer) startOne(ctx context.Context, cfg protocol.MCPServerConfig) ServerState {
	failed := func(err error, secrets []string, tail *tailBuffer) ServerState {
		msg := maskValues(oneLine(trimServerPrefix(err.Error(), cfg.Name), maxStateErrLen), secrets)
		if errors.Is(err, errNameTaken) {
			// The name belongs to a server already registered: it keeps
			// its row, this one has only its state.
			return ServerState{Name: cfg.Name, Type: cfg.Type, Status: ServerFailed, Err: msg}
		}
		s := newMCPServer(cfg)
		if tail != nil {
			tail.setSecrets(secrets)
		}
		s.start = startInfo{err: msg, tail: tail}
		if rerr := c.register(ctx, s); rerr != nil {
			c.log.Debug("failed server not registered", "mcp_server", cfg.Name, "err", rerr)
		}
		c.log.Warn("mcp server failed to start", "mcp_server", cfg.Name, "err", msg)
		return s.state()
	}
	if err := ValidateServerConfig(cfg); err != nil {
		return failed(err, nil, nil)
	}
	if err := c.checkNewName(cfg.Name); err != nil {
		return failed(fmt.Errorf("%w: %w", errNameTaken, err), nil, nil)
	}
	s := newMCPServer(cfg)
	if cfg.Disabled {
		if err := c.register(ctx, s); err != nil {
			return failed(err, nil, nil)
		}
		return s.state()
	}
	run, secrets, err := resolvePlaceholders(cfg, c.opt.Inputs, os.LookupEnv)
	if err != nil {
		return failed(err, nil, nil)
	}
	secrets = append(secrets, configSecrets(run)...)
	t, timeout, err := c.transportFor(run)
	if err != nil {
		return failed(err, secrets, nil)
	}
	var tail *tailBuffer
	if ct, ok := t.(*mcp.CommandTransport); ok {
		tail = newTailBuffer(maxStderrTail)
		if ct.Command.Stderr != nil {
			ct.Command.Stderr = io.MultiWriter(ct.Command.Stderr, tail)
		} else {
			ct.Command.Stderr = tail
		}
	}
	s.timeout = timeout
	if err := c.connect(ctx, s, t, nil); err != nil {
		// A process that died says why on stderr; give its last
		// writes a moment to arrive before the tail is kept.
		tail.settle(250 * time.Millisecond)
		return failed(err, secrets, tail)
	}
	if err := c.register(ctx, s); err != nil {
		return failed(err, secrets, tail)
	}
	return s.state()
}

var errNameTaken = errors.New("name taken")

// trimServerPrefix drops the leading `mcp server "name": ` of an error: the
// row already names the server.
func trimServerPrefix(msg, name string) string {
	msg = strings.TrimPrefix(msg, errNameTaken.Error()+": ")
	return strings.TrimPrefix(msg, fmt.Sprintf("mcp server %q: ", name))
}

// configSecrets are the values of a resolved config that are secrets
// wherever shown: env and header values.
func configSecrets(cfg protocol.MCPServerConfig) []string {
	var out []string
	var p struct {
		Env     map[string]string `json:"env"`
		Headers map[string]any    `json:"headers"`
	}
	if err := json.Unmarshal(cfg.ServerParameters, &p); err != nil {
		return nil
	}
	for _, v := range p.Env {
		out = append(out, v)
	}
	for _, v := range p.Headers {
		if s, ok := v.(string); ok {
			out = append(out, s)
			// "Bearer x": the token alone may appear too.
			if _, tok, ok := strings.Cut(s, " "); ok {
				out = append(out, tok)
			}
		}
	}
	return out
}

// maskValues replaces every secret value in s with protocol.Masked. Very
// short values are left alone: masking "1" would mangle every number.
func maskValues(s string, secrets []string) string {
	for _, v := range secrets {
		if len(v) >= 4 {
			s = strings.ReplaceAll(s, v, protocol.Masked)
		}
	}
	return s
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	b       []byte
	secrets []string
	wrote   chan struct{} // closed on the first write
	once    sync.Once
}

func newTailBuffer(max int) *tailBuffer {
	return &tailBuffer{max: max, wrote: make(chan struct{})}
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	t.mu.Unlock()
	t.once.Do(func() { close(t.wrote) })
	return len(p), nil
}

// settle waits up to d for a first write when none came yet.
func (t *tailBuffer) settle(d time.Duration) {
	if t == nil {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.wrote:
	case <-timer.C:
	}
}

// setSecrets names the values String masks: the process may go on
// writing after the failure is recorded.
func (t *tailBuffer) setSecrets(secrets []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.secrets = secrets
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(maskValues(string(t.b), t.secrets))
}
