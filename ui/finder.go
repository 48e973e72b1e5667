package ui

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/sanitize"
	"github.com/dpe-tui/dpe-tui/search"
)

// finderScreen searches every computer of the office that hosts a Finder
// (package search) and lists the merged hits as they arrive: one Next per
// command, so fast computers show first. enter opens a hit through the
// normal open path, on the computer that found it, at its page.
type finderScreen struct {
	e       *env
	query   string
	op      int
	running bool
	srch    *search.Search
	results []search.Result
	hits    []search.Hit
	// rows are hits with identical copies folded (search.Group): what
	// the list shows and the cursor moves over.
	rows []search.Grouped
	list rowList
	// limit is the hits asked of each computer: finderLimit, raised by
	// more up to finderMaxLimit.
	limit int
	// why is the last line about the search or an open (sanitized).
	why string
}

// hitPlace is where an opened hit should show: 1-based page, element id,
// and the text the document then searches for, so n/N go on from the hit
// and the page marks it ("" searches nothing).
type hitPlace struct {
	page      int
	elementID string
	query     string
	// el is the element's index, for when no element has elementID
	// (none given, or the document changed since): r reopens there.
	el int
}

type finderStartedMsg struct {
	id int
	s  *search.Search
}

type finderResultMsg struct {
	id int
	r  search.Result
	ok bool
}

func (m finderStartedMsg) opID() int { return m.id }
func (m finderResultMsg) opID() int  { return m.id }
func (finderStartedMsg) chained()    {}
func (finderResultMsg) chained()     {}

// The Finder screen asks each computer for finderLimit hits, and m (or
// moving past the last hit) asks again for finderLimit more, up to
// finderMaxLimit (the most a Finder answers at once).
const (
	finderLimit    = 20
	finderMaxLimit = 100
)

func newFinder(e *env) *finderScreen { return &finderScreen{e: e, limit: finderLimit} }

// openFinder pushes the finder and opens its prompt.
func (m *model) openFinder() tea.Cmd {
	if m.e.agent == nil {
		return m.e.info("the finder searches an office: no server connection")
	}
	if _, ok := m.top().(officeSearch); ok {
		return m.e.ask(promptMsg{mode: barSearch})
	}
	m.e.ask(pushMsg{s: newFinder(m.e)})
	return m.e.ask(promptMsg{mode: barSearch})
}

func (f *finderScreen) start(q string) tea.Cmd {
	f.limit = finderLimit
	cmd := f.run(q)
	f.setHits(nil)
	f.list = rowList{}
	return cmd
}

// total is the matching elements every computer reported (more than the
// hits listed when each sent only its first limit).
func (f *finderScreen) total() int {
	n := 0
	for _, r := range f.results {
		if r.State == search.OK {
			n += max(r.Total, len(r.Hits))
		}
	}
	return n
}

// more asks again with a higher limit, keeping the hits and the cursor
// shown until the new answers are in.
func (f *finderScreen) more() tea.Cmd {
	if f.running || f.query == "" || f.limit >= finderMaxLimit || f.total() <= len(f.hits) {
		return nil
	}
	f.limit = min(f.limit+finderLimit, finderMaxLimit)
	return f.run(f.query)
}

func (f *finderScreen) run(q string) tea.Cmd {
	e := f.e
	f.stopSearch()
	caller, ok := e.agent.(search.Caller)
	if !ok {
		f.why = "this agent cannot call tools (get_tools/tool_call), so it cannot search"
		return nil
	}
	f.query, f.results, f.why, f.running = q, nil, "", true
	limit := f.limit
	id, cmd := e.start("finding "+sanitizeTrunc(q, 40), 0, func(ctx context.Context, id int) tea.Msg {
		s, err := search.Start(ctx, caller, search.Query{Text: q, Limit: limit})
		if err != nil {
			return errMsg{id: id, what: "find", err: err}
		}
		return finderStartedMsg{id: id, s: s}
	})
	f.op = id
	return cmd
}

func (f *finderScreen) next(id int, s *search.Search) tea.Cmd {
	return f.e.step(id, func(ctx context.Context, id int) tea.Msg {
		r, ok := s.Next(ctx)
		return finderResultMsg{id: id, r: r, ok: ok}
	})
}

func (f *finderScreen) stopSearch() {
	if f.srch != nil {
		f.srch.Cancel()
		f.srch = nil
	}
	if f.op != 0 {
		f.e.ops.done(f.op)
		f.op = 0
	}
	f.running = false
}

func (f *finderScreen) stop() { f.stopSearch() }

func (f *finderScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	e := f.e
	k := e.keys
	switch msg := msg.(type) {
	case promptDoneMsg:
		if msg.mode != barSearch {
			return f, nil
		}
		q := strings.TrimSpace(msg.value)
		if msg.cancelled || q == "" {
			if f.query == "" {
				return f, e.ask(popMsg{})
			}
			return f, nil
		}
		return f, f.start(q)
	case finderStartedMsg:
		if msg.id != f.op {
			return f, nil
		}
		f.srch = msg.s
		e.progress(msg.id, "0/"+counted(msg.s.Len(), "computer", "computers"))
		return f, f.next(msg.id, msg.s)
	case finderResultMsg:
		if msg.id != f.op {
			return f, nil
		}
		if !msg.ok {
			f.finish()
			return f, nil
		}
		f.results = append(f.results, msg.r)
		// While more hits load, the longer list shown stays until the
		// new answers list as many.
		if merged := search.Merge(f.results, finderMaxLimit); len(merged) >= len(f.hits) {
			f.setHits(merged)
		}
		if f.srch != nil {
			e.progress(msg.id, fmt.Sprintf("%d/%s", len(f.results), counted(f.srch.Len(), "computer", "computers")))
			return f, f.next(msg.id, f.srch)
		}
		return f, nil
	case errMsg:
		if msg.id != 0 && msg.id == f.op {
			f.running, f.op = false, 0
			f.why = "find: " + oneLine(msg.err)
			return f, nil
		}
		if errors.Is(msg.err, client.ErrNotRouted) {
			f.why = oneLine(search.OpenError(msg.err))
		}
		return f, nil
	case cancelledMsg:
		if msg.id == f.op {
			f.op = 0
			f.stopSearch()
			f.why = "search cancelled"
		}
		return f, nil
	case tea.KeyPressMsg:
		if matches(msg, k.Down) && len(f.rows) > 0 && f.list.cur == len(f.rows)-1 {
			return f, f.more() // past the last hit: the next ones
		}
		if f.list.key(k, msg, len(f.rows)) {
			return f, nil
		}
		switch {
		case matches(msg, k.More):
			return f, f.more()
		case matches(msg, k.Back):
			f.stopSearch()
			return f, e.ask(popMsg{})
		case matches(msg, k.Search):
			// An empty prompt, as in the document search: the last
			// queries are on ↑ (the bar's history), not appended to.
			return f, e.ask(promptMsg{mode: barSearch})
		case matches(msg, k.Enter):
			if f.list.cur >= len(f.rows) {
				return f, nil
			}
			h := f.rows[f.list.cur].Hit
			f.why = ""
			return f, e.ask(openURIMsg{uri: h.URI, computer: h.Computer, at: &hitPlace{page: h.Page, elementID: h.ElementID, query: hitQuery(f.query, h)}})
		}
	}
	return f, nil
}

// setHits installs the merged hits and their rows.
func (f *finderScreen) setHits(hits []search.Hit) {
	f.hits, f.rows = hits, search.Group(hits)
}

// finish ends the search and says what came of it.
func (f *finderScreen) finish() {
	if f.op != 0 {
		f.e.ops.done(f.op)
		f.op = 0
	}
	f.srch, f.running = nil, false
	f.setHits(search.Merge(f.results, finderMaxLimit))
	if se := search.Syntax(f.results); se != nil {
		f.why = sanitizeLine(se.Msg)
	}
}

// highlight renders the part of a snippet that fits in w columns,
// centred on its first match (search.Window), with its match spans
// (runes) marked; the snippet is sanitized piece by piece so spans keep
// their places.
func (f *finderScreen) highlight(snip string, spans []search.Span, w int) string {
	st := f.e.st
	snip, spans = search.Window(snip, spans, w)
	r := []rune(snip)
	var b strings.Builder
	pos := 0
	for _, s := range spans {
		if s.Start < pos || s.End > len(r) {
			continue
		}
		b.WriteString(sanitize.Line(string(r[pos:s.Start])))
		b.WriteString(st.hit.Render(sanitize.Line(string(r[s.Start:s.End]))))
		pos = s.End
	}
	b.WriteString(sanitize.Line(string(r[pos:])))
	return clip(b.String(), w)
}

// arrange fits the hits, two lines each, under the head.
func (f *finderScreen) arrange(w, h int) { f.list.layout(len(f.rows), (h-len(f.head(w)))/2) }

// head is the lines above the hits: the query and its count, a line per
// computer, budgets and the last word about the search.
func (f *finderScreen) head(w int) []string {
	st := f.e.st
	head := " Finder"
	if f.query != "" {
		head += " · " + sanitizeTrunc(f.query, 40)
		if t := f.total(); t > len(f.hits) {
			head += fmt.Sprintf(" · %d of %s", len(f.hits), counted(t, "hit", "hits"))
			if f.limit < finderMaxLimit && !f.running {
				head += " (m more)"
			}
		} else {
			head += " · " + counted(len(f.hits), "hit", "hits")
		}
	}
	out := []string{st.title.Render(clip(head, w))}
	var notes, budget []string
	for _, r := range f.results {
		switch r.State {
		case search.NoFinder:
			notes = append(notes, sanitizeLine(r.Computer)+": no Finder")
		case search.Failed:
			if line, ok := overBudgetLine(r, w-2); ok {
				budget = append(budget, line)
				continue
			}
			notes = append(notes, sanitizeLine(r.Computer)+": "+oneLine(r.Err))
		case search.OK:
			s := fmt.Sprintf("%s: %d", sanitizeLine(r.Computer), len(r.Hits))
			switch {
			case r.Complete && r.Partial && r.Note != "":
				// Every document is in: only what is missing is news
				// (and it must fit at 80 columns).
				s += " (" + sanitizeLine(r.Note) + ")"
			case r.Indexed != "" && (!r.Complete || r.Partial):
				s += " (" + sanitizeLine(r.Indexed) + ")"
			}
			notes = append(notes, s)
		}
	}
	if len(notes) > 0 {
		// By computer name, not by arrival: the same office reads the same
		// way every time (results still arrive and show fastest first).
		slices.Sort(notes)
		out = append(out, " "+st.dim.Render(clip(strings.Join(notes, " · "), w-2)))
	}
	slices.Sort(budget)
	for _, l := range budget {
		out = append(out, " "+st.errText.Render(clip(l, w-2)))
	}
	if f.why != "" {
		out = append(out, " "+st.errText.Render(clip(f.why, w-2)))
	}
	return out
}

func (f *finderScreen) View(w, h int) []string {
	st := f.e.st
	out := f.head(w)
	if f.query == "" {
		// The prompt is open whenever there is no query yet (closing it
		// empty leaves the Finder).
		return append(out, "", " "+st.dim.Render("type a query in the prompt below · enter searches · ↑ history · esc leaves"))
	}
	if len(f.hits) == 0 {
		if f.running {
			return append(out, "", "  "+f.e.spin.View()+" searching…")
		}
		return append(out, "", " "+st.dim.Render("no hits"))
	}
	// Titles that name more than one file get the file's name.
	uris := map[string]map[string]bool{}
	for _, x := range f.hits {
		if uris[x.Title] == nil {
			uris[x.Title] = map[string]bool{}
		}
		uris[x.Title][x.URI] = true
	}
	from, to := f.list.shown(len(f.rows))
	for i := from; i < to && len(out)+2 <= h; i++ {
		x := f.rows[i]
		name := sanitizeTrunc(orDefault(x.Title, x.URI), 36)
		if x.Title != "" && len(uris[x.Title]) > 1+len(x.Copies) {
			name += " (" + sanitizeTrunc(path.Base(x.URI), 28) + ")"
		}
		where := fmt.Sprintf("%s › %s › p%d", sanitizeTrunc(x.Computer, 16), name, x.Page)
		if n := len(x.Copies); n > 0 {
			where += st.dim.Render(" · " + copiesNote(x))
		}
		line1 := clip(where, w-3)
		line2 := "   " + f.highlight(x.Snippet, x.Match, w-4)
		if f.list.at(i) {
			out = append(out, st.gutter.Render("▌")+" "+st.selRow.Render(fit(line1, w-3)), line2)
		} else {
			out = append(out, "  "+line1, line2)
		}
	}
	return out
}

// copiesNote names a row's identical copies: "+2 identical copies
// (beta: copy-of-report.md, old/report.md)", their computers when not the
// row's own, up to three.
func copiesNote(g search.Grouped) string {
	var names []string
	for i, c := range g.Copies {
		if i == 3 {
			names = append(names, "…")
			break
		}
		n := path.Base(c.URI)
		if c.Computer != g.Computer {
			n = c.Computer + ": " + n
		}
		names = append(names, sanitizeTrunc(n, 28))
	}
	word := "identical copies"
	if len(g.Copies) == 1 {
		word = "identical copy"
	}
	return fmt.Sprintf("+%d %s (%s)", len(g.Copies), word, strings.Join(names, ", "))
}

// overBudgetPrefix starts the answer of a query a Finder stopped at one
// of its limits (finder.BudgetError, through the find tool).
const overBudgetPrefix = "query over budget: "

// overBudgetLine is a computer's over-budget answer as one line of at
// most w cells naming the limit: "local: over budget: pattern terms:
// 1024, the limit is 16". When it would not fit, the parenthesised gloss
// of the limit's name (finder.BudgetError's "LIMIT (…): GOT, the limit
// is MAX") goes first.
func overBudgetLine(r search.Result, w int) (string, bool) {
	rest, ok := strings.CutPrefix(oneLine(r.Err), overBudgetPrefix)
	if !ok {
		return "", false
	}
	who := sanitizeLine(r.Computer) + ": over budget: "
	if ansi.StringWidth(who+rest) <= w {
		return who + rest, true
	}
	if i := strings.Index(rest, " ("); i > 0 {
		if j := strings.Index(rest[i:], "): "); j > 0 {
			rest = rest[:i] + rest[i+j+1:]
		}
	}
	return who + rest, true
}

func orDefault(s, d string) string {
	if strings.TrimSpace(s) == "" {
		return d
	}
	return s
}

func (f *finderScreen) Keys() screenKeys {
	k := f.e.keys
	return screenKeys{
		short: []key2{withHelp(k.Enter, "open hit"), withHelp(k.Search, "new query"), k.Up, k.Down, k.Back},
		full: [][]key2{k.navKeys(), {withHelp(k.Enter, "open at the hit"), withHelp(k.Search, "new query"),
			withHelp(k.More, "more hits")}, k.globalKeys()},
	}
}

func (f *finderScreen) Crumb() string { return "finder" }

// hitQuery is what the document opened from hit h searches for: the
// Finder's query when the snippet has it as written (the document search
// matches a phrase), else the longest word the index matched in the
// snippet (an index matches terms: "pumps replaced" finds "pump").
func hitQuery(query string, h search.Hit) string {
	q := strings.TrimSpace(query)
	if start, _ := dpe.NewMatcher(q).Find(h.Snippet, 0); q != "" && start >= 0 {
		return q
	}
	r := []rune(h.Snippet)
	best := ""
	for _, s := range h.Match {
		if s.Start < 0 || s.End > len(r) || s.Start >= s.End {
			continue
		}
		if w := strings.TrimSpace(string(r[s.Start:s.End])); len([]rune(w)) > len([]rune(best)) {
			best = w
		}
	}
	if best == "" {
		return q
	}
	return best
}

// jumpToHit shows a document opened from a hit at its page and selects
// the hit's element, scrolled into view; when the page is not decoded yet
// the element is selected once it loads (landHit).
func (d *documentScreen) jumpToHit(at *hitPlace) tea.Cmd {
	if at == nil || at.page < 1 || at.page > len(d.pages) {
		return nil
	}
	i := at.page - 1
	var cmd tea.Cmd
	if el := d.placeElement(i, at); el >= 0 {
		d.pendingHit = nil
		cmd = d.gotoPage(i, el)
	} else {
		d.pendingHit = at
		cmd = d.gotoPage(i, -1)
		d.landHit() // a page gotoPage had decoded already
	}
	if at.query == "" {
		return cmd
	}
	// The document searches for the hit's text, so the page marks it and
	// n/N go on from it; the search starts at the hit, not at the top.
	search := d.startSearch(at.query)
	d.search.near = &nearHit{page: i, elementID: at.elementID}
	return tea.Batch(cmd, search)
}

// landHit selects the pending hit's element once its page is shown and
// decoded. Moving to another page first drops the hit.
func (d *documentScreen) landHit() {
	at := d.pendingHit
	if at == nil {
		return
	}
	i := at.page - 1
	if d.page != i {
		d.pendingHit = nil
		return
	}
	if !d.pages[i].loaded() {
		return
	}
	d.pendingHit = nil
	el := d.placeElement(i, at)
	if el < 0 {
		return
	}
	_, cw := d.layout(d.e.width)
	d.ensureBlocks(cw)
	d.sel = el
	d.reveal(true)
}
