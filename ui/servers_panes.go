package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// The computer screen's three lists, in the order tab visits them.
const (
	paneServers = iota
	paneSkills
	paneDesktop
	paneCount
)

var paneNames = [paneCount]string{"servers", "skills", "desktop"}

// paneRows is how many rows the pane's list has now (0: tab skips it).
func (v *serversScreen) paneRows(p int) int {
	switch p {
	case paneServers:
		return len(v.visible())
	case paneSkills:
		return len(v.visibleSkills())
	case paneDesktop:
		return len(v.dk.windows)
	}
	return 0
}

// nextPane is the pane tab (dir 1) or shift+tab (dir -1) goes to: the
// next one with rows, -1 when there is no other.
func (v *serversScreen) nextPane(dir int) int {
	for i := 1; i < paneCount; i++ {
		p := ((v.sk.pane+dir*i)%paneCount + paneCount) % paneCount
		if v.paneRows(p) > 0 {
			return p
		}
	}
	return -1
}

// paneKey moves between the lists (tab, shift+tab; down past the last
// skill, up from the first window) and runs the desktop's keys; ok is
// false for a key it leaves to the servers and skills lists.
func (v *serversScreen) paneKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := v.e.keys
	if matches(msg, k.Pane) {
		dir := 1
		if msg.String() == "shift+tab" {
			dir = -1
		}
		if p := v.nextPane(dir); p >= 0 {
			v.sk.pane = p
		}
		return nil, true
	}
	switch v.sk.pane {
	case paneServers:
		if n := len(v.visible()); matches(msg, k.Down) && (n == 0 || v.list.cur >= n-1) && len(v.visibleSkills()) == 0 && len(v.dk.windows) > 0 {
			v.sk.pane, v.dk.list.cur = paneDesktop, 0
			return nil, true
		}
	case paneSkills:
		if n := len(v.visibleSkills()); matches(msg, k.Down) && n > 0 && v.sk.list.cur >= n-1 && len(v.dk.windows) > 0 {
			v.sk.pane, v.dk.list.cur = paneDesktop, 0
			return nil, true
		}
	case paneDesktop:
		n := len(v.dk.windows)
		switch {
		case n == 0:
			return nil, false
		case matches(msg, k.Up) && v.dk.list.cur == 0:
			if p := v.nextPane(-1); p >= 0 && p != paneDesktop {
				v.sk.pane = p
			}
			return nil, true
		case v.dk.list.key(k, msg, n):
			return nil, true
		case matches(msg, k.Enter, k.Right):
			return v.openWindow(v.dk.windows[min(v.dk.list.cur, n-1)].URI, v.dk.windows[min(v.dk.list.cur, n-1)].Body), true
		case matches(msg, k.Back, k.Left, k.Refresh, k.Filter):
			return nil, false
		}
		return nil, true // the servers' keys do not reach past the desktop
	}
	return nil, false
}

// maxWindowLines bounds the lines the window view shows of one window.
const maxWindowLines = 2000

// openWindow shows a window's text, each line sanitized, wrapped to the
// width.
func (v *serversScreen) openWindow(uri, body string) tea.Cmd {
	e := v.e
	lines := strings.Split(body, "\n")
	cut := len(lines) > maxWindowLines
	if cut {
		lines = lines[:maxWindowLines]
	}
	name := sanitizeLine(uri)
	view := newLineView(e, "window", func(w int) []string {
		out := []string{" " + e.st.title.Render(clip(name, w-1)), ""}
		for _, l := range lines {
			for _, c := range wrapCells(sanitizeLine(l), max(10, w-4)) {
				out = append(out, "  "+c)
			}
		}
		if cut {
			out = append(out, "", " "+e.st.dim.Render(clip("… the first "+counted(maxWindowLines, "line", "lines")+" are shown", w-1)))
		}
		return out
	})
	return e.ask(overlayMsg{s: view})
}
