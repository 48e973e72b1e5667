package ui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
)

type rawScope int

const (
	scopeElement rawScope = iota
	scopePage
	scopeDocument
)

func (s rawScope) String() string {
	return [...]string{"element", "page", "document"}[s]
}

// rawOverlay is the raw JSON of the element, page or document, syntax
// coloured and foldable by render.JSONView. Lines are kept whole and
// scrolled sideways (a long string is read, not cut), and `/` searches
// what is shown.
type rawOverlay struct {
	e      *env
	d      *documentScreen
	scope  rawScope
	list   scroller
	folded map[string]bool
	// foldGen counts fold changes, for the cache key.
	foldGen int
	cache   []render.JSONLine
	// plain is cache without styling, what search looks in; widest is
	// the widest line in cells.
	plain  []string
	widest int
	key    string
	// xoff is the first column shown (horizontal scroll).
	xoff   int
	search rawSearch
}

// rawSearch is the raw view's own search: hits are on shown lines.
type rawSearch struct {
	query string
	hits  []rawHit
	cur   int
}

// rawHit is a match on line: cells [start, end) of its plain text.
type rawHit struct{ line, start, end int }

// rawLineCells bounds a rendered line: long enough for the longest string
// render keeps (MaxChars, escaped) with its key and indent.
const rawLineCells = 1 << 20

func newRawOverlay(e *env, d *documentScreen, s rawScope) *rawOverlay {
	return &rawOverlay{e: e, d: d, scope: s, folded: map[string]bool{}}
}

// rawBytes returns the JSON for the current scope. The document's own
// bytes are not kept after decoding a manifest, so the document scope is
// then reassembled from its fields and each page as the UI holds it.
func (v *rawOverlay) rawBytes() []byte {
	d := v.d
	switch v.scope {
	case scopeElement:
		if el := d.selected(); el != nil {
			return el.Raw
		}
		return nil
	case scopePage:
		if p := d.curPage(); p != nil {
			return p.Raw
		}
		return nil
	}
	if len(d.op.Body) > 0 && !d.hasManifestPages() {
		return d.op.Body
	}
	return documentJSON(d)
}

func (d *documentScreen) hasManifestPages() bool {
	for i := range d.pages {
		if d.pages[i].manifest {
			return true
		}
	}
	return false
}

// pageJSON is page i as the UI holds it: the page object as it arrived,
// or for a loaded manifest page its header with the elements fetched.
func pageJSON(d *documentScreen, i int, p *dpe.Page) json.RawMessage {
	pu := d.pages[i]
	if !pu.manifest || pu.p == nil {
		if len(p.Raw) > 0 {
			return p.Raw
		}
		return json.RawMessage(`null`)
	}
	els := make([]json.RawMessage, 0, len(pu.p.Elements))
	for _, el := range pu.p.Elements {
		els = append(els, el.Raw)
	}
	b, err := json.Marshal(map[string]any{"page_index": p.Index, "title": p.Title, "elements": els})
	if err != nil {
		return json.RawMessage(`null`)
	}
	return b
}

func documentJSON(d *documentScreen) []byte {
	doc := d.doc()
	obj := map[string]any{}
	for k, v := range doc.Extra {
		obj[k] = v
	}
	set := func(k string, v any, ok bool) {
		if ok {
			obj[k] = v
		}
	}
	set("doc_ref", doc.DocRef, doc.DocRef != "")
	set("uri", doc.URI, doc.URI != "")
	set("file_uri", doc.FileURI, doc.FileURI != "")
	set("file_type", doc.FileType, doc.FileType != "")
	set("title", doc.Title, doc.Title != "")
	set("summary", doc.Summary, doc.Summary != "")
	set("page_count", doc.PageCount, doc.PageCount != 0)
	set("keywords", doc.Keywords, len(doc.Keywords) > 0)
	set("last_modified", doc.LastModified, doc.LastModified != "")
	pages := make([]json.RawMessage, 0, len(doc.Pages))
	for i, p := range doc.Pages {
		pages = append(pages, pageJSON(d, i, p))
	}
	obj["pages"] = pages
	b, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return []byte(fmt.Sprintf(`{"error": %q}`, err.Error()))
	}
	return b
}

// cacheKey is what the lines are made from: the scope, the theme, the
// element and the folds.
func (v *rawOverlay) cacheKey() string {
	return fmt.Sprintf("%d/%d/%d/%d/%d", v.scope, v.e.themeGen, v.d.page, v.d.sel, v.foldGen)
}

// build makes the view's lines with the given folds closed.
func (v *rawOverlay) build(folded map[string]bool) []render.JSONLine {
	raw := v.rawBytes()
	if len(raw) == 0 {
		return []render.JSONLine{{Text: v.e.st.dim.Render(fmt.Sprintf("no raw JSON for this %s", v.scope))}}
	}
	return render.JSONView(raw, rawLineCells, render.NewTheme(v.e.theme), folded, render.Limits{})
}

// lines is the view's lines, whole (the view cuts them to the window),
// made again when what they show changed, and the search's hits on them.
func (v *rawOverlay) lines() []render.JSONLine {
	key := v.cacheKey()
	if v.cache != nil && v.key == key {
		return v.cache
	}
	v.cache, v.key = v.build(v.folded), key
	v.plain = make([]string, len(v.cache))
	v.widest = 0
	for i, l := range v.cache {
		v.plain[i] = ansi.Strip(l.Text)
		v.widest = max(v.widest, ansi.StringWidth(v.plain[i]))
	}
	v.findHits()
	return v.cache
}

// findHits looks for the query on the shown lines (after a fold or a
// scope change too), keeping the current hit's line where it can.
func (v *rawOverlay) findHits() {
	s := &v.search
	if s.query == "" {
		s.hits, s.cur = nil, -1
		return
	}
	prevLine := -1
	if s.cur >= 0 && s.cur < len(s.hits) {
		prevLine = s.hits[s.cur].line
	}
	s.hits, s.cur = s.hits[:0], -1
	rawMatches(v.plain, s.query, func(i, a, b int) {
		t := v.plain[i]
		s.hits = append(s.hits, rawHit{line: i, start: ansi.StringWidth(t[:a]), end: ansi.StringWidth(t[:b])})
	})
	if prevLine >= 0 && prevLine < len(v.plain) {
		// The last hit on the line the current one was on, or before it;
		// none there: the last on the first line with any.
		line := prevLine
		if len(s.hits) > 0 && s.hits[0].line > line {
			line = s.hits[0].line
		}
		s.cur = sort.Search(len(s.hits), func(i int) bool { return s.hits[i].line > line }) - 1
	}
	if s.cur < 0 && len(s.hits) > 0 {
		s.cur = 0
	}
}

// rawMatches calls hit for each match of q on the lines, in order: its
// line and byte range; at most maxHits.
func rawMatches(lines []string, q string, hit func(line, a, b int)) {
	m := dpe.NewMatcher(q)
	n := 0
	for i, t := range lines {
		for from := 0; n < maxHits; {
			a, b := m.Find(t, from)
			if a < 0 || b <= a {
				break
			}
			hit(i, a, b)
			n++
			from = b
		}
	}
}

// searchScope is what the raw view's / searches, as the prompt and the
// status say it.
func (v *rawOverlay) searchScope() string {
	return fmt.Sprintf("in the keys and values of the %s's raw JSON", v.scope)
}

// countText is n matches, "+" when the count stopped at maxHits.
func countText(n int) string {
	if n >= maxHits {
		return counted(n, "match", "matches") + "+"
	}
	return counted(n, "match", "matches")
}

// searchHint is the search prompt's live hint: what / searches here and
// how many matches what is typed has there. It counts on the lines with
// every fold open, as the search opens them; they are made at the first
// letter typed and kept by the prompt, not the view.
func (v *rawOverlay) searchHint() func(string) (string, bool) {
	var plain []string
	return func(q string) (string, bool) {
		// Short: the prompt keeps most of an 80-column line for what is
		// typed, and the title names the scope.
		if q == "" {
			return "searches JSON keys and values", true
		}
		if plain == nil {
			lines := v.build(nil)
			plain = make([]string, len(lines))
			for i, l := range lines {
				plain[i] = ansi.Strip(l.Text)
			}
		}
		n := 0
		rawMatches(plain, q, func(int, int, int) { n++ })
		return countText(n) + " in keys and values", n > 0
	}
}

func (v *rawOverlay) refold() {
	v.foldGen++
	v.cache = nil
}

// avail is the cells a line has beside the gutter.
func (v *rawOverlay) avail() int { return max(1, v.e.width-gutterW) }

func (v *rawOverlay) scrollTo(x int) {
	v.xoff = max(0, min(x, v.widest-v.avail()))
}

// showHit puts the cursor on the current hit and scrolls it into view.
func (v *rawOverlay) showHit(h int) {
	hit := v.search.hits[v.search.cur]
	v.list.cur = hit.line
	if v.list.top > hit.line || hit.line >= v.list.top+h {
		v.list.top = max(0, hit.line-h/2)
	}
	if hit.start < v.xoff || hit.end > v.xoff+v.avail() {
		v.scrollTo(hit.start - v.avail()/3)
	}
}

func (v *rawOverlay) nextHit(dir, h int) tea.Cmd {
	s := &v.search
	n := len(s.hits)
	if n == 0 {
		if s.query == "" {
			return v.e.info("no search: press / to search the raw JSON")
		}
		return v.e.info(fmt.Sprintf("no match for %q", sanitizeLine(s.query)))
	}
	prev := s.cur
	s.cur = ((s.cur+dir)%n + n) % n
	v.showHit(h)
	switch {
	case n > 1 && dir > 0 && s.cur < prev:
		return v.e.info(fmt.Sprintf("search wrapped to the first match (1/%d)", n))
	case n > 1 && dir < 0 && s.cur > prev:
		return v.e.info(fmt.Sprintf("search wrapped to the last match (%d/%d)", n, n))
	}
	return v.e.info(fmt.Sprintf("match %d/%d for %q", s.cur+1, n, sanitizeLine(s.query)))
}

// onSearch runs a search typed in the prompt. Folds are opened first, so
// a hit inside one is not missed.
func (v *rawOverlay) onSearch(q string, h int) tea.Cmd {
	v.search = rawSearch{query: q, cur: -1}
	if q == "" {
		v.lines()
		return nil
	}
	if len(v.folded) > 0 {
		v.folded = map[string]bool{}
		v.refold()
	}
	v.lines()
	v.findHits()
	s := &v.search
	if len(s.hits) == 0 {
		return v.e.info(fmt.Sprintf("no match for %q %s", sanitizeLine(q), v.searchScope()))
	}
	// The first hit at or after the cursor, as less starts from the top
	// of the screen.
	s.cur = 0
	for i, hit := range s.hits {
		if hit.line >= v.list.cur {
			s.cur = i
			break
		}
	}
	v.showHit(h)
	return v.e.setStatus(statusOK, fmt.Sprintf("%s for %q %s · %s/%s move", countText(len(s.hits)),
		sanitizeLine(q), v.searchScope(), v.e.keys.NextHit.Help().Key, v.e.keys.PrevHit.Help().Key))
}

func (v *rawOverlay) Update(msg tea.Msg) (screen, tea.Cmd) {
	e := v.e
	k := e.keys
	h := e.bodyHeight() - 1
	switch msg := msg.(type) {
	case promptDoneMsg:
		if msg.mode == barSearch && !msg.cancelled {
			return v, v.onSearch(msg.value, h)
		}
		return v, nil
	case tea.KeyPressMsg:
		lines := v.lines()
		n := len(lines)
		if v.list.nav(k, msg, n, h) {
			return v, nil
		}
		switch {
		case matches(msg, k.Back, k.Raw):
			return v, v.e.ask(closeOverlayMsg{})
		case matches(msg, k.Search):
			// Empty, as the document's /: the last queries are on ↑.
			return v, v.e.ask(promptMsg{mode: barSearch, overlay: true, validate: v.searchHint()})
		case matches(msg, k.NextHit):
			return v, v.nextHit(1, h)
		case matches(msg, k.PrevHit):
			return v, v.nextHit(-1, h)
		case matches(msg, k.ColLeft):
			v.scrollTo(v.xoff - v.avail()/2)
		case matches(msg, k.ColRight):
			v.scrollTo(v.xoff + v.avail()/2)
		case matches(msg, k.FirstCol):
			v.xoff = 0
		case matches(msg, k.LastCol):
			if v.list.cur >= 0 && v.list.cur < n {
				v.scrollTo(ansi.StringWidth(v.plain[v.list.cur]) - v.avail())
			}
		case matches(msg, k.Scope):
			v.scope = (v.scope + 1) % 3
			v.list = scroller{}
			v.folded = map[string]bool{}
			v.xoff = 0
			v.refold()
		case matches(msg, k.Fold):
			if v.list.cur >= 0 && v.list.cur < n && lines[v.list.cur].Foldable {
				p := lines[v.list.cur].Path
				if v.folded[p] {
					delete(v.folded, p)
				} else {
					v.folded[p] = true
				}
				v.refold()
			}
		case matches(msg, k.FoldAll):
			// unfold everything, or fold every container one level down
			if len(v.folded) > 0 {
				v.folded = map[string]bool{}
			} else {
				for _, l := range lines {
					if l.Foldable && l.Depth == 1 {
						v.folded[l.Path] = true
					}
				}
			}
			v.refold()
			v.list.cur = 0
		case matches(msg, k.Copy):
			c := copyMenuMsg{resURI: v.d.uri, access: v.d.op.Access.URI}
			if el := v.d.selected(); el != nil {
				c.text, c.json = el.Text, string(el.Raw)
			}
			if v.list.cur >= 0 && v.list.cur < n {
				c.path = lines[v.list.cur].Path
			}
			return v, v.e.ask(c)
		}
		v.list.clamp(len(v.lines()), h)
	case tea.MouseWheelMsg:
		v.list.wheel(msg.Button == tea.MouseWheelUp, len(v.lines()), h)
	}
	return v, nil
}

func (v *rawOverlay) View(w, h int) []string {
	d := v.d
	title := fmt.Sprintf(" Raw JSON · %s", v.scope)
	switch v.scope {
	case scopeElement:
		if el := d.selected(); el != nil {
			title += fmt.Sprintf(" %d on page %d (%s)", d.sel+1, d.page+1, sanitizeLine(dpe.NormalizeCategory(el.Category)))
		}
	case scopePage:
		title += fmt.Sprintf(" %d", d.page+1)
	case scopeDocument:
		if len(d.op.Body) == 0 || d.hasManifestPages() {
			title += " (reassembled: fields + each page object as received)"
		}
	}
	if v.xoff > 0 {
		title += fmt.Sprintf("  · col %d", v.xoff+1)
	}
	title += "  · tab element/page/document"
	lines, hits := v.cache, v.search.hits
	if v.cache == nil || v.key != v.cacheKey() {
		lines, hits = v.build(v.folded), nil // not arranged since it changed: made, not kept
	}
	out := []string{v.e.st.title.Render(clip(title, w))}
	avail := max(1, w-gutterW)
	// the first hit at or after the top line
	hi := sort.Search(len(hits), func(i int) bool { return hits[i].line >= v.list.top })
	for i := v.list.top; i < len(lines) && len(out) < h; i++ {
		g := "  "
		if i == v.list.cur {
			g = v.e.st.gutter.Render("▌ ")
		}
		text := lines[i].Text
		var rs []lipgloss.Range
		for ; hi < len(hits) && hits[hi].line == i; hi++ {
			st := v.e.st.hit
			if hi == v.search.cur {
				st = v.e.st.hitCur
			}
			rs = append(rs, lipgloss.NewRange(hits[hi].start, hits[hi].end, st))
		}
		if len(rs) > 0 {
			text = lipgloss.StyleRanges(text, rs...)
		}
		out = append(out, g+cutCells(text, v.xoff, avail))
	}
	return out
}

// arrange makes the lines (and finds the search's hits on them) for what
// is shown now and keeps the cursor in view under the title, in Update:
// View only reads.
func (v *rawOverlay) arrange(_, h int) { v.list.clamp(len(v.lines()), h-1) }

// cutCells is cells [x, x+w) of a styled line, with … where it goes on
// to the left or the right.
func cutCells(s string, x, w int) string {
	full := ansi.StringWidth(s)
	if x > 0 && full > x {
		s = "…" + ansi.TruncateLeft(s, x+1, "")
	} else if x > 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if strings.Contains(s, "\x1b") {
		s += "\x1b[m"
	}
	return s
}

func (v *rawOverlay) Keys() screenKeys {
	k := v.e.keys
	return screenKeys{
		short: []key2{k.Search, k.NextHit, k.Fold, k.Scope, withHelp(k.ColRight, "scroll"), withHelp(k.Back, "close")},
		full: [][]key2{k.navKeys(),
			{k.Search, k.NextHit, k.PrevHit, withHelp(k.ColLeft, "scroll left"), withHelp(k.ColRight, "scroll right"),
				withHelp(k.FirstCol, "line start"), withHelp(k.LastCol, "line end")},
			{k.Fold, k.FoldAll, k.Scope, withHelp(k.Copy, "copy… (p JSON path)")}, k.globalKeys()},
	}
}

func (v *rawOverlay) Crumb() string { return "raw JSON" }
