package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// Desktop gives the fake agent get_desktop: box has two windows, one
// with a hostile URI and text; build-box's server refuses the event,
// wrapped as the client wraps it, with details that must not show.
func (a *skillAgent) Desktop(ctx context.Context, computer string) (*client.Desktop, error) {
	switch computer {
	case "build-box":
		details, _ := json.Marshal(map[string]any{"trace": "/srv/secret/stack.py"})
		return nil, fmt.Errorf("desktop of computer %s: %s to computer %s: %w", computer, protocol.EventGetDesktop, computer,
			&protocol.Error{Code: protocol.CodeNotFound, Message: "computer build-box does not route client:get_desktop", Details: details})
	case "box":
		if a.desk != nil {
			return a.desk, nil
		}
		return &client.Desktop{Windows: []client.Window{
			{URI: "window://com.example.browser/main", Body: "\n  Hello from the browser\nsecond line"},
			{URI: "window://com.example.term/1\x1b]0;pwned\x07", Body: "$ make\x1b[2J test", Truncated: true},
		}, Skipped: 1}, nil
	}
	return &client.Desktop{}, nil
}

// TestDesktop_ComputerScreenShowsWindowsUnderSkills: the computer screen
// has a DESKTOP section under its skills with each window's URI and the
// first line of its text, every string sanitized, a count in its title.
func TestDesktop_ComputerScreenShowsWindowsUnderSkills(t *testing.T) {
	s := startSkills(t, newSkillAgent(t), [2]int{80, 24}, t.TempDir())
	s.waitFor("2 windows")
	raw := s.finalANSI()
	out := normalize(ansi.Strip(raw))
	for _, want := range []string{"DESKTOP · 2 windows", "window://com.example.browser/main", "Hello from the browser",
		"window://com.example.term/1", "(cut)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the desktop section lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "second line") {
		t.Errorf("a window's row shows more than its first line:\n%s", out)
	}
	if strings.Contains(raw, "\x1b]") || strings.Contains(raw, "\x1b[2J") {
		t.Errorf("a window's URI or text reached the terminal unsanitized")
	}
	golden.RequireEqual(t, out)
}

// TestDesktop_ComputerWithoutGetDesktopSaysSoOnce: a server that does not
// route get_desktop gets one dim line, the peer's sentence, never details.
func TestDesktop_ComputerWithoutGetDesktopSaysSoOnce(t *testing.T) {
	s := start(t, testOptions(newSkillAgent(t)))
	s.waitFor("build-box")
	s.waitFor("1 enabled")
	s.keys("down", "enter")
	s.waitFor("not shown: computer build-box does not route client:get_desktop")
	out := s.final()
	if strings.Count(out, "get_desktop") != 1 || strings.Contains(out, "/srv/secret") || strings.Contains(out, "trace") {
		t.Errorf("the desktop section does not say it once, without details:\n%s", out)
	}
	golden.RequireEqual(t, out)
}

// TestDesktop_WindowsThatDoNotFitAreCounted: more windows than the
// section's share of the screen are cut, the rest counted on its last
// line; the servers and skills above keep their rows.
func TestDesktop_WindowsThatDoNotFitAreCounted(t *testing.T) {
	a := newSkillAgent(t)
	a.desk = &client.Desktop{}
	for i := range 40 {
		a.desk.Windows = append(a.desk.Windows, client.Window{URI: fmt.Sprintf("window://com.example.term/%d", i), Body: "shell"})
	}
	s := startSkills(t, a, [2]int{80, 24}, t.TempDir())
	s.waitFor("40 windows")
	out := s.final()
	if !strings.Contains(out, "window://com.example.term/0 ") || strings.Contains(out, "window://com.example.term/39") {
		t.Errorf("the desktop is not cut from its first window:\n%s", out)
	}
	if !strings.Contains(out, "… and 39 more") || !strings.Contains(out, "mcp:com_exampl") || !strings.Contains(out, "org.other.docs") {
		t.Errorf("the cut desktop is not counted, or pushed the lists above off:\n%s", out)
	}
	golden.RequireEqual(t, out)
}

// TestDesktop_TabReachesTheWindowsAndEnterShowsOne: the desktop has a
// cursor like the lists above it: tab goes servers → skills → desktop,
// the rows that did not fit scroll into view, enter shows the window's
// whole text (sanitized), esc comes back; help and the footer say tab.
func TestDesktop_TabReachesTheWindowsAndEnterShowsOne(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			a := newSkillAgent(t)
			a.desk = &client.Desktop{}
			for i := range 40 {
				a.desk.Windows = append(a.desk.Windows, client.Window{URI: fmt.Sprintf("window://com.example.term/%d", i), Body: fmt.Sprintf("shell %d\n$ make\x1b[2J\nok", i)})
			}
			s := startSkills(t, a, size, t.TempDir())
			s.waitFor("40 windows")
			s.waitFor("tab skills")
			s.keys("tab")
			s.waitFor("tab desktop")
			s.keys("tab")
			s.waitFor("window text")
			s.keys("G")
			s.waitFor("window://com.example.term/39")
			golden.RequireEqual(t, normalize(s.frame()))
			s.keys("enter")
			s.waitFor("shell 39")
			f := s.frame()
			if !strings.Contains(f, "$ make") || strings.Contains(f, "\x1b[2J") {
				t.Errorf("the window's text is not shown whole and sanitized:\n%s", f)
			}
			s.keys("esc")
			s.waitUntil("back on the desktop", func(f string) bool { return strings.Contains(f, "DESKTOP · 40 windows") })
			s.keys("?")
			s.waitFor("window text")
			s.final()
		})
	}
}
