package ui

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/render"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// diffState is a comparison of the document with a fresh fetch of it
// (D): the screen shows the new document; changed pages are marked ± in
// the sidebar, changed elements in the gutter, and n/N walk the changes
// until esc clears them.
type diffState struct {
	c *identity.Changes
	// pages: screen pages whose page_hash changed; els: per screen page,
	// element → how it changed.
	pages map[int]bool
	els   map[int]map[int]elChange
	walk  []elemRef
	cur   int
	text  string
}

// elChange is how an element on screen changed: op is "added", "moved"
// or "changed" (in place: its old text is was, shown under it while the
// comparison is on); rows are a changed table's grid rows that differ
// (nil: mark the whole element).
type elChange struct {
	op   string
	was  string
	rows map[int]bool
}

// diffMsg answers a D: the document fetched again with every page
// decoded, and the comparison with the one on screen.
type diffMsg struct {
	id    int
	doc   *dpe.Opened // the document D was pressed on
	fresh *dpe.Opened
	pages []*dpe.Page
	res   *identity.Result
	c     *identity.Changes
	old   *identity.Result
	trace []traceEntry
}

func (m diffMsg) opID() int { return m.id }

// refetchDiff re-resolves and fetches the document through the path it
// was opened with (the same opener: get_dpe for a dpe:// URI, the access
// URI for a file or URL), decodes every page of both versions and compares
// their dpe1 identities.
func (d *documentScreen) refetchDiff() tea.Cmd {
	e := d.e
	if d.diffOp != 0 {
		return e.info("already comparing with a fresh fetch")
	}
	if _, remote := d.src.(*remoteSource); remote {
		return e.info("D compares fetched DPE documents; a remote's document is its skeleton, checked on arrival")
	}
	if d.src != nil {
		return d.localDiff()
	}
	if d.opener == nil {
		return e.info("D compares fetched DPE documents; this one has no source to fetch again")
	}
	opener, op, uri, byAccess, snap := d.opener, d.op, d.uri, d.target != "", d.snapshot()
	id, cmd := e.start("fetching "+sanitizeLine(uri)+" again to compare", openTimeout, func(ctx context.Context, id int) tea.Msg {
		o, buf := tracedOpener(opener)
		fail := func(err error) tea.Msg {
			return errMsg{id: id, what: "compare " + sanitizeLine(uri), err: err, trace: buf.entries}
		}
		var fresh *dpe.Opened
		var err error
		if byAccess {
			fresh, err = o.OpenAccess(ctx, uri)
		} else {
			fresh, err = o.Open(ctx, uri)
		}
		if err != nil {
			return fail(err)
		}
		if fresh.Kind != dpe.KindDocument || fresh.Doc == nil {
			return fail(fmt.Errorf("the fresh fetch is no longer a DPE document (%s)", fresh.MimeType))
		}
		// Every page of the old version (the ones not loaded yet are
		// loaded now, into copies) and of the new one.
		oldDoc := identityDoc(op, snap, nil)
		for i, p := range oldDoc.Pages {
			if !p.Decoded {
				q, _, err := loadPageCopy(ctx, o, buf, op, i)
				if err != nil {
					return fail(fmt.Errorf("page %d of the version on screen: %w", i+1, err))
				}
				oldDoc.Pages[i] = q
			}
		}
		newDoc := &dpe.Document{Pages: make([]*dpe.Page, len(fresh.Doc.Pages))}
		for i := range fresh.Doc.Pages {
			q, _, err := loadPageCopy(ctx, o, buf, fresh, i)
			if err != nil {
				return fail(fmt.Errorf("page %d of the fresh fetch: %w", i+1, err))
			}
			newDoc.Pages[i] = q
		}
		oldR := identity.Compute(identity.Map(op.Body, oldDoc))
		newR := identity.Compute(identity.Map(fresh.Body, newDoc))
		return diffMsg{id: id, doc: op, fresh: fresh, pages: newDoc.Pages, res: newR, old: oldR,
			c: diffOf(oldR, newR), trace: buf.entries}
	})
	d.diffOp = id
	return cmd
}

// onDiff shows the fresh document in place of the old one and marks what
// changed.
func (d *documentScreen) onDiff(msg diffMsg) tea.Cmd {
	e := d.e
	if msg.id != d.diffOp {
		return nil // another document's comparison (one o opened over this)
	}
	d.diffOp = 0
	d.trace.add(msg.trace...)
	if msg.doc != d.op {
		return nil
	}
	page, sel := d.page, d.sel
	d.replaceDoc(msg.fresh)
	for i, p := range msg.pages {
		d.install(i, p)
	}
	d.idn = identityState{} // no op of the old version's runs for it
	d.idn.keep(msg.res, msg.fresh, len(msg.pages))
	d.markChanges(msg.old, msg.res, msg.c)
	said := d.diff.text
	if msg.c.Equal {
		// Nothing changed, nothing to walk: D leaves no mode behind (n
		// stays the search's, esc the document's).
		d.diff = nil
	}

	d.page = min(page, max(0, len(d.pages)-1))
	d.sel = sel
	if p := d.curPage(); p == nil || d.sel >= len(p.Elements) {
		d.sel = 0
	}
	d.invalidate()
	return tea.Batch(e.setStatus(statusOK, said), d.validate())
}

// replaceDoc puts op in place of the document on screen (a fresh fetch,
// or a watched file read again): no page loaded, and nothing kept that
// was about the old pages.
func (d *documentScreen) replaceDoc(op *dpe.Opened) {
	d.clearSearch()
	d.op = op
	d.pages = d.pages[:0]
	for _, p := range d.op.Doc.Pages {
		d.pages = append(d.pages, pageUI{title: p.Title, hint: p.ElementCount, manifest: isManifest(p), hidden: p.SheetState() != ""})
	}
	d.tv, d.cell, d.tables = map[int]render.TableView{}, map[int]cellPos{}, map[int]pageTables{}
	d.validated, d.findings, d.failedOffline = false, nil, map[int]bool{}
	d.pendingFind, d.pendingJump, d.pendingHit = nil, -1, nil
	d.images.stop()
	d.images.reset(d.e.renderer)
	d.idn = identityState{}
	d.diff = nil
	if last := max(0, len(d.pages)-1); d.page > last {
		// The new version is shorter than the page shown: its last page.
		d.page, d.sel, d.yoff = last, 0, 0
	}
	d.invalidate()
}

// diffOf compares two identities as the screen shows it: a changed
// table names its edited cells.
func diffOf(old, new *identity.Result) *identity.Changes {
	return identity.DiffTables(old, new, render.ObjectGrid)
}

// markChanges marks what changed from old to new (diffOf's c) on the
// screen's pages, which are new's: ± on changed pages, the gutter on
// added, moved and changed elements; n/N walk them. d.idn must be new's.
func (d *documentScreen) markChanges(old, new *identity.Result, c *identity.Changes) {
	ds := &diffState{c: c, pages: map[int]bool{}, els: map[int]map[int]elChange{}}
	for _, pc := range c.Pages {
		if pc.NewIndex < 0 {
			continue // a removed page: counted in the delta, not on screen
		}
		ui, ok := d.idn.toUI[pc.NewIndex]
		if !ok || ui >= len(d.pages) {
			continue
		}
		ds.pages[ui] = true
		n := 0
		if d.pages[ui].p != nil {
			n = len(d.pages[ui].p.Elements)
		}
		seen := map[int]bool{}
		for _, ec := range replaced(pc.Elements) {
			at := ec.Index
			if ec.Op == "removed" {
				at = min(at, n-1) // where it was: the element now there
			} else {
				if ds.els[ui] == nil {
					ds.els[ui] = map[int]elChange{}
				}
				ch := elChange{op: ec.Op}
				if ec.Was != nil && ec.Was.Text != ec.Text {
					ch.was = ec.Was.Text
				}
				if len(ec.Cells) > 0 {
					ch.rows = map[int]bool{}
					for _, cc := range ec.Cells {
						ch.rows[cc.Row] = true
					}
				}
				ds.els[ui][at] = ch
			}
			if !seen[at] {
				seen[at] = true
				ds.walk = append(ds.walk, elemRef{ui, max(0, at)})
			}
		}
		if len(pc.Elements) == 0 {
			ds.walk = append(ds.walk, elemRef{ui, 0}) // title or metadata changed
		}
	}
	sort.Slice(ds.walk, func(a, b int) bool {
		if ds.walk[a].page != ds.walk[b].page {
			return ds.walk[a].page < ds.walk[b].page
		}
		return ds.walk[a].el < ds.walk[b].el
	})
	ds.cur = -1
	ds.text = diffSummary(old, new, c)
	d.diff = ds
	d.invalidate()
}

// replaced pairs, on one changed page, an element removed with one added
// at the same place (the same category, between the same two unchanged
// elements): an edited paragraph is one element changed, its old text
// kept, not one added and one removed (the diff pairs only elements
// whose text stayed).
func replaced(ecs []identity.ElementChange) []identity.ElementChange {
	// gap is the number of unchanged elements before an index: on the
	// new side those not listed, on the old side those neither removed
	// nor changed.
	var listedNew, listedOld []int
	for _, ec := range ecs {
		switch {
		case ec.Op == "removed":
			listedOld = append(listedOld, ec.Index)
		case ec.Op == "changed" && ec.Was != nil:
			listedOld = append(listedOld, ec.Was.Index)
			listedNew = append(listedNew, ec.Index)
		default:
			listedNew = append(listedNew, ec.Index)
		}
	}
	gap := func(listed []int, at int) int {
		n := at
		for _, x := range listed {
			if x < at {
				n--
			}
		}
		return n
	}
	out := slices.Clone(ecs)
	drop := map[int]bool{}
	for r, old := range ecs {
		if old.Op != "removed" {
			continue
		}
		g := gap(listedOld, old.Index)
		for a := range out {
			if out[a].Op == "added" && out[a].Category == old.Category && gap(listedNew, out[a].Index) == g {
				out[a].Op = "changed"
				out[a].Was = &identity.WasElement{Index: old.Index, ContentHash: old.ContentHash, Text: old.Text}
				drop[r] = true
				break
			}
		}
	}
	kept := out[:0]
	for i, ec := range out {
		if !drop[i] {
			kept = append(kept, ec)
		}
	}
	return kept
}

// diffSummary is the status line of a comparison.
func diffSummary(old, new *identity.Result, c *identity.Changes) string {
	if c.Equal {
		return "identical (doc_hash " + shortHash(c.NewDocHash) + ")"
	}
	unhashable := old.DocHash == "" || new.DocHash == ""
	if unhashable && c.Delta.Added == 0 && c.Delta.Removed == 0 && !c.OrderChanged && len(c.Pages) == 0 &&
		!c.FileTypeChanged && !c.TitleChanged && !c.DocMetaChanged {
		// Not "identical" (there is no doc_hash to say so), but nothing
		// that could be compared changed either.
		s := fmt.Sprintf("no change found: =%d", c.Delta.Retained)
		for _, r := range []*identity.Result{old, new} {
			if r.DocHash == "" {
				return s + " · " + problemText(r, "$")
			}
		}
	}
	s := fmt.Sprintf("changed: +%d −%d =%d", c.Delta.Added, c.Delta.Removed, c.Delta.Retained)
	if c.OrderChanged {
		s += " · order changed"
	}
	if n := len(c.Pages); n > 0 {
		s += " · " + counted(n, "page", "pages") + " ±"
	}
	if c.FileTypeChanged {
		s += " · file_type changed"
	}
	if c.TitleChanged {
		s += " · title changed"
	}
	if c.DocMetaChanged {
		s += " · doc_metadata changed" + metaFields(old.DocMeta, new.DocMeta)
	}
	for _, r := range []*identity.Result{old, new} {
		if r.DocHash == "" {
			s += " · " + problemText(r, "$")
			break
		}
	}
	return s
}

// maxMetaNames bounds the doc_metadata keys a status line names.
const maxMetaNames = 4

// metaFields names the doc_metadata keys that changed, " (~author,
// +revision)": ~ changed, + added, - removed; keys are sanitized and cut.
func metaFields(old, new []byte) string {
	cs := identity.MetaChanges(old, new)
	if len(cs) == 0 {
		return ""
	}
	var names []string
	for i, c := range cs {
		if i == maxMetaNames {
			names = append(names, fmt.Sprintf("%d more", len(cs)-i))
			break
		}
		names = append(names, string(c.Op)+sanitizeTrunc(c.Key, 24))
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// shortHash cuts a dpe1 hash for a status line.
func shortHash(hash identity.Hash) string {
	h := string(hash)
	if len(h) > len(identity.Prefix)+12 {
		return h[:len(identity.Prefix)+12] + "…"
	}
	if h == "" {
		return "—"
	}
	return h
}

// diffKey handles the keys of an active comparison: n/N walk the changes
// (unless a search is on, whose hits they walk); esc clears it
// (escInner).
func (d *documentScreen) diffKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := d.e.keys
	if matches(msg, k.Diff) {
		return d.refetchDiff(), true
	}
	if d.diff == nil || d.search.query != "" {
		return nil, false
	}
	switch {
	case matches(msg, k.NextChange):
		return d.walkChange(1), true
	case matches(msg, k.PrevChange):
		return d.walkChange(-1), true
	}
	return nil, false
}

func (d *documentScreen) walkChange(dir int) tea.Cmd {
	ds := d.diff
	if len(ds.walk) == 0 {
		return d.e.info(ds.text + " · no changed element on screen")
	}
	ds.cur = (ds.cur + dir + len(ds.walk)) % len(ds.walk)
	if ds.cur < 0 {
		ds.cur += len(ds.walk)
	}
	r := ds.walk[ds.cur]
	op := ds.els[r.page][r.el].op
	if op == "" {
		op = "changed"
	}
	return tea.Batch(d.gotoPage(r.page, r.el),
		d.e.info(fmt.Sprintf("change %d/%d: %s · %s", ds.cur+1, len(ds.walk), op, ds.text)))
}

// diffGutter marks a changed element's line in the gutter: + added, ~
// moved, ± changed; of a changed table only the lines of the rows that
// changed (rows: the block's line indexes of those rows, nil: every line).
func (d *documentScreen) diffGutter(el int, rows map[int]bool, line int, g string) string {
	if d.diff == nil || el < 0 {
		return g
	}
	ch, ok := d.diff.els[d.page][el]
	if !ok || rows != nil && !rows[line] {
		return g
	}
	m := "+"
	switch ch.op {
	case "moved":
		m = "~"
	case "changed":
		m = "±"
	}
	first := "▌"
	if strings.HasPrefix(g, " ") || g == "" {
		first = " "
	}
	if first == "▌" {
		return d.e.st.gutter.Render("▌") + d.e.st.warnText.Render(m)
	}
	return d.e.st.warnText.Render(m) + " "
}

// diffRowLines are the line indexes, in element el's block, of the table
// rows that changed (nil: the whole element is marked).
func (d *documentScreen) diffRowLines(el int) map[int]bool {
	if d.diff == nil || el < 0 {
		return nil
	}
	ch, ok := d.diff.els[d.page][el]
	p := d.curPage()
	if !ok || ch.rows == nil || p == nil || el >= len(p.Elements) {
		return nil
	}
	lines := map[int]bool{}
	for r := range ch.rows {
		if l := d.e.renderer.TableRowLine(p.Elements[el], d.cache.width, d.cache.tvState[el], r); l >= 0 {
			lines[l] = true
		}
	}
	return lines
}

// wasLines are a changed element's old text, dim, to go under it while
// the comparison is on (nil: none).
func (d *documentScreen) wasLines(el, w int) []string {
	if d.diff == nil {
		return nil
	}
	ch := d.diff.els[d.page][el]
	if ch.was == "" {
		return nil
	}
	var out []string
	for i, l := range wrapCells(sanitize.Text(ch.was), max(10, w-5)) {
		lead := "was: "
		if i > 0 {
			lead = "     "
		}
		out = append(out, d.e.st.dim.Render(lead+l))
	}
	return out
}

// diffPageMark is the sidebar mark of a changed page.
func (d *documentScreen) diffPageMark(page int) string {
	if d.diff != nil && d.diff.pages[page] {
		return "±"
	}
	return ""
}

// diffStatusText is the status line while a comparison is on.
func (d *documentScreen) diffStatusText(w int) string {
	if d.diff == nil || d.search.query != "" {
		return ""
	}
	return statusFit(d.e.st.info.Render(" "+d.diff.text), d.e.st.dim.Render(" · n/N changes · esc clears"), w)
}
