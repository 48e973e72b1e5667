package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/dpe-tui/dpe-tui/computer"
	"github.com/dpe-tui/dpe-tui/library"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// ComputerLocal is the computer that fronts the user's own MCP servers and
// folders (StartLocal).
const ComputerLocal = "local"

// LocalOptions configure StartLocal.
type LocalOptions struct {
	Office string // default "demo"
	// DocsDirs are folders served as in-process library servers, one per
	// folder, named after it.
	DocsDirs []string
	// MCPConfigs are config files (SMCP's MCPServerConfig shape or the
	// common mcpServers / VS Code shape, told apart by
	// computer.LoadConfigFile) whose servers the computer fronts.
	MCPConfigs []string
	// Parallel bounds how many servers start at once; default
	// computer.DefaultStartParallel.
	Parallel int
	Logger   *slog.Logger
	// FinderDir keeps the first folder's Finder index there; empty: the
	// XDG cache dir.
	FinderDir string
}

// Local is the user's own office: one computer, ComputerLocal, fronting
// the folders and MCP servers the user named, and nothing of the demo.
// The computer is in this process, so besides what A2C-SMCP offers it can
// read any resource (ReadResource) and tell how each server's start went
// (States).
type Local struct {
	comp    *computer.Computer
	startup *computer.Startup
}

// Local is the user's own office when the stack was started by
// StartLocal, else nil.
func (s *Stack) Local() *Local { return s.local }

// Computer is the name of the local computer.
func (l *Local) Computer() string { return ComputerLocal }

// States is every server's state: the folders first (ready from the
// start), then each configured server in config order (starting, ready,
// failed with its error and stderr tail, or disabled). Err and StderrTail
// are the servers' text: sanitize them where shown.
func (l *Local) States() []computer.ServerState {
	configured := l.startup.States()
	names := make(map[string]bool, len(configured))
	for _, s := range configured {
		names[s.Name] = true
	}
	var out []computer.ServerState
	for _, s := range l.comp.ServerStates() {
		if !names[s.Name] {
			out = append(out, s)
		}
	}
	return append(out, configured...)
}

// Changed receives (coalesced) whenever a server's state changed.
func (l *Local) Changed() <-chan struct{} { return l.startup.Changed() }

// Started is closed once no server is starting any more.
func (l *Local) Started() <-chan struct{} { return l.startup.Done() }

// Wait returns once no server is starting any more (each start is bounded
// by the computer's request timeout), or with ctx's error.
func (l *Local) Wait(ctx context.Context) error { return l.startup.Wait(ctx) }

// ReadResource reads a resource of any scheme with MCP resources/read on
// the local computer (server "" picks the server that lists it). It
// returns the server that answered. A2C-SMCP has no event for this, so a
// remote office cannot offer it.
func (l *Local) ReadResource(ctx context.Context, server, uri string) (string, []computer.ResourceContent, error) {
	return l.comp.ReadResource(ctx, server, uri)
}

// StartLocal starts an SMCP server on a free loopback port and computer
// ComputerLocal fronting opt's folders and MCP servers. Config files are
// read first, and a bad one fails the start; each server then starts in
// the background (computer.StartServers), so StartLocal returns once the
// computer has joined, and a server that fails is that server's row, not
// the office's failure. Folders are served in-process: no process starts
// for them.
func StartLocal(ctx context.Context, opt LocalOptions) (_ *Stack, err error) {
	if len(opt.DocsDirs) == 0 && len(opt.MCPConfigs) == 0 {
		return nil, errors.New("nothing to serve: no folder and no MCP config")
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	servers, inputs, err := loadConfigs(opt.MCPConfigs)
	if err != nil {
		return nil, err
	}
	for _, d := range opt.DocsDirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("--docs %s: not a directory", d)
		}
	}
	st, err := Start(ctx, Options{Office: opt.Office, Logger: log, NoComputers: true})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			st.Close()
		}
	}()
	resolver, err := st.newResolver(Options{Resolver: "http"}, log)
	if err != nil {
		return nil, err
	}
	comp := st.newComputer(Options{}, ComputerLocal, resolver, log, inputs)
	taken := map[string]bool{}
	for _, s := range servers {
		taken[s.Name] = true
	}
	for i, dir := range opt.DocsDirs {
		name := uniqueName(folderServerName(dir), taken)
		lo := library.Options{Dir: dir, Host: "local.docs." + name, PageSize: PageSize, Name: name,
			Logger: log.With("component", "library", "dir", dir)}
		// tool_call routes a tool name to one server, so one Finder per
		// computer: the first folder's.
		if i == 0 {
			lo.Finder = &library.FinderOptions{IndexDir: opt.FinderDir}
		}
		if err := st.addLibrary(ctx, comp, name, lo); err != nil {
			return nil, err
		}
	}
	if err := comp.Start(ctx); err != nil {
		return nil, fmt.Errorf("computer join: %w", err)
	}
	l := &Local{comp: comp, startup: comp.StartServers(servers, computer.StartupOptions{Parallel: opt.Parallel})}
	// Closing the computer stops what is still starting; then the
	// start-up goroutines are waited for, so nothing outlives Close.
	st.closers = append(st.closers, func() error {
		err := comp.Close()
		<-l.startup.Done()
		return err
	})
	st.local = l
	return st, nil
}

// loadConfigs reads every config file; server names must be unique
// across them, and so must input ids.
func loadConfigs(paths []string) ([]protocol.MCPServerConfig, []protocol.MCPServerInput, error) {
	var (
		servers []protocol.MCPServerConfig
		inputs  []protocol.MCPServerInput
	)
	serverFrom := map[string]string{}
	inputFrom := map[string]string{}
	for _, p := range paths {
		s, in, err := computer.LoadConfigFile(p)
		if err != nil {
			return nil, nil, fmt.Errorf("--mcp-config: %w", err)
		}
		for _, cfg := range s {
			if prev, ok := serverFrom[cfg.Name]; ok {
				return nil, nil, fmt.Errorf("--mcp-config: server %q is in both %s and %s", cfg.Name, prev, p)
			}
			serverFrom[cfg.Name] = p
			servers = append(servers, cfg)
		}
		for _, i := range in {
			if prev, ok := inputFrom[i.ID]; ok {
				return nil, nil, fmt.Errorf("--mcp-config: input %q is in both %s and %s", i.ID, prev, p)
			}
			inputFrom[i.ID] = p
			inputs = append(inputs, i)
		}
	}
	return servers, inputs, nil
}

// folderServerName is a server name (and dpe host label) for a folder: its
// base name, lower case, letters, digits and '-' only.
func folderServerName(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	base := strings.ToLower(filepath.Base(abs))
	var b strings.Builder
	for _, r := range base {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
		if b.Len() >= 40 {
			break
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "docs"
	}
	return name
}

func uniqueName(name string, taken map[string]bool) string {
	n := name
	for i := 2; taken[n]; i++ {
		n = fmt.Sprintf("%s-%d", name, i)
	}
	taken[n] = true
	return n
}
