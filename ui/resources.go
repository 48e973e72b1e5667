package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// maxResourcePages caps "load all" (client.PagerOptions default): a server
// whose cursors never end must not keep us loading forever.
const maxResourcePages = 1000

// resourcesView pages one server's resources (issue 4 "Resources screen").
type resourcesView struct {
	computer, server string

	all []client.Resource
	// hay is what the filter matches per resource, built once per page
	// and capped, so 10,000 rows with 10k-character names stay fast.
	hay      []string
	dpeCount int
	// pages records, per get_resources page, the cursor sent and the raw
	// ack size, for the trace view ("the page the resource came from").
	pages []pageRecord

	cursor string
	// seen holds fingerprints of the cursors sent, not the cursors: a
	// server can send megabyte cursors.
	seen map[uint64]bool
	// listed is the bytes of listing acks received so far.
	listed int64
	done   bool
	// stop is why paging ended early (repeated cursor, page cap).
	stop string

	showAll   bool
	filter    string
	filtering bool
	visible   []int
	list      listCursor
	detail    bool
	// detailBig gives the detail pane most of the screen (d cycles
	// small → large → hidden), so every _meta field can be read.
	detailBig  bool
	loading    bool
	loadingAll bool
}

type pageRecord struct {
	No       int
	Cursor   string
	Next     string
	Count    int
	RawBytes int
	Duration time.Duration
	At       time.Time
}

func newResourcesView(computer, server string) resourcesView {
	return resourcesView{computer: computer, server: server, seen: map[uint64]bool{}, detail: true}
}

func (v *resourcesView) reload(m *model) tea.Cmd {
	keep := *v
	*v = newResourcesView(keep.computer, keep.server)
	v.showAll, v.filter, v.detail = keep.showAll, keep.filter, keep.detail
	return v.loadNext(m, false)
}

// loadNext asks for the next cursor page. With all set, each page answer
// chains the next request under the same op, so esc stops the whole run.
func (v *resourcesView) loadNext(m *model, all bool) tea.Cmd {
	if v.done || m.agent == nil {
		if v.done {
			return m.setStatus(statusInfo, "all pages loaded ("+v.endText()+")")
		}
		return nil
	}
	if v.loading {
		return nil
	}
	v.loading = true
	v.loadingAll = all
	label := fmt.Sprintf("get_resources page %d", len(v.pages)+1)
	if all {
		label = "loading all resource pages"
	}
	return m.start(label, 0, v.fetch(m, all))
}

func (v *resourcesView) fetch(m *model, all bool) func(ctx context.Context, id int) tea.Msg {
	a, computer, server, cursor, timeout, now := m.agent, v.computer, v.server, v.cursor, m.opt.RequestTimeout, m.opt.Now
	return func(ctx context.Context, id int) tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		t0 := now()
		p, err := a.Resources(ctx, computer, server, cursor)
		if err != nil {
			return errMsg{opID: id, what: "get_resources " + sanitizeLine(server), err: err}
		}
		return resourcesPageMsg{opID: id, computer: computer, server: server, cursor: cursor, page: p, all: all, duration: now().Sub(t0)}
	}
}

// onPage appends one page and applies the cursor rules: an empty next
// cursor is the end; a cursor seen before or the page cap stops with a
// message, so the list never pretends to be complete.
func (v *resourcesView) onPage(m *model, msg resourcesPageMsg) tea.Cmd {
	if msg.computer != v.computer || msg.server != v.server {
		m.ops.done(msg.opID)
		return nil
	}
	p := msg.page
	if p == nil {
		p = &client.ResourcePage{}
	}
	no := len(v.pages) + 1
	v.pages = append(v.pages, pageRecord{No: no, Cursor: shortCursor(msg.cursor), Next: shortCursor(p.NextCursor), Count: len(p.Resources), RawBytes: len(p.Raw), Duration: msg.duration, At: m.opt.Now()})
	v.listed += listedBytes(p)
	for _, r := range p.Resources {
		if r.Computer == "" {
			r.Computer = v.computer
		}
		if r.Server == "" {
			r.Server = v.server
		}
		if r.PageNo == 0 {
			r.PageNo = no
		}
		v.all = append(v.all, r)
		v.hay = append(v.hay, haystack(r))
		if r.IsDPE() {
			v.dpeCount++
		}
	}
	if msg.cursor != "" {
		v.seen[cursorPrint(msg.cursor)] = true
	}
	next := p.NextCursor
	maxRes, maxBytes := m.listingBudget()
	switch {
	case next == "":
		v.done = true
	case v.seen[cursorPrint(next)] || next == msg.cursor:
		v.done = true
		v.stop = fmt.Sprintf("server repeated cursor %q at page %d; stopped", sanitizeLine(shortCursor(next)), no)
	case len(v.all) >= maxRes:
		v.done = true
		v.stop = fmt.Sprintf("listing budget reached: %d resources (limit %d); stopped", len(v.all), maxRes)
	case v.listed >= maxBytes:
		v.done = true
		v.stop = fmt.Sprintf("listing budget reached: %s listed (limit %s); stopped", humanBytes(v.listed), humanBytes(maxBytes))
	case len(v.pages) >= maxResourcePages:
		v.done = true
		v.stop = fmt.Sprintf("page cap reached (%d pages); stopped", maxResourcePages)
	}
	v.cursor = next
	v.refilter()
	var cmd tea.Cmd
	if v.stop != "" && v.done {
		cmd = m.setStatus(statusErr, v.stop)
	}
	if msg.all && !v.done {
		if o := m.ops.get(msg.opID); o != nil {
			o.progress = fmt.Sprintf("page %d · %d loaded", len(v.pages), len(v.all))
		}
		return tea.Batch(cmd, m.step(msg.opID, v.fetch(m, true)))
	}
	m.ops.done(msg.opID)
	v.loading, v.loadingAll = false, false
	return cmd
}

const (
	defaultMaxListedResources = 200_000
	defaultMaxListedBytes     = 256 << 20
)

func (m *model) listingBudget() (int, int64) {
	r, b := m.opt.MaxListedResources, m.opt.MaxListedBytes
	if r <= 0 {
		r = defaultMaxListedResources
	}
	if b <= 0 {
		b = defaultMaxListedBytes
	}
	return r, b
}

// listedBytes is what one listing page cost: its raw ack, or when the
// agent kept none, the size of the fields it holds.
func listedBytes(p *client.ResourcePage) int64 {
	if len(p.Raw) > 0 {
		return int64(len(p.Raw))
	}
	var n int64
	for _, r := range p.Resources {
		n += int64(len(r.URI) + len(r.Name) + len(r.Title) + len(r.Description) + len(r.MimeType) + len(r.Resource.Meta) + len(r.Annotations))
	}
	return n + int64(len(p.NextCursor))
}

func cursorPrint(c string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(c))
	return h.Sum64()
}

// shortCursor is a cursor as kept for the trace and messages: a hostile
// server's megabyte cursor is not stored a thousand times.
func shortCursor(c string) string {
	const maxCursorShown = 128
	if len(c) <= maxCursorShown {
		return c
	}
	return c[:maxCursorShown] + fmt.Sprintf("… (%d bytes)", len(c))
}

func (v *resourcesView) endText() string {
	switch {
	case v.stop != "":
		return "stopped"
	case v.done:
		return "end"
	}
	return "more available"
}

// resourceSource adapts the resources to sahilm/fuzzy: a row matches on
// name, description, keywords, file_type and uri (issue 4).
type resourceSource struct {
	hay []string
	idx []int
}

func (s resourceSource) String(i int) string { return s.hay[s.idx[i]] }

// maxHayField caps each field the filter looks at.
const maxHayField = 256

func haystack(r client.Resource) string {
	capped := func(s string) string {
		if len(s) > maxHayField {
			return s[:maxHayField]
		}
		return s
	}
	return strings.Join([]string{capped(r.Name), capped(r.Title), capped(r.Description),
		capped(strings.Join(r.Meta.Keywords, " ")), capped(r.Meta.FileType), capped(r.URI)}, " ")
}
func (s resourceSource) Len() int { return len(s.idx) }

func (v *resourcesView) refilter() {
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
	if v.filter == "" {
		v.visible = base
	} else {
		matches := fuzzy.FindFrom(v.filter, resourceSource{hay: v.hay, idx: base})
		v.visible = make([]int, len(matches))
		for i, mt := range matches {
			v.visible[i] = base[mt.Index]
		}
	}
	v.list.cur = 0
	for i, idx := range v.visible {
		if idx == cur {
			v.list.cur = i
		}
	}
}

func (v *resourcesView) selected() *client.Resource {
	if v.list.cur < 0 || v.list.cur >= len(v.visible) {
		return nil
	}
	return &v.all[v.visible[v.list.cur]]
}

func (v *resourcesView) listHeight(m *model) int {
	h := m.bodyHeight() - 2 // counter + column header
	if v.detail {
		h -= v.detailHeight(m.bodyHeight())
	}
	return max(1, h)
}

func (v *resourcesView) detailHeight(bodyH int) int {
	if v.detailBig {
		return max(4, bodyH-6)
	}
	return min(10, max(4, bodyH/3))
}

func (v *resourcesView) handleKey(m *model, msg tea.KeyPressMsg) tea.Cmd {
	if m.navKey(&v.list, msg.String(), len(v.visible), v.listHeight(m)) {
		return nil
	}
	switch msg.String() {
	case "/":
		return m.bar.open(m, barFilter, v.filter)
	case "a":
		v.showAll = !v.showAll
		v.refilter()
		if v.showAll {
			return m.setStatus(statusInfo, "showing all schemes")
		}
		return m.setStatus(statusInfo, "showing dpe:// only")
	case "m":
		return v.loadNext(m, false)
	case "M":
		return v.loadNext(m, true)
	case "d":
		switch {
		case v.detail && !v.detailBig:
			v.detailBig = true
		case v.detail:
			v.detail, v.detailBig = false, false
		default:
			v.detail = true
		}
	case "r":
		return v.reload(m)
	case "y":
		if r := v.selected(); r != nil {
			return m.copy("resource URI", clipURI, r.URI)
		}
	case "left", "h":
		return m.back()
	case "enter", "right", "l":
		r := v.selected()
		if r == nil {
			return nil
		}
		if !r.IsDPE() {
			return m.setStatus(statusInfo, "not a dpe:// resource: "+sanitizeLine(r.URI))
		}
		res := *r
		return m.openDPE(r.URI, &res)
	}
	return nil
}

func (v *resourcesView) columns(w int) []column {
	cols := []column{{"NAME", 0}, {"URI", 0}, {"MIME", 0}, {"PAGES", 5}, {"TYPE", 5}, {"KEYWORDS", 0}, {"MODIFIED", 10}}
	rest := w - 5 - 5 - 10 - 6*2
	cols[0].width = max(6, rest*30/100)
	cols[1].width = max(6, rest*32/100)
	cols[2].width = max(4, rest*16/100)
	cols[5].width = max(4, rest-cols[0].width-cols[1].width-cols[2].width)
	return cols
}

func (v *resourcesView) counter(m *model) string {
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
	if v.filter != "" {
		s += fmt.Sprintf("   filter %q: %d match", sanitizeLine(v.filter), len(v.visible))
	}
	if v.loading {
		s = m.spin.View() + " " + s
	}
	return s
}

func (v *resourcesView) view(m *model, w, h int) []string {
	st := m.st
	counter := st.counter.Render(v.counter(m))
	if v.stop != "" {
		counter = st.warnText.Render(v.counter(m))
	}
	lines := []string{" " + counter}
	cols := v.columns(w - 2)
	lines = append(lines, "  "+st.colHead.Render(joinCols(cols, colHeader(cols))))
	listH := h - 2
	if v.detail {
		listH -= v.detailHeight(h)
	}
	listH = max(1, listH)
	v.list.clamp(len(v.visible), listH)
	body := make([]string, 0, listH)
	if len(v.visible) == 0 {
		msg := "  No resources yet."
		switch {
		case v.loading:
			msg = "  " + m.spin.View() + " loading resources…"
		case len(v.all) > 0 && v.filter != "":
			msg = "  Nothing matches the filter."
		case len(v.all) > 0 && !v.showAll:
			msg = fmt.Sprintf("  No dpe:// resources among %d loaded; press a to show all schemes.", len(v.all))
		case v.done:
			msg = "  This server lists no resources."
		}
		body = append(body, st.dim.Render(msg))
	}
	for i := v.list.top; i < len(v.visible) && len(body) < listH; i++ {
		r := v.all[v.visible[i]]
		pages := ""
		if r.Meta.PageCount > 0 {
			pages = strconv.Itoa(r.Meta.PageCount)
		}
		mod := r.Meta.LastModified
		if len(mod) > 10 {
			mod = mod[:10]
		}
		name := r.Name
		if name == "" {
			name = r.Title
		}
		row := joinCols(cols, []string{sanitizeLine(name), sanitizeLine(r.URI), sanitizeLine(shortMime(r.MimeType)), pages,
			sanitizeLine(r.Meta.FileType), sanitizeLine(strings.Join(r.Meta.Keywords, ", ")), sanitizeLine(mod)})
		body = append(body, m.listRow(row, i == v.list.cur, !r.IsDPE(), w))
	}
	lines = append(lines, box(body, w, listH)...)
	if v.detail {
		lines = append(lines, v.detailView(m, w, v.detailHeight(h))...)
	}
	return lines
}

// detailView shows every field of the selected resource, including all of
// _meta and annotations flattened to key paths.
func (v *resourcesView) detailView(m *model, w, h int) []string {
	st := m.st
	out := []string{st.border.Render(strings.Repeat("─", w))}
	r := v.selected()
	if r == nil {
		return box(out, w, h)
	}
	kv := func(k, val string) {
		if val == "" {
			return
		}
		// Keys come from the peer as much as values do.
		out = append(out, " "+st.label.Render(fit(sanitizeLine(k), 14))+" "+st.value.Render(sanitizeLine(sanitize.URLsIn(val))))
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
	if len(out) > h {
		out = append(out[:h-1], st.dim.Render(fmt.Sprintf(" … %d more fields (d enlarges or hides this pane)", len(out)-h+1)))
	}
	return box(out, w, h)
}

// flattenJSON turns a JSON value into sorted (path, value) pairs.
func flattenJSON(prefix string, raw json.RawMessage) [][2]string {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return [][2]string{{prefix, "(invalid JSON: " + err.Error() + ")"}}
	}
	var out [][2]string
	var walk func(p string, v any, depth int)
	walk = func(p string, v any, depth int) {
		if depth > 16 {
			out = append(out, [2]string{p, "(nested too deep)"})
			return
		}
		switch t := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(p+"."+k, t[k], depth+1)
			}
		case []any:
			allScalar := true
			for _, e := range t {
				switch e.(type) {
				case map[string]any, []any:
					allScalar = false
				}
			}
			if allScalar {
				parts := make([]string, len(t))
				for i, e := range t {
					parts[i] = fmt.Sprint(e)
				}
				out = append(out, [2]string{p, "[" + strings.Join(parts, ", ") + "]"})
				return
			}
			for i, e := range t {
				walk(fmt.Sprintf("%s[%d]", p, i), e, depth+1)
			}
		case nil:
			out = append(out, [2]string{p, "null"})
		default:
			out = append(out, [2]string{p, fmt.Sprint(t)})
		}
	}
	walk(prefix, v, 0)
	return out
}

func humanBytes(n int64) string {
	switch {
	case n < 0:
		return "?"
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.1f MiB", float64(n)/1024/1024)
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/1024/1024/1024)
}

// shortMime drops the prefixes every DPE resource shares, so the column
// shows what differs (the detail pane has the full type).
func shortMime(s string) string {
	s = strings.TrimPrefix(s, "application/")
	return strings.TrimPrefix(s, "vnd.a2c.")
}
