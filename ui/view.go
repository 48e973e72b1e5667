package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// Layout: header (1), breadcrumb (1), body, status line (1), help or
// prompt (1).
const chromeHeight = 4

func (m *model) bodyHeight() int { return max(1, m.height-chromeHeight) }

func (m *model) view() tea.View {
	if m.width <= 0 || m.height <= 0 {
		return tea.NewView("")
	}
	w, h := m.width, m.bodyHeight()
	lines := make([]string, 0, m.height)
	lines = append(lines, m.headerView(w), m.crumbView(w))
	body := m.bodyView(w, h)
	if m.screen == screenDocument && m.overlay == overlayNone && m.doc != nil {
		// The document view composes lines of known width (render keeps
		// every line within the width it was given); skip re-measuring.
		body = padLines(body, h)
	} else {
		body = box(body, w, h)
	}
	lines = append(lines, body...)
	lines = append(lines, m.statusView(w))
	var cur *tea.Cursor
	if m.bar.active {
		line, c := m.bar.view(m, w)
		lines = append(lines, line)
		if c != nil {
			c.Position.Y = len(lines) - 1
			cur = c
		}
	} else if m.copyMenu {
		lines = append(lines, m.st.barPrompt.Render("copy: ")+"u resource URI · a access URI · t element text · j element JSON · esc cancel")
	} else {
		lines = append(lines, m.help.ShortHelpView(m.helpKeys().ShortHelp()))
	}
	for _, i := range []int{0, 1, len(lines) - 2, len(lines) - 1} {
		lines[i] = clip(lines[i], w)
	}
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	v.Cursor = cur
	if m.opt.Mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	return v
}

func (m *model) bodyView(w, h int) []string {
	switch m.overlay {
	case overlayHelp:
		return m.helpView(w, h)
	case overlayInspector:
		return m.insp.view(m, w, h)
	case overlayRaw:
		return m.raw.view(m, w, h)
	case overlayTrace:
		return m.traceView(w, h)
	case overlayConformance:
		return m.conf.view(m, w, h)
	}
	switch m.screen {
	case screenConnecting:
		return m.connectingView(w, h)
	case screenError:
		return m.errorView(w, h)
	case screenOffice:
		return m.office.view(m, w, h)
	case screenServers:
		return m.servers.view(m, w, h)
	case screenResources:
		return m.res.view(m, w, h)
	case screenDocument:
		if m.doc == nil {
			return []string{"", "  " + m.spin.View() + " opening " + sanitizeLine(m.opt.OpenTarget) + "…"}
		}
		return m.doc.view(m, w, h)
	case screenContent:
		if m.content != nil {
			return m.content.view(m, w, h)
		}
	}
	return nil
}

func (m *model) helpView(w, h int) []string {
	out := []string{" " + m.st.title.Render("Keys") + m.st.dim.Render(" · ? or esc closes"), ""}
	for _, l := range strings.Split(m.help.FullHelpView(m.helpKeys().FullHelp()), "\n") {
		out = append(out, " "+l)
	}
	return out
}

func (m *model) connectingView(w, h int) []string {
	target := ""
	if m.agent != nil {
		target = m.agent.URL()
	}
	line := "  " + m.spin.View() + " connecting"
	if target != "" {
		line += " to " + sanitizeLine(target)
	}
	line += "…"
	return []string{"", line, "", m.st.dim.Render("  esc cancels · q quits")}
}

func (m *model) errorView(w, h int) []string {
	st := m.st
	return []string{
		"",
		"  " + st.errText.Render("✗ "+clip(m.fatal, w-6)),
		"",
		"  " + st.key.Render("r") + st.dim.Render(" retry   ") + st.key.Render("q") + st.dim.Render(" quit"),
	}
}

// headerView: app, connection state, server, office, agent.
func (m *model) headerView(w int) string {
	st := m.st
	parts := []string{st.app.Render("dpe-tui"), m.connView()}
	if m.agent != nil {
		parts = append(parts,
			st.headerDim.Render("server ")+st.header.Render(sanitizeLine(sanitize.URL(m.agent.URL()))),
			st.headerDim.Render("office ")+st.header.Render(sanitizeLine(m.agent.Office())),
			st.headerDim.Render("agent ")+st.header.Render(sanitizeLine(m.agent.Name())))
	} else if m.opt.OpenTarget != "" {
		parts = append(parts, st.headerDim.Render("file ")+st.header.Render(sanitizeLine(m.opt.OpenTarget)))
	}
	return clip(strings.Join(parts, "  "), w)
}

func (m *model) connView() string {
	st := m.st
	if m.agent == nil {
		switch {
		case m.opt.OpenTarget != "":
			return st.connOK.Render("◆ local")
		case m.screen == screenError:
			return st.connBad.Render("○ not connected")
		}
		return st.connWarn.Render(m.spin.View() + " connecting")
	}
	switch m.conn.State {
	case client.Connected:
		return st.connOK.Render("● connected")
	case client.Reconnecting:
		return st.connWarn.Render(fmt.Sprintf("◌ reconnecting %d…", m.conn.Attempt))
	case client.Offline:
		return st.connBad.Render("○ offline: " + clip(stateReason(m.conn), 40))
	}
	return st.connWarn.Render(m.spin.View() + " connecting")
}

// crumbView: office › computer › server › resource › page.
func (m *model) crumbView(w int) string {
	st := m.st
	var crumbs []string
	if m.agent != nil {
		crumbs = append(crumbs, sanitizeLine(m.agent.Office()))
	}
	switch m.screen {
	case screenServers, screenResources, screenDocument, screenContent:
		if m.servers.computer != "" && m.agent != nil {
			crumbs = append(crumbs, sanitizeLine(m.servers.computer))
		}
	}
	switch m.screen {
	case screenResources, screenDocument, screenContent:
		if m.res.server != "" && m.agent != nil {
			crumbs = append(crumbs, sanitizeLine(m.res.server))
		}
	}
	switch {
	case m.screen == screenDocument && m.doc != nil:
		crumbs = append(crumbs, sanitizeTrunc(m.doc.title(), 40), fmt.Sprintf("page %d/%d", m.doc.page+1, len(m.doc.pages)))
	case m.screen == screenContent && m.content != nil:
		crumbs = append(crumbs, sanitizeTrunc(m.content.uri, 50))
	}
	switch m.overlay {
	case overlayInspector:
		crumbs = append(crumbs, "inspector")
	case overlayRaw:
		crumbs = append(crumbs, "raw JSON")
	case overlayTrace:
		crumbs = append(crumbs, "resolver trace")
	case overlayConformance:
		crumbs = append(crumbs, "conformance")
	case overlayHelp:
		crumbs = append(crumbs, "help")
	}
	if len(crumbs) == 0 {
		return ""
	}
	sep := st.crumbSep.Render(" › ")
	for i := range crumbs {
		if i == len(crumbs)-1 {
			crumbs[i] = st.crumbLast.Render(crumbs[i])
		} else {
			crumbs[i] = st.crumb.Render(crumbs[i])
		}
	}
	return clip(" "+strings.Join(crumbs, sep), w)
}

func sanitizeTrunc(s string, n int) string {
	s = sanitizeLine(s)
	if ansi.StringWidth(s) > n {
		return ansi.Truncate(s, n, "…")
	}
	return s
}

// statusView: in-flight op with spinner and progress, else the transient
// message, else screen facts (search matches).
func (m *model) statusView(w int) string {
	st := m.st
	if o := m.ops.newest(); o != nil {
		s := " " + m.spin.View() + " " + o.label
		if o.progress != "" {
			s += " · " + o.progress
		}
		s += st.dim.Render(" · esc cancels")
		return clip(s, w)
	}
	if m.status.text != "" {
		style := st.info
		switch m.status.kind {
		case statusOK:
			style = st.okText
		case statusErr:
			style = st.errText
		}
		return clip(" "+style.Render(m.status.text), w)
	}
	if m.screen == screenDocument && m.doc != nil && m.doc.search.query != "" {
		s := m.doc.search
		txt := fmt.Sprintf(" search %q: ", sanitizeLine(s.query))
		if len(s.hits) == 0 {
			txt += "no matches"
		} else {
			txt += fmt.Sprintf("match %d/%d", s.cur+1, len(s.hits))
		}
		if s.scanned < len(m.doc.pages) {
			txt += fmt.Sprintf(" (searched %d/%d pages)", s.scanned, len(m.doc.pages))
		}
		return clip(st.info.Render(txt)+st.dim.Render(" · n/N move · esc clears"), w)
	}
	return ""
}

// mouse (off unless Options.Mouse)

func (m *model) handleWheel(msg tea.MouseWheelMsg) tea.Cmd {
	k := "down"
	if msg.Button == tea.MouseWheelUp {
		k = "up"
	}
	if m.bar.active {
		return nil
	}
	return m.handleKey(tea.KeyPressMsg{Code: keyCodeFor(k)})
}

func keyCodeFor(k string) rune {
	if k == "up" {
		return tea.KeyUp
	}
	return tea.KeyDown
}

// handleClick selects the clicked row in the list screens.
func (m *model) handleClick(msg tea.MouseClickMsg) tea.Cmd {
	if msg.Button != tea.MouseLeft || m.overlay != overlayNone || m.bar.active {
		return nil
	}
	y := msg.Y - 2 // header + breadcrumb
	switch m.screen {
	case screenOffice:
		i := m.office.list.top + y - 1
		if i >= 0 && i < len(m.office.rows) {
			m.office.list.cur = i
		}
	case screenServers:
		if m.servers.cfg != nil {
			i := m.servers.list.top + y - 1
			if i >= 0 && i < len(m.servers.cfg.Servers) {
				m.servers.list.cur = i
			}
		}
	case screenResources:
		i := m.res.list.top + y - 2
		if i >= 0 && i < len(m.res.visible) && y-2 < m.res.listHeight(m) {
			m.res.list.cur = i
		}
	case screenDocument:
		if d := m.doc; d != nil {
			sw, _ := docLayout(m.width)
			if msg.X > sw && y >= 1 {
				if b := d.blockAt(d.yoff + y - 1); b >= 0 {
					d.selectBlock(b)
				}
			}
		}
	}
	return nil
}
