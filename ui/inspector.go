package ui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
)

// inspector shows everything about one element: category, ids, structure
// (with links both ways: enter on one jumps there), coordinates as a box,
// every ele_metadata field (complete, not truncated) and the raw JSON.
type inspector struct {
	e     *env
	d     *documentScreen
	el    *dpe.Element
	page  int
	sel   int
	list  scroller
	cache []string
	links map[int]elemRef
	w     int
	gen   int
}

// elemRef is an element the inspector links to.
type elemRef struct{ page, el int }

// maxInspect bounds one value in the inspector so a hostile 100 MB string
// cannot stall the view.
const maxInspect = 64 << 10

// maxLinks bounds the reverse links listed per kind.
const maxLinks = 200

func newInspector(e *env, d *documentScreen) *inspector {
	return &inspector{e: e, d: d, el: d.selected(), page: d.page, sel: d.sel}
}

func (v *inspector) Update(msg tea.Msg) (screen, tea.Cmd) {
	e := v.e
	k := e.keys
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		lines := v.lines(e.width)
		if v.list.nav(k, msg, len(lines), e.bodyHeight()) {
			return v, nil
		}
		switch {
		case matches(msg, k.Back):
			return v, v.e.ask(closeOverlayMsg{})
		case matches(msg, k.Enter):
			if r, ok := v.links[v.list.cur]; ok {
				return v, tea.Batch(v.e.ask(closeOverlayMsg{}), v.e.ask(jumpMsg(r)))
			}
			// Off a link line, enter goes to the next link (the footer
			// says "next link"): the cursor starts on the title, and
			// enter there did nothing.
			if next, ok := v.nextLink(); ok {
				v.list.cur = next
				v.list.clamp(len(lines), e.bodyHeight())
				return v, e.info(k.Enter.Help().Key + " again follows this link")
			}
			return v, e.info("this element links to no other loaded element")
		case matches(msg, k.Copy):
			return v, v.e.ask(copyMenuMsg{resURI: v.d.uri, access: v.d.op.Access.URI, text: v.el.Text, json: string(v.el.Raw)})
		case matches(msg, k.Raw):
			return v, v.e.ask(overlayMsg{s: newRawOverlay(e, v.d, scopeElement)})
		}
	case identityMsg:
		v.cache = nil // the hashes arrived
	case tea.MouseWheelMsg:
		v.list.wheel(msg.Button == tea.MouseWheelUp, len(v.lines(e.width)), e.bodyHeight())
	}
	return v, nil
}

// pageAt is page i of the document, nil when not loaded or no longer
// there: a watched file read again may have fewer pages than the one
// the inspector was opened on.
func (v *inspector) pageAt(i int) *dpe.Page {
	if i < 0 || i >= len(v.d.pages) {
		return nil
	}
	return v.d.pages[i].p
}

// find locates an element by id: this page first, then the other loaded
// pages.
func (v *inspector) find(id string) (elemRef, bool) {
	if id == "" {
		return elemRef{}, false
	}
	order := []int{v.page}
	for i := range v.d.pages {
		if i != v.page {
			order = append(order, i)
		}
	}
	for _, pi := range order {
		p := v.pageAt(pi)
		if p == nil {
			continue
		}
		for j, el := range p.Elements {
			if el.ID == id {
				return elemRef{pi, j}, true
			}
		}
	}
	return elemRef{}, false
}

// reverse lists the elements on this page whose parent_id is the element
// (children) and whose related_ids name it (referenced by).
func (v *inspector) reverse() (children, refs []elemRef) {
	id := v.el.ID
	p := v.pageAt(v.page)
	if id == "" || p == nil {
		return nil, nil
	}
	for j, el := range p.Elements {
		if j == v.sel {
			continue
		}
		if el.MetaString("parent_id") == id && len(children) < maxLinks {
			children = append(children, elemRef{v.page, j})
		}
		for _, r := range metaStrings(el, "related_ids") {
			if r == id && len(refs) < maxLinks {
				refs = append(refs, elemRef{v.page, j})
				break
			}
		}
	}
	return children, refs
}

func metaStrings(el *dpe.Element, k string) []string {
	raw, ok := el.Metadata[k]
	if !ok {
		return nil
	}
	var ss []string
	if json.Unmarshal(raw, &ss) == nil {
		return ss
	}
	if s := el.MetaString(k); s != "" {
		return []string{s}
	}
	return nil
}

func (v *inspector) lines(w int) []string {
	if !v.cached(w) {
		v.cache, v.links = v.build(w)
		v.w, v.gen = w, v.e.themeGen
	}
	return v.cache
}

// cached: the lines made last are those for width w and the theme.
func (v *inspector) cached(w int) bool { return v.cache != nil && v.w == w && v.gen == v.e.themeGen }

// build makes the inspector's lines for width w, and the lines that link
// to another element.
func (v *inspector) build(w int) ([]string, map[int]elemRef) {
	st := v.e.st
	el := v.el
	var out []string
	links := map[int]elemRef{}
	kv := func(k, val string) {
		// ele_metadata keys are peer text too: sanitized before fit.
		k = sanitizeLine(k)
		more := 0
		if len(val) > maxInspect {
			// complete up to a generous cap; y t / y j copy the whole value
			more = len(val) - maxInspect
			val = val[:maxInspect]
		}
		val = displayText(val)
		if more > 0 {
			val += fmt.Sprintf("\n… %s more (y t copies the whole text)", humanBytes(int64(more)))
		}
		first := true
		for _, l := range strings.Split(val, "\n") {
			for _, chunk := range wrapCells(l, max(10, w-22)) {
				label := ""
				if first {
					label = k
				}
				out = append(out, "  "+st.label.Render(fit(label, 18))+" "+chunk)
				first = false
			}
		}
		if first {
			out = append(out, "  "+st.label.Render(fit(k, 18)))
		}
	}
	link := func(label string, r elemRef, ok bool, id string) {
		if !ok {
			kv(label, id+"  (not on a loaded page)")
			return
		}
		t := v.d.pages[r.page].p.Elements[r.el]
		desc := fmt.Sprintf("%s → p%d e%d %s: %s", id, r.page+1, r.el+1, dpe.NormalizeCategory(t.Category), firstLine(t.Text))
		links[len(out)] = r
		out = append(out, "  "+st.label.Render(fit(sanitizeLine(label), 18))+" "+st.key.Render("↪ ")+clip(sanitizeLine(desc), max(10, w-24)))
	}
	section := func(s string) { out = append(out, "", " "+st.title.Render(s)) }
	cat := dpe.NormalizeCategory(el.Category)
	out = append(out, " "+st.title.Render(fmt.Sprintf("Element %d of page %d", v.sel+1, v.page+1)))
	catLine := cat
	if cat != el.Category {
		catLine += "  (as sent: " + el.Category + ")"
	}
	if !dpe.IsKnownCategory(cat) {
		catLine += "  (not a standard category: rendered as text)"
	}
	kv("category", catLine)
	kv("element_id", orDash(el.ID))
	kv("doc_ref", orDash(el.DocRef))
	kv("page_index", fmt.Sprint(el.PageIndex))
	section("Identity (dpe1)")
	if rs, ok := v.d.src.(*remoteSource); ok {
		// A remote's document is its skeleton: the hashes are the
		// remote's, checked on arrival, not recomputed from a v0.2 mapping.
		ch, ph, dh, verified := rs.identity(v.page, el)
		kv("content_hash", ch)
		kv("page_hash", ph)
		kv("doc_hash", dh)
		kv("verified", verified)
	} else {
		ch, ph, dh := v.d.idn.element(v.d.op, v.d.loadedCount(), v.page, v.sel)
		kv("content_hash", ch)
		kv("page_hash", ph)
		kv("doc_hash", dh)
	}
	section("Structure")
	if pid := el.MetaString("parent_id"); pid != "" {
		r, ok := v.find(pid)
		link("parent_id", r, ok, pid)
	} else {
		kv("parent_id", "—")
	}
	if rel := metaStrings(el, "related_ids"); len(rel) > 0 {
		for i, id := range rel {
			if i == maxLinks {
				kv("", fmt.Sprintf("… %d more", len(rel)-maxLinks))
				break
			}
			r, ok := v.find(id)
			label := ""
			if i == 0 {
				label = "related_ids"
			}
			link(label, r, ok, id)
		}
	} else {
		kv("related_ids", "—")
	}
	kv("category_depth", orDash(el.MetaString("category_depth")))
	children, refs := v.reverse()
	for i, r := range children {
		label := ""
		if i == 0 {
			label = "children"
		}
		link(label, r, true, v.d.pages[r.page].p.Elements[r.el].ID)
	}
	for i, r := range refs {
		label := ""
		if i == 0 {
			label = "referenced by"
		}
		link(label, r, true, orDash(v.d.pages[r.page].p.Elements[r.el].ID))
	}
	section("Coordinates")
	kv("coordinates", coordinatesText(el))
	section("Text")
	kv("text", el.Text)
	section("ele_metadata (" + counted(len(el.Metadata), "field", "fields") + ")")
	keys := make([]string, 0, len(el.Metadata))
	for k := range el.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := el.MetaString(k)
		if k == "image_base64" && len(val) > 120 {
			val = fmt.Sprintf("%s… (%d base64 chars; s saves the image)", val[:80], len(val))
		}
		kv(k, val)
	}
	section("Raw JSON")
	out = append(out, render.JSON(el.Raw, w-2, render.NewTheme(v.e.theme), nil)...)
	return out, links
}

// coordinatesText shows ele_metadata.coordinates as a box: the points,
// their bounding box, the coordinate system and the layout size.
func coordinatesText(el *dpe.Element) string {
	raw, ok := el.Metadata["coordinates"]
	if !ok {
		return "—"
	}
	var c struct {
		Points       [][]float64 `json:"points"`
		System       string      `json:"system"`
		LayoutWidth  *float64    `json:"layout_width"`
		LayoutHeight *float64    `json:"layout_height"`
	}
	if json.Unmarshal(raw, &c) != nil || len(c.Points) == 0 {
		return el.MetaString("coordinates")
	}
	minX, minY, maxX, maxY := c.Points[0][0], 0.0, 0.0, 0.0
	var pts []string
	for i, p := range c.Points {
		if len(p) < 2 {
			continue
		}
		if i == 0 {
			minX, minY, maxX, maxY = p[0], p[1], p[0], p[1]
		}
		minX, minY, maxX, maxY = min(minX, p[0]), min(minY, p[1]), max(maxX, p[0]), max(maxY, p[1])
		if len(pts) < 8 {
			pts = append(pts, fmt.Sprintf("(%g, %g)", p[0], p[1]))
		}
	}
	out := fmt.Sprintf("box x %g–%g, y %g–%g (%g × %g)", minX, maxX, minY, maxY, maxX-minX, maxY-minY)
	if c.System != "" {
		out += "\nsystem " + c.System
	}
	if c.LayoutWidth != nil && c.LayoutHeight != nil {
		out += fmt.Sprintf("\npage %g × %g", *c.LayoutWidth, *c.LayoutHeight)
	}
	out += "\npoints " + strings.Join(pts, " ")
	if len(c.Points) > 8 {
		out += fmt.Sprintf(" … %d more", len(c.Points)-8)
	}
	return out
}

// arrange makes the lines for the body's width and keeps the cursor in
// view, in Update: View only reads.
func (v *inspector) arrange(w, h int) { v.list.clamp(len(v.lines(w)), h) }

func (v *inspector) View(w, h int) []string {
	lines := v.cache
	if !v.cached(w) {
		lines, _ = v.build(w) // not arranged at this size: made, not kept
	}
	out := make([]string, 0, h)
	for i := v.list.top; i < len(lines) && len(out) < h; i++ {
		l := lines[i]
		if i == v.list.cur {
			l = v.e.st.gutter.Render("▌") + strings.TrimPrefix(l, " ")
		}
		out = append(out, l)
	}
	return box(out, w, h)
}

// nextLink is the first link line after the cursor, wrapping; ok is
// false when the element links to nothing loaded.
func (v *inspector) nextLink() (int, bool) {
	best, first := -1, -1
	for i := range v.links {
		if i > v.list.cur && (best < 0 || i < best) {
			best = i
		}
		if first < 0 || i < first {
			first = i
		}
	}
	if best < 0 {
		best = first
	}
	return best, best >= 0
}

func (v *inspector) Keys() screenKeys {
	k := v.e.keys
	// enter's hint is what enter does on this line: follow the link under
	// the cursor, else go to the next one; none when nothing is linked.
	var enter []key2
	if _, ok := v.links[v.list.cur]; ok {
		enter = []key2{withHelp(k.Enter, "follow link")}
	} else if len(v.links) > 0 {
		enter = []key2{withHelp(k.Enter, "next link")}
	}
	return screenKeys{
		short: append(enter, k.Up, k.Down, k.Raw, k.Copy, withHelp(k.Back, "close")),
		full:  [][]key2{k.navKeys(), append(enter, k.Raw, k.Copy), k.globalKeys()},
	}
}

func (v *inspector) Crumb() string { return "inspector" }
