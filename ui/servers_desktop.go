package ui

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/client"
)

// DesktopAgent is what an Agent also offers when it can read a computer's
// desktop (client:get_desktop, desktop.md). The computer screen shows the
// desktop only when the agent has it.
type DesktopAgent interface {
	// Desktop is client:get_desktop: the computer's window:// resources
	// with their text, in the computer's order.
	Desktop(ctx context.Context, computer string) (*client.Desktop, error)
}

func (e *env) desktopAgent() DesktopAgent {
	a, _ := e.agent.(DesktopAgent)
	return a
}

// desktopMsg answers a get_desktop.
type desktopMsg struct {
	id       int
	computer string
	desk     *client.Desktop
	err      error
}

func (m desktopMsg) opID() int { return m.id }

// loadDesktop asks computer for its desktop (nil when the agent cannot).
func loadDesktop(e *env, computer string) (int, tea.Cmd) {
	a := e.desktopAgent()
	if a == nil {
		return 0, nil
	}
	return e.start("get_desktop "+sanitizeLine(computer), e.opt.RequestTimeout, func(ctx context.Context, id int) tea.Msg {
		d, err := a.Desktop(ctx, computer)
		return desktopMsg{id: id, computer: computer, desk: d, err: err}
	})
}

// desktopPane is the computer screen's third section, under the skills:
// the windows of the computer's desktop; tab gives it the cursor, and
// enter shows a window's text.
type desktopPane struct {
	windows []client.Window
	// text is each window's first line that says something, sanitized
	// once on receipt.
	text    []string
	skipped int
	err     string
	done    bool
	// op is the get_desktop in flight (0: none).
	op int
	// list is the windows' cursor, when the desktop has it (pane 2).
	list rowList
}

func (p *desktopPane) install(msg desktopMsg) {
	p.op, p.done = 0, true
	if msg.err != nil {
		p.err = peerSentence(msg.err)
		return
	}
	p.windows, p.skipped, p.err = nil, 0, ""
	if msg.desk != nil {
		p.windows, p.skipped = msg.desk.Windows, msg.desk.Skipped
	}
	p.text = make([]string, len(p.windows))
	for i, win := range p.windows {
		p.text[i] = windowText(win)
	}
}

// loadDesktop asks for the computer's desktop unless one is in flight.
func (v *serversScreen) loadDesktop() tea.Cmd {
	if v.dk.op != 0 {
		return nil
	}
	id, cmd := loadDesktop(v.e, v.computer)
	v.dk.op = id
	return cmd
}

// desktopHeight is how many lines the desktop section takes of h: a blank
// line, its title and its column header, then the rows, at most a quarter
// of the screen (the servers and skills come first).
func (v *serversScreen) desktopHeight(h int) int {
	if v.e.desktopAgent() == nil {
		return 0
	}
	return max(0, min(3+max(1, len(v.dk.windows)), h/4))
}

// desktopView is the desktop section, exactly desktopHeight(h) lines; the
// windows that do not fit are counted on its last line.
func (v *serversScreen) desktopView(w, h int) []string {
	n := v.desktopHeight(h)
	if n == 0 {
		return nil
	}
	st := v.e.st
	title := "DESKTOP"
	switch {
	case v.dk.op != 0 && !v.dk.done:
		title += " · " + v.e.spin.View() + " asking for it…"
	case v.dk.err == "" && v.dk.done:
		title += " · " + counted(len(v.dk.windows), "window", "windows")
		if v.dk.skipped > 0 {
			title += " (" + counted(v.dk.skipped, "entry", "entries") + " not a window, not shown)"
		}
	}
	out := []string{"", " " + st.label.Render(clip(title, w-1))}
	if n < 3 {
		return out[:n]
	}
	switch {
	case v.dk.err != "":
		return append(out, "  "+st.dim.Render(clip("not shown: "+sanitizeLine(v.dk.err), w-2)), "")
	case v.dk.done && len(v.dk.windows) == 0:
		return append(out, "  "+st.dim.Render(clip(sanitizeLine(v.computer)+" has no windows open.", w-2)), "")
	case !v.dk.done:
		return append(out, "", "")
	}
	cols := v.desktopColumns(w)
	out = append(out, "  "+st.colHead.Render(joinCols(cols, colHeader(cols))))
	if v.sk.pane == paneDesktop {
		// The desktop has the cursor: its rows scroll.
		from, to := v.dk.list.shown(len(v.dk.windows))
		for i := from; i < to && len(out) < n; i++ {
			row := joinCols(cols, []string{sanitizeLine(v.dk.windows[i].URI), v.dk.text[i]})
			out = append(out, listRow(st, row, v.dk.list.at(i), v.gone, w))
		}
		return out
	}
	for i, win := range v.dk.windows {
		if len(out) == n-1 && len(v.dk.windows)-i > 1 {
			out = append(out, "  "+st.dim.Render(clip(fmt.Sprintf("… and %d more · %s reaches them", len(v.dk.windows)-i, v.e.keys.Pane.Help().Key), w-2)))
			break
		}
		out = append(out, "  "+joinCols(cols, []string{sanitizeLine(win.URI), v.dk.text[i]}))
	}
	return out
}

// maxWindowTextBytes bounds the part of a window's text that is kept for
// its row.
const maxWindowTextBytes = 1024

// windowText is the first line of a window's text that says something,
// marked when the computer's text was cut on receipt.
func windowText(win client.Window) string {
	var first string
	for line := range strings.SplitSeq(win.Body, "\n") {
		if s := strings.TrimSpace(line); s != "" {
			// A line wider than any screen is cut before it is cleaned,
			// at a rune's start.
			if len(s) > maxWindowTextBytes {
				n := maxWindowTextBytes
				for n > 0 && !utf8.RuneStart(s[n]) {
					n--
				}
				s = s[:n]
			}
			first = strings.TrimSpace(sanitizeLine(s))
			break
		}
	}
	if win.Truncated {
		first += " (cut)"
	}
	return first
}

// desktopColumns gives the URI what it holds, up to what the text leaves
// (at least half the width), and the text the rest.
func (v *serversScreen) desktopColumns(w int) []column {
	cols := []column{{"WINDOW", 6}, {"TEXT", 0}}
	for _, win := range v.dk.windows {
		cols[0].width = max(cols[0].width, ansi.StringWidth(sanitizeLine(win.URI)))
	}
	text := 4
	for _, t := range v.dk.text {
		text = max(text, ansi.StringWidth(t))
	}
	rest := w - 2 - 2
	// The URI names the window: it keeps what the text does not need,
	// and at least half the width.
	cols[0].width = min(cols[0].width, max(6, rest/2, rest-text))
	cols[1].width = max(4, rest-cols[0].width)
	return cols
}
