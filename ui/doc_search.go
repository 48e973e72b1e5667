package ui

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// hit is one match: bytes [start, end) of element el's text on page.
type hit struct{ page, el, start, end int }

type searchState struct {
	query   string
	hits    []hit
	cur     int
	running bool
	op      int
	scanned int
	// capped is set when maxHits stopped collecting.
	capped bool
	// focus is the hit a table scrolls to once its page is on screen.
	focus *hit
	// near is where the search was started from (a Finder hit): its
	// current match is the first at or after that place, and finding it
	// does not move the view, which is already there.
	near *nearHit
	// from is where a search typed with / was started: its first match
	// is the first at or after that place (the first of the document
	// when there is none after it), and the view moves to it, as less
	// and vim search from where you are.
	from *nearHit
	// cell is the focused hit's table cell, its place and its text
	// around the hit, for the status line: a cell cut with "…" can hide
	// the hit ("" when the hit is not in a table).
	cell string
}

// nearHit is a place in the document: a page index and an element id
// (el, the element's index, where the id names none).
type nearHit struct {
	page      int
	elementID string
	el        int
}

// maxHits bounds the hits kept for one search.
const maxHits = 10_000

// searchPagesPerStep bounds how many pages one search step decodes, so
// hits and progress show while a huge document is searched.
const searchPagesPerStep = 32

// add keeps a step's hits, up to maxHits (capped says it stopped there),
// and how many pages the search has scanned.
func (s *searchState) add(hits []hit, scanned int) {
	room := maxHits - len(s.hits)
	if len(hits) > room {
		hits, s.capped = hits[:room], true
	}
	s.hits = append(s.hits, hits...)
	s.scanned = scanned
}

// finish: the search has scanned every page (or stopped at maxHits).
func (s *searchState) finish() { s.running, s.op = false, 0 }

// atOrAfter is the index of the first hit found at or after place at
// (its element found by id on a decoded page, else by index), -1 while
// there is none.
func (s *searchState) atOrAfter(ps *docPages, at nearHit) int {
	el := at.el
	if at.page < len(ps.pages) {
		if j := ps.hitElement(at.page, at.elementID); j >= 0 {
			el = j
		}
	}
	if i := s.firstAt(at.page, el); i < len(s.hits) {
		return i
	}
	return -1
}

// firstAt is the index of the first hit at or after element el of page
// (len(hits) when none is): the hits are in reading order.
func (s *searchState) firstAt(page, el int) int {
	return sort.Search(len(s.hits), func(k int) bool {
		h := s.hits[k]
		return h.page > page || h.page == page && h.el >= el
	})
}

// firstFrom is the index of the first hit at or after place at (-1
// while the search has not reached it); once the search is done, a place
// past the last hit takes the last one, so n wraps to the first.
func (s *searchState) firstFrom(ps *docPages, at nearHit, done bool) int {
	if i := s.atOrAfter(ps, at); i >= 0 || !done {
		return i
	}
	return len(s.hits) - 1
}

// step moves the current hit by dir (±1) round the hits; wrapped is
// whether it went from the last to the first or back.
func (s *searchState) step(dir int) (wrapped bool) {
	n := len(s.hits)
	prev := s.cur
	s.cur = ((s.cur+dir)%n + n) % n
	return n > 1 && (dir > 0 && s.cur < prev || dir < 0 && s.cur > prev)
}

// rebase makes the current hit the one step(dir) goes on from to reach
// the first hit at or after place (page, el) (dir > 0) or the last hit
// before it (dir < 0), wrapping round as step does when there is none.
func (s *searchState) rebase(page, el, dir int) {
	n := len(s.hits)
	i := s.firstAt(page, el)
	switch {
	case dir > 0 && i == n:
		s.cur = n - 1 // none after: step wraps to the first
	case dir > 0:
		s.cur = i - 1
	case i == 0:
		s.cur = 0 // none before: step wraps to the last
	default:
		s.cur = i
	}
}

// before is how many hits in h's element come before h: its place among
// the element's occurrences of the query (a table's cells count them in
// the same order).
func (s *searchState) before(h hit) int {
	nth := 0
	for _, o := range s.hits {
		if o.page == h.page && o.el == h.el && o.start < h.start {
			nth++
		}
	}
	return nth
}

// isHit: element el of page is a hit of the search, and current whether
// it holds the current one.
func (s *searchState) isHit(page, el int) (is, current bool) {
	if s.query == "" {
		return false, false
	}
	for i, h := range s.hits {
		if h.page == page && h.el == el {
			return true, i == s.cur
		}
	}
	return false, false
}

func (d *documentScreen) clearSearch() {
	if d.search.op != 0 {
		d.e.ops.done(d.search.op)
	}
	d.search = searchState{}
}

// startSearch runs the tuned search (dpe.Matcher: a page whose raw bytes
// rule the query out is never decoded) over every page, in steps.
func (d *documentScreen) startSearch(q string) tea.Cmd {
	d.clearSearch()
	d.search = searchState{query: q, cur: -1}
	if q == "" {
		return nil
	}
	d.search.running = true
	id, cmd := d.e.startLong(fmt.Sprintf("searching %q", sanitizeLine(q)), d.searchStep(q, 0))
	d.search.op = id
	return cmd
}

// searchStep scans pages from `from` on: loaded pages from the UI's
// copies, others prefiltered on their raw bytes and decoded (copies,
// handed back for Update to install) only when they may match.
func (d *documentScreen) searchStep(q string, from int) func(ctx context.Context, id int) tea.Msg {
	opener, op, load := d.opener, d.op, d.pageLoader()
	loaded := make([]*dpe.Page, len(d.pages))
	manifest := make([]bool, len(d.pages))
	for i := range d.pages {
		loaded[i], manifest[i] = d.pages[i].p, d.pages[i].manifest
	}
	m := dpe.NewMatcher(q)
	return func(ctx context.Context, id int) tea.Msg {
		o, buf := tracedOpener(opener)
		msg := searchStepMsg{id: id, doc: op, query: q, next: -1, pages: map[int]*dpe.Page{}, errs: map[int]error{}}
		decoded := 0
		i := from
		for ; i < len(loaded); i++ {
			if err := ctx.Err(); err != nil {
				return errMsg{id: id, err: err}
			}
			p := loaded[i]
			if p == nil {
				if !manifest[i] && !m.PageMayMatch(op.Doc.Pages[i]) {
					continue
				}
				if decoded == searchPagesPerStep {
					break
				}
				decoded++
				var err error
				var re *dpe.Opened
				p, re, err = load(ctx, o, buf, op, i)
				if re != nil {
					op, msg.reopened = re, re
					if re.Doc != msg.doc.Doc {
						// Another version: this search's pages and hits are
						// of the old one; Update ends the search.
						msg.trace = buf.entries
						return msg
					}
				}
				if err != nil {
					msg.errs[i] = err
					continue
				}
				msg.pages[i] = p
			}
			for j, el := range p.Elements {
				for from := 0; len(msg.hits) < maxHits; {
					s, e := m.Find(el.Text, from)
					if s < 0 {
						break
					}
					msg.hits = append(msg.hits, hit{page: i, el: j, start: s, end: e})
					from = e
				}
			}
		}
		msg.scanned = i
		if i < len(loaded) {
			msg.next = i
		}
		msg.trace = buf.entries
		return msg
	}
}

func (d *documentScreen) onSearchStep(msg searchStepMsg) tea.Cmd {
	e := d.e
	if msg.id != d.search.op || msg.query != d.search.query {
		e.ops.done(msg.id)
		return nil
	}
	d.trace.add(msg.trace...)
	for i, p := range msg.pages {
		if !d.pages[i].loaded() {
			d.install(i, p)
		}
	}
	var cmds []tea.Cmd
	for i, err := range msg.errs {
		if !d.pages[i].loaded() {
			d.pages[i].err = oneLine(err)
		}
		cmds = append(cmds, e.setErr(fmt.Sprintf("search: page %d", i+1), err))
	}
	d.search.add(msg.hits, msg.scanned)
	done := msg.next < 0 || d.search.capped
	switch {
	case d.search.cur >= 0 || len(d.search.hits) == 0:
	case d.search.near != nil:
		d.search.cur = d.search.firstFrom(&d.docPages, *d.search.near, done)
	case d.search.from != nil:
		if d.search.cur = d.search.atOrAfter(&d.docPages, *d.search.from); d.search.cur < 0 && done {
			d.search.cur = 0 // none after the place: the first, said below
		}
		if d.search.cur >= 0 {
			cmds = append(cmds, d.showHit())
		}
	default:
		d.search.cur = 0
		cmds = append(cmds, d.showHit())
	}
	if !done {
		e.progress(msg.id, fmt.Sprintf("page %d/%d · %s", msg.next, len(d.pages), counted(len(d.search.hits), "hit", "hits")))
		return tea.Batch(append(cmds, e.step(msg.id, d.searchStep(msg.query, msg.next)))...)
	}
	e.ops.done(msg.id)
	d.search.finish()
	q := sanitizeLine(msg.query)
	switch {
	case len(d.search.hits) == 0:
		cmds = append(cmds, e.info(fmt.Sprintf("no match for %q in %s", q, counted(len(d.pages), "page", "pages"))))
	case d.search.capped:
		cmds = append(cmds, e.setStatus(statusOK, e.fitHint(fmt.Sprintf("%d+ matches for %q (stopped at %d)", maxHits, q, maxHits), " · n/N move · S lists")))
	default:
		where := ""
		if d.search.from != nil && d.search.atOrAfter(&d.docPages, *d.search.from) < 0 {
			where = " · none after where you were: showing the first"
		}
		if d.search.cell != "" {
			where = " · " + d.search.cell // the hit a cut cell may hide
		}
		cmds = append(cmds, e.setStatus(statusOK, e.fitHint(fmt.Sprintf("%s for %q%s", counted(len(d.search.hits), "match", "matches"), q, where), " · n/N move · S lists")))
	}
	return tea.Batch(cmds...)
}

func (d *documentScreen) nextHit(dir int) tea.Cmd {
	n := len(d.search.hits)
	if n == 0 {
		if d.search.query == "" {
			return d.e.info("no search: press / to search all pages")
		}
		return d.e.info("no matches")
	}
	place := d.search.near
	if place == nil {
		place = d.search.from
	}
	if d.search.cur < 0 && place != nil {
		// Opened at a Finder hit, or searched from a place, and the
		// search has not reached it yet: n and N go on from there, not
		// from the document's start (from a typed search's place, n goes
		// to the first match at it: none is shown yet).
		switch i := d.search.atOrAfter(&d.docPages, *place); {
		case i >= 0 && place == d.search.from && dir > 0:
			d.search.cur = i - 1
		case i >= 0:
			d.search.cur = i
		case dir < 0:
			d.search.cur = n // every match found so far is before the hit
		default:
			return d.e.info("still searching up to this place; " + d.e.keys.NextHit.Help().Key + " goes on once a match after it is found")
		}
	}
	if c := d.search.cur; c >= 0 && c < n {
		if h := d.search.hits[c]; h.page != d.page {
			// Moved to another page than the match shown's (a page,
			// :N, the history): n and N go on from here, as less and
			// vim do. On its page they go on from the match.
			d.search.rebase(d.page, d.sel, dir)
		}
	}
	wrapped := d.search.step(dir)
	d.e.status.text = "" // the status line shows the match counter
	cmd := d.showHit()
	// Wrapping is said, as less and vim say it: from the last match to
	// the first (or back) is not the next match down the document.
	switch {
	case wrapped && dir > 0:
		return tea.Batch(cmd, d.e.info(fmt.Sprintf("search wrapped to the first match (1/%d)", n)))
	case wrapped:
		return tea.Batch(cmd, d.e.info(fmt.Sprintf("search wrapped to the last match (%d/%d)", n, n)))
	}
	return cmd
}

// showHit shows the current hit; a hit in a table also scrolls the table
// to its row and column.
func (d *documentScreen) showHit() tea.Cmd {
	h := d.search.hits[d.search.cur]
	d.search.focus = &h
	d.search.cell = ""
	if h.page == d.page && d.pages[h.page].loaded() {
		_, cw := d.layout(d.e.width)
		d.ensureBlocks(cw)
		if h.el != d.sel {
			d.recordJump()
		}
		d.sel = h.el
		// The element first, then the hit's row inside it: a table
		// taller than the screen has its hit below the element's top.
		d.reveal(true)
		d.focusHit()
		return nil
	}
	return d.gotoPage(h.page, h.el)
}

// focusHit points a table at the cell of the focused hit: the hit's
// place among its element's hits is its place among the cells'
// occurrences of the query.
func (d *documentScreen) focusHit() {
	h := d.search.focus
	d.search.focus = nil
	p := d.curPage()
	if h == nil || h.page != d.page || p == nil || h.el >= len(p.Elements) || !isTable(p.Elements[h.el]) {
		return
	}
	row, col, at, ok := d.e.renderer.TableFind(p.Elements[h.el], d.search.query, d.search.before(*h))
	if !ok {
		return
	}
	d.cell[h.el] = cellPos{row: row, col: col}
	d.cellAway = tableAt{} // the cursor shows the hit's cell
	d.scrollToCell(h.el)
	if text, _, ok := d.e.renderer.TableCell(p.Elements[h.el], row, col); ok {
		b, m, a := textAround(text, d.search.query, 40)
		if at >= 0 {
			b, m, a = aroundRange(text, at, at+len(d.search.query), 40)
		}
		d.search.cell = fmt.Sprintf("row %d col %d: %s[%s]%s", row+1, col+1, b, m, a)
	}
}

// textAround is t's line around the first case-insensitive match of q,
// cut to about w cells with "…", and the match; the whole line when q is
// not found as such (a match across cell lines).
func textAround(t, q string, w int) (before, match, after string) {
	lt := strings.ToLower(t)
	i := strings.Index(lt, strings.ToLower(q))
	if i < 0 || len(lt) != len(t) {
		return "", "", clip(sanitizeLine(t), w)
	}
	return aroundRange(t, i, i+len(q), w)
}

// hitList is the overlay of every hit with its context (S): enter jumps.
type hitList struct {
	e    *env
	d    *documentScreen
	list scroller
}

func newHitList(e *env, d *documentScreen) *hitList {
	return &hitList{e: e, d: d, list: scroller{cur: max(0, d.search.cur)}}
}

// showHitMsg asks the document to show hit i.
type showHitMsg struct{ i int }

func (v *hitList) Update(msg tea.Msg) (screen, tea.Cmd) {
	k := v.e.keys
	n := len(v.d.search.hits)
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case matches(msg, k.Back, k.HitList):
			return v, v.e.ask(closeOverlayMsg{})
		case matches(msg, k.Enter):
			if v.list.cur < n {
				return v, tea.Batch(v.e.ask(closeOverlayMsg{}), v.e.ask(showHitMsg{i: v.list.cur}))
			}
		}
		v.list.nav(k, msg, n, v.e.bodyHeight()-1)
	case tea.MouseWheelMsg:
		v.list.wheel(msg.Button == tea.MouseWheelUp, n, v.e.bodyHeight()-1)
	}
	return v, nil
}

// context is the line around a hit, with the match marked.
func hitContext(el *dpe.Element, h hit, w int) (before, match, after string) {
	return aroundRange(el.Text, h.start, h.end, w)
}

// aroundRange is the line of t holding t[start:end], sanitized, cut to
// about w cells around it with "…".
func aroundRange(t string, start, end, w int) (before, match, after string) {
	h := hit{start: start, end: end}
	if h.end > len(t) || h.start > h.end {
		return "", "", ""
	}
	ls := strings.LastIndexByte(t[:h.start], '\n') + 1
	le := strings.IndexByte(t[h.end:], '\n')
	if le < 0 {
		le = len(t)
	} else {
		le += h.end
	}
	// What is shown before the match is its end: cut the line's start
	// off before sanitizeLine, which keeps a long line's start (a match
	// past the first maxShown characters showed the line's first words
	// beside it).
	b := t[ls:h.start]
	if len(b) > maxShown {
		b = b[len(b)-maxShown:]
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	before, match, after = sanitizeLine(b), sanitizeLine(t[h.start:h.end]), sanitizeLine(t[h.end:le])
	room := max(8, (w-ansi.StringWidth(match))/2)
	if ansi.StringWidth(before) > room {
		before = "…" + ansi.TruncateLeft(before, ansi.StringWidth(before)-room+1, "")
	}
	return before, match, clip(after, room)
}

func (v *hitList) View(w, h int) []string {
	st := v.e.st
	d := v.d
	hits := d.search.hits
	head := fmt.Sprintf(" Hits for %q · %d", sanitizeLine(d.search.query), len(hits))
	if d.search.running {
		head += fmt.Sprintf(" so far (searched %d/%s)", d.search.scanned, counted(len(d.pages), "page", "pages"))
	}
	out := []string{st.title.Render(clip(head, w))}
	for i := v.list.top; i < len(hits) && len(out) < h; i++ {
		x := hits[i]
		where := fmt.Sprintf("p%-4d e%-4d", x.page+1, x.el+1)
		ctx := st.dim.Render("(page not loaded)")
		if p := d.pages[x.page].p; p != nil && x.el < len(p.Elements) {
			b, m, a := hitContext(p.Elements[x.el], x, w-16)
			ctx = b + st.hitCur.Render(m) + a
		}
		row := where + " " + ctx
		if i == v.list.cur {
			out = append(out, st.gutter.Render("▌ ")+clip(row, w-2))
		} else {
			out = append(out, "  "+clip(row, w-2))
		}
	}
	return out
}

// arrange keeps the cursor in view of the rows under the title, in
// Update (hits keep arriving while the search runs): View only reads.
func (v *hitList) arrange(_, h int) { v.list.clamp(len(v.d.search.hits), h-1) }

func (v *hitList) Keys() screenKeys {
	k := v.e.keys
	return screenKeys{
		short: []key2{withHelp(k.Enter, "jump"), k.Up, k.Down, withHelp(k.Back, "close")},
		full:  [][]key2{k.navKeys(), {withHelp(k.Enter, "jump to hit")}, k.globalKeys()},
	}
}

func (v *hitList) Crumb() string { return "hits" }
