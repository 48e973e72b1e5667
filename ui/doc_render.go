package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
)

const gutterW = 2

// readingWidth is the widest prose gets, like glow: long lines are hard
// to read. Tables use the whole width.
const readingWidth = 100

// ensureBlocks renders the current page at width cw (cached; the renderer
// caches per element too) and recomputes line offsets.
func (d *documentScreen) ensureBlocks(cw int) {
	e := d.e
	p := d.curPage()
	if p == nil {
		d.cache = blockCache{}
		return
	}
	w := max(10, cw-gutterW)
	c := &d.cache
	same := c.valid && c.page == d.page && c.width == w && c.gen == e.themeGen
	tvs := d.viewTV()
	if same && sameTV(c.tvState, tvs) {
		return
	}
	base := c.blocks
	if !same {
		base = d.withWas(e.renderer.Page(p, min(w, readingWidth)), min(w, readingWidth))
	} else {
		base = append([]render.Block(nil), base...)
	}
	for i := range base {
		idx := base[i].ElementIndex
		if idx < 0 || idx >= len(p.Elements) {
			continue
		}
		code := isCode(p.Elements[idx])
		if !code && !isTable(p.Elements[idx]) {
			continue
		}
		tv, ok := tvs[idx]
		old, had := c.tvState[idx]
		switch {
		case code && (ok && (!had || old != tv || !same) || !ok && had):
			// Scrolled sideways (or back): at the width Page drew it.
			base[i].Lines = e.renderer.CodeLines(p.Elements[idx], min(w, readingWidth), tv.XOffset)
		case !code && (!same || ok && (!had || old != tv) || !ok && had):
			base[i].Lines = strings.Split(e.renderer.Table(p.Elements[idx], w, tv), "\n")
		}
	}
	d.place(base, func(a, b int) bool { return isListItem(p, a) && isListItem(p, b) })
	c.valid, c.page, c.width, c.gen = true, d.page, w, e.themeGen
	c.tvState = tvs
}

// withWas puts each changed element's old text under it while a
// comparison is on (a copy: the renderer's blocks are not touched).
func (d *documentScreen) withWas(blocks []render.Block, w int) []render.Block {
	if d.diff == nil || len(d.diff.els[d.page]) == 0 {
		return blocks
	}
	out := slices.Clone(blocks)
	for i := range out {
		if was := d.wasLines(out[i].ElementIndex, w); was != nil {
			out[i].Lines = append(slices.Clip(out[i].Lines), was...)
		}
	}
	return out
}

// viewTV is the table views as drawn: the selected table shows its cell
// cursor (and its column's header) from the moment it is selected, the
// others none.
func (d *documentScreen) viewTV() map[int]render.TableView {
	out := make(map[int]render.TableView, len(d.tv)+1)
	for k, v := range d.tv {
		v.Cursor = false
		out[k] = v
	}
	if d.tableActive() {
		tv, cp := d.tv[d.sel], d.cell[d.sel]
		tv.Cursor, tv.Row, tv.Col = true, cp.row, cp.col
		out[d.sel] = tv
	}
	return out
}

// isListItem is an element that reads as one line of a list: a list item
// or a checklist entry (CheckBox).
func isListItem(p *dpe.Page, i int) bool {
	if i < 0 || i >= len(p.Elements) {
		return false
	}
	switch dpe.NormalizeCategory(p.Elements[i].Category) {
	case dpe.CategoryListItem, dpe.CategoryCheckBox:
		return true
	}
	return false
}

func sameTV(a, b map[int]render.TableView) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// keptHeader is what a table block b whose line li is at the top of the
// screen shows over its own lines there: its header rows, kept on screen
// once the table is scrolled past its top (nil for other blocks).
func (d *documentScreen) keptHeader(b, li int) []string {
	p := d.curPage()
	if li <= 0 || p == nil || b < 0 || b >= len(d.cache.blocks) {
		return nil
	}
	blk := d.cache.blocks[b]
	if blk.ElementIndex < 0 || blk.ElementIndex >= len(p.Elements) || !isTable(p.Elements[blk.ElementIndex]) {
		return nil
	}
	sticky, _, _ := d.e.renderer.TableWindow(p.Elements[blk.ElementIndex], d.cache.width, d.cache.tvState[blk.ElementIndex], 0, 0)
	if len(sticky) == 0 || li+len(sticky) >= len(blk.Lines) {
		return nil
	}
	return sticky
}

// reveal scrolls so the selected element is visible; preferTop shows the
// top of a tall element, otherwise its bottom (when moving up).
func (d *documentScreen) reveal(preferTop bool) {
	d.revealBlock(d.blockOf(d.sel), preferTop)
}

func (d *documentScreen) selectBlock(b int) {
	if b >= 0 && b < len(d.cache.blocks) {
		d.sel = d.cache.blocks[b].ElementIndex
	}
}

// navKey moves through the page: ↑/↓ by element (line by line inside a
// tall one), half pages, pages and the ends.
func (d *documentScreen) navKey(msg tea.KeyPressMsg) bool {
	k := d.e.keys
	nb := len(d.cache.blocks)
	page := func(step int) {
		d.scrollBy(step)
		d.selectBlock(d.blockAt(d.yoff))
	}
	switch {
	case matches(msg, k.Down):
		if nb == 0 {
			return true
		}
		b := d.blockOf(d.sel)
		switch {
		case d.cache.offs[b+1] > d.yoff+d.h:
			d.scrollBy(1) // inside a tall element: scroll it line by line
		case b+1 < nb:
			d.selectBlock(b + 1)
			d.reveal(true)
		case d.page+1 < len(d.pages):
			d.e.info("end of page " + strconv.Itoa(d.page+1) + " · ] next page")
		default:
			d.e.info("end of document")
		}
	case matches(msg, k.Up):
		if nb == 0 {
			return true
		}
		b := d.blockOf(d.sel)
		switch {
		case d.cache.offs[b] < d.yoff:
			d.scrollBy(-1)
		case b > 0:
			d.selectBlock(b - 1)
			d.reveal(false)
		}
	case matches(msg, k.HalfDown):
		page(max(1, d.h/2))
	case matches(msg, k.HalfUp):
		page(-max(1, d.h/2))
	case matches(msg, k.PageDown):
		// The screen's last line comes back as the next one's first (one
		// line of overlap); where a table's kept header rows cover the
		// top, it comes back below them, or the rows under them would be
		// on neither screen.
		step := max(1, d.h-1)
		if b := d.blockAt(d.yoff + step); b >= 0 {
			step -= len(d.keptHeader(b, d.yoff+step-d.cache.offs[b]))
		}
		page(max(1, step))
	case matches(msg, k.PageUp):
		page(-max(1, d.h-1))
	case matches(msg, k.Top):
		d.yoff = 0
		d.selectBlock(0)
	case matches(msg, k.Bottom):
		d.yoff = d.cache.total
		d.clampScroll()
		d.selectBlock(nb - 1)
	default:
		return false
	}
	return true
}

// jumpCategory selects the next/previous element of a category, crossing
// into other pages (loading them).
func (d *documentScreen) jumpCategory(cat string, dir int) tea.Cmd {
	return d.findCategory(findReq{cat: cat, dir: dir, fromPage: d.page, fromSel: d.sel})
}

// catMatches treats a TableChunk as a table.
func catMatches(el *dpe.Element, cat string) bool {
	c := dpe.NormalizeCategory(el.Category)
	if cat == dpe.CategoryTable {
		return c == dpe.CategoryTable || c == dpe.CategoryTableChunk
	}
	return c == cat
}

func (d *documentScreen) findCategory(req findReq) tea.Cmd {
	e := d.e
	cat, dir := req.cat, req.dir
	p, el := d.page, d.sel+dir
	for steps := 0; steps <= len(d.pages); steps++ {
		if p < 0 || p >= len(d.pages) {
			break
		}
		pu := &d.pages[p]
		if !pu.loaded() && p != d.page && pu.err == "" {
			// Load it and continue the search there (onPages).
			d.pendingFind = &req
			cmd := d.gotoPage(p, -1)
			// The why goes on the op's spinner line, not the status line:
			// a status would outlive the load and still say "loading".
			if o := e.ops.get(d.loadOp); o != nil {
				o.label = fmt.Sprintf("loading page %d to look for the next %s", p+1, strings.ToLower(cat))
			}
			return cmd
		}
		if pu.loaded() {
			els := pu.p.Elements
			if dir < 0 && el == -2 {
				el = len(els) - 1
			}
			for ; el >= 0 && el < len(els); el += dir {
				if catMatches(els[el], cat) {
					if p == d.page {
						d.sel = el
						d.reveal(true)
						return nil
					}
					return d.gotoPage(p, el)
				}
			}
		}
		p += dir
		if dir > 0 {
			el = 0
		} else {
			el = -2
		}
	}
	where := "after"
	if dir < 0 {
		where = "before"
	}
	status := e.info(fmt.Sprintf("no %s %s this element", cat, where))
	if d.page != req.fromPage {
		return tea.Batch(d.gotoPage(req.fromPage, max(req.fromSel, 0)), status)
	}
	return status
}

// onPrompt takes what the prompt asked for on this screen.
func (d *documentScreen) onPrompt(msg promptDoneMsg) tea.Cmd {
	e := d.e
	if msg.cancelled {
		return nil
	}
	v := strings.TrimSpace(msg.value)
	switch msg.mode {
	case barCommand:
		n, _ := strconv.Atoi(v)
		return d.gotoPage(n-1, 0)
	case barSearch:
		cmd := d.startSearch(msg.value)
		if d.search.query != "" {
			h := d.here()
			d.search.from = &nearHit{page: h.page, elementID: h.elementID, el: max(0, h.el)}
		}
		return cmd
	case barExportDoc, barExportPage:
		if v == "" {
			return e.info("export cancelled: no file name")
		}
		return d.export(v, msg.mode == barExportPage)
	case barSaveImage:
		if v == "" {
			return e.info("save cancelled: no file name")
		}
		return d.saveImage(v)
	}
	return nil
}

// pageHint is the `:N` validation for the prompt.
func (d *documentScreen) pageHint(v string) (string, bool) {
	n, _ := strconv.Atoi(v)
	if n < 1 || n > len(d.pages) {
		return "no such page (1–" + strconv.Itoa(len(d.pages)) + ")", false
	}
	return "enter: go to page " + v, true
}

func (d *documentScreen) onWheel(msg tea.MouseWheelMsg) {
	sw, cw := d.layout(d.e.width)
	d.ensureBlocks(cw)
	up := msg.Button == tea.MouseWheelUp
	if msg.X < sw {
		d.side.wheel(up, len(d.sideEntries()), d.h)
		d.sideFocus = true
		return
	}
	if up {
		d.scrollBy(-3)
	} else {
		d.scrollBy(3)
	}
	d.selectBlock(d.blockAt(d.yoff))
}

// onClick opens a sidebar entry or selects the element clicked.
func (d *documentScreen) onClick(msg tea.MouseClickMsg) tea.Cmd {
	if msg.Button != tea.MouseLeft || msg.Y < 1 {
		return nil
	}
	sw, cw := d.layout(d.e.width)
	d.ensureBlocks(cw)
	if msg.X < sw {
		es := d.sideEntries()
		i := d.side.top + msg.Y - 1
		if i < 0 || i >= len(es) {
			return nil
		}
		d.side.cur = i
		return d.openSideEntry(es[i])
	}
	if b := d.blockAt(d.yoff + msg.Y - 1); b >= 0 {
		d.selectBlock(b)
	}
	return nil
}

// content pane

func (d *documentScreen) contentView(w, h int) []string {
	e := d.e
	st := e.st
	if len(d.pages) == 0 {
		return box([]string{"", " " + st.dim.Render("this document has no pages")}, w, h)
	}
	pu := d.pages[d.page]
	title := pu.title
	if title == "" {
		title = "Page " + strconv.Itoa(d.page+1)
	}
	head := fmt.Sprintf(" %s · page %d/%d", sanitizeLine(title), d.page+1, len(d.pages))
	if pu.loaded() {
		if pu.p.NoTextLayer() {
			head += " · no text layer (a scan)"
		}
		head += " · " + counted(len(pu.p.Elements), "element", "elements")
		var ks []string
		for _, c := range []string{dpe.CategoryTable, dpe.CategoryImage, dpe.CategoryTitle} {
			if n := pu.kinds[c]; n > 0 {
				ks = append(ks, counted(n, strings.ToLower(c), strings.ToLower(c)+"s"))
			}
		}
		if len(ks) > 0 {
			head += " (" + strings.Join(ks, ", ") + ")"
		}
	}
	lines := []string{st.title.Render(clip(head, w))}
	switch {
	case pu.noContent && !pu.loaded():
		msg := []string{"", " " + st.dim.Render(clip(pu.err, w-2)), "",
			st.dim.Render(" the skeleton screen lists their hashes · ] / [ other pages · esc back")}
		return box(append(lines, msg...), w, h)
	case pu.err != "" && !pu.loaded():
		msg := []string{"", " " + st.errText.Render(clip("page "+strconv.Itoa(d.page+1)+" failed: "+pu.err, w-2)), "",
			st.dim.Render(" r retries this page · E shows the whole error · ] / [ other pages · esc back")}
		return box(append(lines, msg...), w, h)
	case !pu.loaded() && !pu.loading:
		// Its load was cancelled (esc): say so, rather than a spinner
		// that never ends.
		return box(append(lines, "", " "+st.dim.Render(clip("page "+strconv.Itoa(d.page+1)+" is not loaded · r loads it · ] / [ other pages", w-2))), w, h)
	case !pu.loaded():
		what := "decoding"
		if pu.manifest {
			what = "fetching"
		}
		return box(append(lines, "", " "+e.spin.View()+" "+what+" page "+strconv.Itoa(d.page+1)+"… (esc cancels)"), w, h)
	}
	if len(d.cache.blocks) == 0 {
		return box(append(lines, "", st.dim.Render(" (this page has no elements)")), w, h)
	}
	selB := d.blockOf(d.sel)
	b := d.blockAt(d.yoff)
	y := d.yoff
	theme := e.renderer.Theme()
	for b >= 0 && b < len(d.cache.blocks) && len(lines) < h {
		blk := d.cache.blocks[b]
		isHit, _ := d.search.isHit(d.page, blk.ElementIndex)
		li := y - d.cache.offs[b]
		src := blk.Lines
		// orig is a line's index in the block, by which a table's
		// changed rows are marked: the sticky header's lines are the
		// block's first, the rest follow the lines scrolled past.
		orig := func(i int) int { return i }
		if sticky := d.keptHeader(b, li); sticky != nil {
			src = append(append([]string(nil), sticky...), src[li+len(sticky):]...)
			n, li0 := len(sticky), li
			orig = func(i int) int {
				if i < n {
					return i
				}
				return li0 + i
			}
			li = 0
		}
		if p := d.curPage(); blk.ElementIndex >= 0 && !isTable(p.Elements[blk.ElementIndex]) {
			// The whole block, as a link's text may wrap onto the
			// next line.
			src = d.markLinks(src, p.Elements[blk.ElementIndex], blk.ElementIndex)
		}
		extent := d.cache.offs[b+1] - d.cache.offs[b] - (len(blk.Lines) - len(src))
		rows := d.diffRowLines(blk.ElementIndex)
		for ; li < extent && len(lines) < h; li++ {
			if li >= len(src) {
				lines = append(lines, "") // gap between blocks
				continue
			}
			line := src[li]
			if isHit {
				line = render.Highlight(line, d.search.query, theme)
			}
			g := "  "
			if b == selB {
				g = st.gutter.Render("▌ ")
			}
			g = d.diffGutter(blk.ElementIndex, rows, orig(li), g)
			lines = append(lines, g+line) // render keeps lines within the width
		}
		b++
		if b < len(d.cache.offs) {
			y = d.cache.offs[b]
		}
	}
	return padLines(lines, h)
}

// arrange lays the document out for a body of w×h, in Update (the root
// calls it after every one): the content height the keys scroll by, the
// shown page's blocks at the content width, and the scroll and the
// sidebar's list kept in range. View only reads what it leaves.
func (d *documentScreen) arrange(w, h int) {
	sw, cw := d.layout(w)
	d.h = h - 1
	if len(d.pages) > 0 && d.pages[d.page].loaded() {
		d.ensureBlocks(cw)
		if len(d.cache.blocks) > 0 {
			d.clampScroll()
		}
	}
	if sw > 0 {
		d.arrangeSide(h)
	}
}

func (d *documentScreen) View(w, h int) []string {
	sw, cw := d.layout(w)
	content := d.contentView(cw, h)
	if sw == 0 {
		return content
	}
	side := d.sidebarView(sw, h)
	sep := d.e.st.border.Render("│")
	out := make([]string, h)
	for i := 0; i < h; i++ {
		out[i] = fit(side[i], sw) + sep + content[i]
	}
	return out
}

// statusText is the search counter, when a search is on.
func (d *documentScreen) statusText(w int) string {
	st := d.e.st
	s := d.search
	if t := d.diffStatusText(w); t != "" {
		return t
	}
	if t := d.linkStatus(w); t != "" {
		return t
	}
	if s.query == "" {
		// The cell's place is said while its cursor is shown: after esc
		// put it away the line would claim table mode the footer has
		// left.
		if d.tableActive() {
			if m := tableMarker(d.tv[d.sel]); m != "" {
				return statusFit(st.dim.Render(" table "+m), st.dim.Render(" · enter shows the cell"), w)
			}
		}
		return ""
	}
	txt := fmt.Sprintf(" search %q: ", sanitizeLine(s.query))
	if len(s.hits) == 0 {
		txt += "no matches"
	} else {
		txt += fmt.Sprintf("match %d/%d", s.cur+1, len(s.hits))
		if s.cell != "" && s.cur >= 0 && s.cur < len(s.hits) && s.hits[s.cur].page == d.page && s.hits[s.cur].el == d.sel {
			txt += " · " + s.cell
		}
	}
	if s.scanned < len(d.pages) {
		txt += fmt.Sprintf(" (searched %d/%s)", s.scanned, counted(len(d.pages), "page", "pages"))
	}
	return statusFit(st.info.Render(txt), st.dim.Render(" · n/N move · S list · esc clears"), w)
}

// fitHint is a message for the status line: what it says, then the keys'
// hint when both fit the terminal's width (the status line starts with a
// space); else what it says alone, which the status line cuts if it must.
func (e *env) fitHint(says, hint string) string {
	if 1+ansi.StringWidth(says)+ansi.StringWidth(hint) <= e.width {
		return says + hint
	}
	return says
}

// statusFit is a status line of the document's own: what it says, then
// the keys' hint when both fit. Too wide, the hint goes first (the footer
// names the same keys), then what it says is cut.
func statusFit(says, hint string, w int) string {
	if ansi.StringWidth(says)+ansi.StringWidth(hint) <= w {
		return says + hint
	}
	return clip(says, w)
}
