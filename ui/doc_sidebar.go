package ui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// sidebar

type sideEntry struct {
	page    int
	outline int // -1 for the page row
}

func (d *documentScreen) sideEntries() []sideEntry {
	var out []sideEntry
	for i := range d.pages {
		out = append(out, sideEntry{page: i, outline: -1})
		if i == d.page {
			for j := range d.pages[i].outline {
				out = append(out, sideEntry{page: i, outline: j})
			}
		}
	}
	return out
}

func (d *documentScreen) sidebarIndexOfPage(p int) int {
	for i, e := range d.sideEntries() {
		if e.page == p && e.outline < 0 {
			return i
		}
	}
	return 0
}

func (d *documentScreen) sidebarKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	es := d.sideEntries()
	if d.side.nav(d.e.keys, msg, len(es), d.h) {
		return nil, true
	}
	if matches(msg, d.e.keys.Enter) && d.side.cur < len(es) {
		return d.openSideEntry(es[d.side.cur]), true
	}
	return nil, false
}

// openSideEntry shows a page, or the element of an outline entry.
func (d *documentScreen) openSideEntry(e sideEntry) tea.Cmd {
	if e.outline < 0 {
		cmd := d.gotoPage(e.page, 0)
		d.side.cur = d.sidebarIndexOfPage(e.page)
		return cmd
	}
	d.sel = d.pages[e.page].outline[e.outline].el
	d.reveal(true)
	return nil
}

// sideCur is the sidebar's current row: the cursor while it has the
// focus, else the shown page's row, or the outline section the selection
// is in.
func (d *documentScreen) sideCur(es []sideEntry) int {
	if d.sideFocus {
		return d.side.cur
	}
	cur := d.sidebarIndexOfPage(d.page)
	for i, e := range es {
		if e.page == d.page && e.outline >= 0 && d.pages[e.page].outline[e.outline].el <= d.sel {
			cur = i
		}
	}
	return cur
}

// arrangeSide keeps the sidebar's current row in view of its h-1 rows
// (under its title), in Update.
func (d *documentScreen) arrangeSide(h int) {
	es := d.sideEntries()
	l := scroller{cur: d.sideCur(es), top: d.side.top}
	l.clamp(len(es), h-1)
	d.side.top = l.top
	if d.sideFocus {
		d.side.cur = l.cur
	}
}

func (d *documentScreen) sidebarView(w, h int) []string {
	st := d.e.st
	es := d.sideEntries()
	lines := []string{st.sideTitle.Render(clip(fmt.Sprintf(" PAGES %d", len(d.pages)), w))}
	l := scroller{cur: d.sideCur(es), top: d.side.top}
	for i := l.top; i < len(es) && len(lines) < h; i++ {
		e := es[i]
		pu := d.pages[e.page]
		var row string
		if e.outline < 0 {
			count := ""
			switch {
			case pu.loaded():
				count = strconv.Itoa(len(pu.p.Elements))
			case pu.hint >= 0:
				count = strconv.Itoa(pu.hint)
			}
			mark := " "
			switch {
			case pu.loading:
				mark = d.e.spin.View()
			case pu.err != "":
				mark = "!"
			case pu.manifest && !pu.loaded():
				mark = "◌"
			}
			if m := d.diffPageMark(e.page); m != "" {
				mark = m
			}
			title := pu.title
			if title == "" {
				title = "Page " + strconv.Itoa(e.page+1)
			}
			left := fmt.Sprintf("%s%3d %s", mark, e.page+1, sanitizeLine(title))
			if pu.hidden {
				// Said in words too: dim is lost without colour.
				left += " (hidden)"
			}
			row = fit(left, w-len(count)-1) + " " + count
		} else {
			o := pu.outline[e.outline]
			row = "     " + strings.Repeat("  ", max(0, min(o.depth, 4))) + "· " + o.text
		}
		row = fit(row, w)
		switch {
		case i == l.cur && d.sideFocus:
			row = st.selRow.Render(row)
		case i == l.cur || (e.page == d.page && e.outline < 0):
			row = st.sideCur.Render(row)
		case e.outline >= 0 || pu.hidden:
			row = st.dim.Render(row)
		default:
			row = st.sidebar.Render(row)
		}
		lines = append(lines, row)
	}
	return box(lines, w, h)
}
