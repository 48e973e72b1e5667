package ui

import (
	"context"
	"net/url"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
)

// openTimeout bounds one open (get_dpe + fetch + decode) as a backstop; the
// fetcher has its own whole-request and idle timeouts.
const openTimeout = 10 * time.Minute

// openDPE resolves and opens a dpe:// URI. res is the listing row it came
// from (nil when typed), recorded in the trace.
func (m *model) openDPE(uri string, res *client.Resource) tea.Cmd {
	if m.agent == nil {
		return m.setStatus(statusErr, "open "+sanitizeLine(uri)+": no server connection (open mode)")
	}
	computer := ""
	switch {
	case res != nil:
		computer = res.Computer
	case m.screen == screenResources || m.screen == screenServers:
		computer = m.servers.computer
	}
	tl := newTraceLog(uri, computer)
	tl.recorded = true
	if res != nil && res.PageNo > 0 && res.PageNo <= len(m.res.pages) && m.res.server == res.Server {
		pr := m.res.pages[res.PageNo-1]
		tl.origin = res
		tl.originPage = &pr
	} else if res != nil {
		tl.origin = res
	}
	resolver := recordingResolver{inner: m.agent.Resolver(computer), log: tl, computer: computer, now: m.opt.Now}
	opener := &dpe.Opener{Resolver: resolver, Fetcher: m.opt.Fetcher, Limits: m.opt.Limits, Now: m.opt.Now, OnTrace: tl.add}
	m.lastTrace = tl
	return m.start("opening "+sanitizeLine(uri), openTimeout, func(ctx context.Context, id int) tea.Msg {
		return doOpen(ctx, id, opener, tl, uri, res, func(ctx context.Context) (*dpe.Opened, error) { return opener.Open(ctx, uri) })
	})
}

// openTarget is `dpe-tui open <file|URL>`: no resolver, straight to fetch.
func (m *model) openTarget(target string) tea.Cmd {
	access := targetURI(target)
	tl := newTraceLog(access, "")
	opener := &dpe.Opener{Fetcher: m.opt.Fetcher, Limits: m.opt.Limits, Now: m.opt.Now, OnTrace: tl.add}
	m.lastTrace = tl
	return m.start("opening "+sanitizeLine(target), openTimeout, func(ctx context.Context, id int) tea.Msg {
		return doOpen(ctx, id, opener, tl, access, nil, func(ctx context.Context) (*dpe.Opened, error) { return opener.OpenAccess(ctx, access) })
	})
}

func doOpen(ctx context.Context, id int, opener *dpe.Opener, tl *traceLog, uri string, res *client.Resource, open func(context.Context) (*dpe.Opened, error)) tea.Msg {
	now := opener.Now
	t0 := now()
	op, err := open(ctx)
	if err != nil {
		tl.fail(now(), err)
		return errMsg{opID: id, what: "open " + sanitizeLine(uri), err: err}
	}
	// Decode the first page here so the document appears in one step.
	if op.Kind == dpe.KindDocument && op.Doc != nil && len(op.Doc.Pages) > 0 {
		if err := loadPage(ctx, opener, op, 0); err != nil {
			tl.fail(now(), err)
		}
	}
	return openedMsg{opID: id, opened: op, res: res, uri: uri, duration: now().Sub(t0), opener: opener, trace: tl}
}

// loadPage makes page i's elements available: dpe.Opener.LoadPage decodes
// an inline page and fetches a manifest page (re-resolving once on expiry).
func loadPage(ctx context.Context, opener *dpe.Opener, op *dpe.Opened, i int) error {
	return opener.LoadPage(ctx, op, i)
}

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

func (m *model) onOpened(msg openedMsg) tea.Cmd {
	op := msg.opened
	m.overlay = overlayNone
	m.images.reset(m)
	if op.Kind != dpe.KindDocument || op.Doc == nil {
		m.content = newContentView(msg, m.opt.Now)
		m.screen = screenContent
		return m.renderContent()
	}
	m.doc = newDocumentView(msg)
	m.screen = screenDocument
	m.conf = conformanceView{}
	return tea.Batch(m.validate(), m.setStatus(statusOK, "opened "+sanitizeLine(titleOf(op))+" in "+msg.duration.Round(time.Millisecond).String()))
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

// validate runs the conformance check (dpe.Validate) off the loop.
func (m *model) validate() tea.Cmd {
	if m.doc == nil {
		return nil
	}
	opener, op, now, mu := m.doc.opener, m.doc.op, m.opt.Now, m.doc.mu
	return m.start("validating", 0, func(ctx context.Context, id int) tea.Msg {
		// Validation reads every page; the lock keeps page loads out.
		mu.Lock()
		defer mu.Unlock()
		t0 := now()
		f := opener.Validate(op) // traces the validation itself
		return validatedMsg{opID: id, findings: f, duration: now().Sub(t0)}
	})
}

// recordingResolver records every get_dpe call (request and answer) for the
// trace view, including the re-call after an expired or failed access URI.
type recordingResolver struct {
	inner    dpe.Resolver
	log      *traceLog
	computer string
	now      func() time.Time
}

func (r recordingResolver) Resolve(ctx context.Context, uri string) (dpe.Access, error) {
	t0 := r.now()
	if r.inner == nil {
		err := errNoResolver
		r.log.addGetDPE(t0, uri, r.computer, dpe.Access{}, 0, err)
		return dpe.Access{}, err
	}
	a, err := r.inner.Resolve(ctx, uri)
	r.log.addGetDPE(t0, uri, r.computer, a, r.now().Sub(t0), err)
	return a, err
}
