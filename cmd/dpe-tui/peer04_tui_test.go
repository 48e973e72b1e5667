package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/stack"
	"github.com/dpe-tui/dpe-tui/ui"
)

// TestTUI_04PeerBrowsedEndToEnd: the browser, on the real client and the
// converter the binary wires in, against the python-socketio 0.4 peer
// (written from the spec): the office lists the computer at 0.4, its two
// servers named "docs" show their keys and the second lists its resources
// by key, the skills list shows pdf-tools with its tags, enter renders its
// SKILL.md as a document (headings, list, table, code), and its linked
// text file opens through get_skill with rel_path and its binary one
// through get_blob.
func TestTUI_04PeerBrowsedEndToEnd(t *testing.T) {
	url := interoptest.StartScript(t, "smcp_peer_04.py")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: url, Office: "o", Name: "tui", ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v := c.Version(); !strings.HasPrefix(v, "0.4.") || protocol.Version04 != v {
		t.Fatalf("negotiated %q, want the 0.4 line", v)
	}
	tm, seen, wait, key := browser(t, c)

	wait("box", "0.4.")
	seen.Reset()
	key(tea.KeyEnter)
	wait("com.example.docs.v1", "org.other.docs", "pdf-tools", "forms")
	// The peer's desktop (get_desktop) shows under the skills.
	wait("2 windows", "window://com.example.browser/main", "window://com.example.term/1")
	// Sorted by name, then key: browser, docs (com.example.docs.v1), docs (org.other.docs).
	key(tea.KeyDown)
	key(tea.KeyDown)
	seen.Reset()
	key(tea.KeyEnter)
	wait("dpe://org.other.docs/report")
	if strings.Contains(seen.String(), "4014") {
		t.Fatalf("the listing was refused with 4014:\n%s", seen.String())
	}
	key(tea.KeyEscape)
	wait("pdf-tools")
	key(tea.KeyTab)
	seen.Reset()
	key(tea.KeyEnter)
	// SKILL.md is split at its headings like any Markdown document.
	wait("Steps", "Fields", "forms")
	seen.Reset()
	key(']')
	wait("pdftk", "boxes")
	seen.Reset()
	key(']')
	wait("agree", "json.load")
	seen.Reset()
	key('L')
	wait("reference/forms.md", "assets/logo.png")
	seen.Reset()
	key(tea.KeyEnter)
	wait("Forms", "value")
	// The package's binary file comes by get_blob (chunked by the peer).
	key(tea.KeyEscape)
	wait("assets/logo.png")
	key(tea.KeyDown)
	seen.Reset()
	key(tea.KeyEnter)
	wait("image/png")
	if strings.Contains(seen.String(), "sha256") || strings.Contains(seen.String(), "4018") {
		t.Errorf("the blob did not arrive whole:\n%s", seen.String())
	}
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

// TestTUI_OurServe04BrowsedEndToEnd: the same flow against our own stack
// speaking 0.4 (what serve --a2c-version 0.4.0 runs): the computers at
// 0.4, alpha's servers and resources by key, its demo skills, dpe-review's
// SKILL.md as a document, its checklist (get_skill) and its badge
// (get_blob).
func TestTUI_OurServe04BrowsedEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := stack.Start(ctx, stack.Options{Resolver: "http", A2CVersion: protocol.Version04})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := client.Dial(ctx, client.Options{URL: st.URL, Office: st.Office, Name: "tui", Version: protocol.Version04, ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tm, seen, wait, key := browser(t, c)

	wait("alpha", "beta", "0.4.0")
	seen.Reset()
	key(tea.KeyEnter)
	wait("library", "dpe-review", "pdf-triage")
	// alpha's desktop (get_desktop): a status window per MCP server.
	wait("window://io.github.dpetui.library/status", "window://io.github.dpetui.notes/status")
	seen.Reset()
	key(tea.KeyEnter)
	wait("dpe://io.github.dpetui.library/")
	key(tea.KeyEscape)
	wait("dpe-review")
	key(tea.KeyTab)
	seen.Reset()
	key(tea.KeyEnter)
	wait("careful", "Steps", "Severity")
	seen.Reset()
	key('L')
	wait("references/checklist.md", "assets/badge.png")
	seen.Reset()
	key(tea.KeyEnter)
	wait("checklist", "Heading")
	key(tea.KeyEscape)
	wait("assets/badge.png")
	key(tea.KeyDown)
	seen.Reset()
	key(tea.KeyEnter)
	wait("image/png")
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

// browser runs the TUI at 120x40 on client c with the converter the
// binary wires in, and returns the program, what it has printed since
// the last seen.Reset, a wait for every want to have been printed, and a
// key press.
func browser(t *testing.T, c *client.Client) (*teatest.TestModel, *bytes.Buffer, func(want ...string), func(rune)) {
	conv := convert.New(convert.Options{})
	t.Cleanup(func() { conv.Close() })
	m := ui.New(ui.Options{Agent: c, Theme: "dark", Width: 120, Height: 40, StatusTimeout: -1,
		ConvertMarkdown: func(ctx context.Context, name string, body []byte) (ui.PageSource, error) {
			return conv.Open(ctx, convert.BytesSource(name, body))
		}})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	seen := new(bytes.Buffer)
	wait := func(want ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			seen.Write(b)
			for _, w := range want {
				if !bytes.Contains(seen.Bytes(), []byte(w)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(45*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	return tm, seen, wait, func(k rune) { tm.Send(tea.KeyPressMsg{Code: k}) }
}
