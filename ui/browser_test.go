package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestErrorDetail_ShowsTheRecentMessages: E with no error yet shows what
// the status line said lately, newest first (it said "no error to show"
// and nothing else); esc closes it.
func TestErrorDetail_ShowsTheRecentMessages(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			opt := testOptions(newFakeAgent(t))
			opt.Width, opt.Height = size[0], size[1]
			s := start(t, opt)
			s.toDocument()
			s.idle()
			s.keys("E")
			s.waitFor("Recent messages")
			f := s.frame()
			if !strings.Contains(f, "opened Annual report") || strings.Contains(f, "no error") {
				t.Errorf("E does not list the recent messages:\n%s", f)
			}
			golden.RequireEqual(t, normalize(f))
			s.keys("esc")
			s.waitUntil("the document again", func(f string) bool { return !strings.Contains(f, "Recent messages") })
			s.final()
		})
	}
}

// TestErrorDetail_NothingToShowSaysSo: E before any message says so on
// the status line instead of doing nothing.
func TestErrorDetail_NothingToShowSaysSo(t *testing.T) {
	m := newTestModel(t, newFakeAgent(t))
	press(t, m, "E")
	if m.overlay != nil || !strings.Contains(m.statusText(), "no error or message to show yet") {
		t.Fatalf("E with nothing to show: overlay %T, status %q", m.overlay, m.statusText())
	}
}

// TestErrorDetail_KeepsTheLastFiftyMessagesAndCountsRepeats: the list is
// bounded; a line said again is counted, not listed twice.
func TestErrorDetail_KeepsTheLastFiftyMessagesAndCountsRepeats(t *testing.T) {
	m := newTestModel(t, newFakeAgent(t))
	for i := range 70 {
		m.e.info(fmt.Sprintf("message %d", i))
	}
	m.e.info("message 69")
	press(t, m, "E")
	v, ok := m.overlay.(*messagesView)
	if !ok {
		t.Fatalf("E opened %T", m.overlay)
	}
	body := strings.Join(v.lines, "\n")
	if len(v.msgs) != maxRecentMessages || strings.Contains(body, "message 19 ") || !strings.Contains(body, "message 20") {
		t.Fatalf("%d messages kept, want the last %d (20 to 69):\n%s", len(v.msgs), maxRecentMessages, body)
	}
	if !strings.Contains(body, "message 69") || !strings.Contains(body, "×2") || strings.Index(body, "message 69") > strings.Index(body, "message 68") {
		t.Fatalf("the repeat is not counted on the newest entry, listed first:\n%s", body)
	}
}

// TestConnectError_SaysWhatToTry: a refused connection is one error with
// a line saying what to try, on the screen and in E.
func TestConnectError_SaysWhatToTry(t *testing.T) {
	m := newTestModel(t, newFakeAgent(t))
	m.update(connectFailedMsg{err: fmt.Errorf("connect to http://127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused")})
	if f := frame(m); !strings.Contains(f, "Nothing listens at the server's URL") {
		t.Fatalf("the connect error says nothing to try:\n%s", f)
	}
	press(t, m, "E")
	v, ok := m.overlay.(*messagesView)
	if !ok || !strings.Contains(strings.Join(v.lines, "\n"), "What to try") {
		t.Fatalf("E on a connect error: %T without a what to try line", m.overlay)
	}
	m.overlay = nil
	m.update(connectFailedMsg{err: fmt.Errorf("handshake: office rejected")})
	if f := frame(m); !strings.Contains(f, "Check that the SMCP server runs") {
		t.Fatalf("an unknown connect failure says nothing to try:\n%s", f)
	}
}
