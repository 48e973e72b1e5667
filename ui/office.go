package ui

import (
	"fmt"
	"sort"
	"strconv"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// officeView lists the computers in the office (issue 4 "Office screen").
type officeView struct {
	rows   []computerRow
	list   listCursor
	loaded bool
}

type computerRow struct {
	info    protocol.SessionInfo
	cfg     *client.Config
	cfgErr  string
	pending bool // get_config in flight
}

func (v *officeView) setComputers(m *model, cs []protocol.SessionInfo) tea.Cmd {
	old := map[string]computerRow{}
	for _, r := range v.rows {
		old[r.info.Name] = r
	}
	v.rows = v.rows[:0]
	var cmds []tea.Cmd
	for _, c := range cs {
		r := computerRow{info: c}
		if o, ok := old[c.Name]; ok && o.cfg != nil {
			r.cfg = o.cfg
		}
		r.pending = true
		cmds = append(cmds, m.loadConfig(c.Name))
		v.rows = append(v.rows, r)
	}
	sort.SliceStable(v.rows, func(i, j int) bool { return v.rows[i].info.Name < v.rows[j].info.Name })
	v.loaded = true
	v.list.clamp(len(v.rows), m.bodyHeight()-2)
	return tea.Batch(cmds...)
}

func (v *officeView) setConfig(computer string, cfg *client.Config, err error) {
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

// onNotify applies notify:* live (issue 4): enter/leave add or remove a row
// with a transient message; update_config refreshes that computer.
func (v *officeView) onNotify(m *model, ev client.NotifyEvent) tea.Cmd {
	name := sanitizeLine(ev.Computer)
	switch ev.Name {
	case protocol.NotifyEnterOffice:
		if ev.Computer == "" {
			if ev.Agent != "" {
				return m.setStatus(statusInfo, "agent "+sanitizeLine(ev.Agent)+" entered the office")
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
		return tea.Batch(m.setStatus(statusOK, "computer "+name+" entered the office"), m.loadComputers())
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
		v.list.clamp(len(v.rows), m.bodyHeight()-2)
		msg := "computer " + name + " left the office"
		if m.servers.computer == ev.Computer && (m.screen == screenServers || m.screen == screenResources) {
			msg += "; its servers are gone"
		}
		return m.setStatus(statusErr, msg)
	case protocol.NotifyUpdateConfig:
		if ev.Computer == "" {
			return nil
		}
		return tea.Batch(m.setStatus(statusInfo, "computer "+name+" updated its config"), m.loadConfig(ev.Computer))
	}
	return nil
}

func (v *officeView) handleKey(m *model, msg tea.KeyPressMsg) tea.Cmd {
	h := m.bodyHeight() - 2
	if m.navKey(&v.list, msg.String(), len(v.rows), h) {
		return nil
	}
	switch msg.String() {
	case "r":
		return m.loadComputers()
	case "enter", "right", "l":
		if len(v.rows) == 0 {
			return nil
		}
		r := v.rows[v.list.cur]
		m.servers = serversView{computer: r.info.Name}
		m.screen = screenServers
		if r.cfg != nil {
			m.servers.set(r.cfg)
		}
		return m.loadConfig(r.info.Name)
	}
	return nil
}

func (v *officeView) columns(w int) []column {
	cols := []column{{"COMPUTER", 0}, {"A2C VERSION", 11}, {"SERVERS", 7}, {"STATUS", 0}}
	rest := w - 11 - 7 - 3*2
	cols[0].width = max(8, rest*55/100)
	cols[3].width = max(6, rest-cols[0].width)
	return cols
}

func (v *officeView) view(m *model, w, h int) []string {
	st := m.st
	if !v.loaded {
		return []string{"", "  " + m.spin.View() + " listing computers in office " + sanitizeLine(m.officeName()) + "…"}
	}
	cols := v.columns(w - 2)
	lines := []string{"  " + st.colHead.Render(joinCols(cols, colHeader(cols)))}
	if len(v.rows) == 0 {
		lines = append(lines, "", st.dim.Render("  No computers in office "+sanitizeLine(m.officeName())+". Waiting for notify:enter_office…"))
		return lines
	}
	v.list.clamp(len(v.rows), h-1)
	for i := v.list.top; i < len(v.rows) && len(lines) < h; i++ {
		r := v.rows[i]
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
		}
		ver := r.info.A2CVersion
		if ver == "" {
			ver = "—"
		}
		row := joinCols(cols, []string{sanitizeLine(r.info.Name), sanitizeLine(ver), count, status})
		lines = append(lines, m.listRow(row, i == v.list.cur, false, w))
	}
	return lines
}

// listRow draws one selectable row with a cursor gutter.
func (m *model) listRow(row string, selected, dimmed bool, w int) string {
	st := m.st
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

func (m *model) officeName() string {
	if m.agent == nil {
		return ""
	}
	return m.agent.Office()
}
