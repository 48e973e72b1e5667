package ui

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// hayFields is what the filter looks at in one resource, lowercased and
// capped per field.
type hayFields struct {
	// strong fields: an exact or prefix match here ranks first.
	name, title, fileType string
	keywords              []string
	// weak fields: matched, ranked lower.
	desc, uri string
}

// maxHayField caps each field the filter looks at.
const maxHayField = 256

func haystack(r client.Resource) hayFields {
	c := func(s string) string {
		if len(s) > maxHayField {
			s = s[:maxHayField]
		}
		return foldKey(s)
	}
	// The URI's path as its name reads (a served folder's file names
	// are percent-encoded in it).
	up := uriPath(r.URI)
	if dec, err := url.PathUnescape(up); err == nil {
		up = dec
	}
	h := hayFields{name: c(r.Name), title: c(r.Title), fileType: c(r.Meta.FileType), desc: c(r.Description), uri: c(up)}
	for i, k := range r.Meta.Keywords {
		if i >= 32 {
			break
		}
		h.keywords = append(h.keywords, c(k))
	}
	return h
}

// uriPath is the part of a URI the filter matches: its path. Every row
// shares the scheme and host, so letters scattered across them would
// match almost any query.
func uriPath(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return u
	}
	rest := u[i+3:]
	j := strings.IndexByte(rest, '/')
	if j < 0 {
		return ""
	}
	return rest[j:]
}

// fieldScore ranks query q in one field: exact match, then prefix, then a
// word prefix, then a substring, then (with scatter) every rune in order
// (a scattered match within the one field; the tighter, the better).
// 0: no match.
func fieldScore(f, q string, scatter bool) int {
	switch {
	case f == "" || q == "":
		return 0
	case f == q:
		return 1000
	case strings.HasPrefix(f, q):
		return 800
	}
	if i := strings.Index(f, q); i >= 0 {
		if i > 0 && !isWordRune(f[i-1]) {
			return 700
		}
		return 500
	}
	if !scatter {
		return 0
	}
	// scattered: greedy in order, scored by how spread out it is
	span, start, j := 0, -1, 0
	for i := 0; i < len(f) && j < len(q); {
		r, n := utf8.DecodeRuneInString(f[i:])
		qr, qn := utf8.DecodeRuneInString(q[j:])
		if r == qr {
			if start < 0 {
				start = i
			}
			j += qn
			span = i + n - start
		}
		i += n
	}
	if j < len(q) {
		return 0
	}
	return max(1, 300-(span-len(q)))
}

func isWordRune(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
}

// score is the best field score; weak fields count for less, so an exact
// keyword beats a word in a description. Weak fields match only as a
// substring: in a long description or path the letters of almost any
// query appear in order somewhere.
func (h *hayFields) score(q string) int {
	best := 0
	for _, f := range []string{h.name, h.title, h.fileType} {
		best = max(best, fieldScore(f, q, true))
	}
	for _, k := range h.keywords {
		best = max(best, fieldScore(k, q, true))
	}
	for _, f := range []string{h.desc, h.uri} {
		if s := fieldScore(f, q, false); s > 0 {
			best = max(best, s/3)
		}
	}
	return best
}

func (v *resourcesScreen) refilter() {
	var cur = -1
	if v.list.cur < len(v.visible) {
		cur = v.visible[v.list.cur]
	}
	base := make([]int, 0, len(v.all))
	for i, r := range v.all {
		if v.showAll || r.IsDPE() {
			base = append(base, i)
		}
	}
	q := foldKey(strings.TrimSpace(v.list.filter))
	if q != v.applied {
		// A new query starts at its best match; new pages or the
		// scheme toggle keep the row the cursor is on.
		v.applied, cur = q, -1
	}
	if q == "" {
		v.visible = base
	} else {
		type scored struct{ i, s int }
		var ms []scored
		for _, i := range base {
			if s := v.hay[i].score(q); s > 0 {
				ms = append(ms, scored{i, s})
			}
		}
		sort.SliceStable(ms, func(a, b int) bool { return ms[a].s > ms[b].s })
		v.visible = make([]int, len(ms))
		for k, x := range ms {
			v.visible[k] = x.i
		}
	}
	v.list.cur = 0
	for i, idx := range v.visible {
		if idx == cur {
			v.list.cur = i
		}
	}
}

func (v *resourcesScreen) selected() *client.Resource {
	if v.list.cur < 0 || v.list.cur >= len(v.visible) {
		return nil
	}
	return &v.all[v.visible[v.list.cur]]
}

// arrange fits the rows between the head and the detail pane.
func (v *resourcesScreen) arrange(_, h int) {
	rows := h - v.head()
	if v.detail {
		rows -= v.detailHeight(h)
	}
	v.list.layout(len(v.visible), rows)
}

// head is the lines above the rows: the stale banner, the counter and
// the column header.
func (v *resourcesScreen) head() int {
	if v.gone {
		return 3
	}
	return 2
}

func (v *resourcesScreen) detailHeight(bodyH int) int {
	if v.detailBig {
		return max(4, bodyH-6)
	}
	return min(10, max(4, bodyH/3))
}

func (v *resourcesScreen) key(msg tea.KeyPressMsg) tea.Cmd {
	e := v.e
	k := e.keys
	if v.list.key(k, msg, len(v.visible)) {
		return nil
	}
	switch {
	case matches(msg, k.Back, k.Left):
		if matches(msg, k.Back) && v.list.clearFilter() {
			v.refilter()
			return nil
		}
		return v.e.ask(popMsg{})
	case matches(msg, k.Filter):
		cmd := v.list.askFilter(v.e, func() int { return len(v.visible) })
		v.refilter()
		return cmd
	case matches(msg, k.ToggleScheme):
		v.showAll = !v.showAll
		v.refilter()
		if v.showAll {
			return e.info("showing all schemes")
		}
		return e.info("showing dpe:// only")
	case matches(msg, k.More):
		return v.loadNext(false)
	case matches(msg, k.All):
		return v.loadNext(true)
	case matches(msg, k.Detail):
		switch {
		case v.detail && !v.detailBig:
			v.detailBig = true
		case v.detail:
			v.detail, v.detailBig = false, false
		default:
			v.detail = true
		}
	case matches(msg, k.Refresh):
		return v.reload()
	case matches(msg, k.Trace):
		return v.e.ask(overlayMsg{s: newTraceOverlay(e, e.lastTrace)})
	case matches(msg, k.CopyURI):
		if r := v.selected(); r != nil {
			return copyText(e, "resource URI", clipURI, r.URI)
		}
	case matches(msg, k.Enter, k.Right):
		r := v.selected()
		if r == nil {
			return nil
		}
		if !r.IsDPE() {
			// Only a computer in this process can be asked: A2C-SMCP
			// has no event for reading non-dpe resources.
			l := e.localFor(v.computer)
			if l == nil {
				return e.info(remoteNonDPE)
			}
			return readLocal(e, l, string(r.Server), r.URI)
		}
		res := *r
		var origin *pageRecord
		if res.PageNo > 0 && res.PageNo <= len(v.pages) {
			pr := v.pages[res.PageNo-1]
			origin = &pr
		}
		return v.e.ask(openURIMsg{uri: r.URI, res: &res, origin: origin, computer: v.computer})
	}
	return nil
}

// columns puts the title (or name) first. The name is what the list is
// read by: it takes its share of the row as if nothing else were shown,
// up to the widest name, so a wider terminal never shows less of it. The
// URI (what tells two documents of one name apart) and then the MIME type
// get what is left beyond a readable keywords column, and are left out
// when too little is; keywords take the rest.
func (v *resourcesScreen) columns(w int) []column {
	cols := []column{{"NAME", 0}, {"PAGES", 5}, {"TYPE", 5}, {"KEYWORDS", 0}, {"MODIFIED", 10}}
	const fixed, gap = 5 + 5 + 10, 2
	const nameMin, keywordsMin, uriMin = 16, 8, 24
	rest := max(12, w-fixed-(len(cols)-1)*gap)
	// Up to 65 % of the row, and past 48 cells no more than 30 %: one
	// outlandish name must not take the room of every URI.
	cols[0].width = min(rest*65/100, max(48, rest*30/100))
	if v.nameWidth > 0 {
		cols[0].width = min(cols[0].width, max(nameMin, v.nameWidth))
	}
	room := rest - cols[0].width - keywordsMin
	if uri := min(v.uriWidth, room-gap); w >= 100 && uri >= uriMin {
		cols = append(cols, column{"URI", uri})
		room -= uri + gap
		if mime := max(4, v.mimeWidth); w >= 130 && mime <= room-gap {
			cols = append(cols, column{"MIME", mime})
			room -= mime + gap
		}
	}
	cols[3].width = keywordsMin + max(0, room)
	return cols
}

func (v *resourcesScreen) counter() string {
	parts := []string{fmt.Sprintf("%d loaded", len(v.all)), fmt.Sprintf("%d dpe", v.dpeCount)}
	switch {
	case v.stop != "":
		parts = append(parts, "stopped: "+v.stop)
	case v.done:
		parts = append(parts, "end")
	default:
		parts = append(parts, "more available (m next page · M all)")
	}
	s := strings.Join(parts, " · ")
	scope := "dpe only"
	if v.showAll {
		scope = "all schemes"
	}
	s += "   [" + scope + "]"
	if v.list.filter != "" {
		s += fmt.Sprintf("   filter %q: %s", sanitizeLine(v.list.filter), counted(len(v.visible), "match", "matches"))
	}
	if v.loadOp != 0 {
		s = v.e.spin.View() + " " + s
	}
	return s
}

func (v *resourcesScreen) View(w, h int) []string {
	e := v.e
	st := e.st
	var lines []string
	if v.gone {
		lines = append(lines, goneBanner(e, v.computer, w))
	}
	counter := st.counter.Render(v.counter())
	if v.stop != "" {
		counter = st.warnText.Render(v.counter())
	}
	lines = append(lines, " "+counter)
	cols := v.columns(w - 2)
	lines = append(lines, "  "+st.colHead.Render(joinCols(cols, colHeader(cols))))
	listH := v.list.height()
	body := make([]string, 0, listH)
	if len(v.visible) == 0 {
		msg := "  No resources yet."
		switch {
		case v.loadOp != 0:
			msg = "  " + e.spin.View() + " loading resources…"
		case len(v.all) > 0 && v.list.filter != "":
			msg = "  Nothing matches the filter."
		case len(v.all) > 0 && !v.showAll:
			msg = fmt.Sprintf("  No dpe:// resources among %d loaded; press a to show all schemes.", len(v.all))
		case v.done:
			msg = "  This server lists no resources."
		}
		body = append(body, st.dim.Render(msg))
	}
	from, to := v.list.shown(len(v.visible))
	for i := from; i < to; i++ {
		r := v.all[v.visible[i]]
		pages := ""
		if r.Meta.PageCount > 0 {
			pages = strconv.Itoa(r.Meta.PageCount)
		}
		mod := r.Meta.LastModified
		if len(mod) > 10 {
			mod = mod[:10]
		}
		cells := []string{sanitizeLine(v.shownName(r)), pages, sanitizeLine(r.Meta.FileType), sanitizeLine(strings.Join(r.Meta.Keywords, ", ")), sanitizeLine(mod),
			sanitizeLine(r.URI), sanitizeLine(shortMime(r.MimeType))}
		body = append(body, listRow(st, joinCols(cols, cells), v.list.at(i), !r.IsDPE() || v.gone, w))
	}
	lines = append(lines, box(body, w, listH)...)
	if v.detail {
		lines = append(lines, v.detailView(w, v.detailHeight(h))...)
	}
	return lines
}

// shownName is a row's NAME: the title, or the name when there is none.
// A title another resource of the list shares is followed by the name,
// which a server gives each resource of its own: two documents of a
// --docs folder titled "Annual report" were two identical rows.
func (v *resourcesScreen) shownName(r client.Resource) string {
	switch {
	case r.Title == "":
		return r.Name
	case v.titles[r.Title] > 1 && r.Name != "" && r.Name != r.Title:
		return r.Title + " (" + r.Name + ")"
	}
	return r.Title
}

// detailView shows every field of the selected resource, including all of
// _meta and annotations flattened to key paths. The key column is as wide
// as the longest key, up to a third of the width.
func (v *resourcesScreen) detailView(w, h int) []string {
	st := v.e.st
	out := []string{st.border.Render(strings.Repeat("─", w))}
	r := v.selected()
	if r == nil {
		return box(out, w, h)
	}
	var kvs [][2]string
	kv := func(k, val string) {
		if val != "" {
			// Keys come from the peer as much as values do.
			kvs = append(kvs, [2]string{sanitizeLine(k), sanitizeLine(sanitize.URLsIn(val))})
		}
	}
	kv("name", r.Name)
	kv("title", r.Title)
	kv("description", r.Description)
	kv("uri", r.URI)
	kv("mimeType", r.MimeType)
	if r.Size != nil {
		kv("size", humanBytes(*r.Size))
	}
	kv("from", fmt.Sprintf("%s / %s · get_resources page %d", r.Computer, r.Server, r.PageNo))
	for _, f := range flattenJSON("_meta", r.Resource.Meta) {
		kv(f[0], f[1])
	}
	for _, f := range flattenJSON("annotations", r.Annotations) {
		kv(f[0], f[1])
	}
	kw := 0
	for _, p := range kvs {
		kw = max(kw, ansi.StringWidth(p[0]))
	}
	kw = min(kw, max(8, w/3))
	for _, p := range kvs {
		out = append(out, " "+st.label.Render(fit(p[0], kw))+"  "+st.value.Render(p[1]))
	}
	if len(out) > h {
		out = append(out[:h-1], st.dim.Render(" … "+counted(len(out)-h+1, "more field", "more fields")+" (d enlarges or hides this pane)"))
	}
	return box(out, w, h)
}

func (v *resourcesScreen) Keys() screenKeys {
	k := v.e.keys
	// m and M only while the server has more pages.
	more := []key2{k.More, k.All}
	if v.done {
		more = nil
	}
	return screenKeys{
		short: slices.Concat([]key2{k.Enter, k.Back, k.Filter}, more, []key2{k.ToggleScheme, k.Detail, k.Trace}),
		full: [][]key2{k.navKeys(), {k.Enter, k.Filter, k.ToggleScheme, k.Detail, k.CopyURI, k.Trace},
			append(more, k.Refresh), k.globalKeys()},
	}
}

func (v *resourcesScreen) Crumb() string { return sanitizeLine(v.name) }
