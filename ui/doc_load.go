package ui

import (
	"context"
	"fmt"
	"strconv"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
)

// gotoPage shows page i, loading it first when needed; jump selects an
// element once it is there (-1 keeps the top).
func (d *documentScreen) gotoPage(i, jump int) tea.Cmd {
	e := d.e
	if i < 0 || i >= len(d.pages) {
		if len(d.pages) == 0 {
			return e.info("this document has no pages")
		}
		return e.info(fmt.Sprintf("no page %d (1–%d)", i+1, len(d.pages)))
	}
	if jump >= 0 {
		d.pendingFind = nil
	}
	if i == d.page && jump >= 0 && jump != d.sel {
		d.recordJump() // a jump to another element of this page
	}
	if i != d.page {
		d.recordJump()
		// Table cursors and scroll offsets are per element index of the
		// page shown: a cell chosen on another page must not land on
		// this page's table of the same index. The page left keeps its
		// own, for when it is shown again.
		d.tables[d.page] = pageTables{tv: d.tv, cell: d.cell}
		back := d.tables[i]
		delete(d.tables, i)
		d.tv, d.cell = back.tv, back.cell
		if d.tv == nil {
			d.tv, d.cell = map[int]render.TableView{}, map[int]cellPos{}
		}
	}
	d.page = i
	d.sel, d.yoff = max(0, jump), 0
	d.invalidate()
	if d.pages[i].loaded() {
		_, cw := d.layout(e.width)
		d.ensureBlocks(cw)
		d.reveal(true)
		// A search hit on a page the search decoded: its table is
		// pointed at the hit's cell now, as onPages does for a page
		// loaded for the jump.
		if d.search.focus != nil {
			d.focusHit()
		}
		return nil
	}
	d.pendingJump = jump
	if d.pages[i].loading {
		return nil // another op is loading it already
	}
	if d.pages[i].err != "" {
		return nil // r retries it; paging past a failed page must not hammer
	}
	return d.loadPages(loadView, []int{i}, jump)
}

// loadPages starts one op loading the given pages (copies, installed by
// onPages). A loadAll run loads them in steps of pagesPerStep.
func (d *documentScreen) loadPages(kind loadKind, idx []int, jump int) tea.Cmd {
	e := d.e
	label := "loading page " + strconv.Itoa(idx[0]+1)
	var id int
	var cmd tea.Cmd
	if kind == loadAll {
		id, cmd = e.startLong("loading "+counted(len(idx), "page", "pages")+" to export", d.loadStep(idx, 0, kind, jump))
	} else {
		id, cmd = e.start(label, 0, d.loadStep(idx, 0, kind, jump))
	}
	d.markLoading(idx, id, kind != loadAll)
	return cmd
}

// pagesPerStep is how many pages one step of a long run loads, so the
// loop installs them (and shows progress) as they come.
const pagesPerStep = 16

// loadStep loads idx[from:from+pagesPerStep] and answers with the pages.
func (d *documentScreen) loadStep(idx []int, from int, kind loadKind, jump int) func(ctx context.Context, id int) tea.Msg {
	opener, op, load := d.opener, d.op, d.pageLoader()
	return func(ctx context.Context, id int) tea.Msg {
		o, buf := tracedOpener(opener)
		msg := pagesMsg{id: id, doc: op, pages: map[int]*dpe.Page{}, errs: map[int]error{}, next: -1, jump: jump, kind: kind}
		end := min(len(idx), from+pagesPerStep)
		if kind != loadAll {
			end = len(idx)
		}
		for _, i := range idx[from:end] {
			if err := ctx.Err(); err != nil {
				msg.errs[i] = err
				break
			}
			p, re, err := load(ctx, o, buf, op, i)
			if re != nil {
				if re.Doc != op.Doc {
					// Another version: what was loaded belongs to the old one.
					clear(msg.pages)
					clear(msg.errs)
				}
				op, msg.reopened = re, re
			}
			if err != nil {
				msg.errs[i] = err
				continue
			}
			msg.pages[i] = p
		}
		if end < len(idx) && ctx.Err() == nil {
			msg.next = end
		}
		msg.trace = buf.entries
		return msg
	}
}

// onPages installs loaded pages and continues a long run.
func (d *documentScreen) onPages(msg pagesMsg) tea.Cmd {
	e := d.e
	d.trace.add(msg.trace...)
	var cmds []tea.Cmd
	for i, p := range msg.pages {
		d.install(i, p)
	}
	offline := e.agent != nil && e.conn.State != client.Connected
	for i, err := range msg.errs {
		if d.failed(i, err, offline) && (i == d.page || msg.kind == loadRetry) {
			cmds = append(cmds, e.setErr("page "+strconv.Itoa(i+1), err))
		}
	}
	if msg.kind == loadAll && d.bulk != nil && d.bulk.op == msg.id {
		return tea.Batch(append(cmds, d.bulkStep(msg))...)
	}
	e.ops.done(msg.id)
	d.loadEnded(msg.id)
	if p, ok := msg.pages[d.page]; ok && p != nil {
		_, cw := d.layout(e.width)
		d.ensureBlocks(cw)
		if d.pendingJump >= 0 {
			d.sel = d.pendingJump
		}
		d.pendingJump = -1
		d.reveal(true)
		if d.search.focus != nil {
			d.focusHit()
		}
		if f := d.pendingFind; f != nil {
			d.pendingFind = nil
			d.sel = -1
			if f.dir < 0 {
				d.sel = len(p.Elements)
			}
			cmds = append(cmds, d.findCategory(*f))
		}
	}
	if msg.kind == loadRetry && len(msg.errs) == 0 {
		cmds = append(cmds, e.setStatus(statusOK, fmt.Sprintf("page %d loaded", d.page+1)))
	}
	return tea.Batch(cmds...)
}

// retryPage loads a failed page again, in place.
func (d *documentScreen) retryPage(i int) tea.Cmd {
	d.pages[i].err = ""
	d.pendingJump = -1
	return d.loadPages(loadRetry, []int{i}, -1)
}

// retryOffline retries, after a reconnect, the pages that failed while
// the connection was down.
func (d *documentScreen) retryOffline() tea.Cmd {
	idx := d.takeOffline()
	if len(idx) == 0 {
		return nil
	}
	return d.loadPages(loadRetry, idx, -1)
}

// validate runs the conformance check (dpe.Validate) off the loop on the
// document as this screen holds it: the shared headers and the screen's
// own decoded pages (nothing is written).
func (d *documentScreen) validate() tea.Cmd {
	if d.op.Partial {
		return nil // page 1 only: the final document is validated
	}
	opener, op, now := d.opener, d.op, d.e.opt.Now
	view := op.WithPages(d.snapshot().pages)
	id, cmd := d.e.start("validating", 0, func(ctx context.Context, id int) tea.Msg {
		o, buf := tracedOpener(opener)
		t0 := now()
		f := o.Validate(view) // traces the validation itself
		return validatedMsg{id: id, doc: op, findings: f, duration: now().Sub(t0), trace: buf.entries}
	})
	d.validateOp = id
	return cmd
}

// bulkRun is an export waiting for every page: the pages load in steps,
// then the file is written from the installed copies.
type bulkRun struct {
	op     int
	name   string
	asJSON bool
	total  int
	failed []int
	// pending is the pages the run loads, in order.
	pending []int
}

// exportDoc starts B1: load every page not loaded yet (with progress, esc
// cancels), then write the whole document.
func (d *documentScreen) exportDoc(name string, asJSON bool) tea.Cmd {
	var idx []int
	for i := range d.pages {
		if !d.pages[i].loaded() {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return d.writeExport(name, asJSON, nil)
	}
	if d.bulk != nil {
		return d.e.info("an export is already loading pages")
	}
	d.bulk = &bulkRun{name: name, asJSON: asJSON, total: len(idx)}
	cmd := d.loadPages(loadAll, idx, -1)
	d.bulk.op = d.pages[idx[0]].op
	d.bulk.pending = idx
	return cmd
}

func (d *documentScreen) bulkStep(msg pagesMsg) tea.Cmd {
	e := d.e
	b := d.bulk
	for i := range msg.errs {
		b.failed = append(b.failed, i)
	}
	done := b.total
	if msg.next >= 0 {
		done = msg.next
	}
	e.progress(msg.id, fmt.Sprintf("page %d/%d", done, b.total))
	if msg.next >= 0 {
		return e.step(msg.id, d.loadStep(b.pending, msg.next, loadAll, -1))
	}
	e.ops.done(msg.id)
	d.bulk = nil
	return d.writeExport(b.name, b.asJSON, b.failed)
}
