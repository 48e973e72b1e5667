package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/dpe-tui/dpe-tui/computer"
	"github.com/dpe-tui/dpe-tui/internal/localfile"
	"github.com/dpe-tui/dpe-tui/internal/safewrite"
	"github.com/dpe-tui/dpe-tui/sanitize"
	"github.com/dpe-tui/dpe-tui/stack"
	"github.com/dpe-tui/dpe-tui/ui"
)

// embeddedFlags are --mcp-config and --docs: instead of the demo, the
// embedded stack is the user's own office, one computer ("local")
// fronting those MCP servers and folders. Every command that starts the
// embedded stack takes them (they are part of globalFlags); get also takes
// -o, where a non-dpe resource's contents are saved.
type embeddedFlags struct {
	MCPConfigs []string
	DocsDirs   []string
	Out        string
	// Server is get --server: the MCP server of the local computer that
	// reads a non-dpe resource ("" → the one that lists it).
	Server string
	// cmd is the command's name: the TUI ("dpe-tui", "open") does not
	// wait for slow servers, headless commands do.
	cmd string
	// budgets bound the folders' conversions and Finder queries: the
	// TUI's --convert-timeout, --find-timeout and --find-max-expansion
	// (tuiFlags.budgets), as serve, computer and mcp take them; zero (a
	// headless command): the defaults.
	budgets budgetFlags
	// notice is told the served folders' converter notices: the TUI's
	// status line (nil for headless commands).
	notice func(string)
}

// maxStartWait bounds how long a headless command waits for the servers
// to start; each start is bounded by the computer's own timeout, this is
// the backstop.
const maxStartWait = 2 * time.Minute

func (e *embeddedFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&e.MCPConfigs, "mcp-config", nil, "front the MCP servers of this JSON FILE (SMCP, mcpServers or VS Code shape; repeatable) instead of the demo")
	fs.StringArrayVar(&e.DocsDirs, "docs", nil, "serve this folder DIR as an MCP server of its own (repeatable) instead of the demo")
}

// active: the user named servers or folders of their own.
func (e *embeddedFlags) active() bool { return len(e.MCPConfigs) > 0 || len(e.DocsDirs) > 0 }

// validate refuses --mcp-config / --docs with --url: they start servers in
// this process, and a remote office is not this process's. urlProfile:
// the profile that set the URL, named instead of a --url nobody typed.
func (e *embeddedFlags) validate(serverURL, urlProfile string) error {
	if e.active() && serverURL != "" {
		which := "--mcp-config"
		if len(e.MCPConfigs) == 0 {
			which = "--docs"
		}
		what := "it starts your MCP servers in this process"
		if which == "--docs" {
			what = "it serves your folders in this process"
		} else if len(e.DocsDirs) > 0 {
			what = "they start your MCP servers and serve your folders in this process"
		}
		if urlProfile != "" {
			return usageErrorf("profile %q sets a url; %s cannot be used with it: %s, and the office at that url is another process's (use --profile \"\" to start your own, or run 'dpe-tui computer --url … %s …' to add them there)", sanitize.Line(urlProfile), which, what, which)
		}
		return usageErrorf("%s cannot be used with --url: %s, and the office at --url is another process's (run 'dpe-tui computer --url … %s …' to add them there)", which, what, which)
	}
	for _, d := range e.DocsDirs {
		if err := localfile.Dir(d); err != nil {
			return usageErrorf("--docs %v", err) // a flag's value: before anything starts
		}
	}
	return nil
}

// background: the TUI shows servers as they start; headless commands
// wait until none is starting.
func (e *embeddedFlags) background() bool { return e.cmd == "dpe-tui" || e.cmd == "open" }

// startEmbedded starts the user's own office (stack.StartLocal). A
// headless command waits until every server is ready or failed; a failed
// one is that server's: ls names it, the others are listed.
func startEmbedded(ctx context.Context, g *globalFlags, log *slog.Logger) (*target, error) {
	e := &g.Embedded
	if err := e.validate(g.URL, g.urlProfile); err != nil {
		return nil, err
	}
	st, err := stack.StartLocal(ctx, stack.LocalOptions{Office: g.Office, DocsDirs: e.DocsDirs, MCPConfigs: e.MCPConfigs, Logger: log,
		ConvertTimeout: e.budgets.convert, FindTimeout: e.budgets.find, FindMaxExpansion: e.budgets.findTerms, Notice: e.notice})
	var ce *stack.ConfigError
	if errors.As(err, &ce) {
		// The fix is in the file (exit 2, as --help says for config
		// files), and the line names it: no flag hint.
		return nil, &exitError{code: exitUsage, msg: err.Error()}
	}
	if err != nil {
		return nil, err // names the folder
	}
	t := &target{URL: st.URL, Office: st.Office, demo: st}
	if !e.background() {
		wctx, cancel := context.WithTimeout(ctx, maxStartWait)
		defer cancel()
		if err := st.Local().Wait(wctx); err != nil {
			t.Close()
			return nil, fmt.Errorf("MCP servers still starting after %s: %w", maxStartWait, err)
		}
	}
	return t, nil
}

// printLocalNotes prints the user's own office's notes ("FILE: no MCP
// servers"), one line each.
func printLocalNotes(t *target, stderr io.Writer) {
	if t.demo == nil || t.demo.Local() == nil {
		return
	}
	for _, n := range t.demo.Local().Notes() {
		fmt.Fprintf(stderr, "dpe-tui: %s\n", sanitize.Line(n))
	}
}

// checkLocalInput fails at once, in one line, for a local file that `open`
// or `get` cannot read: before any server, stack or TUI starts. URLs and
// URIs pass.
func checkLocalInput(input string) error {
	if strings.Contains(input, "://") || strings.HasPrefix(strings.ToLower(input), "dpe:") || input == "-" {
		return nil
	}
	fi, err := os.Stat(input)
	if errors.Is(err, fs.ErrNotExist) && uriScheme(input) != "" {
		// No such file, but it reads as a URI ("mine:opaque"): one of
		// your own MCP servers may list it (getHook asks them).
		return nil
	}
	if err == nil && fi.IsDir() {
		return fmt.Errorf("%s: is a directory", input)
	}
	if err == nil {
		// The one local-file rule: a FIFO, a device or a symlink into
		// /proc is refused here as get, convert and check refuse it.
		var f *os.File
		if f, _, err = localfile.Open(input, localfile.Options{}); err == nil {
			f.Close()
			return nil
		}
		if errors.As(err, new(*localfile.Refusal)) {
			return err // names the file
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is said once, as the user typed it
	}
	return fmt.Errorf("%s: %w", input, err)
}

// uriScheme is the scheme of s when s reads as a URI (scheme ":" rest,
// the scheme at least two characters, so "C:\x" is a path), else "".
func uriScheme(s string) string {
	u, err := url.Parse(s)
	if err != nil || len(u.Scheme) < 2 || (u.Opaque == "" && u.Host == "" && u.Path == "") {
		return ""
	}
	return strings.ToLower(u.Scheme)
}

// getHook is get's part of this: a missing or unreadable local file fails
// at once; a URI that is neither dpe:// nor a file or URL to fetch is read
// with MCP resources/read on the user's own computer (which only it can
// do: A2C-SMCP has no event for it). It reports whether it handled input.
func getHook(ctx context.Context, g *globalFlags, input string, stdout, stderr io.Writer) (bool, error) {
	if err := checkLocalInput(input); err != nil {
		return true, err
	}
	e := &g.Embedded
	scheme := ""
	if u, err := url.Parse(input); err == nil {
		scheme = strings.ToLower(u.Scheme)
	}
	if fi, err := os.Stat(input); err == nil && fi.Mode().IsRegular() && !strings.Contains(input, "://") {
		scheme = "" // an existing file wins over a URI that looks like it
	}
	fetchable := scheme == "file" || scheme == "http" || scheme == "https" || scheme == "s3"
	switch {
	case e.Server != "" && (!e.active() || scheme == "" || scheme == "dpe"):
		return true, usageErrorf("--server picks which of your own MCP servers (--mcp-config) reads a non-dpe resource; a dpe:// URI or a file takes --computer")
	case scheme == "" || scheme == "dpe":
		if e.Out != "" {
			return true, usageErrorf("-o saves a non-dpe resource of your own MCP servers; print a document with --format and redirect it")
		}
		return false, nil
	case !e.active() && fetchable:
		if e.Out != "" {
			return true, usageErrorf("-o saves a non-dpe resource of your own MCP servers (--mcp-config)")
		}
		return false, nil
	case !e.active():
		// The input's own problem (ftp://, mailto:, a remote server's
		// demo://): usage, said in the reader's terms first.
		return true, usageErrorf("%s: not a dpe://, file://, http(s):// or s3:// URI, nor a file; A2C-SMCP has no event for reading other resources: only MCP servers this process runs can (--mcp-config FILE, without --url)", sanitize.Line(sanitize.URL(input)))
	}
	if e.Out != "" {
		if err := checkOut(e.Out); err != nil {
			return true, err // before any server starts
		}
	}
	log, closeLog, err := g.logger()
	if err != nil {
		return true, err
	}
	defer closeLog()
	t, err := startEmbedded(ctx, g, log)
	if err != nil {
		return true, err
	}
	defer t.Close()
	printLocalNotes(t, stderr)
	server, contents, err := t.demo.Local().ReadResource(ctx, e.Server, input)
	if errors.Is(err, computer.ErrNoReader) && fetchable && e.Out == "" && e.Server == "" {
		return false, nil // a plain file or URL after all
	}
	if errors.Is(err, computer.ErrNoReader) && !strings.Contains(input, "://") && !fetchable {
		// "mine:opaque" could have been either: say both.
		return true, fmt.Errorf("%s: no such file, and no MCP server of computer %s lists it", sanitize.Line(input), stack.ComputerLocal)
	}
	if errors.Is(err, computer.ErrAmbiguous) {
		return true, fmt.Errorf("%w: choose one with --server NAME", err)
	}
	if err != nil {
		return true, err
	}
	if len(contents) == 0 {
		return true, fmt.Errorf("%s: MCP server %s returned no contents", sanitize.Line(input), sanitize.Line(server))
	}
	fmt.Fprintf(stderr, "dpe-tui: %s read from MCP server %s on computer %s\n", sanitize.Line(input), sanitize.Line(server), stack.ComputerLocal)
	if e.Out != "" {
		return true, saveContents(e.Out, input, contents, stderr)
	}
	for _, c := range contents {
		if c.IsBlob {
			return true, fmt.Errorf("%s is binary (%s, %d bytes): save it with -o DIR", sanitize.Line(input), sanitize.Line(orUnknown(c.MIMEType)), len(c.Blob))
		}
	}
	for _, c := range contents {
		if _, err := io.WriteString(stdout, showText(c)); err != nil {
			return true, err
		}
	}
	return true, nil
}

func orUnknown(mt string) string {
	if mt == "" {
		return "no MIME type"
	}
	return mt
}

// showText is a text content as get prints it: JSON pretty-printed (and
// escaped like get --format json), anything else sanitized; one final
// newline.
func showText(c computer.ResourceContent) string {
	text := c.Text
	if isJSONType(c.MIMEType) {
		var buf bytes.Buffer
		if err := json.Indent(&buf, []byte(text), "", "  "); err == nil {
			text = string(escapeJSON(buf.Bytes()))
		} else {
			text = sanitize.Text(text)
		}
	} else {
		text = sanitize.Text(text)
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text
}

func isJSONType(mt string) bool {
	base, _, err := mime.ParseMediaType(mt)
	if err != nil {
		return false
	}
	return base == "application/json" || strings.HasSuffix(base, "+json")
}

// saveContents writes each content to out: into it when it is a
// directory, named from the content's URI (resourceFileName), else to the
// file out itself (one content only). An existing file is never
// overwritten.
// checkOut fails for an -o whose directory does not exist, naming it (not
// the temporary file a save writes first).
func checkOut(out string) error {
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return nil
	}
	if strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator)) {
		return fmt.Errorf("save: %s: no such directory", sanitize.Line(out))
	}
	if d := filepath.Dir(out); d != "" {
		if di, err := os.Stat(d); err != nil || !di.IsDir() {
			return fmt.Errorf("save: %s: no such directory", sanitize.Line(d))
		}
	}
	return nil
}

func saveContents(out, uri string, contents []computer.ResourceContent, stderr io.Writer) error {
	fi, err := os.Stat(out)
	isDir := err == nil && fi.IsDir()
	if err := checkOut(out); err != nil {
		return err
	}
	if !isDir && len(contents) > 1 {
		return fmt.Errorf("%s has %d contents: -o must be a directory", sanitize.Line(uri), len(contents))
	}
	used := map[string]bool{}
	for _, c := range contents {
		dest := out
		if isDir {
			src := c.URI
			if src == "" {
				src = uri
			}
			name := computer.ResourceFileName(src)
			for i := 2; used[name]; i++ {
				ext := filepath.Ext(name)
				name = fmt.Sprintf("%s-%d%s", strings.TrimSuffix(name, ext), i, ext)
			}
			used[name] = true
			dest = filepath.Join(out, name)
		}
		data := []byte(c.Text)
		if c.IsBlob {
			data = c.Blob
		}
		if err := safewrite.New(dest, data, 0o600); err != nil {
			return fmt.Errorf("save: %w", err)
		}
		fmt.Fprintf(stderr, "dpe-tui: saved %s (%s, %d bytes) to %s\n", sanitize.Line(c.URI), sanitize.Line(orUnknown(c.MIMEType)), len(data), sanitize.Line(dest))
	}
	return nil
}

// tuiLocal is the user's own computer as the TUI sees it
// (ui.LocalServers; ui does not import stack). The stack starts inside the
// TUI's Connect, after ui.New: until set, there are no servers to show.
type tuiLocal struct{ l atomic.Pointer[stack.Local] }

func (t *tuiLocal) set(l *stack.Local) { t.l.Store(l) }

func (t *tuiLocal) Computer() string { return stack.ComputerLocal }

func (t *tuiLocal) States() []ui.LocalServerState {
	l := t.l.Load()
	if l == nil {
		return nil
	}
	states := l.States()
	out := make([]ui.LocalServerState, 0, len(states))
	for _, s := range states {
		out = append(out, ui.LocalServerState{Name: s.Name, Type: s.Type, Status: string(s.Status), Err: s.Err, StderrTail: s.StderrTail, NoResources: s.NoResources})
	}
	return out
}

// Changed and Started are nil channels until the stack is set: a watch
// waits on them with its own timer.
func (t *tuiLocal) Changed() <-chan struct{} {
	if l := t.l.Load(); l != nil {
		return l.Changed()
	}
	return nil
}

func (t *tuiLocal) Started() <-chan struct{} {
	if l := t.l.Load(); l != nil {
		return l.Started()
	}
	return nil
}

// Notes are the local office's notes (ui.LocalNotes): a config that
// defines no server, the files a folder skipped. Nil until the stack is set.
func (t *tuiLocal) Notes() []string {
	if l := t.l.Load(); l != nil {
		return l.Notes()
	}
	return nil
}

func (t *tuiLocal) ReadResource(ctx context.Context, server, uri string) (string, []ui.LocalContent, error) {
	l := t.l.Load()
	if l == nil {
		return "", nil, errors.New("your MCP servers have not started yet")
	}
	srv, contents, err := l.ReadResource(ctx, server, uri)
	if err != nil {
		return srv, nil, err
	}
	out := make([]ui.LocalContent, 0, len(contents))
	for _, c := range contents {
		src := c.URI
		if src == "" {
			src = uri
		}
		out = append(out, ui.LocalContent{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob, IsBlob: c.IsBlob,
			FileName: computer.ResourceFileName(src)})
	}
	return srv, out, nil
}
