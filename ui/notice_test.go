package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// A notice from outside (the PDF engine compiling on first use) is shown
// on the status line, sanitized, and cleared like any other status.
func TestNotice_ShownOnTheStatusLineThenCleared(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	run(t, m, m.openDPE(openURIMsg{uri: reportURI}))
	m.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	const text = "preparing the PDF engine (first use only)"
	guard(t, "Update", func() { m.update(NoticeMsg{Text: text + "\x1b]0;title\x07"}) })
	last := func() string {
		lines := strings.Split(frame(m), "\n")
		return strings.Join(lines[len(lines)-2:], "\n")
	}
	if got := last(); !strings.Contains(got, text) {
		t.Fatalf("the bottom of the screen does not show the notice:\n%s", got)
	}
	if strings.ContainsAny(m.e.status.text, "\x1b\x07") {
		t.Fatalf("the notice reached the status line unsanitized: %q", m.e.status.text)
	}
	m.update(clearStatusMsg{id: m.e.status.id})
	if got := last(); strings.Contains(got, text) {
		t.Fatalf("the notice stayed after its clear:\n%s", got)
	}
}
