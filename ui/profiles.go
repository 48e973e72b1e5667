package ui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/config"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// Switching profiles (P): the picker lists the config file's profiles;
// enter dials the chosen one in a command while the current connection
// stays usable, and only a dial that succeeded replaces it: the new agent
// is installed in Update, the screens start over at its office, and the
// old agent is closed in a command (closing leaves the office, which
// waits on the network).
//
// A server lets one agent into an office: switching to a profile on the
// same server and office as the current one would be refused while the
// old agent is still in it. Then the old agent leaves first and the
// screen waits on a profileGapScreen; a dial that fails there says so and
// offers to reconnect the profile left, so the user is never stuck.
//
// The picker reads the config file again each time it opens (in a
// command): a profile added while running appears, and a file that no
// longer parses is its one-line error.
//
// Events of a replaced agent must not reach the new state: its listener
// is still blocked on its channel, and its answer carries the generation
// of the agent it came from (agentEventMsg), which a switch moves on.

// switchProfileMsg asks the root to connect to profile name.
type switchProfileMsg struct{ name string }

// profileDialedMsg answers a switch. It is not an opAnswer: when the op
// was cancelled meanwhile the root must still close the agent it carries.
type profileDialedMsg struct {
	id    int
	name  string
	agent Agent
	// left: the previous agent was closed before this dial.
	left bool
}

// profileSwitch is the root's switching state.
type profileSwitch struct {
	// op is the dial in flight (0: none).
	op int
	// gen counts the switches: the generation of the current agent.
	gen int
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

// profilesReadMsg is the config file read again for the picker.
type profilesReadMsg struct {
	file *config.File
	err  error
}

func (m *model) openProfilePicker() tea.Cmd {
	m.overlay = newProfilePicker(m.e)
	f := m.e.opt.Profiles
	if f == nil {
		return nil
	}
	path := f.Path
	return m.e.safe(0, func() tea.Msg {
		nf, err := config.Load(path)
		return profilesReadMsg{file: nf, err: err}
	})
}

// sameOffice: profile name is on the server and office the current agent
// is in (a profile without an office gets the default one, which may be
// it), so the server would refuse a second agent while this one stays.
func sameOffice(e *env, name string) bool {
	a := e.agent
	if a == nil || e.opt.Profiles == nil {
		return false
	}
	prof, err := e.opt.Profiles.Lookup(name)
	if err != nil || len(prof.URLs) == 0 {
		return false // no URL: an embedded office of its own
	}
	if prof.Office != "" && prof.Office != a.Office() {
		return false
	}
	cur := serverHost(a.URL())
	for _, u := range prof.URLs {
		if h := serverHost(u); h != "" && h == cur {
			return true
		}
	}
	return false
}

// serverHost is the host:port of a server URL, lower-cased, with the
// scheme's port filled in ("" when it does not parse).
func serverHost(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Host == "" {
		return ""
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		port = "80"
		if sc := strings.ToLower(u.Scheme); sc == "https" || sc == "wss" {
			port = "443"
		}
	}
	return net.JoinHostPort(host, port)
}

// switchProfile dials name. The screen stays as it is until it answers,
// unless name is in the current office: then the current agent leaves
// first, and a profileGapScreen waits.
func (m *model) switchProfile(name string) tea.Cmd {
	e := m.e
	if e.opt.ConnectProfile == nil {
		return e.setErr("switch profile", errors.New("profiles are not available here"))
	}
	connect := e.opt.ConnectProfile
	dial := func(ctx context.Context) (Agent, error) { return connect(ctx, name) }
	if sameOffice(e, name) {
		return m.switchAfterLeaving(name, dial)
	}
	return m.dialProfile(name, dial, nil)
}

// dialProfile starts dial in an op; leave, when set, is the agent to
// close before dialling (it has already been taken off the screen).
func (m *model) dialProfile(name string, dial func(context.Context) (Agent, error), leave Agent) tea.Cmd {
	e := m.e
	if m.profiles.op != 0 {
		e.ops.done(m.profiles.op) // the newer choice wins
	}
	log := e.opt.Logger
	what := "switch to profile " + name
	if name == "" {
		what = "reconnect"
	}
	id, cmd := e.start("connecting to profile "+sanitizeLine(name), e.opt.RequestTimeout, func(ctx context.Context, id int) tea.Msg {
		if c, ok := leave.(interface{ Close() error }); ok {
			if err := c.Close(); err != nil {
				log.Warn("leaving the office for a profile in the same office", "err", err)
			}
		}
		a, err := dial(ctx)
		if err != nil {
			return errMsg{id: id, what: what, err: err}
		}
		if a == nil {
			return errMsg{id: id, what: what, err: errors.New("the connection returned no agent")}
		}
		return profileDialedMsg{id: id, name: name, agent: a, left: leave != nil}
	})
	m.profiles.op = id
	return cmd
}

// switchAfterLeaving takes the current agent off the screen, and closes
// it before dialling name in the same command.
func (m *model) switchAfterLeaving(name string, dial func(context.Context) (Agent, error)) tea.Cmd {
	e := m.e
	old, prev := e.agent, e.opt.Profile
	m.retire()
	e.agent = nil
	e.conn = client.StateEvent{State: client.Offline, Reason: "left the office for profile " + sanitizeLine(name)}
	gap := &profileGapScreen{e: e, m: m, target: name, prev: prev}
	m.stack = []screen{gap}
	cmd := m.dialProfile(name, dial, old)
	gap.op = m.profiles.op
	return cmd
}

// retire stops what the current agent was doing: its ops' answers and
// its events no longer belong on screen.
func (m *model) retire() {
	m.e.ops.cancelAll()
	for _, s := range m.stack {
		if st, ok := s.(stopper); ok {
			st.stop()
		}
	}
	m.profiles.gen++
}

// reconnect dials back the profile left by a switch that failed (prev ""
// is the connection the program started with).
func (m *model) reconnect(prev string) tea.Cmd {
	e := m.e
	dial := e.opt.Connect
	if prev != "" && e.opt.ConnectProfile != nil {
		connect := e.opt.ConnectProfile
		dial = func(ctx context.Context) (Agent, error) { return connect(ctx, prev) }
	}
	if dial == nil {
		return e.setErr("reconnect", errors.New("nothing to reconnect to"))
	}
	return m.dialProfile(prev, dial, nil)
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
	if msg.left {
		old = nil // closed before the dial
	}
	// What is in flight was asked of the old agent; its answers no longer
	// belong on screen.
	m.retire()
	e.agent = msg.agent
	e.conn = msg.agent.State()
	e.opt.Profile = msg.name
	e.lastTrace = nil
	m.overlay = nil
	office := newOfficeScreen(e)
	m.stack = []screen{office}
	status := "switched to profile " + sanitizeLine(msg.name)
	if msg.name == "" {
		status = "reconnected"
	}
	return tea.Batch(
		closeAgent(e, old),
		m.listen(),
		office.load(),
		e.setStatus(statusOK, status),
	)
}

// closeAgent closes a replaced agent in a command.
func closeAgent(e *env, a Agent) tea.Cmd {
	if a == nil {
		return nil
	}
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
	e *env
	// err is why the file, read again, was refused (one line).
	err   string
	names []string
	// rows are the sanitized lines under the names (url, office, agent).
	rows []string
	list rowList
}

func newProfilePicker(e *env) *profilePicker {
	p := &profilePicker{e: e}
	p.fill(e.opt.Profiles)
	return p
}

// fill lists the profiles of f.
func (p *profilePicker) fill(f *config.File) {
	e := p.e
	p.names, p.rows, p.err = nil, nil, ""
	if f == nil {
		return
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
}

// head is the number of lines above the list.
const pickerHead = 2

func (p *profilePicker) Update(msg tea.Msg) (screen, tea.Cmd) {
	k := p.e.keys
	switch msg := msg.(type) {
	case profilesReadMsg:
		if msg.err != nil {
			p.names, p.rows, p.err = nil, nil, oneLine(msg.err)
			// The head shows the path: the error need only say where in it.
			var pe *config.ParseError
			if errors.As(msg.err, &pe) && pe.Line > 0 {
				if rest, ok := strings.CutPrefix(p.err, sanitizeLine(pe.File)+":"); ok {
					p.err = "line " + rest
				}
			}
			return p, nil
		}
		// The file as it is now; switching looks profiles up in it.
		p.e.opt.Profiles = msg.file
		cur := ""
		if p.list.cur < len(p.names) {
			cur = p.names[p.list.cur]
		}
		p.fill(msg.file)
		if i := slices.Index(p.names, cur); i >= 0 && cur != p.e.opt.Profile {
			p.list.cur = i
		}
		return p, nil
	case tea.KeyPressMsg:
		if p.list.key(k, msg, len(p.names)) {
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
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		p.list.mouse(msg, mouseY(msg)-pickerHead, len(p.names))
	}
	return p, nil
}

func (p *profilePicker) arrange(_, h int) { p.list.layout(len(p.names), h-pickerHead) }

func (p *profilePicker) View(w, h int) []string {
	st := p.e.st
	head := " " + st.title.Render("Profiles")
	if f := p.e.opt.Profiles; f != nil {
		head += st.dim.Render(" · " + sanitizeLine(f.Path))
	}
	lines := []string{head, ""}
	if p.err != "" {
		for _, l := range strings.Split(ansi.Wrap(p.err, max(10, w-4), " "), "\n") {
			lines = append(lines, clip("  "+st.errText.Render(l), w))
		}
		lines = append(lines, "", clip(st.dim.Render("  Fix the file (dpe-tui config edit) and press P again."), w))
		return lines[:min(len(lines), max(h, 0))]
	}
	if len(p.names) == 0 {
		return append(lines, st.dim.Render("  The config file has no profiles."))
	}
	nameW := 4
	for _, n := range p.names {
		nameW = max(nameW, min(24, len([]rune(sanitizeLine(n)))))
	}
	from, to := p.list.shown(len(p.names))
	for i := from; i < to && len(lines) < h; i++ {
		mark := "  "
		if p.names[i] == p.e.opt.Profile {
			mark = "● "
		}
		name := sanitizeLine(p.names[i])
		row := mark + fit(name, nameW) + "  " + p.rows[i]
		lines = append(lines, listRow(st, row, p.list.at(i), false, w))
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

// profileGapScreen stands for the office while a switch to a profile in
// the same office dials, the old agent gone; when the dial fails it says
// so, and r reconnects the profile left (P picks another, q quits).
type profileGapScreen struct {
	e      *env
	m      *model
	target string // the profile being dialled
	prev   string // the profile left ("": the starting connection)
	op     int
	failed string // the dial's error, one line; "" while it runs
}

func (s *profileGapScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case errMsg:
		if msg.id == s.op {
			s.failed = oneLine(msg.err)
		}
	case cancelledMsg:
		if msg.id == s.op {
			s.failed = "cancelled"
		}
	case tea.KeyPressMsg:
		if s.failed != "" && matches(msg, s.e.keys.Retry) {
			s.failed = ""
			cmd := s.m.reconnect(s.prev)
			s.op = s.m.profiles.op
			s.target = s.prev
			return s, cmd
		}
	}
	return s, nil
}

func (s *profileGapScreen) prevLabel() string {
	if s.prev == "" {
		return "the first connection"
	}
	return "profile " + sanitizeLine(s.prev)
}

func (s *profileGapScreen) View(w, h int) []string {
	st := s.e.st
	if s.failed == "" {
		what := "profile " + sanitizeLine(s.target)
		if s.target == "" {
			what = "the first connection"
		}
		return []string{"", clip("  "+s.e.spin.View()+" left the office; connecting to "+what+"…", w), "",
			st.dim.Render("  esc cancels · q quits")}
	}
	return []string{"",
		clip("  "+st.errText.Render("could not connect: "+s.failed), w), "",
		clip("  r reconnects "+s.prevLabel()+" · P picks another profile · q quits", w)}
}

func (s *profileGapScreen) Keys() screenKeys {
	k := s.e.keys
	if s.failed == "" {
		return screenKeys{short: []key2{withHelp(k.Cancel, "cancel")}, full: [][]key2{{k.Cancel, k.Quit}}}
	}
	r := withHelp(k.Retry, "reconnect")
	return screenKeys{short: []key2{r, k.Profile, k.Quit}, full: [][]key2{{r, k.Profile, k.Quit}}}
}

func (s *profileGapScreen) Crumb() string { return "" }
