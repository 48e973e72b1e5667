package ui

import (
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// notedLocal is a fakeLocal that also has notes (LocalNotes), as the
// stack's local office does: a config file without servers, a folder that
// skipped files.
type notedLocal struct {
	*fakeLocal
	nmu   sync.Mutex
	notes []string
}

func (l *notedLocal) Notes() []string {
	l.nmu.Lock()
	defer l.nmu.Unlock()
	return append([]string(nil), l.notes...)
}

func (l *notedLocal) setNotes(n ...string) {
	l.nmu.Lock()
	l.notes = n
	l.nmu.Unlock()
}

// TestLocal_ServersScreenShowsNotes: the local computer's servers screen
// shows each note as one line under the summary — the config file that
// defines no servers, the folder's skipped files — sanitized (a file name
// with an escape sequence) and clipped to the width, and the rows still
// line up under them. Golden at 80×24, no colour.
func TestLocal_ServersScreenShowsNotes(t *testing.T) {
	f, fl := localOffice(t)
	l := &notedLocal{fakeLocal: fl}
	l.setNotes("/home/u/empty.json: no MCP servers",
		"files: 3 files skipped: big.pdf (over 64 MiB), pipe\x1b]0;pwned\a (FIFO, not a regular file), loop (symlink loop)")
	opt := testOptions(f)
	opt.Width, opt.Height = 80, 24
	opt.Local = l
	s := start(t, opt)
	s.waitFor("local")
	s.keys("enter")
	s.waitFor("note: /home/u/empty.json: no MCP servers")
	s.waitFor("note: files: 3 files skipped: big.pdf (over 64 MiB), pipe")
	// The list under the notes still works: down, then enter on the
	// starting server.
	s.keys("down", "enter")
	s.waitFor("server slow is still starting")
	l.set(1, LocalServerState{Name: "slow", Type: "stdio", Status: LocalReady}, true)
	s.waitFor("4 servers · 2 ready · 1 failed · 1 disabled")
	raw := s.finalANSI()
	if strings.Contains(raw, "\x1b]") || strings.Contains(raw, "\a") || strings.Contains(raw, "pwned") {
		t.Fatalf("an escape sequence from a file name reached the screen:\n%q", raw)
	}
	out := maskDir(normalize(ansi.Strip(raw)), f)
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "note:") && len([]rune(line)) > 80 {
			t.Errorf("note line wider than the screen: %q", line)
		}
	}
	golden.RequireEqual(t, out)
}

// TestLocal_ConfigWithoutServersIsANote: an office whose only config file
// defines no servers says so on the servers screen, above "no MCP servers
// configured"; a note that appears later (a folder's rescan) shows on
// refresh, after every server has started; many notes take at most three
// lines.
func TestLocal_ConfigWithoutServersIsANote(t *testing.T) {
	f := newFakeAgent(t)
	f.computers = []protocol.SessionInfo{{SID: "s9", Name: "local", Role: protocol.RoleComputer, OfficeID: "demo", A2CVersion: "0.2.0"}}
	f.configs = map[string]*client.Config{"local": {}}
	l := &notedLocal{fakeLocal: newFakeLocal()}
	close(l.started)
	l.setNotes("/home/u/.mcp.json: no MCP servers")
	opt := testOptions(f)
	opt.Width, opt.Height = 80, 24
	opt.Local = l
	s := start(t, opt)
	s.waitFor("local")
	s.keys("enter")
	s.waitFor("note: /home/u/.mcp.json: no MCP servers")
	s.waitFor("local has no MCP servers configured.")
	l.setNotes("/home/u/.mcp.json: no MCP servers", "docs: 1 file skipped: pipe (FIFO, not a regular file)",
		"docs-2: 1 file skipped: a (symlink loop)", "docs-3: 1 file skipped: b (symlink loop)")
	s.keys("r")
	s.waitFor("note: docs: 1 file skipped: pipe (FIFO, not a regular file)")
	s.waitFor("note: 2 more (ls servers prints them all)")
	out := s.final()
	if strings.Contains(out, "docs-2") {
		t.Errorf("more than three note lines:\n%s", out)
	}
}
