package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/ui"
)

// TestOpen_NameWithControlCharacters: `open` of a file whose name holds
// an escape and a BEL converts the file at its real path (the target URI
// is escaped, not the sanitised display name) and shows the document.
func TestOpen_NameWithControlCharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ctl\x1b[31m\aname.md")
	if err := os.WriteFile(path, []byte("# Plan\n\nShip the harbour report.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conv := convert.New(convert.Options{CacheDir: "-"})
	defer conv.Close()
	opened := make(chan string, 1)
	m := ui.New(ui.Options{Theme: "dark", Width: 100, Height: 30, StatusTimeout: -1, OpenTarget: absFileURI(path),
		Fetcher: &dpe.Fetcher{AllowFile: true},
		OpenFile: func(ctx context.Context, p string) (ui.PageSource, error) {
			opened <- p
			return conv.OpenFile(ctx, p)
		}})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("Ship the harbour report.")) },
		teatest.WithDuration(60*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	if p := <-opened; p != path {
		t.Errorf("converted %q, want the real path %q", p, path)
	}
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}
