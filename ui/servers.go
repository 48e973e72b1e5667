package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// serversScreen lists one computer's MCP servers. Disabled servers are
// dimmed and cannot be opened.
type serversScreen struct {
	e        *env
	computer string
	cfg      *client.Config
	list     rowList
	err      string
	// rowErr is the status id of the failure enter showed for a row; it
	// is cleared when the cursor leaves that row.
	rowErr int
	// gone is set when the computer left the office: the screen says so
	// and offers to go back.
	gone bool
	// local is set when computer is this process's (Options.Local): the
	// rows are its servers' start-up states, kept live by a watch this
	// screen owns (watching) until no server is starting (localDone).
	local      LocalServers
	states     []LocalServerState
	notes      []string // LocalNotes: one line each above the list
	watching   bool
	localDone  bool
	statesSeen bool
	// sk is the computer's skills list, under its servers.
	sk skillsPane
	dk desktopPane
}

func newServersScreen(e *env, computer string, cfg *client.Config) *serversScreen {
	return &serversScreen{e: e, computer: computer, cfg: cfg, local: e.localFor(computer)}
}

// serverRow is one row: a configured server from get_config, its local
// start-up state, or both.
type serverRow struct {
	cfg   client.ServerConfig
	state *LocalServerState
}

func (r serverRow) name() string {
	if r.state != nil {
		return r.state.Name
	}
	return r.cfg.Name
}

// key is the server's identity on the wire: the servers-map key (the
// bundle_id from 0.3 on), never the display name, which may collide. A
// local server not yet in get_config is known by its state's name, which
// is its key in the config file.
func (r serverRow) key() protocol.ServerKey {
	if r.cfg.Key == "" && r.state != nil {
		return protocol.ServerKey(r.state.Name)
	}
	return configKey(r.cfg)
}

// configKey is c's servers-map key; an entry without one (an Agent that
// is not the client) is keyed by its name, as in 0.2.
func configKey(c client.ServerConfig) protocol.ServerKey {
	if c.Key != "" {
		return c.Key
	}
	return protocol.ServerKey(c.Name)
}

func (r serverRow) typ() string {
	if r.state != nil && r.state.Type != "" {
		return r.state.Type
	}
	return r.cfg.Type
}

func (r serverRow) disabled() bool {
	if r.state != nil {
		return r.state.Status == LocalDisabled
	}
	return r.cfg.Disabled
}

// rows are get_config's servers; on the local computer, every server's
// state in its order (a server still starting is not in get_config yet),
// then any get_config server the states do not name.
func (v *serversScreen) rows() []serverRow {
	var out []serverRow
	cfgs := map[protocol.ServerKey]client.ServerConfig{}
	if v.cfg != nil {
		for _, c := range v.cfg.Servers {
			cfgs[configKey(c)] = c
		}
	}
	named := map[string]bool{}
	if v.local != nil {
		for i := range v.states {
			st := &v.states[i]
			named[st.Name] = true
			out = append(out, serverRow{cfg: cfgs[protocol.ServerKey(st.Name)], state: st})
		}
	}
	if v.cfg != nil {
		for _, c := range v.cfg.Servers {
			if !named[string(configKey(c))] {
				out = append(out, serverRow{cfg: c})
			}
		}
	}
	return out
}

// keyed reports whether any row's key differs from its display name (a
// 0.3 office keys servers by bundle_id): the list then has a KEY column,
// so two servers of one name can be told apart.
func keyed(rows []serverRow) bool {
	for _, r := range rows {
		if string(r.key()) != r.name() {
			return true
		}
	}
	return false
}

// label is how a row's server is named on the screens below the list:
// its display name, with its key when another server shares the name.
func label(rows []serverRow, i int) string {
	name := rows[i].name()
	for j, r := range rows {
		if j != i && r.name() == name {
			return name + " (" + string(rows[i].key()) + ")"
		}
	}
	return name
}

// watch starts this screen's watch of the local states when none runs.
// Once no server is starting, only an immediate read (a config answer, a
// refresh) is done: a folder's rescan may have changed its notes.
func (v *serversScreen) watch(now bool) tea.Cmd {
	if v.local == nil || v.watching || (v.localDone && !now) {
		return nil
	}
	v.watching = true
	return watchLocal(v.e, v.local, v, now)
}

func (v *serversScreen) onStates(msg localStatesMsg) tea.Cmd {
	v.watching = false
	changed := !v.statesSeen || !slices.Equal(v.states, msg.states)
	v.states, v.notes, v.localDone, v.statesSeen = msg.states, msg.notes, msg.done, true
	var cmds []tea.Cmd
	if changed && v.cfg != nil {
		// A server that became ready is in get_config now: its
		// endpoint comes from there.
		cmds = append(cmds, loadConfig(v.e, v.computer))
	}
	return tea.Batch(append(cmds, v.watch(false))...)
}

func (v *serversScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	s, cmd := v.update(msg)
	v.settlePane()
	return s, cmd
}

func (v *serversScreen) update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case configMsg:
		if msg.computer != v.computer {
			return v, nil
		}
		if msg.err != nil {
			v.err = oneLine(msg.err)
			return v, v.watch(true)
		}
		v.cfg, v.err, v.gone = msg.cfg, "", false
		return v, v.watch(true)
	case localStatesMsg:
		if msg.owner == v {
			return v, v.onStates(msg)
		}
	case client.NotifyEvent:
		switch {
		case msg.Name == protocol.NotifyLeaveOffice && msg.Computer == v.computer:
			v.gone = true
		case msg.Name == protocol.NotifyEnterOffice && msg.Computer == v.computer:
			return v, tea.Batch(loadConfig(v.e, v.computer), v.loadSkills(), v.loadDesktop())
		case msg.Name == protocol.NotifyUpdateConfig && msg.Computer == v.computer:
			return v, loadConfig(v.e, v.computer)
		case msg.Name == protocol.NotifyUpdateSkills && msg.Computer == v.computer:
			return v, v.loadSkills()
		case msg.Name == protocol.NotifyUpdateDesktop && msg.Computer == v.computer:
			return v, v.loadDesktop()
		}
	case reconnectedMsg:
		return v, tea.Batch(loadConfig(v.e, v.computer), v.loadSkills(), v.loadDesktop())
	case skillsMsg:
		if msg.id == v.sk.op {
			v.sk.install(msg)
		}
	case desktopMsg:
		if msg.id == v.dk.op {
			v.dk.install(msg)
		}
	case cancelledMsg:
		if msg.id == v.sk.op {
			v.sk.op = 0
		}
		if msg.id == v.dk.op {
			v.dk.op = 0
		}
	case promptChangedMsg, promptDoneMsg:
		v.list.onFilter(msg)
	case tea.KeyPressMsg:
		return v, v.key(msg)
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		v.list.mouse(msg, mouseY(msg)-v.head(), len(v.visible()))
	}
	return v, nil
}

func (v *serversScreen) visible() []int {
	rows := v.rows()
	f := foldKey(v.list.filter)
	out := make([]int, 0, len(rows))
	for i, s := range rows {
		if f == "" || strings.Contains(foldKey(s.name()+" "+string(s.key())+" "+s.typ()), f) {
			out = append(out, i)
		}
	}
	return out
}

func (v *serversScreen) key(msg tea.KeyPressMsg) tea.Cmd {
	e := v.e
	k := e.keys
	vis := v.visible()
	if cmd, ok := v.paneKey(msg); ok {
		return cmd
	}
	if cmd, ok := v.skillKey(msg, len(vis)); ok {
		return cmd
	}
	if cur := v.list.cur; v.list.key(k, msg, len(vis)) {
		if v.list.cur != cur && v.rowErr != 0 && e.status.id == v.rowErr {
			// The row's failure was about the row left behind.
			e.status = statusLine{id: e.status.id + 1}
		}
		return nil
	}
	switch {
	case matches(msg, k.Back, k.Left):
		if matches(msg, k.Back) && v.list.clearFilter() {
			return nil
		}
		return v.e.ask(popMsg{})
	case matches(msg, k.Refresh):
		return tea.Batch(loadConfig(e, v.computer), v.loadSkills(), v.loadDesktop())
	case matches(msg, k.Filter):
		return v.list.askFilter(v.e, func() int { return len(v.visible()) + len(v.visibleSkills()) })
	case matches(msg, k.Enter, k.Right):
		if len(vis) == 0 || v.list.cur >= len(vis) {
			return nil
		}
		if v.gone {
			return e.info("computer " + sanitizeLine(v.computer) + " left the office · esc goes back")
		}
		rows := v.rows()
		row := rows[vis[v.list.cur]]
		name := sanitizeLine(label(rows, vis[v.list.cur]))
		if st := row.state; st != nil {
			switch {
			case st.Status == LocalStarting:
				return e.info("server " + name + " is still starting")
			case st.Status == LocalFailed:
				cmd := e.setStatus(statusErr, "server "+name+" failed to start: "+sanitizeLine(st.Err))
				v.rowErr = e.status.id
				return cmd
			case st.Status == LocalReady && st.NoResources:
				return e.info("server " + name + " has no resources capability (its tools still work)")
			}
		}
		if row.disabled() {
			return e.info("server " + name + " is disabled")
		}
		r := newResourcesScreen(e, v.computer, row.key(), label(rows, vis[v.list.cur]))
		return tea.Batch(v.e.ask(pushMsg{s: r}), r.loadNext(false))
	}
	return nil
}

// endpoint summarises server_parameters without secrets: the command or
// URL only, never env or headers.
func endpoint(s client.ServerConfig) string {
	switch s.Type {
	case protocol.ServerTypeStdio:
		var p protocol.StdioParameters
		if json.Unmarshal(s.Parameters, &p) == nil && p.Command != "" {
			out := p.Command
			for _, a := range p.Args {
				out += " " + a
			}
			return out
		}
	case protocol.ServerTypeStreamable, protocol.ServerTypeSSE:
		var p struct {
			URL string `json:"url"`
		}
		if json.Unmarshal(s.Parameters, &p) == nil {
			return sanitize.URL(p.URL)
		}
	}
	return ""
}

// goneBanner is the line a stale screen shows at the top.
func goneBanner(e *env, computer string, w int) string {
	return e.st.errText.Render(clip(fmt.Sprintf(" ✗ computer %s left the office; this list is stale · esc goes back", sanitizeLine(computer)), w))
}

// arrange sizes the three sections: the skills and the desktop from the
// whole body, the servers' rows from what is left (less their head and
// the failure pane of the selected row).
func (v *serversScreen) arrange(w, h int) {
	v.list.layout(len(v.visible()), v.serverRows(w, h-v.sectionsHeight(h)))
	v.sk.list.layout(len(v.visibleSkills()), v.skillsHeight(h)-3)
	v.dk.list.layout(len(v.dk.windows), v.desktopHeight(h)-3)
}

// sectionsHeight is the lines the skills and the desktop take of h.
func (v *serversScreen) sectionsHeight(h int) int { return v.skillsHeight(h) + v.desktopHeight(h) }

// serverRows is how many server rows fit in h lines of the servers'
// section.
func (v *serversScreen) serverRows(w, h int) int {
	h -= v.head()
	return h - len(v.selectedDetail(w, h))
}

// selectedDetail is the failure pane of the selected server, for h lines
// of rows and pane.
func (v *serversScreen) selectedDetail(w, h int) []string {
	vis := v.visible()
	if v.local == nil || v.list.cur >= len(vis) {
		return nil
	}
	return v.failureDetail(v.rows()[vis[v.list.cur]], w, max(0, h-min(len(vis), 3)))
}

func (v *serversScreen) View(w, h int) []string {
	// Each section sizes itself from the whole body, as layout did; the
	// servers get the rest.
	extra := append(v.skillsView(w, h), v.desktopView(w, h)...)
	if len(extra) == 0 {
		return v.serversView(w, h)
	}
	// The skills and the desktop follow the servers, not the foot of the screen.
	lines := box(v.serversView(w, h-len(extra)), w, h-len(extra))
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return box(append(lines, extra...), w, h)
}

func (v *serversScreen) serversView(w, h int) []string {
	st := v.e.st
	var lines []string
	if v.gone {
		lines = append(lines, goneBanner(v.e, v.computer, w))
		h--
	}
	if v.cfg == nil && (v.local == nil || !v.statesSeen) {
		if v.err != "" {
			return append(lines, "", "  "+st.errText.Render("get_config failed: "+v.err), "", st.dim.Render("  r retry · esc back"))
		}
		return append(lines, "", "  "+v.e.spin.View()+" asking "+sanitizeLine(v.computer)+" for its config…")
	}
	if v.local != nil {
		lines = append(lines, " "+st.counter.Render(v.localSummary()))
		h--
		notes := v.noteLines(w)
		lines = append(lines, notes...)
		h -= len(notes)
	}
	stateW := 8
	if v.local != nil {
		stateW = 12 // "no resources"
	}
	rows := v.rows()
	withKey := keyed(rows)
	cols := []column{{"SERVER", 0}, {"TYPE", 10}, {"STATE", stateW}, {"ENDPOINT", 0}}
	rest := w - 2 - 10 - stateW - 3*2
	cols[0].width = max(8, rest*40/100)
	cols[3].width = max(6, rest-cols[0].width)
	if withKey {
		cols = slices.Insert(cols, 1, column{"KEY", 0})
		rest -= 2
		cols[0].width = max(8, rest*22/100)
		cols[1].width = max(8, rest*40/100)
		cols[4].width = max(6, rest-cols[0].width-cols[1].width)
	}
	lines = append(lines, "  "+st.colHead.Render(joinCols(cols, colHeader(cols))))
	if len(rows) == 0 {
		return append(lines, "", st.dim.Render("  "+sanitizeLine(v.computer)+" has no MCP servers configured."))
	}
	vis := v.visible()
	detail := v.selectedDetail(w, h-1)
	listH := v.list.height()
	top := len(lines)
	from, to := v.list.shown(len(vis))
	for i := from; i < to && len(lines)-top < listH; i++ {
		r := rows[vis[i]]
		state, end := "enabled", sanitizeLine(endpoint(r.cfg))
		if r.disabled() {
			state = "disabled"
		}
		if s := r.state; s != nil {
			state = s.Status
			switch {
			case s.Status == LocalStarting:
				state = "starting…"
			case s.Status == LocalFailed:
				end = "✗ " + sanitizeLine(s.Err)
			case s.Status == LocalReady && s.NoResources:
				state = "no resources"
			}
		}
		cells := []string{sanitizeLine(r.name()), sanitizeLine(r.typ()), state, end}
		if withKey {
			cells = slices.Insert(cells, 1, sanitizeLine(string(r.key())))
		}
		row := joinCols(cols, cells)
		sel := i == v.list.cur && v.sk.pane == 0
		line := listRow(st, row, sel, r.disabled() || v.gone, w)
		if r.state != nil && r.state.Status == LocalFailed && !sel {
			line = "  " + st.errText.Render(clip(row, w-2)) // the same margin as listRow
		}
		lines = append(lines, line)
	}
	if len(detail) > 0 {
		lines = append(box(lines, w, top+listH), detail...)
	}
	return lines
}

// localSummary counts the local servers by state.
func (v *serversScreen) localSummary() string {
	n := map[string]int{}
	for _, s := range v.states {
		n[s.Status]++
	}
	parts := []string{counted(len(v.states), "server", "servers")}
	for _, k := range []string{LocalStarting, LocalReady, LocalFailed, LocalDisabled} {
		if n[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
		}
	}
	s := strings.Join(parts, " · ")
	if n[LocalStarting] > 0 {
		s += " · usable while the others start"
	}
	return s
}

// head is the number of lines View draws above the rows: the stale
// banner, the local summary and notes, the column header.
func (v *serversScreen) head() int {
	n := 1
	if v.gone {
		n++
	}
	if v.local != nil {
		n += 1 + min(len(v.notes), maxNotesShown)
	}
	return n
}

// maxNotesShown bounds the note lines above the list; more are counted.
const maxNotesShown = 3

// noteLines are the local notes, one sanitized, clipped line each, at most
// maxNotesShown (the last of them counting the rest).
func (v *serversScreen) noteLines(w int) []string {
	if len(v.notes) == 0 {
		return nil
	}
	st := v.e.st
	shown := v.notes
	more := 0
	if len(shown) > maxNotesShown {
		shown, more = shown[:maxNotesShown-1], len(shown)-(maxNotesShown-1)
	}
	out := make([]string, 0, maxNotesShown)
	for _, n := range shown {
		out = append(out, " "+st.info.Render(clip("note: "+sanitizeLine(n), w-1)))
	}
	if more > 0 {
		out = append(out, " "+st.dim.Render(clip(fmt.Sprintf("note: %d more (ls servers prints them all)", more), w-1)))
	}
	return out
}

// maxTailShown and maxErrShown bound the stderr and error lines a failed
// server's pane shows.
const (
	maxTailShown = 8
	maxErrShown  = 4
)

// failureDetail is the pane under the list for a selected failed server:
// its error and the end of its stderr, each line sanitized, at most h
// lines.
func (v *serversScreen) failureDetail(r serverRow, w, h int) []string {
	s := r.state
	if s == nil || s.Status != LocalFailed || h < 3 {
		return nil
	}
	st := v.e.st
	out := []string{st.border.Render(strings.Repeat("─", w)),
		clip(" "+st.errText.Render("✗ "+sanitizeLine(s.Name)+" failed to start:"), w)}
	// The error whole, wrapped: it is the one thing to read here.
	errLines := wrapCells(sanitizeLine(s.Err), max(10, w-3))
	if len(errLines) > maxErrShown {
		errLines = append(errLines[:maxErrShown-1], errLines[maxErrShown-1]+"…")
	}
	for _, l := range errLines {
		out = append(out, "   "+l)
	}
	if tail := strings.TrimSpace(s.StderrTail); tail != "" {
		lines := strings.Split(tail, "\n")
		keep := min(maxTailShown, h-len(out)-1, len(lines))
		if keep > 0 {
			out = append(out, st.label.Render(" stderr (last lines):"))
			for _, l := range lines[len(lines)-keep:] {
				out = append(out, st.dim.Render(clip("   "+sanitizeLine(l), w)))
			}
		}
	}
	if len(out) > h {
		out = out[:h]
	}
	return out
}

func (v *serversScreen) Keys() screenKeys {
	k := v.e.keys
	var acts []key2
	switch {
	case v.paneRows(v.sk.pane) == 0:
		// Nothing for enter to open.
	case v.sk.pane == paneSkills:
		acts = append(acts, withHelp(k.Enter, "SKILL.md"))
	case v.sk.pane == paneDesktop:
		acts = append(acts, withHelp(k.Enter, "window text"))
	default:
		acts = append(acts, withHelp(k.Enter, "resources"))
	}
	if p := v.nextPane(1); p >= 0 {
		acts = append(acts, withHelp(k.Pane, paneNames[p]))
	}
	short := append(slices.Clone(acts), k.Back, k.Filter, k.Refresh)
	if v.paneRows(v.sk.pane) > 0 {
		short = append(short, k.Up, k.Down)
	}
	return screenKeys{short: short, full: [][]key2{k.navKeys(), append(acts, k.Filter, k.Refresh), k.globalKeys()}}
}

func (v *serversScreen) Crumb() string { return sanitizeLine(v.computer) }

func (v *serversScreen) statusText(w int) string {
	return v.list.filterStatus(v.e, len(v.visible())+len(v.visibleSkills()), len(v.rows())+len(v.sk.skills), w)
}
