package ui

import (
	"context"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// PageSource is a document converted in-process, page by page: what
// convert.Document offers, named here so ui need not import convert.
// Skeleton is the document with every page in manifest mode (no
// elements); Page converts page i and returns it decoded, a new value on
// each call, so the UI owns what it gets. Both must be safe to call from
// a command while another command converts a page.
type PageSource interface {
	Skeleton() *dpe.Document
	Page(ctx context.Context, i int) (*dpe.Page, error)
}

// OpenFileFunc opens a local file of any supported format (PDF, Office,
// HTML, e-mail, …) as a PageSource. It runs in a command and must honour
// ctx.
type OpenFileFunc func(ctx context.Context, path string) (PageSource, error)

// localFile is the path of a `dpe-tui open` target that a converter
// should open: a plain path or file:// URI, except DPE JSON (*.json),
// which is decoded as it is.
func localFile(target string) (string, bool) {
	p, ok := localPath(target)
	if !ok || strings.HasSuffix(strings.ToLower(p), ".json") {
		return "", false
	}
	return p, true
}

// localPath is the path of a target on this machine: a plain path or a
// file:// URI, DPE JSON too (what its relative links are beside).
func localPath(target string) (string, bool) {
	p := target
	if u, err := url.Parse(target); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		if u.Scheme != "file" {
			return "", false
		}
		p = filepath.FromSlash(u.Path)
	}
	return p, p != ""
}

// openFile converts a local file: the skeleton and page 1 come back in
// one message, so the first page is on screen before the rest of a long
// PDF is converted. Later pages convert when visited (the document
// screen's page loads go through the source), each in a command that esc
// cancels.
func (m *model) openFile(target, path string, at *hitPlace, over bool) tea.Cmd {
	e := m.e
	open, now := e.opt.OpenFile, e.opt.Now
	e.lastTrace = newTraceLog(target, "")
	opener := &dpe.Opener{Fetcher: e.opt.Fetcher, Limits: e.opt.Limits, Now: now}
	id, cmd := e.start("converting "+sanitizeLine(filepath.Base(path)), openTimeout, func(ctx context.Context, id int) tea.Msg {
		t0 := now()
		src, err := open(ctx, path)
		if err != nil {
			return errMsg{id: id, what: "open " + sanitizeLine(path), err: err}
		}
		return sourceOpened(ctx, id, path, target, src, opener, &traceBuf{}, now, t0, at, over)
	})
	if w, ok := m.top().(opWaiter); ok {
		w.waitOn(id)
	}
	return cmd
}

// sourceOpened is the open of a converted document (a local file, or a
// file fetched from a URL): its skeleton, and page 1 converted in the
// same command so it is on screen before the rest converts; name is
// what an error names, buf holds the trace so far (a fetch's).
func sourceOpened(ctx context.Context, id int, name, target string, src PageSource, opener *dpe.Opener, buf *traceBuf, now func() time.Time, t0 time.Time, at *hitPlace, over bool) tea.Msg {
	doc := src.Skeleton()
	if doc == nil {
		return errMsg{id: id, what: "open " + sanitizeLine(name), err: errNoSkeleton}
	}
	op := &dpe.Opened{Access: dpe.Access{URI: target}, Kind: dpe.KindDocument, Doc: doc}
	msg := openedMsg{id: id, opened: op, uri: target, target: target, opener: opener, src: src, at: at, over: over}
	if len(doc.Pages) > 0 {
		msg.first, msg.firstErr = convertPage(ctx, src, buf, now, 0)
	}
	msg.duration = now().Sub(t0)
	msg.trace = buf.entries
	return msg
}

type skeletonError struct{}

func (skeletonError) Error() string { return "the converter returned no document" }

var errNoSkeleton error = skeletonError{}

// convertPage converts page i and records it in the trace.
func convertPage(ctx context.Context, src PageSource, buf *traceBuf, now func() time.Time, i int) (*dpe.Page, error) {
	t0 := time.Now()
	p, err := src.Page(ctx, i)
	ev := dpe.TraceEvent{At: now(), Kind: dpe.TraceDecode, Detail: "page " + strconv.Itoa(i+1) + " converted", Duration: time.Since(t0)}
	if err != nil {
		ev.Err = err.Error()
	} else {
		ev.Bytes = int64(len(p.Raw))
	}
	buf.event(ev)
	return p, err
}

// pageLoadFunc loads page i of op into a copy; re is the Opened that
// replaces op when loading it had to call get_dpe again (nil: none).
type pageLoadFunc func(ctx context.Context, o *dpe.Opener, buf *traceBuf, op *dpe.Opened, i int) (p *dpe.Page, re *dpe.Opened, err error)

// pageLoader is how this document's pages are loaded, captured in Update
// for a command: converted by the source, or fetched and decoded.
func (d *documentScreen) pageLoader() pageLoadFunc {
	src := d.src
	if src == nil {
		return loadPageCopy
	}
	return func(ctx context.Context, o *dpe.Opener, buf *traceBuf, _ *dpe.Opened, i int) (*dpe.Page, *dpe.Opened, error) {
		now := o.Now
		if now == nil {
			now = time.Now
		}
		p, err := convertPage(ctx, src, buf, now, i)
		return p, nil, err
	}
}
