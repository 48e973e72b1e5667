package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// fakeLocal is an in-memory LocalServers: states a test changes while the
// program runs, and resources/read answers by URI.
type fakeLocal struct {
	mu       sync.Mutex
	states   []LocalServerState
	changed  chan struct{}
	started  chan struct{}
	contents map[string][]LocalContent
	reads    []string
}

func newFakeLocal(states ...LocalServerState) *fakeLocal {
	return &fakeLocal{states: states, changed: make(chan struct{}, 1), started: make(chan struct{}), contents: map[string][]LocalContent{}}
}

func (l *fakeLocal) Computer() string { return "local" }
func (l *fakeLocal) States() []LocalServerState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]LocalServerState(nil), l.states...)
}
func (l *fakeLocal) Changed() <-chan struct{} { return l.changed }
func (l *fakeLocal) Started() <-chan struct{} { return l.started }
func (l *fakeLocal) ReadResource(ctx context.Context, server, uri string) (string, []LocalContent, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reads = append(l.reads, server+" "+uri)
	c, ok := l.contents[uri]
	if !ok {
		return server, nil, fmt.Errorf("resources/read on %q: resource not found", server)
	}
	return server, c, nil
}

// set changes one server's state and notifies, as the computer does.
func (l *fakeLocal) set(i int, st LocalServerState, last bool) {
	l.mu.Lock()
	l.states[i] = st
	l.mu.Unlock()
	if last {
		close(l.started)
	}
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// localOffice is an office of one computer, "local", whose servers are
// files (ready, dpe and non-dpe resources), slow (starting), broken
// (failed) and off (disabled).
func localOffice(t *testing.T) (*fakeAgent, *fakeLocal) {
	f := newFakeAgent(t)
	f.computers = []protocol.SessionInfo{{SID: "s9", Name: "local", Role: protocol.RoleComputer, OfficeID: "demo", A2CVersion: "0.2.0"}}
	f.configs = map[string]*client.Config{"local": {Servers: []client.ServerConfig{
		{Name: "files", Type: "stdio", Parameters: json.RawMessage(`{"command":"files-mcp","args":["--root","/srv"]}`)},
		{Name: "broken", Type: "stdio", Parameters: json.RawMessage(`{"command":"/nonexistent/mcp-server"}`)},
		{Name: "off", Type: "stdio", Disabled: true, Parameters: json.RawMessage(`{"command":"off-mcp"}`)},
	}}}
	f.pages["files"] = map[string]*client.ResourcePage{"": {Resources: []client.Resource{
		res(notesURI, "Meeting notes", "application/vnd.a2c.dpe-uri+json", nil),
		res("test://static/guide.md", "guide.md", "text/markdown", nil),
		res("test://static/config.json", "config.json", "application/json", nil),
		res("test://static/blob/42", "blob 42", "application/octet-stream", nil),
		res("test://static/pixel.png", "pixel.png", "image/png", nil),
		res("test://static/evil", "evil", "text/plain", nil),
	}}}
	png, _ := base64.StdEncoding.DecodeString(tinyPNG(t))
	l := newFakeLocal(
		LocalServerState{Name: "files", Type: "stdio", Status: LocalReady},
		LocalServerState{Name: "slow", Type: "stdio", Status: LocalStarting},
		LocalServerState{Name: "broken", Type: "stdio", Status: LocalFailed, Err: `exec: "/nonexistent/mcp-server": stat /nonexistent/mcp-server: no such file or directory`,
			StderrTail: "starting up\n\x1b]0;pwned\aboom: \x1b[31mcannot\x1b[0m bind"},
		LocalServerState{Name: "off", Type: "stdio", Status: LocalDisabled},
	)
	l.contents["test://static/guide.md"] = []LocalContent{{URI: "test://static/guide.md", MIMEType: "text/markdown", Text: "# Guide\n\nRead **this** first.\n", FileName: "guide.md"}}
	l.contents["test://static/config.json"] = []LocalContent{{URI: "test://static/config.json", MIMEType: "application/json", Text: `{"port":7800,"tags":["a","b"]}`, FileName: "config.json"}}
	l.contents["test://static/blob/42"] = []LocalContent{{URI: "test://static/blob/42", MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2, 0xff, 'h', 'i'}, IsBlob: true, FileName: "42"}}
	l.contents["test://static/pixel.png"] = []LocalContent{{URI: "test://static/pixel.png", MIMEType: "image/png", Blob: png, IsBlob: true, FileName: "pixel.png"}}
	l.contents["test://static/evil"] = []LocalContent{{URI: "test://static/evil", MIMEType: "text/plain", Text: "safe \x1b]52;c;cHduZWQ=\a text \x1b[2J", FileName: "evil"}}
	return f, l
}

// TestLocal_ServersScreenShowsStartUpLive: the local computer's servers
// screen has a row per configured server with its state — ready,
// starting, failed with its error and (sanitized) stderr tail, disabled —
// is usable while one is still starting, and follows the change when it
// becomes ready. Golden at 80×24.
func TestLocal_ServersScreenShowsStartUpLive(t *testing.T) {
	f, l := localOffice(t)
	opt := testOptions(f)
	opt.Width, opt.Height = 80, 24
	opt.Local = l
	s := start(t, opt)
	s.waitFor("local")
	s.keys("enter")
	s.waitFor("starting…")
	s.waitFor("4 servers · 1 starting · 1 ready · 1 failed · 1 disabled")
	// Usable while slow starts: files opens and lists.
	s.keys("enter")
	s.waitFor("6 loaded")
	s.keys("esc")
	s.waitFor("starting…")
	// Enter on the starting and the disabled one says so.
	s.keys("down", "enter")
	s.waitFor("server slow is still starting")
	s.keys("down", "down", "enter")
	s.waitFor("server off is disabled")
	l.set(1, LocalServerState{Name: "slow", Type: "stdio", Status: LocalReady, NoResources: true}, true)
	s.waitFor("no resources")
	s.waitFor("4 servers · 2 ready · 1 failed · 1 disabled")
	s.keys("up") // broken: its error pane
	s.waitFor("stderr (last lines):")
	s.keys("enter")
	s.waitFor("server broken failed to start")
	out := maskDir(s.final(), f)
	if strings.ContainsRune(out, '\x1b') || strings.Contains(out, "\a") {
		t.Fatalf("escape sequence from stderr reached the screen:\n%q", out)
	}
	for _, want := range []string{"✗ exec: \"/nonexistent/mcp-ser", "boom: ", "cannot", "files-mcp --root /srv"} {
		if !strings.Contains(out, want) {
			t.Errorf("frame lacks %q:\n%s", want, out)
		}
	}
	golden.RequireEqual(t, out)
}

// toLocalFiles opens local › files and shows every scheme.
func (s *session) toLocalFiles() {
	s.waitFor("local")
	s.keys("enter")
	s.waitFor("files-mcp")
	s.keys("enter")
	s.waitFor("6 loaded")
	s.keys("a")
	s.waitFor("all schemes")
}

// TestLocal_EnterReadsNonDPEResources: on the local computer, enter on a
// non-dpe resource reads it with resources/read: Markdown through Glamour,
// JSON pretty-printed, text sanitized, a binary blob offered for saving
// under the name from its URI (and saved with its bytes), an image
// previewed in the document view.
func TestLocal_EnterReadsNonDPEResources(t *testing.T) {
	f, l := localOffice(t)
	opt := testOptions(f)
	opt.Local = l
	opt.SaveDir = t.TempDir()
	s := start(t, opt)
	s.toLocalFiles()

	s.keys("down", "enter") // guide.md
	s.waitFor("Markdown · text/markdown")
	s.waitFor("read from MCP server files with resources/read")
	s.waitUntil("Glamour output", func(fr string) bool { return strings.Contains(fr, "Guide") && strings.Contains(fr, "Read this first.") })
	s.keys("esc")
	s.waitFor("all schemes")

	s.keys("down", "enter") // config.json
	s.waitFor("JSON · application/json")
	s.waitFor(`"port": 7800,`)
	s.keys("esc")

	s.keys("down", "down", "down", "enter") // evil
	s.waitFor("safe")
	s.waitUntil("text", func(fr string) bool { return strings.Contains(fr, "text") && !strings.ContainsRune(fr, '\x1b') })
	s.keys("esc")

	s.keys("up", "up", "enter") // blob 42
	s.waitFor("cannot be shown as text. Press s to save it as 42.")
	s.keys("s")
	s.waitFor("save content as 42")
	s.keys("enter")
	s.waitFor("content written to")
	data, err := os.ReadFile(filepath.Join(opt.SaveDir, "42"))
	if err != nil || !bytes.Equal(data, []byte{0, 1, 2, 0xff, 'h', 'i'}) {
		t.Fatalf("saved blob: %q, %v", data, err)
	}
	if fi, err := os.Stat(filepath.Join(opt.SaveDir, "42")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("saved blob mode %v (%v), want 0600 like get -o", fi.Mode().Perm(), err)
	}
	s.keys("esc")

	s.keys("down", "enter") // pixel.png
	s.waitFor("test://static/pixel.png, read from MCP server files")
	s.waitUntil("a preview", func(fr string) bool { return strings.Contains(fr, "▀") || strings.Contains(fr, "▄") })
	s.keys("s")
	s.waitFor("save image as pixel.png")
	s.keys("enter")
	s.waitFor("image written to")
	if fi, err := os.Stat(filepath.Join(opt.SaveDir, "pixel.png")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("saved image: %v, want pixel.png with mode 0600", err)
	}
	s.final()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.reads) != 5 || l.reads[0] != "files test://static/guide.md" {
		t.Fatalf("reads: %q", l.reads)
	}
}

// TestLocal_RemoteNonDPESaysThereIsNoEvent: on a computer that is not
// this process's, enter on a non-dpe resource says at once that A2C-SMCP
// cannot read it, and nothing is read.
func TestLocal_RemoteNonDPESaysThereIsNoEvent(t *testing.T) {
	f, l := localOffice(t)
	f.computers[0].Name = "remote"
	f.configs["remote"] = f.configs["local"]
	opt := testOptions(f)
	opt.Local = l // the local computer is not in this office
	s := start(t, opt)
	s.waitFor("remote")
	s.keys("enter")
	s.waitFor("files-mcp")
	s.keys("enter")
	s.waitFor("6 loaded")
	s.keys("a", "down", "enter")
	s.waitFor("A2C-SMCP has no event for reading non-dpe resources")
	s.final()
	if len(l.reads) != 0 {
		t.Fatalf("read on a remote computer: %q", l.reads)
	}
}

// TestLocal_OpenBarReadsAnyURI: with the local computer, o takes a URI a
// server does not list (a resource template's) and reads it; a blob
// offers to save under its URI's last segment.
func TestLocal_OpenBarReadsAnyURI(t *testing.T) {
	f, l := localOffice(t)
	l.contents["test://template/blob/7"] = []LocalContent{{URI: "test://template/blob/7", MIMEType: "application/octet-stream", Blob: []byte("seven"), IsBlob: true, FileName: "7"}}
	opt := testOptions(f)
	opt.Local = l
	opt.SaveDir = t.TempDir()
	s := start(t, opt)
	s.waitFor("local")
	s.keys("o")
	s.typeText("test://template/blob/7")
	s.waitFor("enter reads it from your MCP servers")
	s.keys("enter")
	s.waitFor("Press s to save it as 7.")
	s.keys("s")
	s.waitFor("save content as 7")
	s.keys("enter")
	s.waitFor("content written to")
	if data, err := os.ReadFile(filepath.Join(opt.SaveDir, "7")); err != nil || string(data) != "seven" {
		t.Fatalf("saved: %q %v", data, err)
	}
	s.final()
}

// A failed server's row starts in the same column as the others, and the
// "failed to start" status goes when the cursor leaves its row.
func TestLocal_FailedRowAlignedAndItsStatusLeavesWithTheCursor(t *testing.T) {
	f, l := localOffice(t)
	opt := testOptions(f)
	opt.Width, opt.Height = 100, 30
	opt.Local = l
	s := start(t, opt)
	s.waitFor("local")
	s.keys("enter")
	s.waitFor("1 failed")
	s.keys("down", "down", "enter")
	s.waitFor("server broken failed to start")
	s.keys("down")
	var fr string
	s.waitUntil("the status gone", func(f string) bool {
		fr = f
		return !strings.Contains(f, "server broken failed to start")
	})
	col := func(name string) int {
		for _, l := range strings.Split(fr, "\n") {
			if i := strings.Index(l, name+" "); i >= 0 && strings.Contains(l, "stdio") {
				return len([]rune(l[:i]))
			}
		}
		t.Fatalf("no row for %s:\n%s", name, fr)
		return -1
	}
	if b, fl := col("broken"), col("files"); b != fl {
		t.Fatalf("the failed row starts at column %d, the others at %d:\n%s", b, fl, fr)
	}
	s.final()
}

// The local computer's office row counts what its servers' states say,
// not get_config's enabled flags, and follows them live.
func TestLocal_OfficeRowCountsTheStates(t *testing.T) {
	f, l := localOffice(t)
	opt := testOptions(f)
	opt.Width, opt.Height = 160, 30
	opt.Local = l
	s := start(t, opt)
	s.waitFor("1 ready · 1 starting · 1 failed · 1 disabled")
	l.set(1, LocalServerState{Name: "slow", Type: "stdio", Status: LocalFailed, Err: "boom"}, true)
	s.waitFor("1 ready · 2 failed · 1 disabled")
	s.final()
}
