package ui

import (
	"encoding/json"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// serversView lists one computer's MCP servers (issue 4 "Servers screen").
// Disabled servers are dimmed and cannot be opened.
type serversView struct {
	computer string
	cfg      *client.Config
	list     listCursor
	err      string
}

func (v *serversView) set(cfg *client.Config) {
	v.cfg = cfg
	v.err = ""
}

func (v *serversView) handleKey(m *model, msg tea.KeyPressMsg) tea.Cmd {
	n := 0
	if v.cfg != nil {
		n = len(v.cfg.Servers)
	}
	if m.navKey(&v.list, msg.String(), n, m.bodyHeight()-2) {
		return nil
	}
	switch msg.String() {
	case "r":
		return m.loadConfig(v.computer)
	case "left", "h":
		return m.back()
	case "enter", "right", "l":
		if n == 0 {
			return nil
		}
		s := v.cfg.Servers[v.list.cur]
		if s.Disabled {
			return m.setStatus(statusInfo, "server "+sanitizeLine(s.Name)+" is disabled")
		}
		m.screen = screenResources
		if m.res.computer == v.computer && m.res.server == s.Name && len(m.res.all) > 0 {
			return nil // keep what was loaded; r reloads
		}
		m.res = newResourcesView(v.computer, s.Name)
		return m.res.loadNext(m, false)
	}
	return nil
}

// endpoint summarises server_parameters without secrets: the command or URL
// only, never env or headers (issue 6 "Secrets").
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

func (v *serversView) view(m *model, w, h int) []string {
	st := m.st
	if v.cfg == nil {
		if v.err != "" {
			return []string{"", "  " + st.errText.Render("get_config failed: "+v.err), "", st.dim.Render("  r retry · esc back")}
		}
		return []string{"", "  " + m.spin.View() + " asking " + sanitizeLine(v.computer) + " for its config…"}
	}
	cols := []column{{"SERVER", 0}, {"TYPE", 10}, {"STATE", 8}, {"ENDPOINT", 0}}
	rest := w - 2 - 10 - 8 - 3*2
	cols[0].width = max(8, rest*40/100)
	cols[3].width = max(6, rest-cols[0].width)
	lines := []string{"  " + st.colHead.Render(joinCols(cols, colHeader(cols)))}
	if len(v.cfg.Servers) == 0 {
		return append(lines, "", st.dim.Render("  "+sanitizeLine(v.computer)+" has no MCP servers configured."))
	}
	v.list.clamp(len(v.cfg.Servers), h-1)
	for i := v.list.top; i < len(v.cfg.Servers) && len(lines) < h; i++ {
		s := v.cfg.Servers[i]
		state := "enabled"
		if s.Disabled {
			state = "disabled"
		}
		row := joinCols(cols, []string{sanitizeLine(s.Name), sanitizeLine(s.Type), state, sanitizeLine(endpoint(s))})
		lines = append(lines, m.listRow(row, i == v.list.cur, s.Disabled, w))
	}
	return lines
}
