package main

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/finder"
	"github.com/dpe-tui/dpe-tui/ui"
)

// TestTUI_FinderOneWordFloodIsAnswered: the Finder screen on the office,
// given `*o*` 1,024 times as one word (pasted, as a tester would), shows
// each computer's answer (no hits) within a bound derived from the
// Finder's deadline, where it said "searching…" for 30 s and grew to 8 GB,
// and the program quits at once after.
func TestTUI_FinderOneWordFloodIsAnswered(t *testing.T) {
	st := startStack(t, "http")
	control := waitFinders(t, st.URL, "alpha")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: st.URL, Office: "demo", Name: "tui-flood", ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	opt := ui.Options{Agent: c, Theme: "dark", Width: 100, Height: 30, StatusTimeout: -1, Limits: dpe.DefaultLimits()}
	lt := &localTUI{t: t}
	lt.tm = teatest.NewTestModel(t, frameProbe{ui.New(opt)}, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	lt.waitFor("alpha")
	lt.rune('F')
	lt.waitFor("search /")
	lt.tm.Send(tea.PasteMsg{Content: strings.Repeat("*o*", 1024)})
	start := time.Now()
	lt.enter()
	f := lt.waitFor("alpha: 0", "beta: 0")
	if took, bound := time.Since(start), floodBound(control); took > bound {
		t.Errorf("answered after %s, past %s (the Finder's deadline is %s):\n%s", took, bound, finder.DefaultQueryTimeout, f)
	}
	lt.quit()
}
