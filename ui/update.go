package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// update is the one message loop. It never blocks: everything slow is a
// command, and results come back here as the messages in messages.go.
func (m *model) update(msg tea.Msg) tea.Cmd {
	again := m.computersAnswered(msg)
	cmd := m.updateMsg(msg)
	if again != nil {
		cmd = tea.Batch(cmd, again)
	}
	if img := m.scheduleImages(); img != nil {
		return tea.Batch(cmd, img)
	}
	return cmd
}

func (m *model) updateMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case imagesProbedMsg:
		m.onImagesProbed(msg)
		return nil

	case imageDecodedMsg:
		m.onImageDecoded(msg)
		return nil

	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		if m.doc != nil {
			m.doc.invalidate()
		}
		m.raw.invalidate()
		m.insp.invalidate()
		if m.content != nil {
			return m.renderContent()
		}
		return nil

	case tea.BackgroundColorMsg:
		if m.themeFixed || m.opt.NoColor {
			return nil
		}
		theme := "dark"
		if !msg.IsDark() {
			theme = "light"
		}
		if theme != m.theme {
			m.setTheme(theme)
			if m.content != nil {
				return m.renderContent()
			}
		}
		return nil

	case spinner.TickMsg:
		if !m.ops.busy() {
			return nil // the spinner stops when nothing is in flight
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return cmd

	case tea.KeyPressMsg:
		return m.handleKey(msg)

	case tea.PasteMsg:
		if m.bar.active {
			return m.bar.update(m, msg)
		}
		return nil

	case tea.MouseWheelMsg:
		return m.handleWheel(msg)

	case tea.MouseClickMsg:
		return m.handleClick(msg)

	case clearStatusMsg:
		if msg.id == m.status.id {
			m.status = statusLine{id: m.status.id}
		}
		return nil

	case errMsg:
		if msg.opID != 0 && !m.ops.done(msg.opID) {
			return nil // cancelled: its answer no longer matters
		}
		if m.doc != nil {
			m.doc.search.running = false
		}
		if msg.panic {
			m.lastPanic = msg.err.Error()
		}
		if m.screen == screenDocument && m.doc == nil {
			// `open` mode: nothing to show but the failure; offer retry.
			m.screen = screenError
			m.fatal = oneLine(msg.err)
			if msg.what != "" {
				m.fatal = msg.what + ": " + m.fatal
			}
			return nil
		}
		if isCancel(msg.err) {
			return m.setStatus(statusInfo, "cancelled")
		}
		return m.setErr(msg.what, msg.err)

	case connectedMsg:
		if !m.ops.done(msg.opID) {
			return nil
		}
		m.agent = msg.agent
		m.conn = msg.agent.State()
		m.screen = screenOffice
		m.fatal = ""
		return tea.Batch(m.listen(), m.loadComputers())

	case connectFailedMsg:
		if !m.ops.done(msg.opID) {
			return nil
		}
		m.screen = screenError
		m.fatal = oneLine(msg.err)
		return nil

	case agentEventMsg:
		return tea.Batch(m.listen(), m.onAgentEvent(msg.ev))

	case agentClosedMsg:
		m.conn = client.StateEvent{State: client.Offline, Reason: "agent closed"}
		return nil

	case computersMsg:
		if !m.ops.done(msg.opID) {
			return nil
		}
		return m.office.setComputers(m, msg.computers)

	case configMsg:
		if !m.ops.done(msg.opID) {
			return nil
		}
		return m.onConfig(msg)

	case resourcesPageMsg:
		if m.ops.get(msg.opID) == nil {
			return nil
		}
		return m.res.onPage(m, msg)

	case openedMsg:
		if !m.ops.done(msg.opID) {
			return nil
		}
		return m.onOpened(msg)

	case pageLoadedMsg:
		if !m.ops.done(msg.opID) {
			return nil
		}
		if m.doc == nil {
			return nil
		}
		return m.doc.onPageLoaded(m, msg)

	case searchStepMsg:
		if m.ops.get(msg.opID) == nil || m.doc == nil {
			return nil
		}
		return m.doc.onSearchStep(m, msg)

	case validatedMsg:
		if !m.ops.done(msg.opID) || m.doc == nil {
			return nil
		}
		m.doc.findings = msg.findings
		m.doc.validated = true
		m.doc.validatedLoaded = m.doc.loadedCount()
		m.conf.list = listCursor{}
		return nil

	case savedMsg:
		if !m.ops.done(msg.opID) {
			return nil
		}
		return m.setStatus(statusOK, fmt.Sprintf("%s written to %s", msg.what, sanitizeLine(msg.path)))

	case contentRenderedMsg:
		if !m.ops.done(msg.opID) || m.content == nil {
			return nil
		}
		m.content.lines = msg.lines
		m.content.width = msg.width
		return nil
	}
	return nil
}

// handleKey routes a key press: prompt first, then the copy menu, global
// keys, the overlay and finally the screen.
func (m *model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		m.ops.cancelAll()
		m.images.stop()
		return tea.Quit
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
	if m.copyMenu {
		m.copyMenu = false
		return m.copyChoice(msg.String())
	}
	k := m.keys
	switch {
	case msg.String() == "esc":
		if m.ops.busy() {
			return m.cancelNewest()
		}
		if m.doc != nil && m.screen == screenDocument && m.overlay == overlayNone && m.doc.search.query != "" {
			m.doc.clearSearch()
			return nil
		}
		return m.back()
	case key.Matches(msg, k.Quit):
		m.ops.cancelAll()
		m.images.stop()
		return tea.Quit
	case key.Matches(msg, k.Help):
		if m.overlay == overlayHelp {
			m.overlay = overlayNone
		} else {
			m.overlay = overlayHelp
		}
		m.help.ShowAll = m.overlay == overlayHelp
		return nil
	}
	switch m.overlay {
	case overlayHelp:
		if msg.String() == "backspace" {
			m.overlay = overlayNone
		}
		return nil
	case overlayInspector:
		return m.insp.handleKey(m, msg)
	case overlayRaw:
		return m.raw.handleKey(m, msg)
	case overlayTrace:
		return m.trace.handleKey(m, msg)
	case overlayConformance:
		return m.conf.handleKey(m, msg)
	}
	if key.Matches(msg, k.Back) { // backspace
		return m.back()
	}
	switch m.screen {
	case screenError:
		if key.Matches(msg, k.Retry) {
			return m.retry()
		}
		return nil
	case screenConnecting:
		return nil
	}
	if key.Matches(msg, k.Open) {
		mode := barOpen
		if msg.String() == ":" {
			mode = barCommand
		}
		return m.bar.open(m, mode, "")
	}
	switch m.screen {
	case screenOffice:
		return m.office.handleKey(m, msg)
	case screenServers:
		return m.servers.handleKey(m, msg)
	case screenResources:
		return m.res.handleKey(m, msg)
	case screenDocument:
		if m.doc != nil {
			return m.doc.handleKey(m, msg)
		}
	case screenContent:
		if m.content != nil {
			return m.content.handleKey(m, msg)
		}
	}
	return nil
}

// cancelNewest is esc with something in flight: it cancels the newest op
// and whatever chain it is part of.
func (m *model) cancelNewest() tea.Cmd {
	o := m.ops.newest()
	if o == nil {
		return nil
	}
	label := o.label
	m.ops.done(o.id)
	switch {
	case m.screen == screenConnecting:
		m.screen = screenError
		m.fatal = "connect cancelled"
	case m.screen == screenDocument && m.doc == nil:
		m.screen = screenError
		m.fatal = "open cancelled"
	}
	if m.doc != nil {
		m.doc.onCancel(o.id)
	}
	m.res.loadingAll = false
	return m.setStatus(statusInfo, "cancelled: "+label)
}

// back goes one level up: overlay → screen → parent screen.
func (m *model) back() tea.Cmd {
	if m.overlay != overlayNone {
		m.overlay = overlayNone
		m.help.ShowAll = false
		return nil
	}
	switch m.screen {
	case screenServers:
		m.screen = screenOffice
	case screenResources:
		m.screen = screenServers
	case screenDocument, screenContent:
		if m.agent == nil {
			return m.setStatus(statusInfo, "press q to quit")
		}
		if m.res.server != "" {
			m.screen = screenResources
		} else {
			m.screen = screenOffice
		}
	}
	return nil
}

func (m *model) retry() tea.Cmd {
	m.fatal = ""
	switch {
	case m.opt.OpenTarget != "":
		m.screen = screenDocument
		return m.openTarget(m.opt.OpenTarget)
	case m.agent != nil:
		m.screen = screenOffice
		return m.loadComputers()
	default:
		m.screen = screenConnecting
		return m.connect()
	}
}

// onAgentEvent applies a connection state change or an office notification.
func (m *model) onAgentEvent(ev client.Event) tea.Cmd {
	switch ev := ev.(type) {
	case client.StateEvent:
		return m.onState(ev)
	case *client.StateEvent:
		return m.onState(*ev)
	case client.NotifyEvent:
		return m.office.onNotify(m, ev)
	case *client.NotifyEvent:
		return m.office.onNotify(m, *ev)
	}
	return nil
}

func (m *model) onState(ev client.StateEvent) tea.Cmd {
	prev := m.conn
	m.conn = ev
	switch ev.State {
	case client.Connected:
		if prev.State == client.Reconnecting || prev.State == client.Offline {
			// Re-joined the office (issue 6): refresh what the screen shows.
			return tea.Batch(m.setStatus(statusOK, "reconnected"), m.refresh())
		}
	case client.Reconnecting:
		if prev.State == client.Connected {
			return m.setStatus(statusErr, "connection lost; reconnecting")
		}
	case client.Offline:
		return m.setStatus(statusErr, "offline: "+stateReason(ev))
	}
	return nil
}

// refresh reloads the data behind the current screen.
func (m *model) refresh() tea.Cmd {
	if m.agent == nil {
		return nil
	}
	switch m.screen {
	case screenServers:
		return m.loadConfig(m.servers.computer)
	case screenResources:
		return m.res.reload(m)
	}
	return m.loadComputers()
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

// onConfig stores a computer's config for the office count and, when it is
// the computer on screen, for the servers screen.
func (m *model) onConfig(msg configMsg) tea.Cmd {
	m.office.setConfig(msg.computer, msg.cfg, msg.err)
	if m.servers.computer == msg.computer {
		if msg.err != nil {
			m.servers.err = oneLine(msg.err)
			if m.screen == screenServers {
				return m.setErr("get_config "+sanitizeLine(msg.computer), msg.err)
			}
			return nil
		}
		m.servers.set(msg.cfg)
	}
	return nil
}

// Commands that talk to the agent.

func (m *model) connect() tea.Cmd {
	if m.opt.Connect == nil {
		m.screen = screenError
		m.fatal = "no server to connect to and nothing to open"
		return nil
	}
	connect := m.opt.Connect
	return m.start("connecting", 0, func(ctx context.Context, id int) tea.Msg {
		a, err := connect(ctx)
		if err != nil {
			return connectFailedMsg{opID: id, err: err}
		}
		if a == nil {
			return connectFailedMsg{opID: id, err: errors.New("connect returned no agent")}
		}
		return connectedMsg{opID: id, agent: a}
	})
}

// listen waits for the next agent event. It is not an op: it has no spinner
// and ends when the agent closes its channel.
func (m *model) listen() tea.Cmd {
	if m.agent == nil {
		return nil
	}
	ch := m.agent.Events()
	if ch == nil {
		return nil
	}
	return m.safe(0, func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return agentClosedMsg{}
		}
		return agentEventMsg{ev: ev}
	})
}

// loadComputers lists the office (list_room). Refreshes are coalesced: at
// most one request is in flight and one more is queued, however many
// notifications ask for one meanwhile; the queued one starts when the
// first answers, so the list ends current without a request per event.
func (m *model) loadComputers() tea.Cmd {
	if m.compOp != 0 {
		m.compQueued = true
		return nil
	}
	a := m.agent
	cmd := m.start("listing computers", m.opt.RequestTimeout, func(ctx context.Context, id int) tea.Msg {
		cs, err := a.Computers(ctx)
		if err != nil {
			return errMsg{opID: id, what: "list computers", err: err}
		}
		out := cs[:0:0]
		for _, c := range cs {
			if c.Role == "" || c.Role == protocol.RoleComputer {
				out = append(out, c)
			}
		}
		return computersMsg{opID: id, computers: out}
	})
	m.compOp = m.ops.next
	return cmd
}

// computersAnswered notes that the list_room in flight answered (or
// failed, or was cancelled) and starts the queued refresh, if any.
func (m *model) computersAnswered(msg tea.Msg) tea.Cmd {
	id := -1
	switch msg := msg.(type) {
	case computersMsg:
		id = msg.opID
	case errMsg:
		id = msg.opID
	}
	if m.compOp == 0 || id != m.compOp {
		return nil
	}
	m.compOp = 0
	if !m.compQueued || m.agent == nil {
		return nil
	}
	m.compQueued = false
	return m.loadComputers()
}

func (m *model) loadConfig(computer string) tea.Cmd {
	a := m.agent
	return m.start("get_config "+sanitizeLine(computer), m.opt.RequestTimeout, func(ctx context.Context, id int) tea.Msg {
		cfg, err := a.Config(ctx, computer)
		return configMsg{opID: id, computer: computer, cfg: cfg, err: err}
	})
}

// status line

type statusKind int

const (
	statusInfo statusKind = iota
	statusOK
	statusErr
)

type statusLine struct {
	id   int
	kind statusKind
	text string
}

func (m *model) setStatus(kind statusKind, text string) tea.Cmd {
	id := m.status.id + 1
	// Callers build messages from names and errors that came from the
	// network; sanitizing here as well makes the status line safe by
	// construction (sanitizing is idempotent).
	m.status = statusLine{id: id, kind: kind, text: sanitizeLine(sanitize.URLsIn(text))}
	d := 4 * time.Second
	if kind == statusErr {
		d = 10 * time.Second
	}
	switch {
	case m.opt.StatusTimeout < 0:
		return nil
	case m.opt.StatusTimeout > 0:
		d = m.opt.StatusTimeout
	}
	return tea.Tick(d, func(time.Time) tea.Msg { return clearStatusMsg{id: id} })
}

func (m *model) setErr(what string, err error) tea.Cmd {
	text := oneLine(err)
	if what != "" {
		text = what + ": " + text
	}
	return m.setStatus(statusErr, text)
}
