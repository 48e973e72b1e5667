package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	xgolden "github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/ui"
)

// localTUI is the browser on the user's own office, as `dpe-tui
// --mcp-config FILE` builds it: the embedded stack of that config (not
// waited for), the real client, and the stack's Local through tuiLocal.
type localTUI struct {
	t       *testing.T
	tm      *teatest.TestModel
	saveDir string
}

// frameProbe reads the current frame inside the program's goroutine.
type frameProbe struct{ ui.Model }

type frameMsg struct{ reply chan string }

func (p frameProbe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if fm, ok := msg.(frameMsg); ok {
		fm.reply <- ansi.Strip(p.Model.View().Content)
		return p, nil
	}
	m, cmd := p.Model.Update(msg)
	return frameProbe{m.(ui.Model)}, cmd
}

func startLocalTUI(t *testing.T, cfg string, w, h int) *localTUI {
	t.Helper()
	return startEmbeddedTUI(t, func(g *globalFlags) { g.Embedded.MCPConfigs = []string{cfg} }, w, h)
}

// startEmbeddedTUI is startLocalTUI of whatever set puts in the flags
// (--mcp-config, --docs, the TUI's budgets).
func startEmbeddedTUI(t *testing.T, set func(*globalFlags), w, h int) *localTUI {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	g := &globalFlags{Office: "demo", Name: "tui-test", Timeout: 30e9, MaxAck: 64 << 20} // untyped constants fit the flag types
	set(g)
	g.Embedded.cmd = "dpe-tui" // the TUI does not wait for the servers
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tgt, err := startEmbedded(ctx, g, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tgt.Close)
	c, err := dial(ctx, g, tgt, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	local := &tuiLocal{}
	local.set(tgt.demo.Local())
	lt := &localTUI{t: t, saveDir: t.TempDir()}
	opt := ui.Options{Agent: c, Local: local, Theme: "dark", Width: w, Height: h, StatusTimeout: -1,
		SaveDir: lt.saveDir, Limits: dpe.DefaultLimits(), Now: func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }}
	lt.tm = teatest.NewTestModel(t, frameProbe{ui.New(opt)}, teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	return lt
}

func (l *localTUI) frame() string {
	reply := make(chan string, 1)
	l.tm.Send(frameMsg{reply: reply})
	select {
	case f := <-reply:
		return f
	case <-time.After(5 * time.Second):
		return ""
	}
}

func (l *localTUI) waitUntil(what string, ok func(string) bool) string {
	l.t.Helper()
	// To the test's deadline: under -race on a loaded machine a frame that
	// takes a second alone can take over a minute.
	deadline := testbudget.Until(l.t, 60*time.Second)
	var last string
	for time.Now().Before(deadline) {
		if last = l.frame(); ok(last) {
			return last
		}
		time.Sleep(10 * time.Millisecond)
	}
	l.t.Fatalf("waiting for %s: last frame:\n%s", what, last)
	return ""
}

func (l *localTUI) waitFor(want ...string) string {
	l.t.Helper()
	return l.waitUntil(strings.Join(want, " + "), func(f string) bool {
		for _, w := range want {
			if !strings.Contains(f, w) {
				return false
			}
		}
		return true
	})
}

func (l *localTUI) key(k tea.KeyPressMsg) { l.tm.Send(k) }
func (l *localTUI) enter()                { l.key(tea.KeyPressMsg{Code: tea.KeyEnter}) }
func (l *localTUI) esc()                  { l.key(tea.KeyPressMsg{Code: tea.KeyEscape}) }
func (l *localTUI) rune(r rune)           { l.key(tea.KeyPressMsg{Code: r, Text: string(r)}) }

func (l *localTUI) quit() {
	l.t.Helper()
	l.key(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	l.tm.WaitFinished(l.t, teatest.WithFinalTimeout(20*time.Second))
}

// TestLocalTUI_EverythingListsReadsAndSaves: `dpe-tui --mcp-config FILE`
// with server-everything in the mcpServers shape: the servers screen
// shows it ready, its resources list, enter on a text resource shows its
// text (Markdown through Glamour), and its blob resource, opened by URI,
// is saved through the save prompt under the name from its URI with the
// bytes the server sent. The SMCP shape gives the same listing.
func TestLocalTUI_EverythingListsReadsAndSaves(t *testing.T) {
	common, smcp := everythingConfigs(t, nil)
	var listings []string
	for _, cfg := range []string{common, smcp} {
		l := startLocalTUI(t, cfg, 120, 40)
		l.waitFor("local")
		l.enter()
		l.waitFor("everything", "ready", "1 server · 1 ready")
		l.enter()
		l.waitFor("7 loaded · 0 dpe", "No dpe:// resources among 7 loaded")
		l.rune('a')
		f := l.waitFor("all schemes", "features.md")
		listings = append(listings, f)
		l.quit()
	}
	// The listing part of the frame (below the counter, above the status
	// and help lines: the status is whichever notice of the start-up
	// came last) is the same.
	cut := func(f string) string {
		lines := strings.Split(strings.TrimRight(f[strings.Index(f, "NAME"):], "\n"), "\n")
		return strings.Join(lines[:max(len(lines)-2, 0)], "\n")
	}
	if cut(listings[0]) != cut(listings[1]) {
		t.Fatalf("the SMCP shape lists differently:\n%s\n---\n%s", listings[0], listings[1])
	}

	l := startLocalTUI(t, common, 120, 40)
	l.waitFor("local")
	l.enter()
	l.waitFor("1 ready")
	l.enter()
	l.waitFor("7 loaded")
	l.rune('a')
	l.rune('/')
	for _, r := range "features" {
		l.rune(r)
	}
	l.waitFor(`filter "features": 1 match`)
	l.enter() // close the filter
	l.enter() // read features.md
	l.waitFor("Markdown · text/markdown", "read from MCP server everything with resources/read", "Everything Server - Features")
	l.esc()
	l.waitFor("all schemes")

	const blob = "demo://resource/dynamic/blob/1"
	l.rune('o')
	for _, r := range blob {
		l.rune(r)
	}
	l.waitFor("enter reads it from your MCP servers")
	l.enter()
	l.waitFor("Press s to save it as 1.")
	l.rune('s')
	l.waitFor("save content as 1")
	l.enter()
	l.waitFor("content written to")
	data, err := os.ReadFile(filepath.Join(l.saveDir, "1"))
	if err != nil {
		t.Fatal(err)
	}
	// The server sends this text base64-encoded: the file holds it decoded.
	if !regexp.MustCompile(`^Resource 1: This is a base64 blob created at [^\n]+$`).Match(data) {
		t.Fatalf("saved bytes %q", data)
	}
	l.quit()
}

// TestLocalTUI_BrokenServerIsItsRow: a config with one server whose
// command does not exist and one that works: the working one is ready and
// lists, the broken one is a failed row with its error. Golden at 80×24.
func TestLocalTUI_BrokenServerIsItsRow(t *testing.T) {
	common, _ := everythingConfigs(t, map[string]any{
		"broken": map[string]any{"command": "/nonexistent/dpe-tui-no-such-server"},
	})
	l := startLocalTUI(t, common, 80, 24)
	l.waitFor("local")
	l.enter()
	f := l.waitFor("2 servers · 1 ready · 1 failed")
	// Rows are in config order: which of the two comes first is the
	// config loader's; the keys below follow it.
	toEverything, toBroken := tea.KeyPressMsg{Code: tea.KeyDown}, tea.KeyPressMsg{Code: tea.KeyUp}
	if strings.Index(f, "everything") < strings.Index(f, "broken") {
		toEverything, toBroken = toBroken, toEverything
	}
	if !strings.Contains(f, "▌ everything") {
		l.key(toEverything)
	}
	l.waitFor("▌ everything")
	l.enter() // the working one lists
	l.waitFor("7 loaded")
	l.esc()
	l.waitFor("▌ everything")
	l.key(toBroken)
	f = l.waitFor("▌ broken", "✗ broken failed to start:", "fork/exec /nonexistent/dpe-tui-no-such-server: no such file")
	l.quit()
	// The endpoint of everything is this machine's node and package path.
	f = regexp.MustCompile(`(everything\s+stdio\s+ready\s+)\S.*`).ReplaceAllString(f, "${1}<node> <server-everything> stdio")
	lines := strings.Split(f, "\n")
	for i, s := range lines {
		lines[i] = strings.TrimRight(s, " ")
	}
	// The header has this run's port; the status line, whichever notice
	// of the start-up came last.
	lines[0], lines[len(lines)-2] = "<header>", "<status>"
	xgolden.RequireEqual(t, strings.Join(lines, "\n")+"\n")
}

// TestLs_OnlyNonDPEResourcesSaysSo: without --all, a server that lists
// only non-dpe resources is not an empty table with no word why: stderr
// names the server and how many it has, and when nothing else was listed
// the exit code is the nothing-listed one; a folder beside it lists.
func TestLs_OnlyNonDPEResourcesSaysSo(t *testing.T) {
	common, _ := everythingConfigs(t, nil)
	code, out, errOut := runCLI(t, "ls", "resources", "--mcp-config", common)
	if code != exitNothingListed || strings.Contains(out, "demo://") {
		t.Fatalf("exit %d (want %d)\n%s\n%s", code, exitNothingListed, out, errOut)
	}
	if !strings.Contains(errOut, "dpe-tui: skipped server everything on local: it lists 7 non-dpe resource(s) and no dpe:// one (--all lists them)\n") {
		t.Fatalf("stderr does not say why the table is empty: %q", errOut)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plan.md"), []byte("# Plan\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, out, errOut = runCLI(t, "ls", "resources", "--mcp-config", common, "--docs", dir)
	if code != 0 || !strings.Contains(out, "plan.md") || !strings.Contains(errOut, "skipped server everything on local: it lists 7 non-dpe") {
		t.Fatalf("with a folder: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestLocalTUI_SlowServerStartsLive: a server that takes seconds to start
// is "starting…" in the servers screen while the other one already lists,
// and turns ready by itself (Local.Changed), with no key pressed.
func TestLocalTUI_SlowServerStartsLive(t *testing.T) {
	node, entry := interoptest.Everything(t)
	slow := map[string]any{"command": "/bin/sh", "args": []string{"-c", `sleep 3; exec "$0" "$1" stdio`, node, entry}}
	common, _ := everythingConfigs(t, map[string]any{"slow": slow})
	l := startLocalTUI(t, common, 100, 30)
	l.waitFor("local")
	l.enter()
	f := l.waitFor("2 servers · 1 starting · 1 ready", "starting…")
	if !strings.Contains(f, "▌ everything") {
		l.key(tea.KeyPressMsg{Code: tea.KeyDown})
		l.waitFor("▌ everything")
	}
	l.enter()
	l.waitFor("7 loaded")
	l.esc()
	l.waitFor("2 servers · 2 ready")
	l.quit()
}

// TestLocalTUI_EmptyConfigSaysSo: an --mcp-config file that defines no
// server is said on the servers screen, as ls says it on stderr, not an
// empty list with no word why.
func TestLocalTUI_EmptyConfigSaysSo(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "empty.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	l := startLocalTUI(t, cfg, 80, 24)
	l.waitFor("local")
	l.enter()
	l.waitFor("note: ", "empty.json: no MCP ser") // the path is clipped at 80 columns
	l.quit()
}
