package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// openTimeout bounds one open (get_dpe + fetch + decode) as a backstop;
// the fetcher has its own whole-request and idle timeouts.
const openTimeout = 10 * time.Minute

var errNoResolver = errors.New("no resolver for this computer")

// openDPE resolves and opens a dpe:// URI. The computer is the one whose
// listing it came from, or "" to let the agent route by the URI's host.
func (m *model) openDPE(req openURIMsg) tea.Cmd {
	e := m.e
	if e.agent == nil {
		return e.setStatus(statusErr, "open "+sanitizeLine(req.uri)+": no server connection (open mode)")
	}
	if l := e.opt.Local; l != nil && isNonDPEURI(req.uri) {
		// Typed in the open bar: on a server's screen of the local
		// computer that server reads it (several may list URIs like
		// it), elsewhere the one that lists it.
		server := ""
		if rs, ok := m.top().(serverShown); ok {
			if computer, key := rs.shownServer(); e.localFor(computer) != nil {
				server = string(key)
			}
		}
		return readLocal(e, l, server, req.uri)
	}
	computer := req.computer
	if req.res != nil && req.res.Computer != "" {
		computer = req.res.Computer
	}
	tl := newTraceLog(req.uri, computer)
	tl.origin, tl.originPage = req.res, req.origin
	e.lastTrace = tl
	opener := &dpe.Opener{Resolver: recordingResolver{inner: e.agent.Resolver(computer), computer: computer, now: e.opt.Now},
		Fetcher: e.opt.Fetcher, Limits: e.opt.Limits, Now: e.opt.Now}
	uri, res, origin, at, over := req.uri, req.res, req.origin, req.at, req.over
	_, cmd := e.start("opening "+sanitizeLine(uri), openTimeout, func(ctx context.Context, id int) tea.Msg {
		o, buf := tracedOpener(opener)
		msg := doOpen(ctx, id, o, buf, uri, func(ctx context.Context) (*dpe.Opened, error) { return o.Open(ctx, uri) })
		return stampOpened(msg, func(om *openedMsg) { om.res, om.origin, om.at, om.over = res, origin, at, over })
	})
	return cmd
}

// openTarget is `dpe-tui open <file|URL>`: no resolver, straight to fetch;
// at is where the document opens (nil: page 1).
func (m *model) openTarget(target string, at *hitPlace) tea.Cmd {
	return m.openTargetOver(target, at, false)
}

// openTargetOver is openTarget; over: the document opens above the one
// shown, so esc comes back to it (a followed link, a path typed at o).
func (m *model) openTargetOver(target string, at *hitPlace, over bool) tea.Cmd {
	e := m.e
	if p, ok := localFile(target); ok && e.opt.OpenFile != nil {
		return m.openFile(target, p, at, over)
	}
	access := targetURI(target)
	e.lastTrace = newTraceLog(access, "")
	opener := &dpe.Opener{Fetcher: e.opt.Fetcher, Limits: e.opt.Limits, Now: e.opt.Now}
	convertFetched, now := e.opt.ConvertFetched, e.opt.Now
	id, cmd := e.start("opening "+sanitizeLine(target), openTimeout, func(ctx context.Context, id int) tea.Msg {
		o, buf := tracedOpener(opener)
		t0 := now()
		msg := doOpen(ctx, id, o, buf, access, func(ctx context.Context) (*dpe.Opened, error) { return o.OpenAccess(ctx, access) })
		if om, ok := msg.(openedMsg); ok && convertFetched != nil && om.opened != nil && om.opened.Kind != dpe.KindDocument {
			// A PDF, DOCX, web page… at a URL opens as the same file here
			// would.
			src, handled, err := convertFetched(ctx, om.opened)
			if err != nil {
				return errMsg{id: id, what: "open " + sanitizeLine(target), err: err}
			}
			if handled {
				cb := &traceBuf{entries: om.trace}
				return sourceOpened(ctx, id, target, target, src, opener, cb, now, t0, at, over)
			}
		}
		return stampOpened(msg, func(om *openedMsg) { om.target, om.at, om.over = target, at, over })
	})
	if w, ok := m.top().(opWaiter); ok {
		w.waitOn(id)
	}
	return cmd
}

// stampOpened applies set to the openedMsg an open answers with, whether
// it comes whole or as page 1 first (firstPageMsg) and the whole after it,
// so where the open came from (a listing entry, a Finder hit's page, a
// target) survives both steps.
func stampOpened(msg tea.Msg, set func(*openedMsg)) tea.Msg {
	switch om := msg.(type) {
	case openedMsg:
		set(&om)
		return om
	case firstPageMsg:
		set(&om.openedMsg)
		if rest := om.rest; rest != nil {
			om.rest = func() tea.Msg { return stampOpened(rest(), set) }
		}
		return om
	}
	return msg
}

// tracedOpener is a copy of o for one command: its trace events and
// get_dpe calls go to a buffer the command owns and hands back in its
// message, so nothing is shared with the loop while it runs.
func tracedOpener(o *dpe.Opener) (*dpe.Opener, *traceBuf) {
	buf := &traceBuf{}
	c := *o
	c.OnTrace = buf.event
	if rr, ok := c.Resolver.(recordingResolver); ok {
		rr.buf = buf
		c.Resolver = rr
	}
	return &c, buf
}

// firstPageMsg shows page 1 of a document while the open goes on reading,
// validating and indexing the rest (dpe.Opener.OnFirstPage); rest waits
// for the open's final answer (an openedMsg or errMsg with the same op
// id), which replaces this screen. It is a step: the op stays live, so
// esc still cancels the rest.
type firstPageMsg struct {
	openedMsg
	rest tea.Cmd
}

func (firstPageMsg) chained() {}

// doOpen opens in a goroutine of its own and answers with page 1 as soon
// as the opener hands it over (firstPageMsg), else with the whole open.
func doOpen(ctx context.Context, id int, opener *dpe.Opener, buf *traceBuf, uri string, open func(context.Context) (*dpe.Opened, error)) tea.Msg {
	shown := *opener // what the screen keeps: without the hook, nor this buffer
	shown.OnTrace = nil
	firsts := make(chan *dpe.Opened, 1)
	opener.OnFirstPage = func(op *dpe.Opened) { firsts <- op } // called at most once
	final := make(chan tea.Msg, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				final <- errMsg{id: id, what: "open " + sanitizeLine(uri), err: fmt.Errorf("internal error: %v", r), panic: true}
			}
		}()
		final <- doOpenWhole(ctx, id, opener, buf, uri, open)
	}()
	select {
	case msg := <-final:
		return msg
	case op := <-firsts:
		// The trace buffer is still being written: the final answer
		// carries it.
		return firstPageMsg{openedMsg: openedMsg{id: id, opened: op, uri: uri, opener: &shown, first: op.Doc.Pages[0]},
			rest: func() tea.Msg { return <-final }}
	}
}

func doOpenWhole(ctx context.Context, id int, opener *dpe.Opener, buf *traceBuf, uri string, open func(context.Context) (*dpe.Opened, error)) tea.Msg {
	now := opener.Now
	t0 := now()
	op, err := open(ctx)
	if err != nil {
		return errMsg{id: id, what: "open " + sanitizeLine(uri), err: err, trace: buf.entries}
	}
	msg := openedMsg{id: id, opened: op, uri: uri, opener: opener}
	// Decode the first page here so the document appears in one step.
	if op.Kind == dpe.KindDocument && op.Doc != nil && len(op.Doc.Pages) > 0 {
		var re *dpe.Opened
		msg.first, re, msg.firstErr = loadPageCopy(ctx, opener, buf, op, 0)
		if re != nil {
			msg.opened = re // re-resolved before any screen held op
		}
	}
	msg.duration = now().Sub(t0)
	msg.trace = buf.entries
	return msg
}

// loadPageCopy returns page i of op decoded, without writing anything the
// UI reads: an inline page is decoded into a copy; a manifest page is
// fetched through dpe.Opener.LoadPage, which hands back a copy and, when it
// had to call get_dpe again, the Opened that replaces op (re), for Update
// to install. op and its document are never written.
func loadPageCopy(ctx context.Context, opener *dpe.Opener, buf *traceBuf, op *dpe.Opened, i int) (p *dpe.Page, re *dpe.Opened, err error) {
	if i >= 0 && i < len(op.Doc.Pages) && !isManifest(op.Doc.Pages[i]) {
		t0 := time.Now()
		q, err := op.Doc.PageCopy(i, opener.Limits)
		ev := dpe.TraceEvent{At: opener.Now(), Kind: dpe.TraceDecode, Detail: "page " + strconv.Itoa(i+1), Bytes: int64(len(op.Doc.Pages[i].Raw)), Duration: time.Since(t0)}
		if err != nil {
			ev.Err = err.Error()
		}
		buf.event(ev)
		return q, nil, err
	}
	pl, err := opener.LoadPage(ctx, op, i)
	return pl.Page, pl.Reopened, err
}

// isManifest reports whether page i must be fetched.
func isManifest(p *dpe.Page) bool { return !p.Inline() }

// targetURI turns a path into a file:// URI; URLs pass through.
func targetURI(target string) string {
	if u, err := url.Parse(target); err == nil && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "file") {
		return target
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		abs = target
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// onFirstPage shows page 1 of a document still being read and validated,
// and waits for the rest.
func (m *model) onFirstPage(msg firstPageMsg) tea.Cmd {
	cmd := m.onOpened(msg.openedMsg)
	m.e.progress(msg.id, "page 1 shown · validating…")
	return tea.Batch(cmd, msg.rest)
}

// onOpened shows what was opened: a document screen, or the content view
// for anything else. A document opened from a document or content screen
// replaces it, so back always leads to the list it came from.
func (m *model) onOpened(msg openedMsg) tea.Cmd {
	e := m.e
	op := msg.opened
	m.overlay = nil
	tl := newTraceLog(msg.uri, "")
	if e.lastTrace != nil && e.lastTrace.uri == msg.uri {
		tl = e.lastTrace
	}
	tl.add(msg.trace...)
	e.lastTrace = tl
	// A history move's open lands where the move goes, and is no jump of
	// its own.
	to, move := e.jumps.arrived(msg.id)
	if move && msg.at == nil {
		msg.at = to.at()
	}
	var s screen
	var cmd tea.Cmd
	if op.Kind != dpe.KindDocument || op.Doc == nil {
		c := newContentScreen(e, msg, tl)
		s, cmd = c, c.render()
	} else {
		d := newDocumentScreen(e, msg, tl)
		d.src, d.skill = msg.src, msg.skill
		d.skillFrom, d.skillRel = msg.skillFrom, msg.skillRel
		if msg.skill != nil {
			d.skillFrom = msg.skill
		}
		s = d
		cmd = tea.Batch(d.validate(), d.schedule(), e.setStatus(statusOK, "opened "+sanitizeLine(titleOf(op))+" in "+took(msg.duration)))
		if op.Partial {
			cmd = tea.Batch(d.schedule(), e.setStatus(statusInfo, "page 1 of "+sanitizeLine(titleOf(op))+" shown; validating…"))
		}
		if msg.firstErr != nil && !errors.As(msg.firstErr, new(*noContentError)) {
			cmd = tea.Batch(cmd, e.setErr("page 1", msg.firstErr))
		}
		// Where the document opens is not a jump of its own: the jump is
		// from the place left (recorded below) to here.
		cmd = tea.Batch(cmd, e.quietly(func() tea.Cmd {
			c := tea.Batch(d.jumpToHit(msg.at), d.startWatch())
			if msg.at == nil {
				c = tea.Batch(c, d.restoreOnOpen())
			}
			return c
		}))
	}
	if prev, ok := m.top().(placeKeeper); ok && !move {
		e.jumps.push(prev.here())
	}
	switch t := m.top().(type) {
	case reader:
		if msg.over {
			m.stack = append(m.stack, s) // esc comes back here
			break
		}
		if d, ok := t.(placeKeeper); ok {
			d.leave()
			cmd = tea.Batch(cmd, e.positions.save())
		}
		if st, ok := t.(stopper); ok {
			st.stop()
		}
		m.stack[len(m.stack)-1] = s
		// Back (ctrl+o) to the document o opened this one over: the new
		// screen takes its place too, so the stack never holds it twice.
		if n := len(m.stack); n >= 2 {
			if under, ok := m.stack[n-2].(uriShown); ok && under.showsURI(msg.uri) {
				if st, ok := under.(stopper); ok {
					st.stop()
				}
				m.stack = append(m.stack[:n-2], s)
			}
		}
	case standIn:
		m.stack = []screen{s}
	default:
		m.stack = append(m.stack, s)
	}
	return cmd
}

func titleOf(op *dpe.Opened) string {
	if op.Doc != nil && op.Doc.Title != "" {
		return op.Doc.Title
	}
	if op.Doc != nil && op.Doc.DocRef != "" {
		return op.Doc.DocRef
	}
	if len(op.DPE.Segments) > 0 {
		return op.DPE.DocRef()
	}
	return op.Access.URI
}

// recordingResolver records every get_dpe call (request and whole answer)
// in the command's trace buffer, including the re-call after an expired or
// failed access URI. It is the one record of get_dpe: the opener's own
// get_dpe events are dropped by the buffer.
type recordingResolver struct {
	inner    dpe.Resolver
	buf      *traceBuf
	computer string
	now      func() time.Time
}

func (r recordingResolver) Resolve(ctx context.Context, uri string) (dpe.Access, error) {
	t0 := r.now()
	if r.inner == nil {
		r.buf.getDPE(t0, uri, r.computer, dpe.Access{}, 0, errNoResolver)
		return dpe.Access{}, errNoResolver
	}
	a, err := r.inner.Resolve(ctx, uri)
	r.buf.getDPE(t0, uri, r.computer, a, r.now().Sub(t0), err)
	return a, err
}
