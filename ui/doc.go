package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
)

// documentScreen is the document: a sidebar of pages and the current
// page's outline, and the page rendered by render.Renderer. Only the
// visible lines are sliced out of the cached blocks on each View.
//
// The shared *dpe.Opened is read-only here. Commands decode pages into
// copies and hand them back in messages; Update installs them in pages,
// which only Update and View touch.
type documentScreen struct {
	e      *env
	op     *dpe.Opened
	opener *dpe.Opener
	res    *client.Resource
	uri    string
	target string
	trace  *traceLog

	// docPages is the pages, the one shown and their loads
	// (doc_pages.go).
	docPages
	sel int
	// pageLayout places the shown page's lines (doc_layout.go).
	pageLayout

	tv map[int]render.TableView
	// cell is the selected table cell per table element (B3: l/h move
	// by column, enter shows the cell and its row).
	cell map[int]cellPos
	// tables keeps the table views and cell cursors of the pages not
	// shown, so a widened column or a chosen cell is still there when a
	// search or a jump comes back to its page (tv and cell are the
	// shown page's, by element index).
	tables map[int]pageTables
	// cellAway is the table whose cell cursor esc put away: the first
	// esc leaves the table, the next leaves the document.
	cellAway tableAt

	search   searchState
	findings []dpe.Finding
	// validated is set once dpe.Validate answered; validatedLoaded is how
	// many pages were loaded then (loading more re-validates on c).
	validated       bool
	validatedLoaded int
	validateOp      int

	sideFocus  bool
	sideHidden bool
	side       scroller

	images imageLoader
	// src converts pages of a local file in-process (nil: fetched).
	src PageSource

	// skill is the skill whose SKILL.md this is (nil: not a skill).
	skill *skillPkg
	// skillFrom is the skill package this is a file of (nil: none), and
	// skillRel its path there ("": the SKILL.md): a history move reads
	// it again through the skill channel.
	skillFrom *skillPkg
	skillRel  string

	// idn is the dpe1 identity; diff the comparison D made (nil: none),
	// diffOp the D running.
	idn    identityState
	diff   *diffState
	diffOp int

	// watch is the file watch mode reads again when it changes (nil: not
	// watched).
	watch *watchState
	// restoring: the document opened before the positions file was
	// read, and goes where it was left once it is, unless a key moved it.
	restoring bool
	// relocating is the position a changed document is restored to,
	// until its page is hashed (relocate); relocateRunning while it is.
	relocating      *position
	relocateRunning bool

	// link is the link tab chose (doc_links.go).
	link linkAt
	// anchorBack is the link an #anchor was followed from: esc returns
	// to it while the page the anchor led to is shown (nil: none).
	anchorBack *anchorReturn
}

type findReq struct {
	cat string
	dir int
	// Where the jump started: if no match turns up, the view goes back
	// there instead of being left on a page loaded only to look.
	fromPage, fromSel int
}

type cellPos struct{ row, col int }

// pageTables is a page's table views and cell cursors, by element index.
type pageTables struct {
	tv   map[int]render.TableView
	cell map[int]cellPos
}

func newDocumentScreen(e *env, msg openedMsg, tl *traceLog) *documentScreen {
	d := &documentScreen{e: e, op: msg.opened, opener: msg.opener, res: msg.res, uri: msg.uri, target: msg.target, trace: tl,
		tv: map[int]render.TableView{}, cell: map[int]cellPos{}, tables: map[int]pageTables{}, docPages: docPages{pendingJump: -1, failedOffline: map[int]bool{}}}
	for _, p := range d.op.Doc.Pages {
		d.pages = append(d.pages, pageUI{title: p.Title, hint: p.ElementCount, manifest: isManifest(p), hidden: p.SheetState() != ""})
	}
	if len(d.pages) > 0 {
		if msg.first != nil {
			d.install(0, msg.first)
		} else if msg.firstErr != nil {
			d.pages[0].err, d.pages[0].noContent = oneLine(msg.firstErr), errors.As(msg.firstErr, new(*noContentError))
		}
	}
	d.images.reset(e.renderer)
	return d
}

// install keeps a decoded page and indexes its outline. Only Update calls
// it.
func (d *documentScreen) install(i int, p *dpe.Page) {
	if d.keep(i, p) {
		d.invalidate()
	}
}

func (d *documentScreen) invalidate() { d.cache.valid = false }

func (d *documentScreen) doc() *dpe.Document { return d.op.Doc }

func (d *documentScreen) selected() *dpe.Element {
	p := d.curPage()
	if p == nil || d.sel < 0 || d.sel >= len(p.Elements) {
		return nil
	}
	return p.Elements[d.sel]
}

func (d *documentScreen) title() string {
	if t := d.doc().Title; t != "" {
		return t
	}
	if d.doc().DocRef != "" {
		return d.doc().DocRef
	}
	return "document"
}

func (d *documentScreen) stop() {
	d.images.stop()
	d.stopWatch()
}

// layout returns sidebar and content widths for a body width.
func (d *documentScreen) layout(w int) (side, content int) {
	if w < 60 || d.sideHidden {
		return 0, w
	}
	// A quarter of the width: page and outline titles use the room a
	// wide terminal has (prose is capped at 100 columns anyway).
	side = min(60, max(20, w/4))
	return side, w - side - 1
}

func (d *documentScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	e := d.e
	if cmd, ok := d.identityUpdate(msg); ok {
		return d, tea.Batch(cmd, d.schedule())
	}
	if cmd, ok := d.onWatch(msg); ok {
		return d, cmd
	}
	switch msg.(type) {
	case tea.KeyPressMsg:
		d.restoring, d.relocating = false, nil // the user moved first
	case positionsLoadedMsg:
		if d.restoring {
			return d, d.restore()
		}
		return d, nil
	}
	switch msg := msg.(type) {
	case relocatedMsg:
		return d, d.onRelocated(msg)
	case tea.WindowSizeMsg, themeChangedMsg:
		d.invalidate()
		return d, d.schedule()
	case pagesMsg:
		if msg.doc.Doc != d.op.Doc {
			if !d.ownsOp(msg.id) {
				return d, nil // another document's (one o opened over this)
			}
			d.onOpEnd(msg.id, nil) // loaded for a version no longer shown
			e.ops.done(msg.id)
			return d, d.loadShown()
		}
		note := d.installReopened(msg.reopened)
		cmd := tea.Batch(note, d.onPages(msg), d.loadShown())
		d.landHit()
		return d, tea.Batch(cmd, d.relocate(), d.schedule())
	case searchStepMsg:
		if msg.doc.Doc != d.op.Doc {
			if !d.ownsOp(msg.id) {
				return d, nil // another document's search
			}
			d.onOpEnd(msg.id, nil)
			e.ops.done(msg.id)
			return d, nil
		}
		note := d.installReopened(msg.reopened)
		if msg.doc.Doc != d.op.Doc {
			d.onOpEnd(msg.id, nil) // the search was of the old version
			e.ops.done(msg.id)
			return d, tea.Batch(note, d.loadShown())
		}
		return d, tea.Batch(note, d.onSearchStep(msg), d.schedule())
	case validatedMsg:
		if msg.doc.Doc != d.op.Doc {
			return d, nil
		}
		d.validateOp = 0
		d.findings = msg.findings
		d.validated = true
		d.validatedLoaded = d.loadedCount()
		d.trace.add(msg.trace...)
		return d, nil
	case errMsg:
		d.onOpEnd(msg.id, msg.err)
		return d, nil
	case cancelledMsg:
		d.onOpEnd(msg.id, nil)
		return d, nil
	case reconnectedMsg:
		return d, d.retryOffline()
	case imagesProbedMsg:
		d.onImagesProbed(msg)
		return d, d.schedule()
	case imageDecodedMsg:
		return d, tea.Batch(d.onImageDecoded(msg), d.schedule())
	case kittyEncodedMsg:
		return d, d.onKittyEncoded(msg)
	case imageModeMsg:
		d.invalidate()
		return d, d.kittyAll()
	case showHitMsg:
		if msg.i >= 0 && msg.i < len(d.search.hits) {
			d.search.cur = msg.i
			return d, tea.Batch(d.jumping(d.showHit), d.schedule())
		}
		return d, nil
	case jumpMsg:
		return d, tea.Batch(d.jumping(func() tea.Cmd { return d.gotoPage(msg.page, msg.el) }), d.schedule())
	case promptDoneMsg:
		return d, tea.Batch(d.jumping(func() tea.Cmd { return d.onPrompt(msg) }), d.schedule())
	case linkOpenedMsg:
		return d, d.onLinkOpened(msg)
	case tea.KeyPressMsg:
		cmd := d.jumping(func() tea.Cmd { return d.key(msg) })
		return d, tea.Batch(cmd, d.schedule())
	case tea.MouseWheelMsg:
		d.onWheel(msg)
		return d, d.schedule()
	case tea.MouseClickMsg:
		return d, tea.Batch(d.jumping(func() tea.Cmd { return d.onClick(msg) }), d.schedule())
	}
	_ = e
	return d, nil
}

// installReopened installs the Opened a load got from calling get_dpe again. The
// same version only brings a new access URI (unless an answer already
// installed expires later); another version replaces the page index and
// drops every page this screen had loaded, so pages of two versions never
// mix.
func (d *documentScreen) installReopened(next *dpe.Opened) tea.Cmd {
	if next == nil || next == d.op {
		return nil
	}
	if next.Doc == d.op.Doc {
		if cur := d.op.Access.ExpiresAt; cur.IsZero() || !next.Access.ExpiresAt.Before(cur) {
			d.op = next
		}
		return nil
	}
	d.op = next
	d.pages = d.pages[:0]
	for _, p := range next.Doc.Pages {
		d.pages = append(d.pages, pageUI{title: p.Title, hint: p.ElementCount, manifest: isManifest(p), hidden: p.SheetState() != ""})
	}
	d.page = min(d.page, max(0, len(d.pages)-1))
	d.sel, d.yoff = 0, 0
	clear(d.tv)
	clear(d.cell)
	clear(d.tables)
	d.failedOffline = map[int]bool{}
	d.findings, d.validated, d.validatedLoaded = nil, false, 0
	d.search = searchState{}
	d.bulk = nil
	d.invalidate()
	return d.e.info("the document changed while open: its pages were reloaded from the new version")
}

// loadShown loads the page on screen when nothing has it or is loading
// it and it has not failed: after another version replaced the page
// index, the load that was under way belonged to the old one.
func (d *documentScreen) loadShown() tea.Cmd {
	if d.page < 0 || d.page >= len(d.pages) || d.src != nil {
		return nil
	}
	if pu := &d.pages[d.page]; pu.loaded() || pu.loading || pu.err != "" {
		return nil
	}
	return d.loadPages(loadView, []int{d.page}, d.pendingJump)
}

// ownsOp: op id is one this screen started and waits for (a page load,
// a search, an export's load, a validation): with a document opened over
// another, both see every answer, and only the owner may end it.
func (d *documentScreen) ownsOp(id int) bool {
	if id == 0 {
		return false
	}
	if d.loadOp == id || d.search.op == id || d.validateOp == id || d.diffOp == id || d.bulk != nil && d.bulk.op == id {
		return true
	}
	for i := range d.pages {
		if d.pages[i].loading && d.pages[i].op == id {
			return true
		}
	}
	return false
}

// onOpEnd forgets loading state owned by an op that failed or was
// cancelled (err nil).
func (d *documentScreen) onOpEnd(id int, err error) {
	if id == 0 {
		return
	}
	if d.search.op == id {
		d.search.running = false
		d.search.op = 0
	}
	if d.validateOp == id {
		d.validateOp = 0
	}
	if d.bulk != nil && d.bulk.op == id {
		d.bulk = nil
	}
	if d.loadOp == id {
		d.loadOp = 0
		d.pendingFind = nil
	}
	for i := range d.pages {
		if d.pages[i].loading && d.pages[i].op == id {
			d.pages[i].loading = false
			if err != nil && !isCancel(err) {
				d.pages[i].err = oneLine(err)
			}
		}
	}
}

// jumping runs f, which may jump (another page, a search hit, a history
// move): a message on the status line from before the jump was about the
// place left, and goes, unless f said something of its own.
func (d *documentScreen) jumping(f func() tea.Cmd) tea.Cmd {
	e := d.e
	page, pushes, status := d.page, e.jumps.pushes, e.status.id
	back, fwd := len(e.jumps.back), len(e.jumps.fwd)
	cmd := f()
	moved := d.page != page || e.jumps.pushes != pushes || len(e.jumps.back) != back || len(e.jumps.fwd) != fwd
	if moved && e.status.id == status && e.status.text != "" {
		e.dropStatus()
	}
	return cmd
}

// key handles a key press on the document.
func (d *documentScreen) key(msg tea.KeyPressMsg) tea.Cmd {
	e := d.e
	k := e.keys
	_, cw := d.layout(e.width)
	d.ensureBlocks(cw)
	if d.h <= 0 {
		d.h = e.bodyHeight() - 1
	}
	if d.sideFocus {
		if cmd, ok := d.sidebarKey(msg); ok {
			return cmd
		}
	}
	if matches(msg, k.Back) {
		// esc leaves the innermost mode before the document.
		if cmd, ok := d.escInner(); ok {
			return cmd
		}
	}
	if cmd, ok := d.linkKey(msg); ok {
		return cmd
	}
	if d.isTableSelected() {
		if cmd, ok := d.tableKey(msg); ok {
			return cmd
		}
	}
	if d.isCodeSelected() {
		if cmd, ok := d.codeKey(msg); ok {
			return cmd
		}
	}
	if d.navKey(msg) {
		return nil
	}
	if cmd, ok := d.historyKey(msg); ok {
		return cmd
	}
	if cmd, ok := d.diffKey(msg); ok {
		return cmd
	}
	switch {
	case d.skill != nil && matches(msg, k.SkillFiles):
		return e.ask(pushMsg{s: newSkillFilesScreen(e, d.skill)})
	case matches(msg, k.Back):
		if e.behind == 0 {
			return e.info("press q to quit") // nothing to go back to
		}
		return d.e.ask(popMsg{})
	case matches(msg, k.SideFocus):
		if sw, _ := d.layout(e.width); sw == 0 {
			return e.info("the sidebar is hidden or needs a wider terminal (\\ shows it)")
		}
		d.sideFocus = !d.sideFocus
		d.side.cur = d.sidebarIndexOfPage(d.page)
		return nil
	case matches(msg, k.SideToggle):
		d.sideHidden = !d.sideHidden
		d.sideFocus = false
		d.invalidate()
		return nil
	case matches(msg, k.NextPage):
		return d.gotoPage(d.page+1, 0)
	case matches(msg, k.PrevPage):
		return d.gotoPage(d.page-1, 0)
	case matches(msg, k.NextTable):
		return d.jumpCategory(dpe.CategoryTable, 1)
	case matches(msg, k.PrevTable):
		return d.jumpCategory(dpe.CategoryTable, -1)
	case matches(msg, k.NextTitle):
		return d.jumpCategory(dpe.CategoryTitle, 1)
	case matches(msg, k.PrevTitle):
		return d.jumpCategory(dpe.CategoryTitle, -1)
	case matches(msg, k.NextImage):
		return d.jumpCategory(dpe.CategoryImage, 1)
	case matches(msg, k.PrevImage):
		return d.jumpCategory(dpe.CategoryImage, -1)
	case matches(msg, k.ColLeft, k.ColRight, k.RowUp, k.RowDown, k.Widen, k.Narrow):
		return e.info("select a table or a code block to scroll it (t jumps to the next table)")
	case matches(msg, k.Search):
		return d.e.ask(promptMsg{mode: barSearch})
	case matches(msg, k.NextHit):
		return d.nextHit(1)
	case matches(msg, k.PrevHit):
		return d.nextHit(-1)
	case matches(msg, k.HitList):
		if len(d.search.hits) == 0 {
			return e.info("no search hits: / searches every page")
		}
		return d.e.ask(overlayMsg{s: newHitList(e, d)})
	case matches(msg, k.Inspect):
		if d.selected() == nil {
			return nil
		}
		return tea.Batch(d.identify(), d.e.ask(overlayMsg{s: newInspector(e, d)}))
	case matches(msg, k.Raw):
		s := scopeElement
		if d.selected() == nil {
			s = scopePage
		}
		return d.e.ask(overlayMsg{s: newRawOverlay(e, d, s)})
	case matches(msg, k.Trace):
		return d.e.ask(overlayMsg{s: newTraceOverlay(e, d.trace)})
	case matches(msg, k.Conformance):
		var cmd tea.Cmd
		if (!d.validated || d.validatedLoaded != d.loadedCount()) && d.validateOp == 0 {
			d.validated = false
			cmd = d.validate()
		}
		return tea.Batch(cmd, d.e.ask(overlayMsg{s: newConformance(e, d)}))
	case matches(msg, k.Copy):
		c := copyMenuMsg{resURI: d.uri, access: d.op.Access.URI}
		if el := d.selected(); el != nil {
			c.text, c.json = el.Text, string(el.Raw)
		}
		return d.e.ask(c)
	case matches(msg, k.Export):
		return d.proposeFree(barExportDoc, exportName(d.title(), ".md"))
	case matches(msg, k.ExportPage):
		return d.proposeFree(barExportPage, exportName(fmt.Sprintf("%s-page-%d", d.title(), d.page+1), ".md"))
	case matches(msg, k.SaveImage):
		el := d.selected()
		if el == nil || dpe.NormalizeCategory(el.Category) != dpe.CategoryImage {
			return e.info("select an Image element to save it (i jumps to the next image)")
		}
		_, mime, err := render.ImageData(el, e.renderer.Limits().MaxImageBytes)
		if err != nil {
			return e.setErr("save image", err)
		}
		return d.e.ask(promptMsg{mode: barSaveImage, value: dpe.SuggestFileName(imageName(d, el), mime)})
	case matches(msg, k.Retry):
		if pu := &d.pages[d.page]; !pu.loaded() {
			if pu.loading {
				return nil
			}
			return d.retryPage(d.page)
		}
		return d.reopen()
	}
	return nil
}

// proposeFree opens the prompt of mode with name, or, when a file of that
// name is there already, the first free "name-N" (looked at in a
// command: a stat is I/O).
func (d *documentScreen) proposeFree(mode barMode, name string) tea.Cmd {
	opt := d.e.opt
	return func() tea.Msg { return promptMsg{mode: mode, value: freeName(opt, name)} }
}

// maxFreeNames bounds the names tried for a free one.
const maxFreeNames = 100

// freeName is name when no file has it, else name-2, name-3, … (the
// first free one), else name itself: the write then says it exists.
func freeName(opt Options, name string) string {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	try := name
	for n := 2; n <= maxFreeNames; n++ {
		path, err := resolvePath(opt, try)
		if err != nil {
			return name
		}
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			return try
		}
		try = stem + "-" + strconv.Itoa(n) + ext
	}
	return name
}

// escStep is what esc does on the document, innermost mode first: the
// link tab chose, the table's cell cursor, then a search the user typed, then a comparison,
// and only then back out of the document. escInner does it and escHint
// names it, so the footer shows the one esc that will happen.
type escStep int

const (
	escBack escStep = iota
	escTable
	escSearch
	escDiff
	escLink
	escAnchor
)

func (d *documentScreen) escStep() escStep {
	_, link := d.curLink()
	switch {
	case link:
		return escLink
	case d.tableActive():
		return escTable
	case d.search.query != "" && d.search.near == nil:
		// A search a Finder hit carried in (near) is the Finder's:
		// esc goes back to it.
		return escSearch
	case d.diff != nil && d.search.query == "":
		return escDiff
	case d.anchorBack != nil && d.anchorBack.page == d.page:
		// An #anchor followed is a move inside the document: esc takes
		// it back, as a browser's back does, before leaving.
		return escAnchor
	}
	return escBack
}

// escDesc is each step as a footer hint, escSays as what "esc again"
// will do.
var (
	escDesc = map[escStep]string{escBack: "back", escTable: "leave table", escSearch: "clear search", escDiff: "clear diff", escLink: "leave link", escAnchor: "back to the link"}
	escSays = map[escStep]string{escBack: "goes back", escTable: "leaves the table", escSearch: "clears the search", escDiff: "clears the diff", escLink: "leaves the link", escAnchor: "goes back to the link"}
)

// escHint is the footer's esc binding, saying what esc does now.
func (d *documentScreen) escHint() key2 { return withHelp(d.e.keys.Back, escDesc[d.escStep()]) }

// escClearsStatus: on the document a message on the status line is the
// innermost thing esc puts away (the root does it, before escInner).
func (d *documentScreen) escClearsStatus() bool { return true }

// escInner leaves the innermost mode; ok is false when esc leaves the
// document.
func (d *documentScreen) escInner() (tea.Cmd, bool) {
	e := d.e
	switch d.escStep() {
	case escLink:
		d.link = linkAt{}
		return nil, true
	case escTable:
		d.cellAway = tableAt{true, d.page, d.sel}
		if next := d.escStep(); next != escBack || e.behind > 0 {
			return e.info("left the table · " + e.keys.Back.Help().Key + " again " + escSays[next]), true
		}
		return e.info("left the table"), true // esc again has nothing to go back to
	case escSearch:
		d.clearSearch()
		return nil, true
	case escDiff:
		d.diff = nil
		d.invalidate()
		return e.info("comparison cleared"), true
	case escAnchor:
		return d.returnFromAnchor(), true
	}
	return nil, false
}

// reopen opens the document again (r on a loaded page) and shows the
// same place: the page and the selected element.
func (d *documentScreen) reopen() tea.Cmd {
	if rs, ok := d.src.(*remoteSource); ok {
		return rs.reopen(d.e, d.page)
	}
	at := d.placeHere()
	if d.res != nil {
		res := *d.res
		return d.e.ask(openURIMsg{uri: d.uri, res: &res, computer: res.Computer, at: at})
	}
	if d.e.agent != nil && d.target == "" {
		return d.e.ask(openURIMsg{uri: d.uri, at: at})
	}
	return d.e.ask(retryMsg{at: at})
}

// placeHere is the place on screen as an open lands on it: the page and
// the selected element, by id (its index when the id is gone).
func (d *documentScreen) placeHere() *hitPlace {
	at := &hitPlace{page: d.page + 1, el: d.sel}
	if el := d.selected(); el != nil {
		at.elementID = el.ID
	}
	return at
}

// sideKeys are the keys of the focused sidebar beyond moving: enter
// opens the page or section under the cursor, tab gives the focus back.
func (d *documentScreen) sideKeys() []key2 {
	k := d.e.keys
	return []key2{withHelp(k.Enter, "open"), withHelp(k.SideFocus, "back to the page")}
}

func (d *documentScreen) Keys() screenKeys {
	k := d.e.keys
	// enter is the cell view on a selected table (its cursor shown or
	// not), the inspector elsewhere.
	inspect := k.Inspect
	if d.isTableSelected() {
		inspect = except(k.Inspect, k.Cell)
	}
	_, onLink := d.curLink()
	if onLink {
		// enter follows the link tab chose; . still inspects.
		inspect = except(inspect, k.FollowLink)
	}
	if d.sideFocus {
		// enter opens the sidebar's entry; . still inspects.
		inspect = except(inspect, k.Enter)
	}
	esc := d.escHint()
	short := []key2{k.NextPage, k.PrevPage, k.Search, inspect, k.Raw, k.Trace, k.Conformance, k.Export}
	if len(d.pageLinks()) > 0 && !d.sideFocus {
		short = slices.Insert(short, 2, k.NextLink)
	}
	if d.escStep() == escBack && d.e.behind > 0 {
		short = slices.Insert(short, 4, esc)
	}
	// The footer's table keys go with the cell cursor: after esc put it
	// away they would say what esc just undid.
	if d.tableActive() {
		short = append([]key2{k.ColRight, k.ColLeft, k.Cell, withHelp(k.RowDown, "row down"), k.Widen}, short...)
	}
	if d.isCodeSelected() {
		short = append([]key2{k.CodeRight, k.CodeLeft}, short...)
	}
	if d.search.query != "" {
		short = append([]key2{k.NextHit, k.HitList}, short...)
	} else if d.diff != nil {
		short = append([]key2{k.NextChange, k.PrevChange}, short...)
	}
	if d.escStep() != escBack {
		// What esc leaves goes first: it is the way out of the mode.
		short = append([]key2{esc}, short...)
	}
	if onLink {
		short = append([]key2{k.FollowLink}, short...)
	}
	if d.skill != nil {
		short = append([]key2{k.SkillFiles}, short...)
	}
	if len(d.pages) > 0 && d.pages[min(d.page, len(d.pages)-1)].err != "" && !d.pages[min(d.page, len(d.pages)-1)].loaded() {
		short = append([]key2{withHelp(k.Retry, "retry page")}, short...)
	}
	if d.sideFocus {
		// The sidebar's keys first: enter there opens its entry (what
		// the page's enter hints would say is not what it does), tab
		// gives the page the focus back.
		short = slices.DeleteFunc(short, func(b key2) bool { return slices.Contains(b.Keys(), "enter") })
		short = append(d.sideKeys(), short...)
	}
	// n/N are the hit keys, or the change keys while a diff is shown and
	// nothing is searched: help lists each key once, with what it does now.
	next, prev := k.NextHit, k.PrevHit
	if d.diff != nil && d.search.query == "" {
		next, prev = k.NextChange, k.PrevChange
	}
	// h/l scroll a selected code block sideways, else a table's column:
	// help lists them once, with what they do now.
	left, right := k.ColLeft, k.ColRight
	if d.isCodeSelected() {
		left, right = k.CodeLeft, k.CodeRight
	}
	table := []key2{left, right, k.RowDown, k.RowUp, k.FirstCol, k.LastCol, k.Widen, k.Narrow}
	if d.isTableSelected() && !onLink {
		table = append(table, k.Cell)
	}
	// tab is the next link while the page has links and the body has
	// focus, else the sidebar focus; enter follows a chosen link: help
	// lists each key once, with what it does now.
	tabKeys := []key2{k.SideFocus}
	switch {
	case d.sideFocus:
		tabKeys = d.sideKeys()
	case len(d.pageLinks()) > 0:
		tabKeys = []key2{k.NextLink, k.PrevLink}
	}
	if onLink {
		tabKeys = append(tabKeys, k.FollowLink)
	}
	docKeys := []key2{inspect, k.Raw, k.Trace, k.Conformance, k.Copy, k.Export, k.ExportPage, k.SaveImage, withHelp(k.Retry, "retry/reopen"), k.Diff, k.JumpBack, k.JumpForward}
	if d.skill != nil {
		docKeys = append(docKeys, k.SkillFiles)
	}
	return screenKeys{
		short: short,
		full: [][]key2{
			append(k.navKeys(), append(tabKeys, k.SideToggle)...),
			{k.NextPage, k.PrevPage, k.Command, k.NextTitle, k.PrevTitle, k.NextTable, k.PrevTable, k.NextImage, k.PrevImage},
			append(table, k.Search, next, prev, k.HitList),
			docKeys,
			k.globalKeys(),
		},
		notes: []string{
			"Links: while the page has links, " + k.NextLink.Help().Key + " and " + k.PrevLink.Help().Key + " move between them (after the last, " + k.SideFocus.Help().Key + " gives the sidebar focus, as on a page without links) and " + k.FollowLink.Help().Key + " follows one: a dpe:// or relative link opens here (" + k.Back.Help().Key + " comes back), an http(s) link asks first",
			"Sidebar: each page's number, title and element count; a spinner while it loads · ◌ not fetched yet · ! failed to load · ± changed (" + k.Diff.Help().Key + " compares)",
		},
	}
}

// Crumb names the computer that answered when the document was opened by
// URI (no servers screen names it), then the title and page.
func (d *documentScreen) Crumb() string {
	// The title whole: the breadcrumb fits itself to the terminal's
	// width (fitCrumbs), so a wide one shows all of it.
	c := sanitizeLine(d.title()) + " › page " + strconv.Itoa(d.page+1) + "/" + strconv.Itoa(len(d.pages))
	if d.res == nil {
		if who := d.op.Access.Computer; who != "" {
			c = "@" + sanitizeLine(who) + " › " + c
		} else if who := d.trace.answeredBy(); who != "" {
			c = "@" + sanitizeLine(who) + " › " + c
		}
	}
	return c
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

func isTable(el *dpe.Element) bool {
	c := dpe.NormalizeCategory(el.Category)
	return c == dpe.CategoryTable || c == dpe.CategoryTableChunk
}
