package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/hostilepeer"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/ui"
)

// TestHostile_TUILoadAllStopsAtTheBudget: the browser, on the real client,
// against a server whose computer hands out fresh cursors for ever: `M`
// (load all) stops at the listing budget with a message naming it, after a
// bounded number of get_resources.
func TestHostile_TUILoadAllStopsAtTheBudget(t *testing.T) {
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "evil", Servers: []string{"pit"}, Resources: hostilepeer.EndlessCursors("org.evil.pit", 10),
	}}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: srv.URL, Office: "demo", Name: "tui", ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m := ui.New(ui.Options{Agent: c, Theme: "dark", Width: 100, Height: 30, StatusTimeout: -1, MaxListedResources: 50})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	wait := func(want string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(want)) },
			teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	wait("evil")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("pit")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("doc 0")
	tm.Send(tea.KeyPressMsg{Code: 'M', Text: "M"})
	wait("listing budget reached")
	if n := srv.CallsTo("evil", protocol.EventGetResources); n > 6 {
		t.Errorf("%d get_resources calls for a budget of 50 resources at 10 a page", n)
	}
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

// Cancelling `open` while a file converts stops the conversion: esc's
// cancel reaches the converter mid-parse (a document of 3,000,000 tiny
// paragraphs, seconds of parsing before its output budget), which
// returns the cancellation instead of finishing, the screen says the open
// was cancelled, and ctrl+c then ends the program.
func TestOpen_EscStopsTheConversion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "slow.docx")
	writeHostile(t, "docx-tiny-paragraphs.docx", path)
	conv := convert.New(convert.Options{CacheDir: "-"})
	defer conv.Close()
	started := make(chan struct{})
	ended := make(chan error, 1)
	m := ui.New(ui.Options{Theme: "dark", Width: 100, Height: 30, StatusTimeout: -1, OpenTarget: absFileURI(path),
		Fetcher: &dpe.Fetcher{AllowFile: true},
		OpenFile: func(ctx context.Context, p string) (ui.PageSource, error) {
			close(started)
			d, err := conv.OpenFile(ctx, p)
			ended <- err
			return d, err
		}})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	<-started
	time.Sleep(300 * time.Millisecond) // into the parse (not a bound: any moment proves it)
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("open cancelled")) },
		teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the conversion ended with %v, not the cancellation", err)
	}
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}
