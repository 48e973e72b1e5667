package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/computer"
	"github.com/dpe-tui/dpe-tui/sanitize"
	"github.com/dpe-tui/dpe-tui/stack"
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
	// cmd is the flag set's name: the TUI ("dpe-tui", "open") does not
	// wait for slow servers, headless commands do.
	cmd string
}

// maxStartWait bounds how long a headless command waits for the servers
// to start; each start is bounded by the computer's own timeout, this is
// the backstop.
const maxStartWait = 2 * time.Minute

func (e *embeddedFlags) register(fs *flag.FlagSet) {
	e.cmd = fs.Name()
	fs.Func("mcp-config", "front the MCP servers of this JSON `FILE` (SMCP, mcpServers or VS Code shape; repeatable) instead of the demo", func(s string) error {
		e.MCPConfigs = append(e.MCPConfigs, s)
		return nil
	})
	fs.Func("docs", "serve this folder `DIR` as an MCP server of its own (repeatable) instead of the demo", func(s string) error {
		e.DocsDirs = append(e.DocsDirs, s)
		return nil
	})
	if e.cmd == "get" {
		fs.StringVar(&e.Out, "o", "", "save a non-dpe resource's contents into `DIR` (named from its URI) or to FILE")
	}
}

// active: the user named servers or folders of their own.
func (e *embeddedFlags) active() bool { return len(e.MCPConfigs) > 0 || len(e.DocsDirs) > 0 }

// validate refuses --mcp-config / --docs with --url: they start servers in
// this process, and a remote office is not this process's.
func (e *embeddedFlags) validate(serverURL string) error {
	if e.active() && serverURL != "" {
		which := "--mcp-config"
		if len(e.MCPConfigs) == 0 {
			which = "--docs"
		}
		return usageErrorf("%s cannot be used with --url: it starts your servers in this process, and the office at --url is another process's (run 'dpe-tui computer --url … %s …' to add them there)", which, which)
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
	if err := e.validate(g.URL); err != nil {
		return nil, err
	}
	st, err := stack.StartLocal(ctx, stack.LocalOptions{Office: g.Office, DocsDirs: e.DocsDirs, MCPConfigs: e.MCPConfigs, Logger: log})
	if err != nil {
		return nil, err // names the file or folder
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

// checkLocalInput fails at once, in one line, for a local file that `open`
// or `get` cannot read: before any server, stack or TUI starts. URLs and
// URIs pass.
func checkLocalInput(input string) error {
	if strings.Contains(input, "://") || strings.HasPrefix(strings.ToLower(input), "dpe:") || input == "-" {
		return nil
	}
	fi, err := os.Stat(input)
	if err == nil && fi.IsDir() {
		return fmt.Errorf("%s: is a directory", input)
	}
	if err == nil && !fi.Mode().IsRegular() {
		// A FIFO or device would block an open; the fetcher refuses it
		// at once, naming what it is.
		return nil
	}
	if err == nil {
		var f *os.File
		if f, err = os.Open(input); err == nil {
			f.Close()
			return nil
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is said once, as the user typed it
	}
	return fmt.Errorf("%s: %w", input, err)
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
	fetchable := scheme == "file" || scheme == "http" || scheme == "https" || scheme == "s3"
	switch {
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
		return true, fmt.Errorf("%s: A2C-SMCP has no event for reading non-dpe resources; only MCP servers this process runs can be read (--mcp-config FILE, without --url)", sanitize.Line(sanitize.URL(input)))
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
	server, contents, err := t.demo.Local().ReadResource(ctx, "", input)
	if errors.Is(err, computer.ErrNoReader) && fetchable && e.Out == "" {
		return false, nil // a plain file or URL after all
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
func saveContents(out, uri string, contents []computer.ResourceContent, stderr io.Writer) error {
	fi, err := os.Stat(out)
	isDir := err == nil && fi.IsDir()
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
			name := resourceFileName(src)
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
		if err := writeNew(dest, data); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "dpe-tui: saved %s (%s, %d bytes) to %s\n", sanitize.Line(c.URI), sanitize.Line(orUnknown(c.MIMEType)), len(data), sanitize.Line(dest))
	}
	return nil
}

// writeNew writes data to a new file: through a temporary name in the same
// directory, linked into place only if nothing is there yet.
func writeNew(dest string, data []byte) error {
	if _, err := os.Lstat(dest); err == nil {
		return fmt.Errorf("%s exists; remove it or choose another -o", dest)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".dpe-tui-save-*")
	if err != nil {
		return fmt.Errorf("save: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("save %s: %w", dest, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save %s: %w", dest, err)
	}
	// Link fails when dest appeared meanwhile: never overwrite.
	if err := os.Link(tmp.Name(), dest); err != nil {
		return fmt.Errorf("save %s: %w", dest, err)
	}
	return nil
}

// maxFileName bounds a saved file's name (bytes).
const maxFileName = 120

// resourceFileName is a safe file name for a resource: the last segment
// of its URI's path, decoded, with anything but letters, digits, '.', '-'
// and '_' replaced, no leading dot, bounded; "resource" when nothing is
// left.
func resourceFileName(uri string) string {
	seg := uri
	if u, err := url.Parse(uri); err == nil {
		seg = u.Path
		if seg == "" || seg == "/" {
			seg = u.Opaque
		}
		if seg == "" || seg == "/" {
			seg = u.Host
		}
	}
	seg = path.Base(strings.TrimRight(seg, "/"))
	var b strings.Builder
	for _, r := range seg {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := strings.TrimLeft(b.String(), "._")
	if len(name) > maxFileName {
		name = name[:maxFileName]
	}
	if name == "" {
		name = "resource"
	}
	return name
}

// commands that may follow global flags: `dpe-tui --docs DIR ls resources`
// is `dpe-tui ls --docs DIR resources`.
var hoistable = map[string]bool{"open": true, "ls": true, "get": true, "check": true, "find": true, "hash": true, "diff": true}

// hoistCommand moves a command written after the global flags in front of
// them. Only flags the TUI itself accepts may come first; anything else
// leaves args as they are, for the usual error.
func hoistCommand(args []string) []string {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") {
		return args
	}
	var f tuiFlags
	fs := flag.NewFlagSet("dpe-tui", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	if err := fs.Parse(normalizeArgs(args)); err != nil {
		return args
	}
	rest := fs.Args()
	if len(rest) == 0 || !hoistable[rest[0]] {
		return args
	}
	// The flags as given (normalizeArgs only rewrites a bare
	// --allow-file-uri, which the command's own parse does again).
	flags := args[:len(args)-len(rest)]
	out := make([]string, 0, len(args))
	out = append(out, rest[0])
	out = append(out, flags...)
	return append(out, rest[1:]...)
}
