package ui

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// officeScreen lists the computers in the office, live: computers entering
// or leaving appear with a status message.
type officeScreen struct {
	e      *env
	rows   []computerRow
	list   rowList
	loaded bool
	// compOp is the list_room in flight (0: none); compQueued asks for
	// one more when it answers.
	compOp     int
	compQueued bool
	// local is the local computer's server states (localStatesMsg): its
	// row counts what they say, not get_config's enabled flags.
	local                    []LocalServerState
	localWatching, localDone bool
}

type computerRow struct {
	info    protocol.SessionInfo
	cfg     *client.Config
	cfgErr  string
	pending bool // get_config in flight
}

func newOfficeScreen(e *env) *officeScreen { return &officeScreen{e: e} }

// load lists the office (list_room). Refreshes are coalesced: at most one
// request is in flight and one more is queued, however many notifications
// ask for one meanwhile; the queued one starts when the first answers, so
// the list ends current without a request per event.
func (v *officeScreen) load() tea.Cmd {
	if v.compOp != 0 {
		v.compQueued = true
		return nil
	}
	a := v.e.agent
	if a == nil {
		return nil
	}
	id, cmd := v.e.start("listing computers", v.e.opt.RequestTimeout, func(ctx context.Context, id int) tea.Msg {
		cs, err := a.Computers(ctx)
		if err != nil {
			return errMsg{id: id, what: "list computers", err: err}
		}
		out := cs[:0:0]
		for _, c := range cs {
			if c.Role == "" || c.Role == protocol.RoleComputer {
				out = append(out, c)
			}
		}
		return computersMsg{id: id, computers: out}
	})
	v.compOp = id
	return cmd
}

// answered notes that the list_room in flight is over and starts the
// queued refresh, if any.
func (v *officeScreen) answered(id int) tea.Cmd {
	if v.compOp == 0 || id != v.compOp {
		return nil
	}
	v.compOp = 0
	if !v.compQueued {
		return nil
	}
	v.compQueued = false
	return v.load()
}

func loadConfig(e *env, computer string) tea.Cmd {
	a := e.agent
	if a == nil {
		return nil
	}
	_, cmd := e.start("get_config "+sanitizeLine(computer), e.opt.RequestTimeout, func(ctx context.Context, id int) tea.Msg {
		cfg, err := a.Config(ctx, computer)
		return configMsg{id: id, computer: computer, cfg: cfg, err: err}
	})
	return cmd
}

func (v *officeScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case computersMsg:
		again := v.answered(msg.id)
		return v, tea.Batch(again, v.setComputers(msg.computers))
	case errMsg:
		return v, v.answered(msg.id)
	case cancelledMsg:
		return v, v.answered(msg.id)
	case configMsg:
		v.setConfig(msg.computer, msg.cfg, msg.err)
		if l := v.e.localFor(msg.computer); l != nil && !v.localWatching && !v.localDone {
			v.localWatching = true
			return v, watchLocal(v.e, l, v, true)
		}
	case localStatesMsg:
		if msg.owner != any(v) {
			return v, nil
		}
		v.local, v.localDone, v.localWatching = msg.states, msg.done, false
		if l := v.e.opt.Local; l != nil && !msg.done {
			v.localWatching = true
			return v, watchLocal(v.e, l, v, false)
		}
	case client.NotifyEvent:
		return v, v.onNotify(msg)
	case reconnectedMsg:
		return v, v.load()
	case promptChangedMsg, promptDoneMsg:
		v.list.onFilter(msg)
	case tea.KeyPressMsg:
		return v, v.key(msg)
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		v.list.mouse(msg, mouseY(msg)-v.head(), v.rowCount())
	}
	return v, nil
}

func (v *officeScreen) setComputers(cs []protocol.SessionInfo) tea.Cmd {
	old := map[string]computerRow{}
	for _, r := range v.rows {
		old[r.info.Name] = r
	}
	v.rows = v.rows[:0]
	var cmds []tea.Cmd
	for _, c := range cs {
		r := computerRow{info: c, pending: true}
		if o, ok := old[c.Name]; ok && o.cfg != nil {
			r.cfg = o.cfg
		}
		cmds = append(cmds, loadConfig(v.e, c.Name))
		v.rows = append(v.rows, r)
	}
	sort.SliceStable(v.rows, func(i, j int) bool { return v.rows[i].info.Name < v.rows[j].info.Name })
	v.loaded = true
	return tea.Batch(cmds...)
}

func (v *officeScreen) setConfig(computer string, cfg *client.Config, err error) {
	for i := range v.rows {
		if v.rows[i].info.Name == computer {
			v.rows[i].pending = false
			if err != nil {
				v.rows[i].cfgErr = oneLine(err)
				continue
			}
			v.rows[i].cfg, v.rows[i].cfgErr = cfg, ""
		}
	}
}

// onNotify applies notify:* live: enter/leave add or remove a row with a
// transient message; update_config refreshes that computer.
func (v *officeScreen) onNotify(ev client.NotifyEvent) tea.Cmd {
	e := v.e
	name := sanitizeLine(ev.Computer)
	switch ev.Name {
	case protocol.NotifyEnterOffice:
		if ev.Computer == "" {
			if ev.Agent != "" {
				return e.info("agent " + sanitizeLine(ev.Agent) + " entered the office")
			}
			return nil
		}
		found := false
		for _, r := range v.rows {
			found = found || r.info.Name == ev.Computer
		}
		if !found {
			v.rows = append(v.rows, computerRow{info: protocol.SessionInfo{Name: ev.Computer, Role: protocol.RoleComputer}, pending: true})
			sort.SliceStable(v.rows, func(i, j int) bool { return v.rows[i].info.Name < v.rows[j].info.Name })
		}
		// list_room fills in a2c_version; get_config the server count.
		return tea.Batch(e.setStatus(statusOK, "computer "+name+" entered the office"), v.load())
	case protocol.NotifyLeaveOffice:
		if ev.Computer == "" {
			return nil
		}
		for i, r := range v.rows {
			if r.info.Name == ev.Computer {
				v.rows = append(v.rows[:i], v.rows[i+1:]...)
				break
			}
		}
		return e.setStatus(statusErr, "computer "+name+" left the office")
	case protocol.NotifyUpdateConfig:
		if ev.Computer == "" {
			return nil
		}
		return tea.Batch(e.info("computer "+name+" updated its config"), loadConfig(e, ev.Computer))
	}
	return nil
}

// visible is the rows the filter keeps, as indexes.
func (v *officeScreen) visible() []int {
	out := make([]int, 0, len(v.rows))
	f := foldKey(v.list.filter)
	for i, r := range v.rows {
		if f == "" || strings.Contains(foldKey(r.info.Name), f) {
			out = append(out, i)
		}
	}
	return out
}

func (v *officeScreen) key(msg tea.KeyPressMsg) tea.Cmd {
	k := v.e.keys
	vis := v.visible()
	if v.list.key(k, msg, v.rowCount()) {
		return nil
	}
	switch {
	case matches(msg, k.Back):
		if v.list.clearFilter() {
			return nil
		}
		return v.e.ask(popMsg{})
	case matches(msg, k.Refresh):
		return v.load()
	case matches(msg, k.Trace):
		// The trace of the last open (kept when it failed), or what x is for.
		if t := v.e.lastTrace; t != nil {
			return v.e.ask(overlayMsg{s: newTraceOverlay(v.e, t)})
		}
		return v.e.info("x shows the resolver trace of a document: none opened yet")
	case matches(msg, k.Filter):
		return v.list.askFilter(v.e, func() int { return len(v.visible()) })
	case matches(msg, k.Enter, k.Right):
		if v.list.cur == len(vis) && v.extra() == 1 {
			s := newRemoteScreen(v.e, v.e.opt.Remote)
			return tea.Batch(v.e.ask(pushMsg{s: s}), s.connect())
		}
		if len(vis) == 0 || v.list.cur >= len(vis) {
			return nil
		}
		r := v.rows[vis[v.list.cur]]
		s := newServersScreen(v.e, r.info.Name, r.cfg)
		return tea.Batch(v.e.ask(pushMsg{s: s}), loadConfig(v.e, r.info.Name), s.loadSkills(), s.loadDesktop())
	}
	return nil
}

func (v *officeScreen) columns(w int) []column {
	cols := []column{{"COMPUTER", 0}, {"A2C VERSION", 11}, {"SERVERS", 7}, {"STATUS", 0}}
	rest := w - 11 - 7 - 3*2
	cols[0].width = max(8, rest*55/100)
	cols[3].width = max(6, rest-cols[0].width)
	return cols
}

func (v *officeScreen) View(w, h int) []string {
	e := v.e
	st := e.st
	if !v.loaded {
		return []string{"", "  " + e.spin.View() + " listing computers in office " + sanitizeLine(officeName(e)) + "…"}
	}
	cols := v.columns(w - 2)
	var lines []string
	if e.opt.Profile != "" {
		lines = append(lines, profileLine(e, w))
	}
	lines = append(lines, "  "+st.colHead.Render(joinCols(cols, colHeader(cols))))
	vis := v.visible()
	switch {
	case len(v.rows) == 0:
		lines = append(lines, st.dim.Render(clip("  No computers in office "+sanitizeLine(officeName(e))+" yet; one appears here as soon as it joins.", w)))
	case len(vis) == 0:
		lines = append(lines, st.dim.Render(fmt.Sprintf("  No computer matches %q.", sanitizeLine(v.list.filter))))
	}
	from, to := v.list.shown(v.rowCount())
	for i := from; i < min(to, len(vis)) && len(lines) < h; i++ {
		r := v.rows[vis[i]]
		count, status := "…", "loading config"
		switch {
		case r.cfgErr != "":
			count, status = "?", r.cfgErr
		case r.cfg != nil:
			enabled := 0
			for _, s := range r.cfg.Servers {
				if !s.Disabled {
					enabled++
				}
			}
			count = strconv.Itoa(len(r.cfg.Servers))
			status = fmt.Sprintf("%d enabled", enabled)
			if v.local != nil && v.e.localFor(r.info.Name) != nil {
				count, status = strconv.Itoa(len(v.local)), localCounts(v.local)
			}
		}
		ver := r.info.A2CVersion
		if ver == "" {
			ver = "—"
		}
		row := joinCols(cols, []string{sanitizeLine(r.info.Name), sanitizeLine(ver), count, status})
		lines = append(lines, listRow(st, row, i == v.list.cur, false, w))
	}
	if v.extra() == 1 && to > len(vis) && len(lines) < h {
		// The remote is not a computer of the office: its own row, under
		// them, says what it is.
		row := joinCols(cols, []string{"DPE v1 remote", "", "", sanitizeLine(e.opt.Remote.Label)})
		lines = append(lines, listRow(st, row, v.list.cur == len(vis), false, w))
	}
	return lines
}

// arrange fits the rows under the head.
func (v *officeScreen) arrange(_, h int) { v.list.layout(v.rowCount(), h-v.head()) }

// rowCount is the rows the cursor moves over: the computers the filter
// keeps and the remote's row.
func (v *officeScreen) rowCount() int { return len(v.visible()) + v.extra() }

// extra is 1 when the office lists a DPE v1 remote after its computers.
func (v *officeScreen) extra() int {
	if v.e.opt.Remote != nil {
		return 1
	}
	return 0
}

func (v *officeScreen) Keys() screenKeys {
	k := v.e.keys
	short := []key2{withHelp(k.Enter, "servers"), k.Filter, k.Refresh, k.Open, k.Up, k.Down}
	actions := []key2{withHelp(k.Enter, "servers"), k.Filter, k.Refresh, withHelp(k.Trace, "last open's trace")}
	if canSwitchProfile(v.e) {
		short = append(short[:3], append([]key2{k.Profile}, short[3:]...)...)
		actions = append(actions, k.Profile)
	}
	return screenKeys{short: short, full: [][]key2{k.navKeys(), actions, k.globalKeys()}}
}

// head is the number of lines above the rows: the profile line, when
// connected through a profile, and the column header.
func (v *officeScreen) head() int {
	if v.e.opt.Profile != "" {
		return 2
	}
	return 1
}

func (v *officeScreen) Crumb() string { return "" }

func (v *officeScreen) statusText(w int) string {
	return v.list.filterStatus(v.e, len(v.visible()), len(v.rows), w)
}

// listRow draws one selectable row with a cursor gutter.
func listRow(st styles, row string, selected, dimmed bool, w int) string {
	switch {
	case selected && dimmed:
		return st.gutter.Render("▌ ") + st.selDim.Render(fit(row, w-2))
	case selected:
		return st.gutter.Render("▌ ") + st.selRow.Render(fit(row, w-2))
	case dimmed:
		return "  " + st.dim.Render(clip(row, w-2))
	}
	return "  " + clip(row, w-2)
}

func officeName(e *env) string {
	if e.agent == nil {
		return ""
	}
	return e.agent.Office()
}

// localCounts says how many of the local servers are in each state, as
// the states say ("3 ready · 3 failed").
func localCounts(states []LocalServerState) string {
	n := map[string]int{}
	for _, s := range states {
		n[s.Status]++
	}
	var parts []string
	for _, k := range []string{LocalReady, LocalStarting, LocalFailed, LocalDisabled} {
		if n[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
		}
	}
	if len(parts) == 0 {
		return "no servers"
	}
	return strings.Join(parts, " · ")
}
