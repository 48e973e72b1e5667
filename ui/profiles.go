package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// Switching profiles (P): the picker lists the config file's profiles;
// enter dials the chosen one in a command while the current connection
// stays usable, and only a dial that succeeded replaces it: the new agent
// is installed in Update, the screens start over at its office, and the
// old agent is closed in a command (closing leaves the office, which
// waits on the network).
//
// Events of a replaced agent must not reach the new state: its listener
// is still blocked on its channel and answers with the untagged
// agentEventMsg/agentClosedMsg, so once a switch has happened those are
// dropped, and the agents installed by a switch are listened to with
// profileAgentMsg, tagged with the generation of the agent they came from.

// switchProfileMsg asks the root to connect to profile name.
type switchProfileMsg struct{ name string }

// profileDialedMsg answers a switch. It is not an opAnswer: when the op
// was cancelled meanwhile the root must still close the agent it carries.
type profileDialedMsg struct {
	id    int
	name  string
	agent Agent
}

// profileAgentMsg is an event (or the end of the events, closed) of the
// agent of generation gen.
type profileAgentMsg struct {
	gen    int
	ev     client.Event
	closed bool
}

// profileSwitch is the root's switching state.
type profileSwitch struct {
	// op is the dial in flight (0: none).
	op int
	// gen counts the switches; switched is true after the first.
	gen      int
	switched bool
}

// CurrentAgent is the agent the browser is connected to when it returns
// (the final model of tea.Program.Run): after a profile switch it is not
// the one Options gave, and the caller closes it.
func (mm Model) CurrentAgent() Agent { return mm.m.e.agent }

// canSwitchProfile is true when P has something to offer.
func (m *model) canSwitchProfile() bool { return canSwitchProfile(m.e) }

func canSwitchProfile(e *env) bool {
	o := e.opt
	return o.ConnectProfile != nil && o.Profiles != nil && len(o.Profiles.Names()) > 0 && o.OpenTarget == ""
}

// profileLine is the office screen's first line: the profile connected
// through, and how to switch.
func profileLine(e *env, w int) string {
	st := e.st
	s := "  " + st.headerDim.Render("profile ") + st.header.Render(sanitizeLine(e.opt.Profile))
	if canSwitchProfile(e) {
		s += st.dim.Render(" · P switches")
	}
	return clip(s, w)
}

func (m *model) openProfilePicker() tea.Cmd {
	m.overlay = newProfilePicker(m.e)
	return nil
}

// switchProfile dials name; the screen stays as it is until it answers.
func (m *model) switchProfile(name string) tea.Cmd {
	e := m.e
	if e.opt.ConnectProfile == nil {
		return e.setErr("switch profile", errors.New("profiles are not available here"))
	}
	if m.profiles.op != 0 {
		e.ops.done(m.profiles.op) // the newer choice wins
	}
	dial := e.opt.ConnectProfile
	id, cmd := e.start("connecting to profile "+sanitizeLine(name), e.opt.RequestTimeout, func(ctx context.Context, id int) tea.Msg {
		a, err := dial(ctx, name)
		if err != nil {
			return errMsg{id: id, what: "switch to profile " + name, err: err}
		}
		if a == nil {
			return errMsg{id: id, what: "switch to profile " + name, err: errors.New("the connection returned no agent")}
		}
		return profileDialedMsg{id: id, name: name, agent: a}
	})
	m.profiles.op = id
	return cmd
}

// onProfileDialed installs the new agent, or closes it when its switch
// was cancelled (esc, or a newer choice) while it connected.
func (m *model) onProfileDialed(msg profileDialedMsg) tea.Cmd {
	e := m.e
	if msg.id == m.profiles.op {
		m.profiles.op = 0
	}
	if !e.ops.done(msg.id) {
		return closeAgent(e, msg.agent)
	}
	old := e.agent
	// What is in flight was asked of the old agent; its answers no longer
	// belong on screen.
	e.ops.cancelAll()
	for _, s := range m.stack {
		if st, ok := s.(stopper); ok {
			st.stop()
		}
	}
	m.profiles.gen++
	m.profiles.switched = true
	e.agent = msg.agent
	e.conn = msg.agent.State()
	e.opt.Profile = msg.name
	e.lastTrace = nil
	m.overlay = nil
	office := newOfficeScreen(e)
	m.stack = []screen{office}
	return tea.Batch(
		closeAgent(e, old),
		m.listenProfile(),
		office.load(),
		e.setStatus(statusOK, "switched to profile "+sanitizeLine(msg.name)),
	)
}

// onProfileAgent applies an event of an agent installed by a switch, if
// it is still the current one.
func (m *model) onProfileAgent(msg profileAgentMsg) tea.Cmd {
	if msg.gen != m.profiles.gen {
		return nil
	}
	if msg.closed {
		m.e.conn = client.StateEvent{State: client.Offline, Reason: "agent closed"}
		return nil
	}
	return tea.Batch(m.listenProfile(), m.onAgentEvent(msg.ev))
}

// listenProfile is listen for an agent installed by a switch.
func (m *model) listenProfile() tea.Cmd {
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
			return profileAgentMsg{gen: gen, closed: true}
		}
		return profileAgentMsg{gen: gen, ev: ev}
	})
}

// closeAgent closes a replaced agent in a command.
func closeAgent(e *env, a Agent) tea.Cmd {
	c, ok := a.(interface{ Close() error })
	if !ok {
		return nil
	}
	log := e.opt.Logger
	return e.safe(0, func() tea.Msg {
		if err := c.Close(); err != nil {
			log.Warn("closing the agent of the previous profile", "err", err)
		}
		return nil
	})
}

// profilePicker is the P overlay: the profiles of the config file, the
// current one marked, enter to switch.
type profilePicker struct {
	e     *env
	names []string
	// rows are the sanitized lines under the names (url, office, agent).
	rows []string
	list scroller
}

func newProfilePicker(e *env) *profilePicker {
	p := &profilePicker{e: e}
	f := e.opt.Profiles
	if f == nil {
		return p
	}
	p.names = f.Names()
	for i, name := range p.names {
		if name == e.opt.Profile {
			p.list.cur = i
		}
		prof, err := f.Lookup(name)
		if err != nil {
			p.rows = append(p.rows, oneLine(err))
			continue
		}
		var parts []string
		switch len(prof.URLs) {
		case 0:
			parts = append(parts, "(default server)")
		case 1:
			parts = append(parts, sanitize.URL(prof.URLs[0]))
		default:
			parts = append(parts, fmt.Sprintf("%s (+%d)", sanitize.URL(prof.URLs[0]), len(prof.URLs)-1))
		}
		if prof.Office != "" {
			parts = append(parts, "office "+prof.Office)
		}
		if prof.AgentName != "" {
			parts = append(parts, "agent "+prof.AgentName)
		}
		p.rows = append(p.rows, sanitizeLine(strings.Join(parts, " · ")))
	}
	return p
}

// head is the number of lines above the list.
const pickerHead = 2

func (p *profilePicker) Update(msg tea.Msg) (screen, tea.Cmd) {
	k := p.e.keys
	h := max(1, p.e.bodyHeight()-pickerHead)
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if p.list.nav(k, msg, len(p.names), h) {
			return p, nil
		}
		switch {
		case matches(msg, k.Back), matches(msg, k.Profile):
			return p, p.e.ask(closeOverlayMsg{})
		case matches(msg, k.Enter):
			if p.list.cur >= len(p.names) {
				return p, nil
			}
			p.e.ask(closeOverlayMsg{})
			return p, p.e.ask(switchProfileMsg{name: p.names[p.list.cur]})
		}
	case tea.MouseClickMsg:
		if i := p.list.top + msg.Y - pickerHead; msg.Y >= pickerHead && i < len(p.names) {
			p.list.cur = i
		}
	case tea.MouseWheelMsg:
		p.list.wheel(msg.Button == tea.MouseWheelUp, len(p.names), h)
	}
	return p, nil
}

func (p *profilePicker) View(w, h int) []string {
	st := p.e.st
	head := " " + st.title.Render("Profiles")
	if f := p.e.opt.Profiles; f != nil {
		head += st.dim.Render(" · " + sanitizeLine(f.Path))
	}
	lines := []string{head, ""}
	if len(p.names) == 0 {
		return append(lines, st.dim.Render("  The config file has no profiles."))
	}
	nameW := 4
	for _, n := range p.names {
		nameW = max(nameW, min(24, len([]rune(sanitizeLine(n)))))
	}
	p.list.clamp(len(p.names), h-pickerHead)
	for i := p.list.top; i < len(p.names) && len(lines) < h; i++ {
		mark := "  "
		if p.names[i] == p.e.opt.Profile {
			mark = "● "
		}
		name := sanitizeLine(p.names[i])
		row := mark + fit(name, nameW) + "  " + p.rows[i]
		lines = append(lines, listRow(st, row, i == p.list.cur, false, w))
	}
	return lines
}

func (p *profilePicker) Keys() screenKeys {
	k := p.e.keys
	return screenKeys{
		short: []key2{withHelp(k.Enter, "switch"), withHelp(k.Back, "close"), k.Up, k.Down},
		full:  [][]key2{{withHelp(k.Enter, "switch"), withHelp(k.Back, "close")}, k.navKeys()},
	}
}

func (p *profilePicker) Crumb() string { return "profiles" }
