package ui

import (
	"encoding/json"
	"fmt"
	"strconv"
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
	list     scroller
	err      string
	filter   string
	// gone is set when the computer left the office: the screen says so
	// and offers to go back.
	gone bool
}

func newServersScreen(e *env, computer string, cfg *client.Config) *serversScreen {
	return &serversScreen{e: e, computer: computer, cfg: cfg}
}

func (v *serversScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case configMsg:
		if msg.computer != v.computer {
			return v, nil
		}
		if msg.err != nil {
			v.err = oneLine(msg.err)
			return v, nil
		}
		v.cfg, v.err, v.gone = msg.cfg, "", false
	case client.NotifyEvent:
		switch {
		case msg.Name == protocol.NotifyLeaveOffice && msg.Computer == v.computer:
			v.gone = true
		case msg.Name == protocol.NotifyEnterOffice && msg.Computer == v.computer:
			return v, loadConfig(v.e, v.computer)
		case msg.Name == protocol.NotifyUpdateConfig && msg.Computer == v.computer:
			return v, loadConfig(v.e, v.computer)
		}
	case reconnectedMsg:
		return v, loadConfig(v.e, v.computer)
	case promptChangedMsg:
		if msg.mode == barFilter {
			v.filter = msg.value
		}
	case promptDoneMsg:
		if msg.mode == barFilter && msg.cancelled {
			v.filter = ""
		}
	case tea.KeyPressMsg:
		return v, v.key(msg)
	case tea.MouseClickMsg:
		if i := v.list.top + msg.Y - 1; msg.Y >= 1 && i < len(v.visible()) {
			v.list.cur = i
		}
	case tea.MouseWheelMsg:
		v.list.wheel(msg.Button == tea.MouseWheelUp, len(v.visible()), v.e.bodyHeight()-1)
	}
	return v, nil
}

func (v *serversScreen) visible() []int {
	if v.cfg == nil {
		return nil
	}
	f := strings.ToLower(v.filter)
	out := make([]int, 0, len(v.cfg.Servers))
	for i, s := range v.cfg.Servers {
		if f == "" || strings.Contains(strings.ToLower(s.Name+" "+s.Type), f) {
			out = append(out, i)
		}
	}
	return out
}

func (v *serversScreen) key(msg tea.KeyPressMsg) tea.Cmd {
	e := v.e
	k := e.keys
	vis := v.visible()
	if v.list.nav(k, msg, len(vis), e.bodyHeight()-1) {
		return nil
	}
	switch {
	case matches(msg, k.Back, k.Left):
		if v.filter != "" && matches(msg, k.Back) {
			v.filter = ""
			return nil
		}
		return v.e.ask(popMsg{})
	case matches(msg, k.Refresh):
		return loadConfig(e, v.computer)
	case matches(msg, k.Filter):
		return v.e.ask(promptMsg{mode: barFilter, value: v.filter, validate: func(string) (string, bool) {
			return strconv.Itoa(len(v.visible())) + " match", true
		}})
	case matches(msg, k.Enter, k.Right):
		if len(vis) == 0 || v.list.cur >= len(vis) {
			return nil
		}
		if v.gone {
			return e.info("computer " + sanitizeLine(v.computer) + " left the office · esc goes back")
		}
		s := v.cfg.Servers[vis[v.list.cur]]
		if s.Disabled {
			return e.info("server " + sanitizeLine(s.Name) + " is disabled")
		}
		r := newResourcesScreen(e, v.computer, s.Name)
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

func (v *serversScreen) View(w, h int) []string {
	st := v.e.st
	var lines []string
	if v.gone {
		lines = append(lines, goneBanner(v.e, v.computer, w))
		h--
	}
	if v.cfg == nil {
		if v.err != "" {
			return append(lines, "", "  "+st.errText.Render("get_config failed: "+v.err), "", st.dim.Render("  r retry · esc back"))
		}
		return append(lines, "", "  "+v.e.spin.View()+" asking "+sanitizeLine(v.computer)+" for its config…")
	}
	cols := []column{{"SERVER", 0}, {"TYPE", 10}, {"STATE", 8}, {"ENDPOINT", 0}}
	rest := w - 2 - 10 - 8 - 3*2
	cols[0].width = max(8, rest*40/100)
	cols[3].width = max(6, rest-cols[0].width)
	lines = append(lines, "  "+st.colHead.Render(joinCols(cols, colHeader(cols))))
	if len(v.cfg.Servers) == 0 {
		return append(lines, "", st.dim.Render("  "+sanitizeLine(v.computer)+" has no MCP servers configured."))
	}
	vis := v.visible()
	v.list.clamp(len(vis), h-1)
	for i := v.list.top; i < len(vis) && len(lines) < h+boolInt(v.gone); i++ {
		s := v.cfg.Servers[vis[i]]
		state := "enabled"
		if s.Disabled {
			state = "disabled"
		}
		row := joinCols(cols, []string{sanitizeLine(s.Name), sanitizeLine(s.Type), state, sanitizeLine(endpoint(s))})
		lines = append(lines, listRow(st, row, i == v.list.cur, s.Disabled || v.gone, w))
	}
	return lines
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (v *serversScreen) Keys() screenKeys {
	k := v.e.keys
	return screenKeys{
		short: []key2{withHelp(k.Enter, "resources"), k.Back, k.Filter, k.Refresh, k.Up, k.Down},
		full:  [][]key2{k.navKeys(), {withHelp(k.Enter, "resources"), k.Filter, k.Refresh}, k.globalKeys()},
	}
}

func (v *serversScreen) Crumb() string { return sanitizeLine(v.computer) }

func (v *serversScreen) statusText(w int) string {
	if v.filter == "" {
		return ""
	}
	return clip(v.e.st.info.Render(fmt.Sprintf(" filter %q: %d match", sanitizeLine(v.filter), len(v.visible())))+v.e.st.dim.Render(" · esc clears"), w)
}
