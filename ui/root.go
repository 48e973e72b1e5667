package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/render"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// model is the root: a stack of screens and one overlay slot, the prompt
// and the copy menu. It routes messages; the screens own their state.
type model struct {
	e       *env
	stack   []screen
	overlay screen
	// underHelp is the overlay the help overlay covers, shown again
	// when help closes; meaningful only while help is the overlay.
	underHelp screen
	bar       cmdBar
	// copyMenu is the open y menu (nil: closed).
	copyMenu *copyMenuMsg
	help     help.Model
	// themeFixed is true when --theme chose the theme.
	themeFixed bool
	// quitArmed is set by a q that asked because a long op runs;
	// quitAsk is that question, shown ahead of the running operation's
	// line until the next key (progress must not hide it).
	quitArmed bool
	quitAsk   string
	lastPanic string
	// profiles is the state of switching profiles (P).
	profiles profileSwitch
	// imgQuery is the start-up terminal graphics query (images_kitty.go).
	imgQuery imageQuery
}

// What the root asks of some screens, each named for the behaviour: the
// root never asserts a concrete screen type.
type (
	// placeKeeper is a screen with a place to come back to: the history
	// records here() when it closes, and leave() keeps it for the next
	// open of the same document (the caller saves).
	placeKeeper interface {
		here() place
		leave()
	}
	// watcher is a screen that watches a file, stopped when it closes.
	watcher interface{ stopWatch() }
	// fullWidth is a screen whose lines are already cut to the body's
	// width (render keeps every line within the width it was given): its
	// body is only padded to the height.
	fullWidth interface{ fullWidth() }
	// failure is a screen showing a failure with nothing else to do
	// (connecting failed, an open mode target failed); showsOp is
	// whether it shows op id's error already.
	failure interface {
		showsOp(id int) bool
		// shownError is the line shown and the error behind it.
		shownError() (line string, err error)
	}
	// beforeOffice is a screen shown while no office is there to open
	// anything in (connecting to it, or failed to).
	beforeOffice interface{ beforeOffice() }
	// coveringHelp is an overlay that covers another one, shown again
	// when it closes (the help).
	coveringHelp interface{ coversOverlay() }
	// pageJumper is a screen that takes a page number at :, hinting
	// whether it has the page.
	pageJumper interface {
		pageHint(v string) (string, bool)
	}
	// opWaiter is a screen that shows one op's progress until it answers
	// (connecting, opening a target): the op started for it is the one
	// whose answer it waits for.
	opWaiter interface{ waitOn(id int) }
	// officeSearch is the Finder: F on it asks for a new query instead of
	// pushing another Finder.
	officeSearch interface{ officeSearch() }
	// serverShown is a screen of one MCP server: a URI typed in the open
	// bar there is read by that server.
	serverShown interface {
		shownServer() (computer string, server protocol.ServerKey)
	}
	// reader is a screen showing a document or a file: what opens from it
	// takes its place (history goes back to it), or goes over it when the
	// open asks to.
	reader interface{ reader() }
	// uriShown is a screen showing the document at a URI: opening that
	// URI again over it replaces it instead of stacking it twice.
	uriShown interface{ showsURI(uri string) bool }
	// standIn is a screen that stands in until something opens (an open
	// mode target's progress or failure): the open replaces the stack.
	standIn interface{ standIn() }
	// targetOpening is the first screen of open mode: Init opens its
	// target.
	targetOpening interface{ openingTarget() string }
	// firstLoader is a first screen with its own first load (the office's
	// listing, a DPE v1 remote's connection).
	firstLoader interface{ firstLoad() tea.Cmd }
)

func (d *documentScreen) fullWidth()       {}
func (s *errorScreen) showsOp(id int) bool { return s.fromOp == id }
func (s *errorScreen) standIn()            {}
func (s *errorScreen) shownError() (string, error) {
	return s.info.full, s.err
}
func (s *openingScreen) standIn()                  {}
func (s *openingScreen) openingTarget() string     { return s.target }
func (s *openingScreen) waitOn(id int)             { s.id = id }
func (c *connectingScreen) waitOn(id int)          { c.id = id }
func (f *finderScreen) officeSearch()              {}
func (d *documentScreen) reader()                  {}
func (c *contentScreen) reader()                   {}
func (d *documentScreen) showsURI(uri string) bool { return d.uri == uri }
func (v *officeScreen) firstLoad() tea.Cmd         { return v.load() }
func (v *remoteScreen) firstLoad() tea.Cmd         { return v.connect() }
func (v *resourcesScreen) shownServer() (string, protocol.ServerKey) {
	return v.computer, v.server
}
func (s *errorScreen) beforeOffice()      {}
func (s *connectingScreen) beforeOffice() {}
func (o *helpOverlay) coversOverlay()     {}

// helpOpen: the help is the overlay, covering underHelp (if anything).
func (m *model) helpOpen() bool { _, ok := m.overlay.(coveringHelp); return ok }

func (m *model) top() screen {
	if len(m.stack) == 0 {
		return nil
	}
	return m.stack[len(m.stack)-1]
}

func (m *model) setTheme(name string) {
	e := m.e
	e.theme = name
	e.st = newStyles(name)
	old := e.renderer
	e.renderer = render.New(render.NewTheme(name)).DeferImages()
	e.renderer.AdoptPreviews(old)
	e.themeGen++
	m.help.Styles = e.st.help
	e.spin.Style = e.st.spinner
}

// update is the one message loop. It never blocks: everything slow is a
// command, and results come back here as the messages in screen.go. The
// requests screens make while handling msg are handled before it returns.
func (m *model) update(msg tea.Msg) tea.Cmd {
	m.e.behind = max(0, len(m.stack)-1)
	cmds := []tea.Cmd{m.updateMsg(msg)}
	for len(m.e.asks) > 0 {
		m.e.behind = max(0, len(m.stack)-1)
		req := m.e.asks[0]
		m.e.asks = m.e.asks[1:]
		cmds = append(cmds, m.updateMsg(req))
	}
	m.e.behind = max(0, len(m.stack)-1)
	if !m.e.ops.busy() {
		m.e.notice = "" // what it announced is over
	}
	m.layout()
	return tea.Batch(cmds...)
}

func (m *model) updateMsg(msg tea.Msg) tea.Cmd {
	e := m.e
	if a, ok := msg.(opAnswer); ok && a.opID() != 0 {
		if e.ops.get(a.opID()) == nil {
			return nil // cancelled: its answer no longer matters
		}
		if _, step := msg.(chained); !step {
			e.ops.done(a.opID())
		}
	}
	if cmd, ok := m.onImageQuery(msg); ok {
		return cmd
	}
	if cmd, ok := m.onPositions(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		e.width, e.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.bar.resize(msg.Width)
		return m.broadcast(msg)

	case tea.BackgroundColorMsg:
		if m.themeFixed || e.opt.NoColor {
			return nil
		}
		theme := "dark"
		if !msg.IsDark() {
			theme = "light"
		}
		if theme != e.theme {
			m.setTheme(theme)
			return m.broadcast(themeChangedMsg{})
		}
		return nil

	case spinner.TickMsg:
		if !e.ops.busy() {
			return nil // the spinner stops when nothing is in flight
		}
		var cmd tea.Cmd
		e.spin, cmd = e.spin.Update(msg)
		return cmd

	case tea.KeyboardEnhancementsMsg:
		// The terminal tells ctrl+i from tab: the help may name it.
		e.keys = e.keys.withTerminal(msg.SupportsKeyDisambiguation())
		return nil

	case tea.KeyPressMsg:
		return m.handleKey(msg)

	case tea.PasteMsg:
		if m.bar.active {
			return m.bar.update(m, msg)
		}
		return nil

	case tea.MouseMsg:
		return m.handleMouse(msg)

	case NoticeMsg:
		e.notice = sanitizeLine(msg.Text)
		return e.info(msg.Text)

	case clearStatusMsg:
		if msg.id == e.status.id {
			e.status = statusLine{id: e.status.id}
		}
		return nil

	case pushMsg:
		m.overlay = nil
		m.stack = append(m.stack, msg.s)
		e.dropStatus()
		return nil
	case popMsg:
		return m.pop()
	case overlayMsg:
		m.overlay = msg.s
		return nil
	case closeOverlayMsg:
		m.closeOverlay()
		return nil
	case promptMsg:
		return m.bar.open(m, msg)
	case copyMenuMsg:
		m.copyMenu = &msg
		return nil
	case historyOpenMsg:
		return m.onHistoryOpen(msg)
	case openURIMsg:
		return m.startsLong(func() tea.Cmd { return m.openDPE(msg) })
	case openFileMsg:
		return m.startsLong(func() tea.Cmd { return m.openTargetOver(msg.target, nil, msg.over) })
	case retryMsg:
		return m.retry(msg.at)

	case errMsg:
		e.jumps.failed(msg.id) // a history move's open failed
		if msg.panic {
			m.lastPanic = msg.err.Error()
		}
		var big *client.AckTooLargeError
		if errors.As(msg.err, &big) {
			e.ackDropped = true
		}
		if len(msg.trace) > 0 && e.lastTrace != nil {
			e.lastTrace.add(msg.trace...)
			e.lastTrace.failed = oneLine(msg.err)
		}
		cmd := m.broadcast(msg)
		if top, ok := m.top().(failure); ok && top.showsOp(msg.id) {
			return cmd
		}
		if isCancel(msg.err) {
			return tea.Batch(cmd, e.info("cancelled"))
		}
		return tea.Batch(cmd, e.setErr(msg.what, msg.err))

	case connectedMsg:
		e.agent = msg.agent
		e.conn = msg.agent.State()
		m.overlay = nil
		office := newOfficeScreen(e)
		m.stack = []screen{office}
		return tea.Batch(m.listen(), office.load())

	case connectFailedMsg:
		s := newErrorScreen(e, "", msg.err)
		if s.info.hint == "" {
			s.info.hint = connectHint(msg.err)
		}
		m.stack = []screen{s}
		return nil

	case agentEventMsg:
		if msg.gen != m.profiles.gen {
			return nil // from an agent a profile switch replaced
		}
		if msg.closed {
			e.conn = client.StateEvent{State: client.Offline, Reason: "agent closed"}
			return nil
		}
		return tea.Batch(m.listen(), m.onAgentEvent(msg.ev))

	case switchProfileMsg:
		return m.switchProfile(msg.name)
	case profileDialedMsg:
		return m.onProfileDialed(msg)

	case openedMsg:
		return m.onOpened(msg)
	case firstPageMsg:
		return m.onFirstPage(msg)
	case localReadMsg:
		return m.onLocalRead(msg)

	case savedMsg:
		return e.setStatus(statusOK, fmt.Sprintf("%s written to %s", msg.what, sanitizeLine(msg.path)))
	}
	return m.broadcast(msg)
}

type themeChangedMsg struct{}

// retryMsg starts again from the start-up target or the office; at is
// where the document opens (nil: page 1).
type retryMsg struct{ at *hitPlace }

// broadcast hands msg to every screen and the overlay; each picks out
// what is its own.
func (m *model) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for i, s := range m.stack {
		ns, cmd := s.Update(msg)
		m.stack[i] = ns
		cmds = append(cmds, cmd)
	}
	if m.overlay != nil {
		ns, cmd := m.overlay.Update(msg)
		m.overlay = ns
		cmds = append(cmds, cmd)
	}
	if m.helpOpen() && m.underHelp != nil {
		ns, cmd := m.underHelp.Update(msg)
		m.underHelp = ns
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// toTop hands msg to the overlay, or else to the top screen.
func (m *model) toTop(msg tea.Msg) tea.Cmd {
	if m.overlay != nil {
		var cmd tea.Cmd
		m.overlay, cmd = m.overlay.Update(msg)
		return cmd
	}
	t := m.top()
	if t == nil {
		return nil
	}
	ns, cmd := t.Update(msg)
	m.stack[len(m.stack)-1] = ns
	return cmd
}

func (m *model) pop() tea.Cmd {
	m.overlay = nil
	if len(m.stack) <= 1 {
		return m.e.info("press q to quit")
	}
	closing := m.stack[len(m.stack)-1]
	m.stack = m.stack[:len(m.stack)-1]
	var save tea.Cmd
	if w, ok := closing.(watcher); ok {
		w.stopWatch()
	}
	if p, ok := closing.(placeKeeper); ok {
		m.e.jumps.push(p.here()) // ctrl+o in the next document comes back
		p.leave()
		save = m.e.positions.save()
	}
	m.e.dropStatus()
	if c, ok := closing.(imageCloser); ok {
		return tea.Batch(save, c.closeImages())
	}
	return save
}

// startsLong runs start, which starts ops, and marks those ops long:
// opening a document can take the whole open timeout, so q asks before
// throwing it away, like it does for an export or a load-all.
func (m *model) startsLong(start func() tea.Cmd) tea.Cmd {
	first := m.e.ops.next + 1
	cmd := start()
	for id := first; id <= m.e.ops.next; id++ {
		if o := m.e.ops.get(id); o != nil {
			o.long = true
		}
	}
	return cmd
}

// quit stops everything and ends the program.
func (m *model) quit() tea.Cmd {
	m.e.ops.cancelAll()
	var cleanup []tea.Cmd
	for _, s := range m.stack {
		if p, ok := s.(placeKeeper); ok {
			p.leave()
		}
	}
	if save := m.e.positions.saveNow(); save != nil {
		cleanup = append(cleanup, save) // written before the program ends
	}
	for _, s := range m.stack {
		if st, ok := s.(stopper); ok {
			st.stop()
		}
		if c, ok := s.(imageCloser); ok {
			if cmd := c.closeImages(); cmd != nil {
				cleanup = append(cleanup, cmd)
			}
		}
	}
	if len(cleanup) == 0 {
		return tea.Quit
	}
	// The terminal's copies of our images go before the program does.
	return tea.Sequence(append(cleanup, tea.Quit)...)
}

// handleKey routes a key press: prompt first, then the copy menu, global
// keys, and finally the overlay or the top screen.
func (m *model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	e := m.e
	k := e.keys
	if matches(msg, k.ForceQuit) {
		return m.quit()
	}
	if matches(msg, k.Suspend) {
		return tea.Suspend
	}
	if msg.Mod == tea.ModAlt && msg.Code != tea.KeyEscape {
		// No binding uses alt. A terminal reports esc quickly followed by
		// a key as alt+key; treat it as the two presses the user made.
		esc := m.handleKey(tea.KeyPressMsg{Code: tea.KeyEscape})
		plain := msg
		plain.Mod = 0
		return tea.Batch(esc, m.handleKey(plain))
	}
	if m.bar.active {
		return m.bar.update(m, msg)
	}
	if m.copyMenu != nil {
		c := *m.copyMenu
		m.copyMenu = nil
		return m.copyChoice(c, msg)
	}
	if e.status.kind == statusInfo {
		// A hint answers the key that caused it ("end of page 3",
		// "cancelled: …"); the next key makes it stale.
		e.status = statusLine{id: e.status.id + 1}
	}
	dismiss := m.escDismisses()
	e.status.seen = true
	armed := m.quitArmed
	m.quitArmed = false
	switch {
	case matches(msg, k.Cancel) && !e.ops.busy() && m.overlay != nil:
		m.closeOverlay()
		return nil
	case matches(msg, k.Cancel) && e.ops.busy():
		return m.cancelNewest()
	case matches(msg, k.Back) && dismiss:
		// An error that came up since the last key is the innermost
		// thing on screen: esc puts it away before it leaves any mode
		// or screen.
		e.dropStatus()
		return nil
	case matches(msg, k.Quit):
		if o := e.ops.longRunning(); o != nil && !armed {
			m.quitArmed = true
			m.quitAsk = "still running: " + o.label + " · q again quits, esc cancels it"
			return e.setStatus(statusErr, m.quitAsk)
		}
		return m.quit()
	case matches(msg, k.Help):
		if m.helpOpen() {
			m.closeOverlay()
			return nil
		}
		// Help covers what is on screen, an overlay too (raw JSON, the
		// inspector, the trace), and closing it goes back there.
		help := newHelpOverlay(e, &m.help, m.keysNow())
		m.underHelp, m.overlay = m.overlay, help
		return nil
	case matches(msg, k.ErrorDetail) && m.overlay == nil:
		// The last error whole, then what the status line said lately.
		if e.lastErr == nil && len(e.recent) == 0 {
			return e.info("no error or message to show yet")
		}
		m.overlay = newMessagesView(e)
		return nil
	case matches(msg, k.Open) && m.overlay == nil && m.canOpen():
		return m.bar.open(m, promptMsg{mode: barOpen, validate: m.openValidate()})
	case matches(msg, k.Finder) && m.overlay == nil && m.canOpen():
		return m.openFinder()
	case matches(msg, k.Profile) && m.overlay == nil && m.canSwitchProfile():
		return m.openProfilePicker()
	case matches(msg, k.Profile) && m.overlay == nil && e.opt.OpenTarget == "":
		// Said, not silent: P is what the docs name for switching.
		return e.info("no profiles to switch to: config.toml defines none (docs/config.md, Config file and profiles)")
	case matches(msg, k.Command) && m.overlay == nil && m.canOpen():
		return m.bar.open(m, promptMsg{mode: barCommand, validate: m.commandHint})
	}
	return m.toTop(msg)
}

// canOpen is false where o means nothing (no agent, waiting to connect).
func (m *model) canOpen() bool {
	_, before := m.top().(beforeOffice)
	return !before
}

// cancelNewest is esc with something in flight: it cancels the newest op
// and whatever chain it is part of, and tells the screens.
func (m *model) cancelNewest() tea.Cmd {
	o := m.e.ops.newest()
	if o == nil {
		return nil
	}
	label := o.label
	m.e.ops.done(o.id)
	cmd := m.broadcast(cancelledMsg{id: o.id})
	return tea.Batch(cmd, m.e.info("cancelled: "+label))
}

// escDismisses: esc would put away the status line's error, on a screen
// whose esc leaves modes before the screen (the document). Only an error
// the user has not answered with a key yet: a hint or a result ("opened
// … in 40ms", "3 matches") never eats esc — the user pressing esc after
// opening a document means the document's esc — and an error a key has
// already answered stays until its time is up while esc goes on to the
// screen.
func (m *model) escDismisses() bool {
	e := m.e
	s, ok := m.top().(interface{ escClearsStatus() bool })
	return ok && s.escClearsStatus() && m.overlay == nil && !e.ops.busy() && e.status.text != "" && e.status.kind == statusErr && !e.status.seen
}

// footerHints is the footer's bindings: the screen's, with its esc hint
// saying "clear message" while esc would do that.
func (m *model) footerHints() []key2 {
	short := m.keysNow().short
	if !m.escDismisses() {
		return short
	}
	esc := m.e.keys.Cancel.Keys()[0]
	out := make([]key2, 0, len(short))
	said := false
	for _, b := range short {
		if slices.Contains(b.Keys(), esc) {
			if said {
				continue // one esc hint
			}
			b, said = withHelp(m.e.keys.Back, "clear message"), true
		}
		out = append(out, b)
	}
	if !said {
		// A screen with nothing behind it hints no esc: the message is
		// still what esc puts away (after the screen's own keys, which a
		// narrow footer keeps first).
		out = append(out, withHelp(m.e.keys.Back, "clear message"))
	}
	return out
}

// closeOverlay closes the overlay; closing help shows again what it
// covered.
func (m *model) closeOverlay() {
	if m.helpOpen() {
		m.overlay, m.underHelp = m.underHelp, nil
		return
	}
	m.overlay = nil
}

// keysNow is the keymap of what is on screen (help's own while it is
// open: the footer then says how to close it).
func (m *model) keysNow() screenKeys {
	if m.overlay != nil {
		return m.usable(m.overlay.Keys())
	}
	if t := m.top(); t != nil {
		return m.usable(t.Keys())
	}
	return screenKeys{}
}

// usable leaves out the root's keys that do nothing here, so neither the
// footer nor the help offers them: F without an office to search, o and
// : where nothing can open, P without profiles to switch to.
func (m *model) usable(sk screenKeys) screenKeys {
	k := m.e.keys
	var dead []key2
	if m.e.agent == nil || !m.canOpen() {
		dead = append(dead, k.Finder)
	}
	if !m.canOpen() {
		dead = append(dead, k.Open, k.Command)
	}
	if !m.canSwitchProfile() {
		dead = append(dead, k.Profile)
	}
	if len(dead) == 0 {
		return sk
	}
	live := func(bs []key2) []key2 {
		out := make([]key2, 0, len(bs))
		for _, b := range bs {
			if !slices.ContainsFunc(dead, func(d key2) bool { return slices.Equal(d.Keys(), b.Keys()) }) {
				out = append(out, b)
			}
		}
		return out
	}
	out := sk
	out.short, out.full = live(sk.short), nil
	for _, col := range sk.full {
		out.full = append(out.full, live(col))
	}
	return out
}

func (m *model) retry(at *hitPlace) tea.Cmd {
	e := m.e
	switch {
	case e.opt.OpenTarget != "":
		m.stack = []screen{newOpeningScreen(e, e.opt.OpenTarget)}
		return m.startsLong(func() tea.Cmd { return m.openTarget(e.opt.OpenTarget, at) })
	case e.agent != nil:
		office := newOfficeScreen(e)
		m.stack = []screen{office}
		return office.load()
	default:
		c := newConnectingScreen(e)
		m.stack = []screen{c}
		return m.connect()
	}
}

// onAgentEvent applies a connection state change; office notifications go
// to every screen.
func (m *model) onAgentEvent(ev client.Event) tea.Cmd {
	switch ev := ev.(type) {
	case client.StateEvent:
		return m.onState(ev)
	case *client.StateEvent:
		return m.onState(*ev)
	case client.NotifyEvent:
		return m.broadcast(ev)
	case *client.NotifyEvent:
		return m.broadcast(*ev)
	}
	return nil
}

// reconnectedMsg tells the screens to refresh what they show.
type reconnectedMsg struct{}

func (m *model) onState(ev client.StateEvent) tea.Cmd {
	e := m.e
	prev := e.conn
	e.conn = ev
	switch ev.State {
	case client.Connected:
		if prev.State == client.Reconnecting || prev.State == client.Offline {
			if e.ackDropped {
				e.ackDropped = false
				return e.setStatus(statusErr, "reconnected; not reloaded: the last answer was over the ack size limit (--max-ack); "+e.keys.Refresh.Help().Key+" reloads")
			}
			// Re-joined the office: the screen on top refreshes, and a
			// document retries the pages that failed meanwhile.
			return tea.Batch(e.setStatus(statusOK, "reconnected"), m.toTopScreen(reconnectedMsg{}))
		}
	case client.Reconnecting:
		if prev.State == client.Connected {
			return e.setStatus(statusErr, "connection lost; reconnecting")
		}
	case client.Offline:
		return e.setStatus(statusErr, "offline: "+stateReason(ev))
	}
	return nil
}

// toTopScreen is toTop that skips the overlay.
func (m *model) toTopScreen(msg tea.Msg) tea.Cmd {
	t := m.top()
	if t == nil {
		return nil
	}
	ns, cmd := t.Update(msg)
	m.stack[len(m.stack)-1] = ns
	return cmd
}

func stateReason(ev client.StateEvent) string {
	switch {
	case ev.Reason != "":
		return sanitizeLine(ev.Reason)
	case ev.Err != nil:
		return oneLine(ev.Err)
	}
	return "disconnected"
}

// view

func (m *model) view() tea.View {
	e := m.e
	if e.width <= 0 || e.height <= 0 {
		return tea.NewView("")
	}
	w, h := e.width, e.bodyHeight()
	lines := make([]string, 0, e.height)
	crumbs := m.crumbs()
	lines = append(lines, m.headerView(w), m.crumbView(crumbs, w))
	var body []string
	switch {
	case m.overlay != nil:
		body = box(m.overlay.View(w, h), w, h)
	case m.top() != nil:
		if _, ok := m.top().(fullWidth); ok {
			body = padLines(m.top().View(w, h), h)
		} else {
			body = box(m.top().View(w, h), w, h)
		}
	default:
		body = make([]string, h)
	}
	lines = append(lines, body...)
	lines = append(lines, m.statusView(w))
	var cur *tea.Cursor
	switch {
	case m.bar.active:
		line, c := m.bar.view(m, w)
		lines = append(lines, line)
		if c != nil {
			c.Position.Y = len(lines) - 1
			cur = c
		}
	case m.copyMenu != nil:
		lines = append(lines, e.st.barPrompt.Render("copy: ")+copyChoices(e.keys, *m.copyMenu)+" · esc cancel")
	default:
		lines = append(lines, footer(e.keys, m.footerHints(), e.st, w))
	}
	for _, i := range []int{0, 1, len(lines) - 2, len(lines) - 1} {
		lines[i] = clip(lines[i], w)
	}
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	v.Cursor = cur
	v.WindowTitle = windowTitle(crumbs)
	if e.opt.Mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	return v
}

// windowTitle is "dpe-tui — where you are", on one safe line.
func windowTitle(crumbs []string) string {
	t := "dpe-tui"
	if len(crumbs) > 0 {
		t += " — " + strings.Join(crumbs, " › ")
	}
	return sanitizeTrunc(t, 120)
}

// headerView: app, connection state, server, office, agent.
func (m *model) headerView(w int) string {
	e := m.e
	st := e.st
	parts := []string{st.app.Render("dpe-tui"), m.connView()}
	if e.agent != nil {
		parts = append(parts,
			st.headerDim.Render("server ")+st.header.Render(sanitizeLine(sanitize.URL(e.agent.URL()))),
			st.headerDim.Render("office ")+st.header.Render(sanitizeLine(e.agent.Office())),
			st.headerDim.Render("agent ")+st.header.Render(sanitizeLine(e.agent.Name())))
	} else if e.opt.OpenTarget != "" {
		parts = append(parts, st.headerDim.Render("file ")+st.header.Render(sanitizeLine(m.shownTarget())))
	}
	// Narrow: the agent's name goes first (it is the least asked-for),
	// then the server's URL is shortened in the middle, so the office and
	// the connection state stay whole.
	line := strings.Join(parts, "  ")
	if len(parts) == 5 && ansi.StringWidth(line) > w {
		parts = parts[:4]
		line = strings.Join(parts, "  ")
		if over := ansi.StringWidth(line) - w; over > 0 {
			url := sanitizeLine(sanitize.URL(e.agent.URL()))
			short := url
			if _, rest, ok := strings.Cut(url, "://"); ok {
				short = rest // the scheme goes first
			}
			parts[2] = st.headerDim.Render("server ") + st.header.Render(sanitize.TruncateMiddle(short, ansi.StringWidth(url)-over))
			line = strings.Join(parts, "  ")
		}
	}
	return clip(line, w)
}

// fitCrumbs makes the breadcrumb fit w cells keeping its ends whole: the
// first (the office) and the last two (where you are, and an overlay such
// as help or the inspector) stay. The crumbs between fold into one "…",
// oldest first, so no word is cut while whole crumbs can go; only then
// are the kept ones shortened, longest first.
func fitCrumbs(crumbs []string, w int) []string {
	const sep = 3 // " › "
	width := func(cs []string) int {
		n := sep * max(0, len(cs)-1)
		for _, c := range cs {
			n += ansi.StringWidth(c)
		}
		return n
	}
	out := slices.Clone(crumbs)
	for width(out) > w && len(out) > 3 {
		switch {
		case out[1] != "…":
			out[1] = "…"
		case len(out) > 4:
			out = append(out[:2], out[3:]...)
		default:
			// Only "…" is left between the ends.
			out = append(out[:1], out[2:]...)
		}
	}
	for width(out) > w {
		best, bw := -1, 8
		for i := range out {
			if i == len(out)-1 && len(out) > 1 {
				continue // the overlay or the place: the reason for the line
			}
			if cw := ansi.StringWidth(out[i]); cw > bw {
				best, bw = i, cw
			}
		}
		if best < 0 {
			// Only the last is left to cut: in its middle, so that its
			// end (the document's page N/M) stays.
			if last := len(out) - 1; ansi.StringWidth(out[last]) > 8 {
				out[last] = sanitize.TruncateMiddle(out[last], max(8, ansi.StringWidth(out[last])-(width(out)-w)))
			}
			break
		}
		out[best] = sanitize.TruncateMiddle(out[best], max(8, bw-(width(out)-w)))
	}
	return out
}

func (m *model) connView() string {
	e := m.e
	st := e.st
	if e.agent == nil {
		switch {
		case e.opt.OpenTarget != "":
			return st.connOK.Render("◆ local")
		case e.opt.RemoteOnly && e.opt.Remote != nil:
			return st.connOK.Render("◆ DPE v1 remote")
		}
		if isErrorScreen(m.top()) {
			return st.connBad.Render("○ not connected")
		}
		return st.connWarn.Render(e.spin.View() + " connecting")
	}
	switch e.conn.State {
	case client.Connected:
		return st.connOK.Render("● connected")
	case client.Reconnecting:
		return st.connWarn.Render(fmt.Sprintf("◌ reconnecting %d…", e.conn.Attempt))
	case client.Offline:
		return st.connBad.Render("○ offline: " + clip(stateReason(e.conn), 40))
	}
	return st.connWarn.Render(e.spin.View() + " connecting")
}

// crumbs: office › computer › server › resource › page › overlay, each
// already sanitized by the screen that names it.
func (m *model) crumbs() []string {
	var out []string
	if m.e.agent != nil {
		out = append(out, sanitizeLine(m.e.agent.Office()))
	}
	for _, s := range m.stack {
		if c := s.Crumb(); c != "" {
			out = append(out, c)
		}
	}
	if m.helpOpen() && m.underHelp != nil {
		if c := m.underHelp.Crumb(); c != "" {
			out = append(out, c)
		}
	}
	if m.overlay != nil {
		if c := m.overlay.Crumb(); c != "" {
			out = append(out, c)
		}
	}
	return out
}

func (m *model) crumbView(crumbs []string, w int) string {
	st := m.e.st
	if len(crumbs) == 0 {
		return ""
	}
	crumbs = fitCrumbs(crumbs, w-1)
	parts := make([]string, len(crumbs))
	for i, c := range crumbs {
		if i == len(crumbs)-1 {
			parts[i] = st.crumbLast.Render(c)
		} else {
			parts[i] = st.crumb.Render(c)
		}
	}
	return clip(" "+strings.Join(parts, st.crumbSep.Render(" › ")), w)
}

// statusView: in-flight op with spinner and progress, else the transient
// message, else what the screen has to say (search matches).
func (m *model) statusView(w int) string {
	e := m.e
	st := e.st
	if m.quitArmed {
		return clip(" "+st.errText.Render(m.quitAsk), w)
	}
	if o := e.ops.newest(); o != nil {
		s := " " + e.spin.View() + " "
		if e.notice != "" {
			// First: it says why this op takes longer than usual.
			s += st.info.Render(e.notice) + " · "
		}
		s += o.label
		if o.progress != "" {
			s += " · " + o.progress
		}
		s += st.dim.Render(" · esc cancels")
		return clip(s, w)
	}
	if e.status.text != "" {
		style := st.info
		switch e.status.kind {
		case statusOK:
			style = st.okText
		case statusErr:
			style = st.errText
		}
		text := e.status.text
		hinted := e.status.kind == statusErr && e.lastErr != nil
		if hinted {
			text = strings.TrimSuffix(text, detailsHint)
		}
		line := " " + style.Render(text)
		if hinted && (ansi.StringWidth(line) > w || text != e.status.text) {
			// An error cut by the width still says where the rest is:
			// the text is cut, never the hint.
			tail := st.dim.Render(detailsHint)
			return clip(line, max(1, w-ansi.StringWidth(tail))) + tail
		}
		return clip(line, w)
	}
	if s, ok := m.top().(interface{ statusText(w int) string }); ok && m.overlay == nil {
		return s.statusText(w)
	}
	return ""
}

// handleMouse scrolls or selects in what is under the pointer; the body
// starts two lines down (header, breadcrumb).
func (m *model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if m.bar.active {
		return nil
	}
	ev := msg.Mouse()
	ev.Y -= 2
	switch msg.(type) {
	case tea.MouseWheelMsg:
		return m.toTop(tea.MouseWheelMsg(ev))
	case tea.MouseClickMsg:
		if ev.Y < 0 || ev.Y >= m.e.bodyHeight() {
			return nil
		}
		return m.toTop(tea.MouseClickMsg(ev))
	}
	return nil
}

func sanitizeTrunc(s string, n int) string {
	s = sanitizeLine(s)
	if len([]rune(s)) > n {
		return clip(s, n)
	}
	return s
}

func isErrorScreen(s screen) bool { _, ok := s.(failure); return ok }
