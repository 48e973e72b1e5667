package ui

import (
	tea "charm.land/bubbletea/v2"
)

// scroller is the one scrolling component: a selection (cur) and the first
// line shown (top) over n lines in h rows. Lists move the selection; in
// line mode (the inspector, trace, content) there is no selection and the
// keys move the view.
type scroller struct {
	cur, top int
	lines    bool
}

func (s *scroller) clamp(n, h int) {
	h = max(h, 1)
	if s.lines {
		s.top = max(0, min(s.top, n-h))
		s.cur = s.top
		return
	}
	s.cur = max(0, min(s.cur, n-1))
	if s.cur < s.top {
		s.top = s.cur
	}
	if s.cur >= s.top+h {
		s.top = s.cur - h + 1
	}
	s.top = max(0, min(s.top, n-h))
}

func (s *scroller) move(d, n, h int) {
	if s.lines {
		s.top += d
	} else {
		s.cur += d
	}
	s.clamp(n, h)
}

// nav applies the navigation keys (Bubbles defaults: ↑↓/jk, ctrl+u/d half
// a page, b/f and pgup/pgdn a page, g/G and home/end the ends) and reports
// whether msg was one.
func (s *scroller) nav(k keyMap, msg tea.KeyPressMsg, n, h int) bool {
	page := max(1, h-1)
	switch {
	case matches(msg, k.Up):
		s.move(-1, n, h)
	case matches(msg, k.Down):
		s.move(1, n, h)
	case matches(msg, k.HalfUp):
		s.move(-max(1, h/2), n, h)
	case matches(msg, k.HalfDown):
		s.move(max(1, h/2), n, h)
	case matches(msg, k.PageUp):
		s.move(-page, n, h)
	case matches(msg, k.PageDown):
		s.move(page, n, h)
	case matches(msg, k.Top):
		s.cur, s.top = 0, 0
		s.clamp(n, h)
	case matches(msg, k.Bottom):
		s.cur, s.top = n-1, n
		s.clamp(n, h)
	default:
		return false
	}
	return true
}

// wheel scrolls by three lines.
func (s *scroller) wheel(up bool, n, h int) {
	d := 3
	if up {
		d = -3
	}
	s.move(d, n, h)
}

// window is the visible part of lines, as exactly h lines of at most w
// cells. It only reads: the scroller is clamped on a copy (its owner
// clamps its own in its layout, in Update, so keys move what is drawn).
func (s scroller) window(lines []string, w, h int) []string {
	s.clamp(len(lines), h)
	return box(lines[min(s.top, len(lines)):], w, h)
}

// lineView is a scrolling overlay over a fixed list of lines (the error
// detail, the table cell view): everything but the lines is shared.
type lineView struct {
	e     *env
	crumb string
	sc    scroller
	make  func(w int) []string
	cache []string
	w     int
	gen   int
	extra []keyBindingAction
}

// keyBindingAction is an extra key of a lineView: the footer hints it
// first, and it runs before the keys every lineView has.
type keyBindingAction struct {
	b   key2
	run func() tea.Cmd
}

func newLineView(e *env, crumb string, mk func(w int) []string) *lineView {
	return &lineView{e: e, crumb: crumb, sc: scroller{lines: true}, make: mk}
}

func (v *lineView) lines(w int) []string {
	if !v.cached(w) {
		v.cache, v.w, v.gen = v.make(w), w, v.e.themeGen
	}
	return v.cache
}

// cached: the lines made last are those for width w and the theme.
func (v *lineView) cached(w int) bool { return v.cache != nil && v.w == w && v.gen == v.e.themeGen }

// arrange makes the lines for the body's width and keeps the scroll in
// range, in Update: View only reads.
func (v *lineView) arrange(w, h int) { v.sc.clamp(len(v.lines(w)), h) }

func (v *lineView) Update(msg tea.Msg) (screen, tea.Cmd) {
	k := v.e.keys
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		for _, x := range v.extra {
			if matches(msg, x.b) {
				return v, x.run()
			}
		}
		if matches(msg, k.Back, k.Enter) {
			return v, v.e.ask(closeOverlayMsg{})
		}
		v.sc.nav(k, msg, len(v.lines(v.e.width)), v.e.bodyHeight())
	case tea.MouseWheelMsg:
		v.sc.wheel(msg.Button == tea.MouseWheelUp, len(v.lines(v.e.width)), v.e.bodyHeight())
	}
	return v, nil
}

func (v *lineView) View(w, h int) []string {
	lines := v.cache
	if !v.cached(w) {
		lines = v.make(w) // not arranged at this size: made, not kept
	}
	return v.sc.window(lines, w, h)
}

func (v *lineView) Keys() screenKeys {
	k := v.e.keys
	var extra []key2
	for _, x := range v.extra {
		extra = append(extra, x.b)
	}
	return screenKeys{
		short: append(extra, k.Up, k.Down, k.PageDown, withHelp(k.Back, "close")),
		full:  [][]key2{append(extra, k.navKeys()...), k.globalKeys()},
	}
}

func (v *lineView) Crumb() string { return v.crumb }
