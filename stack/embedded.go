package stack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/computer"
	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/finder"
	"github.com/dpe-tui/dpe-tui/internal/localfile"
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
	// ConvertTimeout, FindTimeout and FindMaxExpansion bound the folders'
	// conversions and Finder queries as DocsOptions of the same names do
	// for serve, computer and mcp; 0: their defaults.
	ConvertTimeout, FindTimeout time.Duration
	FindMaxExpansion            int
	// Notice is told the folders' converter notices (library.Options.Notice).
	Notice func(string)
}

// Local is the user's own office: one computer, ComputerLocal, fronting
// the folders and MCP servers the user named, and nothing of the demo.
// The computer is in this process, so besides what A2C-SMCP offers it can
// read any resource (ReadResource) and tell how each server's start went
// (States).
type Local struct {
	comp    *computer.Computer
	startup *computer.Startup
	notes   []string
	folders []localFolder
}

// localFolder is a folder served as server name.
type localFolder struct {
	name string
	lib  *library.Library
}

// Notes are one-line remarks that are not errors, for the command to print
// on stderr and the TUI to show: a config file that defines no servers
// ("FILE: no MCP servers"), then each folder that leaves files out
// ("NAME: 3 files skipped: big.pdf (over 64 MiB), …", as of its latest
// walk). Paths and file names are the user's: sanitize them where shown.
func (l *Local) Notes() []string {
	out := append([]string(nil), l.notes...)
	for _, f := range l.folders {
		if s := f.lib.Skipped().Summary(); s != "" {
			out = append(out, f.name+": "+s)
		}
	}
	return out
}

// Skipped is what the folder served as server name leaves out, and
// whether name is such a folder.
func (l *Local) Skipped(name string) (library.Skipped, bool) {
	for _, f := range l.folders {
		if f.name == name {
			return f.lib.Skipped(), true
		}
	}
	return library.Skipped{}, false
}

// ConfigError is an --mcp-config file that cannot be used: missing, not a
// regular file, not JSON, or not a config. It names the file once; the
// fix is in the file, so commands treat it as a usage error.
type ConfigError struct {
	Path string
	Err  error
}

func (e *ConfigError) Error() string { return "--mcp-config " + e.Path + ": " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// maxConfigBytes bounds a config file: a server list is a few KiB, and a
// file this large is not one.
const maxConfigBytes = 4 << 20

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
	servers, inputs, notes, err := loadConfigs(opt.MCPConfigs)
	if err != nil {
		return nil, err
	}
	for _, d := range opt.DocsDirs {
		if err := localfile.Dir(d); err != nil {
			return nil, fmt.Errorf("--docs %w", err)
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
	comp := st.newComputer(Options{}, ComputerLocal, resolver, log, inputs, nil)
	taken := map[string]bool{}
	for _, s := range servers {
		taken[s.Name] = true
	}
	var folders []localFolder
	for i, dir := range opt.DocsDirs {
		name := uniqueName(folderServerName(dir), taken)
		lo := library.Options{Dir: dir, Host: "local.docs." + name, PageSize: PageSize, Name: name,
			Logger: log.With("component", "library", "dir", dir), ConvertTimeout: opt.ConvertTimeout, Notice: opt.Notice}
		// tool_call routes a tool name to one server, so one Finder per
		// computer: the first folder's.
		if i == 0 {
			lo.Finder = &library.FinderOptions{IndexDir: opt.FinderDir,
				Limits: finder.QueryLimits{Timeout: opt.FindTimeout, MaxExpansion: opt.FindMaxExpansion}}
		}
		lib, err := st.openLibrary(ctx, comp, name, lo)
		if err != nil {
			return nil, err
		}
		folders = append(folders, localFolder{name: name, lib: lib})
	}
	if err := comp.Start(ctx); err != nil {
		return nil, fmt.Errorf("computer join: %w", err)
	}
	l := &Local{comp: comp, startup: comp.StartServers(servers, computer.StartupOptions{Parallel: opt.Parallel}), notes: notes, folders: folders}
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
// across them, and so must input ids. A file is read the way every local
// read of the product is (convert.OpenRegular): a FIFO, device or
// directory is refused at once instead of blocking the open.
func loadConfigs(paths []string) ([]protocol.MCPServerConfig, []protocol.MCPServerInput, []string, error) {
	var (
		servers []protocol.MCPServerConfig
		inputs  []protocol.MCPServerInput
		notes   []string
	)
	serverFrom := map[string]string{}
	inputFrom := map[string]string{}
	for _, p := range paths {
		s, in, err := loadConfig(p)
		if err != nil {
			return nil, nil, nil, &ConfigError{Path: p, Err: err}
		}
		if len(s) == 0 {
			notes = append(notes, p+": no MCP servers")
		}
		for _, cfg := range s {
			if prev, ok := serverFrom[cfg.Name]; ok {
				return nil, nil, nil, &ConfigError{Path: p, Err: fmt.Errorf("server %q is in both %s and %s", cfg.Name, prev, p)}
			}
			serverFrom[cfg.Name] = p
			servers = append(servers, cfg)
		}
		for _, i := range in {
			if prev, ok := inputFrom[i.ID]; ok {
				return nil, nil, nil, &ConfigError{Path: p, Err: fmt.Errorf("input %q is in both %s and %s", i.ID, prev, p)}
			}
			inputFrom[i.ID] = p
			inputs = append(inputs, i)
		}
	}
	return servers, inputs, notes, nil
}

// LoadMCPConfig reads one MCP config file (any of the shapes
// computer.ParseConfig accepts) the way every local read is done: regular
// files only, bounded. Errors are *ConfigError, naming the file once.
func LoadMCPConfig(p string) ([]protocol.MCPServerConfig, []protocol.MCPServerInput, error) {
	s, in, err := loadConfig(p)
	if err != nil {
		return nil, nil, &ConfigError{Path: p, Err: err}
	}
	return s, in, nil
}

// loadConfig reads and parses one config file. Its errors do not name the
// file (ConfigError does).
func loadConfig(p string) ([]protocol.MCPServerConfig, []protocol.MCPServerInput, error) {
	f, _, err := convert.OpenRegular(p)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, nil, pe.Err
		}
		if errors.Is(err, convert.ErrNotRegular) {
			// "p: not a regular file (a FIFO)": drop the name.
			return nil, nil, errors.New(strings.TrimPrefix(err.Error(), p+": "))
		}
		return nil, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, nil, pe.Err
		}
		return nil, nil, err
	}
	if len(data) > maxConfigBytes {
		return nil, nil, fmt.Errorf("larger than %d MiB: not a config file", maxConfigBytes>>20)
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(t, &list) == nil && len(list) == 0 {
			return nil, nil, errors.New(`an empty list is not a config: want {"mcpServers": {NAME: {"command": …}}}`)
		}
	}
	s, in, err := computer.ParseConfig(data)
	var ce *computer.ConfigError
	if errors.As(err, &ce) && ce.Server == "" && ce.Input == "" {
		// A file-level problem: the file is named already, so not "mcp
		// config: " again.
		if ce.Field != "" {
			return nil, nil, fmt.Errorf("%s: %s", ce.Field, ce.Reason)
		}
		return nil, nil, errors.New(ce.Reason)
	}
	return s, in, err
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
