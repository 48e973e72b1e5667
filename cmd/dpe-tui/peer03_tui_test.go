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
	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/ui"
)

// TestTUI_03PeerCollidingNamesAreOpenedByKey: the browser on the real
// client against the python-socketio 0.3 peer, whose two servers share the
// display name "docs". The computer screen shows their keys, and enter on
// the second lists its resources (the peer answers 4014 to a display
// name): the request named its key.
func TestTUI_03PeerCollidingNamesAreOpenedByKey(t *testing.T) {
	url := interoptest.StartScript(t, "smcp_peer_03.py")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: url, Office: "o", Name: "tui", ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m := ui.New(ui.Options{Agent: c, Theme: "dark", Width: 80, Height: 24, StatusTimeout: -1})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	var seen bytes.Buffer
	wait := func(want string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			seen.Write(b)
			return bytes.Contains(seen.Bytes(), []byte(want))
		}, teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	wait("box")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("org.other.docs")
	// Sorted by name, then key: browser, docs (com.example.docs.v1), docs (org.other.docs).
	tm.Send(tea.KeyPressMsg{Code: tea.KeyDown})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyDown})
	seen.Reset()
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("dpe://org.other.docs/report")
	if strings.Contains(seen.String(), "4014") {
		t.Errorf("the listing was refused with 4014:\n%s", seen.String())
	}
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}
