package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
)

// documentView is the document screen: a sidebar of pages and the current
// page's outline, and the page rendered by render.Renderer. Only the visible
// lines are sliced out of the cached blocks on each View.
type documentView struct {
	op     *dpe.Opened
	opener *dpe.Opener
	res    *client.Resource
	uri    string
	trace  *traceLog
	// mu serialises commands that decode, fetch or scan pages; the view
	// only reads pages the UI has marked loaded (pages[i].loaded).
	mu *sync.Mutex

	pages []pageUI
	page  int
	sel   int
	yoff  int
	// h is the content height the last View used (keys scroll by it).
	h int

	cache blockCache
	tv    map[int]render.TableView

	search   searchState
	findings []dpe.Finding
	// validated is set once dpe.Validate answered; validatedLoaded is how
	// many pages were loaded then (loading more re-validates on c).
	validated       bool
	validatedLoaded int

	sideFocus bool
	side      listCursor
	// pendingJump is the element to select when page loads.
	pendingJump int
	// loadOp is the op loading the current page, if any.
	loadOp int
	// pendingFind continues a t/}/i jump once an unloaded page is loaded.
	pendingFind *findReq
}

type findReq struct {
	cat string
	dir int
	// Where the jump started: if no match turns up, the view goes back
	// there instead of being left on a page loaded only to look.
	fromPage, fromSel int
}

// pageUI is what the UI knows about a page without touching it while a
// command may be loading it.
type pageUI struct {
	title    string
	hint     int // element_count hint, -1 when absent
	manifest bool
	loaded   bool
	loading  bool
	err      string
	count    int
	outline  []outlineEntry
	kinds    map[string]int
}

type outlineEntry struct {
	el    int
	depth int
	text  string
}

type blockCache struct {
	valid   bool
	page    int
	width   int
	blocks  []render.Block
	offs    []int
	total   int
	tvState map[int]render.TableView
}

type hit struct{ page, el int }

type searchState struct {
	query   string
	hits    []hit
	cur     int
	running bool
	op      int
	scanned int
}

func newDocumentView(msg openedMsg) *documentView {
	d := &documentView{op: msg.opened, opener: msg.opener, res: msg.res, uri: msg.uri, trace: msg.trace, mu: &sync.Mutex{},
		tv: map[int]render.TableView{}, pendingJump: -1}
	for _, p := range d.op.Doc.Pages {
		pu := pageUI{title: p.Title, hint: p.ElementCount, manifest: p.URI != "" && !p.Decoded}
		d.pages = append(d.pages, pu)
	}
	// The open command decoded page 0 before answering.
	if len(d.pages) > 0 {
		d.markLoaded(0)
	}
	return d
}

// markLoaded indexes page i once a command finished loading it.
func (d *documentView) markLoaded(i int) {
	p := d.op.Doc.Pages[i]
	if !p.Decoded {
		return
	}
	pu := &d.pages[i]
	pu.loaded, pu.loading, pu.err = true, false, ""
	pu.count = len(p.Elements)
	pu.outline = nil
	pu.kinds = map[string]int{}
	for j, el := range p.Elements {
		cat := dpe.NormalizeCategory(el.Category)
		pu.kinds[cat]++
		if cat == dpe.CategoryTitle {
			pu.outline = append(pu.outline, outlineEntry{el: j, depth: metaInt(el, "category_depth"), text: sanitizeLine(firstLine(el.Text))})
		}
	}
}

func (d *documentView) loadedCount() int {
	n := 0
	for _, p := range d.pages {
		if p.loaded {
			n++
		}
	}
	return n
}

func (d *documentView) invalidate() { d.cache.valid = false }

func (d *documentView) doc() *dpe.Document { return d.op.Doc }

func (d *documentView) curPage() *dpe.Page {
	if d.page < 0 || d.page >= len(d.doc().Pages) || !d.pages[d.page].loaded {
		return nil
	}
	return d.doc().Pages[d.page]
}

func (d *documentView) selected() *dpe.Element {
	p := d.curPage()
	if p == nil || d.sel < 0 || d.sel >= len(p.Elements) {
		return nil
	}
	return p.Elements[d.sel]
}

// layout returns sidebar and content widths for a body width.
func docLayout(w int) (side, content int) {
	if w < 60 {
		return 0, w
	}
	side = min(34, max(20, w/4))
	return side, w - side - 1
}

const gutterW = 2

// ensureBlocks renders the current page at width cw (cached; the renderer
// caches per element too) and recomputes line offsets.
func (d *documentView) ensureBlocks(m *model, cw int) {
	p := d.curPage()
	if p == nil {
		d.cache = blockCache{}
		return
	}
	w := max(10, cw-gutterW)
	c := &d.cache
	if c.valid && c.page == d.page && c.width == w && sameTV(c.tvState, d.tv) {
		return
	}
	base := c.blocks
	if !(c.valid && c.page == d.page && c.width == w) {
		base = m.renderer.Page(p, w)
	} else {
		// only a table's scroll state changed: re-render that table
		base = append([]render.Block(nil), base...)
	}
	for i := range base {
		idx := base[i].ElementIndex
		if idx < 0 || idx >= len(p.Elements) {
			continue
		}
		tv, ok := d.tv[idx]
		old, had := c.tvState[idx]
		if ok && (!had || old != tv || !c.valid) || !ok && had {
			base[i].Lines = strings.Split(m.renderer.Table(p.Elements[idx], w, tv), "\n")
		}
	}
	c.blocks = base
	// One blank line separates blocks; it belongs to no element.
	c.offs = make([]int, len(base)+1)
	for i, b := range base {
		gap := 1
		if i == len(base)-1 {
			gap = 0
		}
		c.offs[i+1] = c.offs[i] + len(b.Lines) + gap
	}
	c.total = c.offs[len(base)]
	c.valid, c.page, c.width = true, d.page, w
	c.tvState = map[int]render.TableView{}
	for k, v := range d.tv {
		c.tvState[k] = v
	}
}

func sameTV(a, b map[int]render.TableView) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// blockOf returns the block index showing element el (blocks may skip
// elements that render to nothing).
func (d *documentView) blockOf(el int) int {
	bs := d.cache.blocks
	i := sort.Search(len(bs), func(i int) bool { return bs[i].ElementIndex >= el })
	if i >= len(bs) {
		return len(bs) - 1
	}
	return i
}

// blockAt returns the block containing line y.
func (d *documentView) blockAt(y int) int {
	offs := d.cache.offs
	if len(offs) < 2 {
		return -1
	}
	i := sort.Search(len(offs)-1, func(i int) bool { return offs[i+1] > y })
	return min(i, len(offs)-2)
}

func (d *documentView) clampScroll() {
	d.yoff = max(0, min(d.yoff, d.cache.total-d.h))
}

// reveal scrolls so the selected element is visible; preferTop shows the
// top of a tall element, otherwise its bottom (when moving up).
func (d *documentView) reveal(preferTop bool) {
	b := d.blockOf(d.sel)
	if b < 0 {
		return
	}
	top, bot := d.cache.offs[b], d.cache.offs[b+1]
	switch {
	case top < d.yoff && (preferTop || bot-top <= d.h):
		d.yoff = top
	case top < d.yoff:
		d.yoff = max(top, bot-d.h)
	case bot > d.yoff+d.h:
		if bot-top <= d.h {
			d.yoff = bot - d.h
		} else if preferTop {
			d.yoff = top
		}
	}
	d.clampScroll()
}

func (d *documentView) selectBlock(b int) {
	if b >= 0 && b < len(d.cache.blocks) {
		d.sel = d.cache.blocks[b].ElementIndex
	}
}

func (d *documentView) handleKey(m *model, msg tea.KeyPressMsg) tea.Cmd {
	_, cw := docLayout(m.width)
	d.ensureBlocks(m, cw)
	if d.h <= 0 {
		d.h = m.bodyHeight() - 1
	}
	k := msg.String()
	if d.sideFocus {
		if cmd, ok := d.sidebarKey(m, k); ok {
			return cmd
		}
	}
	nb := len(d.cache.blocks)
	switch k {
	case "tab":
		if _, sw := docLayout(m.width); sw == m.width {
			return m.setStatus(statusInfo, "the sidebar needs a wider terminal")
		}
		d.sideFocus = !d.sideFocus
		d.side.cur = d.sidebarIndexOfPage(d.page)
		return nil
	case "down", "j":
		if nb == 0 {
			return nil
		}
		b := d.blockOf(d.sel)
		if d.cache.offs[b+1] > d.yoff+d.h {
			d.yoff++ // inside a tall element: scroll it line by line
			d.clampScroll()
			return nil
		}
		if b+1 < nb {
			d.selectBlock(b + 1)
			d.reveal(true)
			return nil
		}
		if d.page+1 < len(d.pages) {
			return m.setStatus(statusInfo, "end of page "+strconv.Itoa(d.page+1)+" · ] next page")
		}
		return m.setStatus(statusInfo, "end of document")
	case "up", "k":
		if nb == 0 {
			return nil
		}
		b := d.blockOf(d.sel)
		if d.cache.offs[b] < d.yoff {
			d.yoff--
			d.clampScroll()
			return nil
		}
		if b > 0 {
			d.selectBlock(b - 1)
			d.reveal(false)
		}
		return nil
	case "pgdown", "ctrl+f", "space", "ctrl+d":
		step := d.h - 1
		if k == "ctrl+d" {
			step = d.h / 2
		}
		d.yoff += max(1, step)
		d.clampScroll()
		d.selectBlock(d.blockAt(d.yoff))
		return nil
	case "pgup", "ctrl+b", "ctrl+u":
		step := d.h - 1
		if k == "ctrl+u" {
			step = d.h / 2
		}
		d.yoff -= max(1, step)
		d.clampScroll()
		d.selectBlock(d.blockAt(d.yoff))
		return nil
	case "g", "home":
		d.yoff = 0
		d.selectBlock(0)
		return nil
	case "G", "end":
		d.yoff = d.cache.total
		d.clampScroll()
		d.selectBlock(nb - 1)
		return nil
	case "]":
		return d.gotoPage(m, d.page+1, 0)
	case "[":
		return d.gotoPage(m, d.page-1, 0)
	case "t":
		return d.jumpCategory(m, dpe.CategoryTable, 1)
	case "T":
		return d.jumpCategory(m, dpe.CategoryTable, -1)
	case "}":
		return d.jumpCategory(m, dpe.CategoryTitle, 1)
	case "{":
		return d.jumpCategory(m, dpe.CategoryTitle, -1)
	case "i":
		return d.jumpCategory(m, dpe.CategoryImage, 1)
	case "I":
		return d.jumpCategory(m, dpe.CategoryImage, -1)
	case "left", "h", "right", "l", "w", "W":
		return d.scrollTable(m, k)
	case "/":
		return m.bar.open(m, barSearch, d.search.query)
	case "n":
		return d.nextHit(m, 1)
	case "N":
		return d.nextHit(m, -1)
	case "enter":
		if d.selected() == nil {
			return nil
		}
		m.insp = inspectorView{}
		m.overlay = overlayInspector
		return nil
	case "v":
		m.raw = newRawView(scopeElement)
		if d.selected() == nil {
			m.raw = newRawView(scopePage)
		}
		m.overlay = overlayRaw
		return nil
	case "x":
		m.trace = traceView{}
		m.overlay = overlayTrace
		return nil
	case "c":
		m.overlay = overlayConformance
		if (!d.validated || d.validatedLoaded != d.loadedCount()) && !m.ops.busy() {
			d.validated = false
			return m.validate()
		}
		return nil
	case "y":
		m.copyMenu = true
		return nil
	case "e":
		return m.bar.open(m, barExportDoc, exportName(d.title(), ".md"))
	case "E":
		return m.bar.open(m, barExportPage, exportName(fmt.Sprintf("%s-page-%d", d.title(), d.page+1), ".md"))
	case "s":
		el := d.selected()
		if el == nil || dpe.NormalizeCategory(el.Category) != dpe.CategoryImage {
			return m.setStatus(statusInfo, "select an Image element to save it (i jumps to the next image)")
		}
		data, mime, err := imageData(el)
		if err != nil {
			return m.setErr("save image", err)
		}
		_ = data
		return m.bar.open(m, barSaveImage, dpe.SuggestFileName(imageName(d, el), mime))
	case "r":
		if d.res != nil {
			res := *d.res
			return m.openDPE(d.uri, &res)
		}
		if m.agent != nil {
			return m.openDPE(d.uri, nil)
		}
		return m.openTarget(m.opt.OpenTarget)
	}
	return nil
}

func (d *documentView) title() string {
	if t := d.doc().Title; t != "" {
		return t
	}
	if d.doc().DocRef != "" {
		return d.doc().DocRef
	}
	return "document"
}

// gotoPage shows page i, loading it first when needed; jump selects an
// element once it is there (-1 keeps the top).
func (d *documentView) gotoPage(m *model, i, jump int) tea.Cmd {
	if i < 0 || i >= len(d.pages) {
		if len(d.pages) == 0 {
			return m.setStatus(statusInfo, "this document has no pages")
		}
		return m.setStatus(statusInfo, fmt.Sprintf("no page %d (1–%d)", i+1, len(d.pages)))
	}
	if jump >= 0 {
		d.pendingFind = nil
	}
	d.page = i
	d.sel, d.yoff = max(0, jump), 0
	d.invalidate()
	if d.pages[i].loaded {
		_, cw := docLayout(m.width)
		d.ensureBlocks(m, cw)
		d.reveal(true)
		return nil
	}
	d.pendingJump = jump
	if d.pages[i].loading {
		return nil // a search step is loading it already
	}
	return d.loadPageCmd(m, i, jump)
}

func (d *documentView) loadPageCmd(m *model, i, jump int) tea.Cmd {
	d.pages[i].loading = true
	d.pages[i].err = ""
	opener, op, mu := d.opener, d.op, d.mu
	cmd := m.start(fmt.Sprintf("loading page %d", i+1), 0, func(ctx context.Context, id int) tea.Msg {
		mu.Lock()
		defer mu.Unlock()
		err := loadPage(ctx, opener, op, i)
		return pageLoadedMsg{opID: id, page: i, err: err, jump: jump}
	})
	d.loadOp = m.ops.next
	return cmd
}

func (d *documentView) onPageLoaded(m *model, msg pageLoadedMsg) tea.Cmd {
	pu := &d.pages[msg.page]
	pu.loading = false
	if msg.err != nil {
		pu.err = oneLine(msg.err)
		if isCancel(msg.err) {
			return m.setStatus(statusInfo, "cancelled loading page "+strconv.Itoa(msg.page+1))
		}
		return m.setErr(fmt.Sprintf("page %d", msg.page+1), msg.err)
	}
	d.markLoaded(msg.page)
	if msg.page == d.page {
		d.invalidate()
		_, cw := docLayout(m.width)
		d.ensureBlocks(m, cw)
		if d.pendingJump >= 0 {
			d.sel = d.pendingJump
		}
		d.pendingJump = -1
		d.reveal(true)
		if f := d.pendingFind; f != nil {
			d.pendingFind = nil
			d.sel = -1
			if f.dir < 0 {
				d.sel = len(d.doc().Pages[msg.page].Elements)
			}
			return d.findCategory(m, *f)
		}
	}
	return nil
}

// onCancel forgets loading state owned by a cancelled op.
func (d *documentView) onCancel(id int) {
	if d.search.op == id {
		d.search.running = false
	}
	for i := range d.pages {
		if d.pages[i].loading && (d.loadOp == id || d.search.op == id) {
			d.pages[i].loading = false
		}
	}
}

// jumpCategory selects the next/previous element of a category, crossing
// into other loaded pages.
func (d *documentView) jumpCategory(m *model, cat string, dir int) tea.Cmd {
	return d.findCategory(m, findReq{cat: cat, dir: dir, fromPage: d.page, fromSel: d.sel})
}

func (d *documentView) findCategory(m *model, req findReq) tea.Cmd {
	cat, dir := req.cat, req.dir
	doc := d.doc()
	p, e := d.page, d.sel+dir
	for steps := 0; steps <= len(d.pages); steps++ {
		if p < 0 || p >= len(d.pages) {
			break
		}
		if !d.pages[p].loaded && p != d.page {
			// Load it and continue the search there (onPageLoaded).
			d.pendingFind = &req
			return tea.Batch(d.gotoPage(m, p, -1), m.setStatus(statusInfo, fmt.Sprintf("loading page %d to look for the next %s", p+1, cat)))
		}
		if d.pages[p].loaded {
			els := doc.Pages[p].Elements
			if dir < 0 && e == -2 {
				e = len(els) - 1
			}
			for ; e >= 0 && e < len(els); e += dir {
				if dpe.NormalizeCategory(els[e].Category) == cat {
					if p == d.page {
						d.sel = e
						d.reveal(true)
						return nil
					}
					return d.gotoPage(m, p, e)
				}
			}
		}
		p += dir
		if dir > 0 {
			e = 0
		} else {
			e = -2
		}
	}
	where := "after"
	if dir < 0 {
		where = "before"
	}
	status := m.setStatus(statusInfo, fmt.Sprintf("no %s %s this element", cat, where))
	if d.page != req.fromPage {
		return tea.Batch(d.gotoPage(m, req.fromPage, max(req.fromSel, 0)), status)
	}
	return status
}

func (d *documentView) scrollTable(m *model, k string) tea.Cmd {
	el := d.selected()
	if el == nil || dpe.NormalizeCategory(el.Category) != dpe.CategoryTable {
		return m.setStatus(statusInfo, "select a table to scroll it (t jumps to the next table)")
	}
	tv := d.tv[d.sel]
	_, cw := docLayout(m.width)
	info, _ := m.renderer.TableInfo(el, max(10, cw-gutterW), tv)
	switch k {
	case "left", "h":
		tv.XOffset = max(0, tv.XOffset-1)
	case "right", "l":
		if tv.XOffset >= info.MaxXOffset {
			return m.setStatus(statusInfo, "already showing the last column")
		}
		tv.XOffset++
	case "w":
		tv.ColWidthBonus += 4
	case "W":
		tv.ColWidthBonus = max(0, tv.ColWidthBonus-4)
	}
	if tv == (render.TableView{}) {
		delete(d.tv, d.sel)
	} else {
		d.tv[d.sel] = tv
	}
	return nil
}

// search

func (d *documentView) clearSearch() {
	d.search = searchState{}
}

func (d *documentView) startSearch(m *model, q string) tea.Cmd {
	if d.search.running {
		m.ops.done(d.search.op)
		d.onCancel(d.search.op)
	}
	d.search = searchState{query: q, cur: -1}
	if q == "" {
		return nil
	}
	d.search.running = true
	cmd := m.start(fmt.Sprintf("searching %q", sanitizeLine(q)), 0, d.searchStep(m, 0, q))
	d.search.op = m.ops.next
	d.markSearchLoading(0)
	return cmd
}

func (d *documentView) markSearchLoading(i int) {
	if i < len(d.pages) && !d.pages[i].loaded && !d.pages[i].loading {
		d.pages[i].loading = true
	}
}

// searchStep scans page i (loading it first if needed) and answers with its
// hits; Update chains the next page under the same op.
func (d *documentView) searchStep(m *model, i int, q string) func(ctx context.Context, id int) tea.Msg {
	opener, op, mu := d.opener, d.op, d.mu
	needle := strings.ToLower(q)
	return func(ctx context.Context, id int) tea.Msg {
		if err := ctx.Err(); err != nil {
			return errMsg{opID: id, err: err}
		}
		mu.Lock()
		defer mu.Unlock()
		if err := loadPage(ctx, opener, op, i); err != nil {
			return searchStepMsg{opID: id, page: i, err: err, query: q}
		}
		var hits []hit
		for j, el := range op.Doc.Pages[i].Elements {
			if strings.Contains(strings.ToLower(el.Text), needle) {
				hits = append(hits, hit{page: i, el: j})
			}
		}
		return searchStepMsg{opID: id, page: i, hits: hits, query: q}
	}
}

func (d *documentView) onSearchStep(m *model, msg searchStepMsg) tea.Cmd {
	if msg.query != d.search.query || msg.opID != d.search.op {
		m.ops.done(msg.opID)
		return nil
	}
	var cmds []tea.Cmd
	if msg.err != nil {
		d.pages[msg.page].loading = false
		d.pages[msg.page].err = oneLine(msg.err)
		cmds = append(cmds, m.setErr(fmt.Sprintf("search: page %d", msg.page+1), msg.err))
	} else if !d.pages[msg.page].loaded {
		d.markLoaded(msg.page)
		if msg.page == d.page {
			d.invalidate()
		}
	}
	d.search.hits = append(d.search.hits, msg.hits...)
	d.search.scanned = msg.page + 1
	if d.search.cur < 0 && len(d.search.hits) > 0 {
		d.search.cur = 0
		cmds = append(cmds, d.showHit(m))
	}
	next := msg.page + 1
	if next < len(d.pages) && msg.err == nil || next < len(d.pages) && !isCancel(msg.err) {
		if o := m.ops.get(msg.opID); o != nil {
			o.progress = fmt.Sprintf("page %d/%d · %d hits", next, len(d.pages), len(d.search.hits))
		}
		d.markSearchLoading(next)
		cmds = append(cmds, m.step(msg.opID, d.searchStep(m, next, msg.query)))
		return tea.Batch(cmds...)
	}
	m.ops.done(msg.opID)
	d.search.running = false
	if len(d.search.hits) == 0 {
		cmds = append(cmds, m.setStatus(statusInfo, fmt.Sprintf("no match for %q in %d pages", sanitizeLine(msg.query), len(d.pages))))
	} else {
		cmds = append(cmds, m.setStatus(statusOK, fmt.Sprintf("%d matches for %q · n/N to move", len(d.search.hits), sanitizeLine(msg.query))))
	}
	return tea.Batch(cmds...)
}

func (d *documentView) nextHit(m *model, dir int) tea.Cmd {
	n := len(d.search.hits)
	if n == 0 {
		if d.search.query == "" {
			return m.setStatus(statusInfo, "no search: press / to search all pages")
		}
		return m.setStatus(statusInfo, "no matches")
	}
	d.search.cur = ((d.search.cur+dir)%n + n) % n
	m.status.text = "" // the status line shows the match counter
	return d.showHit(m)
}

func (d *documentView) showHit(m *model) tea.Cmd {
	h := d.search.hits[d.search.cur]
	if h.page == d.page && d.pages[h.page].loaded {
		_, cw := docLayout(m.width)
		d.ensureBlocks(m, cw)
		d.sel = h.el
		d.reveal(true)
		return nil
	}
	return d.gotoPage(m, h.page, h.el)
}

func (d *documentView) isHit(page, el int) (bool, bool) {
	if d.search.query == "" {
		return false, false
	}
	for i, h := range d.search.hits {
		if h.page == page && h.el == el {
			return true, i == d.search.cur
		}
	}
	return false, false
}

// sidebar

type sideEntry struct {
	page    int
	outline int // -1 for the page row
}

func (d *documentView) sideEntries() []sideEntry {
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

func (d *documentView) sidebarIndexOfPage(p int) int {
	for i, e := range d.sideEntries() {
		if e.page == p && e.outline < 0 {
			return i
		}
	}
	return 0
}

func (d *documentView) sidebarKey(m *model, k string) (tea.Cmd, bool) {
	es := d.sideEntries()
	if m.navKey(&d.side, k, len(es), d.h) {
		return nil, true
	}
	if k == "enter" && d.side.cur < len(es) {
		e := es[d.side.cur]
		if e.outline < 0 {
			cmd := d.gotoPage(m, e.page, 0)
			d.side.cur = d.sidebarIndexOfPage(e.page)
			return cmd, true
		}
		d.sel = d.pages[e.page].outline[e.outline].el
		d.reveal(true)
		return nil, true
	}
	return nil, false
}

func (d *documentView) sidebarView(m *model, w, h int) []string {
	st := m.st
	es := d.sideEntries()
	lines := []string{st.sideTitle.Render(clip(fmt.Sprintf(" PAGES %d", len(d.pages)), w))}
	cur := d.side.cur
	if !d.sideFocus {
		cur = d.sidebarIndexOfPage(d.page)
		// follow the current section in the outline
		for i, e := range es {
			if e.page == d.page && e.outline >= 0 && d.pages[e.page].outline[e.outline].el <= d.sel {
				cur = i
			}
		}
	}
	l := listCursor{cur: cur, top: d.side.top}
	l.clamp(len(es), h-1)
	d.side.top = l.top
	if d.sideFocus {
		d.side.cur = l.cur
	}
	for i := l.top; i < len(es) && len(lines) < h; i++ {
		e := es[i]
		pu := d.pages[e.page]
		var row string
		if e.outline < 0 {
			count := ""
			switch {
			case pu.loaded:
				count = strconv.Itoa(pu.count)
			case pu.hint >= 0:
				count = strconv.Itoa(pu.hint)
			}
			mark := " "
			switch {
			case pu.loading:
				mark = m.spin.View()
			case pu.err != "":
				mark = "!"
			case pu.manifest && !pu.loaded:
				mark = "◌"
			}
			title := pu.title
			if title == "" {
				title = "Page " + strconv.Itoa(e.page+1)
			}
			left := fmt.Sprintf("%s%3d %s", mark, e.page+1, sanitizeLine(title))
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
		case e.outline >= 0:
			row = st.dim.Render(row)
		default:
			row = st.sidebar.Render(row)
		}
		lines = append(lines, row)
	}
	return box(lines, w, h)
}

// content pane

func (d *documentView) contentView(m *model, w, h int) []string {
	st := m.st
	d.h = h - 1
	pu := d.pages[d.page]
	title := pu.title
	if title == "" {
		title = "Page " + strconv.Itoa(d.page+1)
	}
	head := fmt.Sprintf(" %s · page %d/%d", sanitizeLine(title), d.page+1, len(d.pages))
	if pu.loaded {
		head += fmt.Sprintf(" · %d elements", pu.count)
		var ks []string
		for _, c := range []string{dpe.CategoryTable, dpe.CategoryImage, dpe.CategoryTitle} {
			if n := pu.kinds[c]; n > 0 {
				ks = append(ks, fmt.Sprintf("%d %s", n, strings.ToLower(c)))
			}
		}
		if len(ks) > 0 {
			head += " (" + strings.Join(ks, ", ") + ")"
		}
	}
	lines := []string{st.title.Render(clip(head, w))}
	switch {
	case pu.err != "" && !pu.loaded:
		return box(append(lines, "", " "+st.errText.Render("page "+strconv.Itoa(d.page+1)+" failed: "+pu.err), "", st.dim.Render(" ] / [ other pages · esc back")), w, h)
	case !pu.loaded:
		what := "decoding"
		if pu.manifest {
			what = "fetching"
		}
		return box(append(lines, "", " "+m.spin.View()+" "+what+" page "+strconv.Itoa(d.page+1)+"… (esc cancels)"), w, h)
	}
	d.ensureBlocks(m, w)
	if len(d.cache.blocks) == 0 {
		return box(append(lines, "", st.dim.Render(" (this page has no elements)")), w, h)
	}
	d.clampScroll()
	selB := d.blockOf(d.sel)
	b := d.blockAt(d.yoff)
	y := d.yoff
	needle := strings.ToLower(d.search.query)
	p := d.curPage()
	for b >= 0 && b < len(d.cache.blocks) && len(lines) < h {
		blk := d.cache.blocks[b]
		isHit, isCur := d.isHit(d.page, blk.ElementIndex)
		li := y - d.cache.offs[b]
		src := blk.Lines
		if li > 0 && blk.ElementIndex >= 0 && isTable(p.Elements[blk.ElementIndex]) {
			// A table scrolled past its top keeps its header rows on screen.
			sticky, _, _ := m.renderer.TableWindow(p.Elements[blk.ElementIndex], d.cache.width, d.tv[blk.ElementIndex], 0, 0)
			if len(sticky) > 0 && li+len(sticky) < len(src) {
				src = append(append([]string(nil), sticky...), src[li+len(sticky):]...)
				li = 0
			}
		}
		extent := d.cache.offs[b+1] - d.cache.offs[b] - (len(blk.Lines) - len(src))
		for ; li < extent && len(lines) < h; li++ {
			if li >= len(src) {
				lines = append(lines, "") // gap between blocks
				continue
			}
			line := src[li]
			if isHit {
				line = highlight(line, needle, st, isCur)
			}
			g := "  "
			if b == selB {
				g = st.gutter.Render("▌ ")
			}
			lines = append(lines, g+line) // render keeps lines within the width
		}
		b++
		if b < len(d.cache.offs) {
			y = d.cache.offs[b]
		}
	}
	return padLines(lines, h)
}

// highlight marks case-insensitive occurrences of needle in a styled line.
func highlight(line, needle string, st styles, cur bool) string {
	if needle == "" {
		return line
	}
	plain := ansi.Strip(line)
	lower := strings.ToLower(plain)
	if len(lower) != len(plain) {
		return line // case folding changed byte offsets; skip rather than misplace
	}
	style := st.hit
	if cur {
		style = st.hitCur
	}
	var out strings.Builder
	pos := 0 // cells consumed
	bytePos := 0
	for {
		i := strings.Index(lower[bytePos:], needle)
		if i < 0 {
			break
		}
		start := bytePos + i
		end := start + len(needle)
		a := pos + ansi.StringWidth(plain[bytePos:start])
		bw := ansi.StringWidth(plain[start:end])
		out.WriteString(ansi.Cut(line, pos, a))
		out.WriteString(style.Render(plain[start:end]))
		pos = a + bw
		bytePos = end
	}
	if bytePos == 0 {
		return line
	}
	out.WriteString(ansi.Cut(line, pos, ansi.StringWidth(line)))
	return out.String()
}

func (d *documentView) view(m *model, w, h int) []string {
	sw, cw := docLayout(w)
	content := d.contentView(m, cw, h)
	if sw == 0 {
		return content
	}
	side := d.sidebarView(m, sw, h)
	sep := m.st.border.Render("│")
	out := make([]string, h)
	for i := 0; i < h; i++ {
		out[i] = fit(side[i], sw) + sep + content[i]
	}
	return out
}

// helpers on elements

func metaInt(el *dpe.Element, k string) int {
	raw, ok := el.Metadata[k]
	if !ok {
		return 0
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return int(f)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		n, _ := strconv.Atoi(s)
		return n
	}
	return 0
}

func metaString(el *dpe.Element, k string) string {
	raw, ok := el.Metadata[k]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

func isTable(el *dpe.Element) bool {
	c := dpe.NormalizeCategory(el.Category)
	return c == dpe.CategoryTable || c == dpe.CategoryTableChunk
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
