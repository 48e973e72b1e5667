package ui

import (
	"errors"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// docPages is the document screen's pages and their loads: what the
// screen knows of each page, which one is shown, and the loads and the
// jumps that wait for a page. Only Update changes it.
type docPages struct {
	pages []pageUI
	page  int
	// pendingJump is the element to select when the page loads.
	pendingJump int
	// pendingHit is a Finder hit whose page was not decoded when the
	// document opened: its element is selected once the page loads.
	pendingHit *hitPlace
	// loadOp is the op loading the current page, if any.
	loadOp int
	// pendingFind continues a t/}/i jump once an unloaded page is loaded.
	pendingFind *findReq
	// bulk is the load-every-page run of an export (nil: none).
	bulk *bulkRun
	// failedOffline are pages that failed while the connection was down;
	// they are retried on reconnect.
	failedOffline map[int]bool
}

// pageUI is what the UI holds about a page. p is the decoded copy, nil
// until loaded.
type pageUI struct {
	title    string
	hint     int // element_count hint, -1 when absent
	manifest bool
	// hidden: a spreadsheet sheet the file hides (page metadata
	// sheet_state), dimmed in the sidebar as the spreadsheet's own tabs
	// leave it out.
	hidden  bool
	loading bool
	// op is the op loading the page (with loading).
	op  int
	err string
	// noContent: err says the page's content is not on this machine (a
	// remote's skeleton without it), which is no failure.
	noContent bool
	p         *dpe.Page
	outline   []outlineEntry
	kinds     map[string]int
	// links are the page's links in reading order (tab's stops).
	links []pageLink
}

func (pu *pageUI) loaded() bool { return pu.p != nil }

type outlineEntry struct {
	el    int
	depth int
	text  string
}

// keep installs decoded page i and indexes its kinds, links and outline;
// shown is whether it is the page on screen (whose rendering is stale).
func (ps *docPages) keep(i int, p *dpe.Page) (shown bool) {
	pu := &ps.pages[i]
	pu.p, pu.loading, pu.err = p, false, ""
	pu.outline, pu.links = nil, nil
	pu.kinds = map[string]int{}
	delete(ps.failedOffline, i)
	for j, el := range p.Elements {
		cat := dpe.NormalizeCategory(el.Category)
		if cat == dpe.CategoryTableChunk {
			cat = dpe.CategoryTable // a chunk is a table everywhere
		}
		pu.kinds[cat]++
		for k := range el.Links() {
			pu.links = append(pu.links, pageLink{j, k})
		}
		if cat == dpe.CategoryTitle {
			depth, _ := el.MetaInt("category_depth")
			pu.outline = append(pu.outline, outlineEntry{el: j, depth: depth, text: sanitizeLine(firstLine(el.Text))})
		}
	}
	return i == ps.page
}

func (ps *docPages) loadedCount() int {
	n := 0
	for i := range ps.pages {
		if ps.pages[i].loaded() {
			n++
		}
	}
	return n
}

// curPage is the shown page's decoded copy (nil: not loaded).
func (ps *docPages) curPage() *dpe.Page {
	if ps.page < 0 || ps.page >= len(ps.pages) {
		return nil
	}
	return ps.pages[ps.page].p
}

// markLoading marks pages loading by op id; shown: it is the load of the
// page on screen (not an export's load of every page).
func (ps *docPages) markLoading(idx []int, id int, shown bool) {
	for _, i := range idx {
		pu := &ps.pages[i]
		pu.loading, pu.op, pu.err, pu.noContent = true, id, "", false
	}
	if shown {
		ps.loadOp = id
	}
}

// failed records page i's load error; it is a failure to report unless
// the load was cancelled or the page's content is not on this machine.
// A page that failed while offline is retried on reconnect.
func (ps *docPages) failed(i int, err error, offline bool) bool {
	pu := &ps.pages[i]
	pu.loading = false
	if isCancel(err) {
		return false
	}
	pu.err, pu.noContent = oneLine(err), errors.As(err, new(*noContentError))
	if pu.noContent {
		return false
	}
	if offline {
		ps.failedOffline[i] = true
	}
	return true
}

// loadEnded: op id has answered; it no longer loads the shown page.
func (ps *docPages) loadEnded(id int) {
	if ps.loadOp == id {
		ps.loadOp = 0
	}
}

// takeOffline is the pages that failed while offline and are still
// neither loaded nor loading, their errors cleared for the retry; the
// set starts again empty.
func (ps *docPages) takeOffline() []int {
	var idx []int
	for i := range ps.pages {
		if ps.failedOffline[i] && !ps.pages[i].loaded() && !ps.pages[i].loading {
			idx = append(idx, i)
			ps.pages[i].err = ""
		}
	}
	ps.failedOffline = map[int]bool{}
	return idx
}

// hitElement is the index of the element with that id on page i, or -1
// (page not decoded, or no such element).
func (ps *docPages) hitElement(i int, id string) int {
	p := ps.pages[i].p
	if p == nil || id == "" {
		return -1
	}
	for j, x := range p.Elements {
		if x.ID == id {
			return j
		}
	}
	return -1
}

// placeElement is the element at names on page i: the one with its id,
// else the one at its index (clamped to the page); -1 while the page is
// not decoded.
func (ps *docPages) placeElement(i int, at *hitPlace) int {
	if el := ps.hitElement(i, at.elementID); el >= 0 {
		return el
	}
	p := ps.pages[i].p
	if p == nil || len(p.Elements) == 0 {
		return -1
	}
	return min(max(0, at.el), len(p.Elements)-1)
}

// hitElementOr is hitElement on page i when i is a page, else -1.
func (ps *docPages) hitElementOr(i int, id string) int {
	if i < 0 || i >= len(ps.pages) {
		return -1
	}
	return ps.hitElement(i, id)
}
