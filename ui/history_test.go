package ui

import (
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// Forward in the history has a key every terminal sends: ctrl+i is tab
// where the terminal does not disambiguate keys, and tab is the sidebar
// focus. > goes forward and < back, in every terminal.
func TestHistory_ForwardHasAKeyEveryTerminalSends(t *testing.T) {
	m := openJSON(t, 80, 24, twoPageTableDoc())
	d := m.docS()
	press(t, m, ":", "2", "enter")
	press(t, m, "<")
	if d.page != 0 {
		t.Fatalf("< went to page %d, want 1", d.page+1)
	}
	press(t, m, ">")
	if d.page != 1 {
		t.Fatalf("> went to page %d, want 2", d.page+1)
	}
	// tab, what such a terminal sends for ctrl+i, is the sidebar focus,
	// never a history move.
	press(t, m, "ctrl+o", "tab")
	if d.page != 0 {
		t.Fatalf("tab moved in the history: page %d", d.page+1)
	}
}

// The help names ctrl+i only once the terminal said it tells ctrl+i
// from tab (a tea.KeyboardEnhancementsMsg); before, forward is >.
func TestHistory_HelpNamesCtrlIOnlyWhereTheTerminalSendsIt(t *testing.T) {
	m := openJSON(t, 100, 60, twoPageTableDoc())
	press(t, m, "?")
	f := frame(m)
	if !regexp.MustCompile(` >\s+forward in history`).MatchString(f) || strings.Contains(f, "ctrl+i") {
		t.Fatalf("help without key disambiguation:\n%s", f)
	}
	press(t, m, "?")
	run(t, m, m.update(tea.KeyboardEnhancementsMsg{Flags: 1}))
	press(t, m, "?")
	if f := frame(m); !regexp.MustCompile(`ctrl\+i/>\s+forward in history`).MatchString(f) {
		t.Fatalf("help with key disambiguation:\n%s", f)
	}
}
