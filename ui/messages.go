package ui

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
)

// maxRecentMessages bounds the status messages kept for E.
const maxRecentMessages = 50

// loggedMessage is one status line as it was shown; times counts the
// same line said again right after it.
type loggedMessage struct {
	at    time.Time
	kind  statusKind
	text  string
	times int
}

// remember keeps a status line for E, the newest last: the same line
// said again is counted on the last entry, and only the last
// maxRecentMessages are kept.
func (e *env) remember(kind statusKind, text string) {
	text = strings.TrimSuffix(text, detailsHint) // E is where this is
	if text == "" {
		return
	}
	if n := len(e.recent); n > 0 && e.recent[n-1].text == text && e.recent[n-1].kind == kind {
		e.recent[n-1].times++
		e.recent[n-1].at = e.opt.Now()
		return
	}
	if len(e.recent) == maxRecentMessages {
		e.recent = append(e.recent[:0], e.recent[1:]...)
	}
	e.recent = append(e.recent, loggedMessage{at: e.opt.Now(), kind: kind, text: text, times: 1})
}

// messagesView is E: the last error whole (its code, category and what
// to try), then the recent status messages, newest first. Its lines are
// made in Update (arrange), for the width; View only reads them.
type messagesView struct {
	e    *env
	err  *errorInfo
	msgs []loggedMessage
	sc   scroller
	// lines are made for width w and theme gen.
	lines  []string
	w, gen int
}

func newMessagesView(e *env) *messagesView {
	v := &messagesView{e: e, err: e.lastErr, msgs: append([]loggedMessage(nil), e.recent...), sc: scroller{lines: true}, w: -1}
	v.arrange(e.width, e.bodyHeight())
	return v
}

func (v *messagesView) arrange(w, h int) {
	if w != v.w || v.gen != v.e.themeGen {
		v.lines, v.w, v.gen = v.make(w), w, v.e.themeGen
	}
	v.sc.clamp(len(v.lines), h)
}

func (v *messagesView) make(w int) []string {
	st := v.e.st
	var out []string
	if v.err != nil {
		out = append(v.err.lines(w, st), "")
	}
	out = append(out, " "+st.title.Render("Recent messages")+st.dim.Render(fmt.Sprintf(" · newest first, the last %d kept", maxRecentMessages)), "")
	if len(v.msgs) == 0 {
		return append(out, "  "+st.dim.Render("none yet"))
	}
	for i := len(v.msgs) - 1; i >= 0; i-- {
		m := v.msgs[i]
		style, mark := st.info, "·"
		switch m.kind {
		case statusOK:
			style, mark = st.okText, "✓"
		case statusErr:
			style, mark = st.errText, "✗"
		}
		head := "  " + st.dim.Render(m.at.Format("15:04:05")) + " " + style.Render(mark) + " "
		text := m.text
		if m.times > 1 {
			text += st.dim.Render(" (×" + strconv.Itoa(m.times) + ")")
		}
		for j, l := range wrapCells(text, max(10, w-13)) {
			if j == 0 {
				out = append(out, head+style.Render(l))
				continue
			}
			out = append(out, strings.Repeat(" ", 13)+style.Render(l))
		}
	}
	return out
}

func (v *messagesView) Update(msg tea.Msg) (screen, tea.Cmd) {
	k := v.e.keys
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if matches(msg, k.Back, k.Enter, k.ErrorDetail) {
			return v, v.e.ask(closeOverlayMsg{})
		}
		v.sc.nav(k, msg, len(v.lines), v.e.bodyHeight())
	case tea.MouseWheelMsg:
		v.sc.wheel(msg.Button == tea.MouseWheelUp, len(v.lines), v.e.bodyHeight())
	}
	return v, nil
}

func (v *messagesView) View(w, h int) []string {
	return box(v.lines[min(max(0, v.sc.top), len(v.lines)):], w, h)
}

func (v *messagesView) Keys() screenKeys {
	k := v.e.keys
	return screenKeys{
		short: []key2{k.Up, k.Down, k.PageDown, withHelp(k.Back, "close")},
		full:  [][]key2{k.navKeys(), k.globalKeys()},
	}
}

func (v *messagesView) Crumb() string {
	if v.err != nil {
		return "error"
	}
	return "messages"
}

// connectHint says what to try when connecting to the server failed:
// from the cause when it is known, else where to look.
func connectHint(err error) string {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return "The server's host name does not resolve: check the URL (--url, or the profile's url in config.toml)."
	case errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "connection refused"):
		return "Nothing listens at the server's URL: start one (dpe-tui serve), or check the URL (--url, or the profile's url in config.toml). r tries again."
	case strings.Contains(err.Error(), "x509:") || strings.Contains(err.Error(), "tls:"):
		return "The TLS handshake failed: check that the URL's scheme (http or https) is the server's, and its certificate."
	}
	return "Check that the SMCP server runs and that its URL (--url, or the profile's url in config.toml) and the office are right; r tries again."
}
