package ui

import (
	"context"
	"errors"
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// connectingScreen waits for the first connection.
type connectingScreen struct {
	e  *env
	id int
}

func newConnectingScreen(e *env) *connectingScreen { return &connectingScreen{e: e} }

func (s *connectingScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	if c, ok := msg.(cancelledMsg); ok && c.id == s.id {
		return newErrorScreen(s.e, "", errors.New("connect cancelled")), nil
	}
	return s, nil
}

func (s *connectingScreen) View(w, h int) []string {
	line := "  " + s.e.spin.View() + " connecting…"
	return []string{"", line, "", s.e.st.dim.Render("  esc cancels · q quits")}
}

func (s *connectingScreen) Keys() screenKeys {
	k := s.e.keys
	return screenKeys{short: []key2{withHelp(k.Cancel, "cancel")}, full: [][]key2{{k.Cancel, k.Quit}}}
}

func (s *connectingScreen) Crumb() string { return "" }

// errorScreen is a failure with nothing else to show (connect, open mode):
// the whole error, r to retry, x for the trace of a failed open.
type errorScreen struct {
	e      *env
	info   *errorInfo
	err    error // what info was made of: TargetError hands it on
	fromOp int
	sc     scroller
}

func newErrorScreen(e *env, what string, err error) *errorScreen {
	info := newErrorInfo(what, err)
	e.lastErr = info
	return &errorScreen{e: e, info: info, err: err, sc: scroller{lines: true}}
}

func (s *errorScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	k := s.e.keys
	if msg, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case matches(msg, k.Retry):
			return s, s.e.ask(retryMsg{})
		case matches(msg, k.Trace):
			return s, s.e.ask(overlayMsg{s: newTraceOverlay(s.e, s.e.lastTrace)})
		case matches(msg, k.ErrorDetail, k.Enter):
			return s, s.e.ask(overlayMsg{s: newMessagesView(s.e)})
		}
		s.sc.nav(k, msg, len(s.lines(s.e.width)), s.e.bodyHeight())
	}
	return s, nil
}

func (s *errorScreen) lines(w int) []string {
	st := s.e.st
	out := []string{""}
	for i, l := range wrapCells(s.info.full, max(10, w-6)) {
		mark := "  "
		if i == 0 {
			mark = "✗ "
		}
		out = append(out, "  "+st.errText.Render(mark+l))
	}
	if s.info.hint != "" {
		out = append(out, "")
		for _, l := range wrapCells(s.info.hint, max(10, w-4)) {
			out = append(out, "  "+l)
		}
	}
	out = append(out, "", "  "+st.key.Render("r")+st.dim.Render(" retry   ")+st.key.Render("x")+st.dim.Render(" trace   ")+st.key.Render("q")+st.dim.Render(" quit"))
	return out
}

func (s *errorScreen) View(w, h int) []string { return s.sc.window(s.lines(w), w, h) }

func (s *errorScreen) Keys() screenKeys {
	k := s.e.keys
	return screenKeys{short: []key2{k.Retry, k.Trace, k.ErrorDetail}, full: [][]key2{{k.Retry, k.Trace, k.ErrorDetail}, k.globalKeys()}}
}

func (s *errorScreen) Crumb() string { return "" }

// openingScreen is `dpe-tui open` before the document arrives.
type openingScreen struct {
	e      *env
	target string
	id     int
}

func newOpeningScreen(e *env, target string) *openingScreen {
	return &openingScreen{e: e, target: target}
}

func (s *openingScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case errMsg:
		if msg.id == s.id {
			es := newErrorScreen(s.e, msg.what, msg.err)
			es.fromOp = msg.id
			return es, nil
		}
	case cancelledMsg:
		if msg.id == s.id {
			return newErrorScreen(s.e, "", errors.New("open cancelled")), nil
		}
	}
	return s, nil
}

func (s *openingScreen) View(w, h int) []string {
	return []string{"", "  " + s.e.spin.View() + " opening " + sanitizeLine(s.target) + "…"}
}

func (s *openingScreen) Keys() screenKeys {
	k := s.e.keys
	return screenKeys{short: []key2{withHelp(k.Cancel, "cancel")}, full: [][]key2{{k.Cancel, k.Quit}}}
}

func (s *openingScreen) Crumb() string { return "" }

func (m *model) connect() tea.Cmd {
	e := m.e
	if e.opt.Connect == nil {
		m.stack = []screen{newErrorScreen(e, "", errors.New("no server to connect to and nothing to open"))}
		return nil
	}
	connect := e.opt.Connect
	id, cmd := e.start("connecting", 0, func(ctx context.Context, id int) tea.Msg {
		a, err := connect(ctx)
		if err != nil {
			return connectFailedMsg{id: id, err: err}
		}
		if a == nil {
			return connectFailedMsg{id: id, err: errors.New("connect returned no agent")}
		}
		return connectedMsg{id: id, agent: a}
	})
	if w, ok := m.top().(opWaiter); ok {
		w.waitOn(id)
	}
	return cmd
}

// listen waits for the next event of the current agent, tagged with its
// generation. It is not an op: it has no spinner and ends when the agent
// closes its channel.
func (m *model) listen() tea.Cmd {
	a := m.e.agent
	if a == nil {
		return nil
	}
	ch := a.Events()
	if ch == nil {
		return nil
	}
	gen := m.profiles.gen
	return m.e.safe(0, func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return agentEventMsg{gen: gen, closed: true}
		}
		return agentEventMsg{gen: gen, ev: ev}
	})
}

// helpOverlay is `?`: the full help of the screen underneath.
type helpOverlay struct {
	e    *env
	h    *help.Model
	keys screenKeys
	// off is the first body line shown, when the help is taller than
	// the screen; Update keeps it within the body at the current size.
	off int
}

func newHelpOverlay(e *env, h *help.Model, keys screenKeys) *helpOverlay {
	return &helpOverlay{e: e, h: h, keys: keys}
}

// helpHead is the help's two fixed lines above the keys.
const helpHead = 2

func (o *helpOverlay) Update(m tea.Msg) (screen, tea.Cmd) {
	msg, ok := m.(tea.KeyPressMsg)
	if !ok {
		return o, nil
	}
	k := o.e.keys
	room := o.room(o.e.bodyHeight())
	switch {
	case matches(msg, k.Back):
		return o, o.e.ask(closeOverlayMsg{})
	case matches(msg, k.Down):
		o.off++
	case matches(msg, k.Up):
		o.off--
	case matches(msg, k.HalfDown):
		o.off += max(1, room/2)
	case matches(msg, k.HalfUp):
		o.off -= max(1, room/2)
	case matches(msg, k.PageDown):
		o.off += room
	case matches(msg, k.PageUp):
		o.off -= room
	case matches(msg, k.Top):
		o.off = 0
	case matches(msg, k.Bottom):
		o.off = len(o.body(o.e.width))
	}
	o.off = max(0, min(o.off, len(o.body(o.e.width))-room))
	return o, nil
}

// room is how many body lines fit under the head in h lines, one of them
// kept for the "more follows" line when the body is cut.
func (o *helpOverlay) room(h int) int {
	return max(1, h-helpHead-1)
}

// body lays the help's columns out in bands as wide as the screen, so a
// narrow terminal shows every key instead of cutting the last columns.
func (o *helpOverlay) body(w int) []string {
	o.h.ShowAll = true
	width := o.h.Width()
	o.h.SetWidth(0) // measured here, never cut
	defer func() {
		o.h.ShowAll = false
		o.h.SetWidth(width)
	}()
	var body []string
	var band [][]key.Binding
	flush := func() {
		if len(band) == 0 {
			return
		}
		if len(body) > 0 {
			body = append(body, "")
		}
		for _, l := range strings.Split(o.h.FullHelpView(band), "\n") {
			body = append(body, " "+l)
		}
		band = nil
	}
	for _, col := range o.keys.FullHelp() {
		if len(band) > 0 && lipgloss.Width(o.h.FullHelpView(append(slices.Clone(band), col))) > w-2 {
			flush()
		}
		band = append(band, col)
	}
	flush()
	if len(o.keys.notes) > 0 {
		body = append(body, "")
		for _, n := range o.keys.notes {
			for _, l := range strings.Split(ansi.Wordwrap(n, max(10, w-2), ""), "\n") {
				body = append(body, " "+o.e.st.dim.Render(l))
			}
		}
	}
	return body
}

// View shows the lines from off; a help taller than the screen says how
// much more follows and which keys reach it.
func (o *helpOverlay) View(w, h int) []string {
	k := o.e.keys
	st := o.e.st
	head := []string{" " + st.title.Render("Keys") + st.dim.Render(" · "+k.Help.Help().Key+" or "+k.Back.Help().Key+" closes · "+
		k.Up.Help().Key+"/"+k.Down.Help().Key+" scroll"), ""}
	body := o.body(w)
	if len(body) <= h-helpHead {
		return append(head, body...) // all of it fits
	}
	room := o.room(h)
	off := max(0, min(o.off, len(body)-room))
	out := append(head, body[off:off+room]...)
	if below := len(body) - off - room; below > 0 {
		out = append(out, " "+st.dim.Render(fmt.Sprintf("▼ %s more · %s/%s scroll · %s end",
			counted(below, "line", "lines"), k.Down.Help().Key, k.PageDown.Help().Key, k.Bottom.Help().Key)))
	} else {
		out = append(out, " "+st.dim.Render(fmt.Sprintf("▲ end of the keys · %s top", k.Top.Help().Key)))
	}
	return out
}

func (o *helpOverlay) Keys() screenKeys {
	k := o.e.keys
	return screenKeys{short: []key2{withHelp(k.Back, "close")}, full: [][]key2{{k.Back}}}
}

func (o *helpOverlay) Crumb() string { return "help" }
