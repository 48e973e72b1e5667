package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// rowList is the one list component of the list screens (the office, a
// computer's servers, skills and desktop, a server's resources, the
// Finder's hits, the profiles, a skill's files): the filter typed with /,
// the cursor and the first row shown, and how many rows fit. Update moves
// the cursor and, through the screen's layout, sets the rows that fit;
// View only reads, so what is drawn is what the next key moves.
type rowList struct {
	scroller
	// fit is how many rows the screen's layout last gave the list.
	fit int
	// filter is the text typed after /; "" is none.
	filter string
}

// layout gives the list rows lines for n rows and keeps the cursor in
// view. Screens call it from their layout, in Update.
func (l *rowList) layout(n, rows int) {
	l.fit = max(1, rows)
	l.clamp(n, l.fit)
}

func (l *rowList) height() int { return max(1, l.fit) }

// key moves the cursor with the navigation keys over n rows; false: msg
// was not one.
func (l *rowList) key(k keyMap, msg tea.KeyPressMsg, n int) bool {
	return l.nav(k, msg, n, l.height())
}

// mouse applies a wheel or a click y lines below the first row shown.
func (l *rowList) mouse(msg tea.Msg, y, n int) {
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		l.wheel(msg.Button == tea.MouseWheelUp, n, l.height())
	case tea.MouseClickMsg:
		if y >= 0 && y < l.height() && l.top+y < n {
			l.cur = l.top + y
		}
	}
}

// shown is the range of the n rows on screen, [from, to).
func (l *rowList) shown(n int) (from, to int) {
	from = min(max(0, l.top), n)
	return from, min(n, from+l.height())
}

// at reports whether row i is the one under the cursor.
func (l *rowList) at(i int) bool { return i == l.cur }

// onFilter applies the filter prompt's messages: typing sets the filter,
// esc in the prompt clears it. changed: the filter is not what it was.
func (l *rowList) onFilter(msg tea.Msg) (changed bool) {
	old := l.filter
	switch msg := msg.(type) {
	case promptChangedMsg:
		if msg.mode == barFilter {
			l.filter = msg.value
		}
	case promptDoneMsg:
		if msg.mode == barFilter && msg.cancelled {
			l.filter = "" // esc on the filter clears it, as in bubbles/list
		}
	}
	return l.filter != old
}

// askFilter opens the filter prompt. / starts a new filter, as in less
// and bubbles/list: the list shows every row again, and the last filter
// is a ↑ away in the prompt's history. The live hint counts what the
// typed filter keeps.
func (l *rowList) askFilter(e *env, count func() int) tea.Cmd {
	l.filter = ""
	return e.ask(promptMsg{mode: barFilter, validate: func(string) (string, bool) {
		return counted(count(), "match", "matches"), true
	}})
}

// clearFilter is esc on a filtered list: it clears the filter first.
func (l *rowList) clearFilter() bool {
	if l.filter == "" {
		return false
	}
	l.filter = ""
	return true
}

// filterStatus is the status line of a filtered list: the filter, how
// many rows it keeps of how many, and that esc clears it.
func (l *rowList) filterStatus(e *env, kept, of, w int) string {
	if l.filter == "" {
		return ""
	}
	return clip(e.st.info.Render(fmt.Sprintf(" filter %q: %d of %d", sanitizeLine(l.filter), kept, of))+e.st.dim.Render(" · esc clears"), w)
}

// arranger is a screen whose layout depends on the size: the root calls
// layout after every Update, with the body's size, so View only reads.
type arranger interface{ arrange(w, h int) }

// layout lays out every screen, the overlay and what help covers, for the
// body's size, after Update changed the size or the state.
func (m *model) layout() {
	w, h := m.e.width, m.e.bodyHeight()
	for _, s := range m.stack {
		if l, ok := s.(arranger); ok {
			l.arrange(w, h)
		}
	}
	for _, s := range []screen{m.overlay, m.underHelp} {
		if l, ok := s.(arranger); ok {
			l.arrange(w, h)
		}
	}
}

// mouseY is the line of a mouse message in the body (-1: none).
func mouseY(msg tea.Msg) int {
	if m, ok := msg.(tea.MouseMsg); ok {
		return m.Mouse().Y
	}
	return -1
}

// maxCellWidth caps what a cell's content asks of a column's width.
const maxCellWidth = 200

// cellWidth is how wide s shows as a cell (sanitized, capped at
// maxCellWidth), for sizing a column to what it holds.
func cellWidth(s string) int {
	if len(s) > 4*maxCellWidth {
		s = s[:4*maxCellWidth]
	}
	return min(maxCellWidth, ansi.StringWidth(sanitizeLine(s)))
}
