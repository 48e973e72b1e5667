package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// Esc right after a document opens goes back to the resource list: the
// "opened … in 40ms" line is a result, not something esc puts away first
// (a new user pressed esc twice to leave, every time). The frame is the
// list, at 80×24, through the real program.
func TestEsc_AfterOpeningGoesBackToTheList(t *testing.T) {
	s := start80(t, testOptions(newFakeAgent(t)))
	s.toDocument()
	s.idle()
	s.keys("esc")
	s.waitUntil("the resource list", func(f string) bool {
		return strings.Contains(f, "Meeting notes") && !strings.Contains(f, "opened Annual report")
	})
	golden.RequireEqual(t, s.final())
}

// An error the user has not answered yet is the innermost thing on
// screen: esc puts it away and the document stays; the next esc leaves
// the document. Once another key has answered the error, esc is the
// screen's again.
func TestEsc_PutsAwayAnUnansweredErrorOnly(t *testing.T) {
	s := start80(t, testOptions(newFakeAgent(t)))
	s.toDocument()
	s.idle()
	s.keys(":")
	s.typeText("999")
	s.keys("enter")
	s.waitFor(":999: no such page")
	s.keys("esc")
	s.waitUntil("the error gone, the document kept", func(f string) bool {
		return !strings.Contains(f, ":999:") && strings.Contains(f, "page 1/3") && strings.Contains(f, "Revenue grew")
	})
	golden.RequireEqual(t, s.final())
}

// An error a key has answered no longer holds esc: the key moves on the
// document, esc leaves it (the error stays until its time is up, it does
// not take a second esc).
func TestEsc_AnsweredErrorLeavesEscToTheScreen(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	listOffice(t, m)
	depth := len(m.stack)
	run(t, m, m.openDPE(openURIMsg{uri: reportURI}))
	if m.docS() == nil {
		t.Fatalf("not opened: %s", m.statusText())
	}
	if !strings.Contains(m.statusText(), "opened") {
		t.Fatalf("set-up: no opened line: %q", m.statusText())
	}
	press(t, m, ":", "9", "9", "9", "enter")
	if m.e.status.kind != statusErr {
		t.Fatalf("set-up: :999 showed no error: %q", m.statusText())
	}
	if n, foot := escHints(m); n != 1 || !strings.Contains(foot, "esc clear message") {
		t.Fatalf("an unanswered error: the footer should hint esc clear message once: %q", foot)
	}
	press(t, m, "j")
	if n, foot := escHints(m); n != 1 || !strings.Contains(foot, "esc back") {
		t.Fatalf("an answered error: the footer should hint esc back once: %q", foot)
	}
	press(t, m, "esc")
	if len(m.stack) != depth {
		t.Fatalf("esc after an answered error should leave the document: stack %d (was %d), status %q", len(m.stack), depth+1, m.statusText())
	}
}
