package dpe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/plural"
)

// Opener opens dpe:// URIs: get_dpe (Resolver) → fetch → classify → decode,
// re-resolving once when the access URI expired or the fetch failed
// (dpe.md §URI 生命周期: "拉取失败（含 URI 过期）→ 重新调 client:get_dpe").
// Access URIs live only in memory, in the Opened value: nothing here
// persists them (dpe.md: Agent MUST NOT cache URIs across sessions).
type Opener struct {
	Resolver Resolver
	Fetcher  *Fetcher // nil → &Fetcher{} (file:// refused)
	Limits   Limits
	Now      func() time.Time // nil → time.Now
	OnTrace  func(TraceEvent) // called synchronously for every step; may be nil
	// KeepPageJSON keeps the JSON of every manifest page fetched, so the
	// whole document can be written out inline (AssembledJSON). Off by
	// default: a session that only shows pages needs their elements only.
	KeepPageJSON bool
	// OnFirstPage, when set, is called at most once per Open or
	// OpenAccess, on the opening goroutine, as soon as the first page of
	// a DPE document has arrived and decoded and the rest of the body has
	// not (so not for a manifest first page, nor a body that came in one
	// read). Its Opened is provisional (Partial): see firstPager. Open
	// then goes on reading, indexing and decoding the whole and returns
	// the final Opened, which replaces it.
	OnFirstPage func(*Opened)
}

// Opened is an open resource. For KindDocument, Doc is the lazily decoded
// document and Body its bytes (Doc aliases them; the raw JSON view uses
// Body); for other kinds Body is the content to show or save.
type Opened struct {
	DPE      URI // zero for OpenAccess
	Access   Access
	Kind     ContentKind
	Doc      *Document
	Body     []byte
	MimeType string
	// Notes say what was done that the user should know (an access URI
	// used although it looked expired, a document that changed version
	// while open); one sentence each.
	Notes []string
	// Version counts page-index reloads: it changes when a re-resolve
	// found another version of the document (another _meta.etag) and
	// Doc was replaced, so holders of old pages know to drop them.
	Version int
	// Partial marks the provisional Opened given to Opener.OnFirstPage:
	// Doc holds the top-level fields that precede "pages" and the first
	// page, decoded; Body is nil; the document's size and page count are
	// not known yet, nor its findings.
	Partial bool

	// firstSent: OnFirstPage was called for this open (a re-resolve after
	// a failed fetch does not call it again).
	firstSent bool

	dpe string     // the dpe URI string given to the resolver ("" for OpenAccess)
	mu  sync.Mutex // serialises Keep with the readers of a single owner's op
	// pageJSON: fetched manifest page bodies by position in "pages"
	// (Opener.KeepPageJSON).
	pageJSON map[int]json.RawMessage
	// uris are manifest page URIs by page_index from a re-resolve that
	// found the same version (they replace the document's).
	uris map[int]string
}

// FileRefusedError is a file:// access URI from a computer dpe-tui did not
// start, without --allow-file-uri. Any local process can join a loopback
// office as a computer, so a loopback server vouches for nobody.
type FileRefusedError struct {
	URI      string // as received; Error redacts it
	Computer string
}

func (e *FileRefusedError) Error() string {
	return fmt.Sprintf("refused %s from computer %s: file:// access URIs are accepted only from computers dpe-tui started, or with --allow-file-uri",
		RedactURI(e.URI), e.Computer)
}

// Unwrap makes errors.Is(err, ErrFileRefused) true.
func (e *FileRefusedError) Unwrap() error { return ErrFileRefused }

// checkFileOrigin refuses a file:// URI that acc's computer may not hand out.
func (o *Opener) checkFileOrigin(acc Access, uri string) error {
	u, err := url.Parse(uri)
	if err != nil || !strings.EqualFold(u.Scheme, "file") || acc.OwnComputer || o.fetcher().AllowFile || acc.Computer == "" {
		return nil // the fetcher's own policy applies
	}
	return &FileRefusedError{URI: uri, Computer: acc.Computer}
}

// ExpiredError is an access URI used at or after its _meta.expires_at.
type ExpiredError struct {
	ExpiresAt, Now time.Time
}

func (e *ExpiredError) Error() string {
	return fmt.Sprintf("access URI expired at %s", e.ExpiresAt.UTC().Format(time.RFC3339))
}

// RefetchError reports both failures when the single re-resolve did not
// help: First is what triggered it, Second what happened after it.
type RefetchError struct {
	What          string // "open dpe://…" or "page 3"
	First, Second error
}

func (e *RefetchError) Error() string {
	return fmt.Sprintf("%s: %v; re-resolved once with get_dpe, then: %v", e.What, e.First, e.Second)
}

func (e *RefetchError) Unwrap() []error { return []error{e.First, e.Second} }

// prefixOnce prefixes err with what ("open dpe://…") unless err names the
// URI itself (a resolver's refusal does), so no message says it twice.
func prefixOnce(what string, err error) error {
	var named interface{ DPEURI() string }
	if errors.As(err, &named) {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}

func (o *Opener) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o *Opener) fetcher() *Fetcher {
	if o.Fetcher != nil {
		return o.Fetcher
	}
	return &Fetcher{}
}

func (o *Opener) trace(ev TraceEvent) {
	if o.OnTrace == nil {
		return
	}
	ev.At = o.now()
	o.OnTrace(ev)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Open resolves dpeURI, fetches and decodes it. On an expired access URI or
// a failed fetch it calls get_dpe once more; if that attempt fails too the
// error (*RefetchError) reports both. Decode errors and limits are not
// retried: a new access URI would serve the same bytes.
func (o *Opener) Open(ctx context.Context, dpeURI string) (*Opened, error) {
	u, warns, err := ParseURILenient(dpeURI)
	if err != nil {
		return nil, err
	}
	// Sent byte for byte: servers compare resource URIs as strings, so a
	// URI from a listing must reach them exactly as listed. Only one that
	// needed repair (query, fragment, unencoded characters) is rewritten,
	// keeping its escapes as they were.
	wire := dpeURI
	if len(warns) > 0 {
		cut := dpeURI
		if i := strings.IndexAny(cut, "?#"); i >= 0 {
			cut = cut[:i]
		}
		if wire, err = NormalizeURI(cut); err != nil {
			wire = u.WireString()
		}
		for _, w := range warns {
			o.trace(TraceEvent{Kind: TraceGetDPE, URI: wire, Detail: w})
		}
	}
	if o.Resolver == nil {
		return nil, fmt.Errorf("open %s: no resolver (not connected to an office)", wire)
	}
	op := &Opened{DPE: u, dpe: wire}
	what := "open " + wire
	acc, err := o.resolve(ctx, wire)
	if err != nil {
		return nil, prefixOnce(what, err)
	}
	err = o.loadAt(ctx, op, acc, false, true)
	if err == nil {
		return op, nil
	}
	if !retryable(ctx, err) {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	o.trace(TraceEvent{Kind: TraceRefetch, URI: RedactURI(acc.URI), Detail: "calling get_dpe again once", Err: err.Error()})
	acc2, err2 := o.resolve(ctx, wire)
	if err2 == nil {
		o.noteIfExpired(op, acc2)
		err2 = o.loadAt(ctx, op, acc2, true, true)
	}
	if err2 != nil {
		return nil, &RefetchError{What: what, First: err, Second: err2}
	}
	return op, nil
}

// OpenAccess opens an access URI directly (`dpe-tui get <file|URL>`): no
// resolver, so no re-resolve on failure.
func (o *Opener) OpenAccess(ctx context.Context, accessURI string) (*Opened, error) {
	op := &Opened{}
	if err := o.loadAt(ctx, op, Access{URI: accessURI, Size: -1}, false, true); err != nil {
		var fe *FetchError
		if errors.As(err, &fe) {
			return nil, err // "fetch <uri>: …" names it already
		}
		return nil, fmt.Errorf("open %s: %w", RedactURI(accessURI), err)
	}
	return op, nil
}

func (o *Opener) resolve(ctx context.Context, wire string) (Access, error) {
	start := time.Now()
	acc, err := o.Resolver.Resolve(ctx, wire)
	ev := TraceEvent{Kind: TraceGetDPE, URI: wire, Duration: time.Since(start), Err: errString(err)}
	if err == nil {
		ev.Detail = "→ " + RedactURI(acc.URI)
		if acc.Computer != "" {
			ev.Detail += " (computer " + acc.Computer + ")"
		}
		if !acc.ExpiresAt.IsZero() {
			ev.Detail += ", expires " + acc.ExpiresAt.UTC().Format(time.RFC3339)
		}
		ev.Bytes = acc.Size
	}
	o.trace(ev)
	return acc, err
}

// noteIfExpired reports a fresh answer that already looks expired: the
// second of two answers is used anyway (clocks disagree more than
// ClockSkew, or the computer hands out stale URIs), and the user is told.
func (o *Opener) noteIfExpired(op *Opened, acc Access) {
	if !acc.Expired(o.now()) {
		return
	}
	note := fmt.Sprintf("the re-resolved access URI also looks expired (expires_at %s); fetched it anyway",
		acc.ExpiresAt.UTC().Format(time.RFC3339))
	o.trace(TraceEvent{Kind: TraceRefetch, URI: RedactURI(acc.URI), Detail: note})
	op.Notes = append(op.Notes, note)
}

// loadAt fetches, classifies and decodes acc into op. anyway fetches an
// access URI that looks expired (the second answer: there is no third);
// first lets OnFirstPage see the body arrive (an open, not a refresh).
func (o *Opener) loadAt(ctx context.Context, op *Opened, acc Access, anyway, first bool) error {
	if now := o.now(); acc.Expired(now) && !anyway {
		return &ExpiredError{ExpiresAt: acc.ExpiresAt, Now: now}
	}
	if err := o.checkFileOrigin(acc, acc.URI); err != nil {
		o.trace(TraceEvent{Kind: TraceFetch, URI: RedactURI(acc.URI), Err: err.Error()})
		return err
	}
	var progress progressFunc
	var firstRange int64
	var upTo *pageWatch
	if n := pageOnly(ctx); n > 0 {
		if done, err := o.loadMapped(ctx, op, acc, n-1); done {
			return err
		}
		upTo = &pageWatch{lim: o.Limits.withDefaults(), keep: n - 1, mimeType: acc.MimeType}
		progress, firstRange = upTo.see, pageWatchRange
	} else if first && o.OnFirstPage != nil && !op.firstSent {
		progress = o.firstPageWatch(op, acc)
	}
	f, err := o.fetcher().fetchWith(ctx, acc.URI, acc.OwnComputer, progress, firstRange)
	ev := TraceEvent{Kind: TraceFetch, URI: RedactURI(acc.URI), Err: errString(err)}
	if f != nil {
		ev.Status, ev.Bytes, ev.Duration, ev.Detail = f.Status, int64(len(f.Bytes)), f.Duration, f.MimeType
	} else {
		var fe *FetchError
		if errors.As(err, &fe) {
			ev.Status = fe.Status
		}
	}
	o.trace(ev)
	if err != nil {
		return err
	}
	mt := f.MimeType
	if mt == "" || mt == "application/octet-stream" {
		if acc.MimeType != "" {
			mt = acc.MimeType
		}
	}
	if f.partial && upTo != nil && upTo.doc != nil {
		o.trace(TraceEvent{Kind: TraceDecode, URI: RedactURI(acc.URI), Bytes: int64(len(f.Bytes)),
			Detail: fmt.Sprintf("read up to page %d, not the pages after it", upTo.keep+1)})
		op.Access, op.Kind, op.Doc, op.Body, op.MimeType, op.Partial = acc, KindDocument, upTo.doc, nil, mt, true
		return nil
	}
	kind := Classify(f.Bytes, mt)
	var doc *Document
	reached := false
	if kind == KindDocument {
		start := time.Now()
		keep := -1
		if upTo != nil {
			keep = upTo.keep // a body read whole (small, or no early stop) is still read up to the page
		}
		doc, reached, err = decodeUpTo(f.Bytes, o.Limits, keep, nil)
		dev := TraceEvent{Kind: TraceDecode, URI: RedactURI(acc.URI), Bytes: int64(len(f.Bytes)), Duration: time.Since(start), Err: errString(err)}
		switch {
		case err == nil && reached:
			dev.Detail = fmt.Sprintf("read up to page %d, not the pages after it", keep+1)
		case err == nil:
			dev.Detail = "indexed " + plural.Count(len(doc.Pages), "page", "pages")
		}
		o.trace(dev)
		if err != nil {
			return err
		}
	}
	op.Access, op.Kind, op.Doc, op.Body, op.MimeType, op.Partial = acc, kind, doc, f.Bytes, mt, reached
	return nil
}

type pageOnlyKey struct{}

// WithPageOnly marks ctx for opens that need only page n (1-based) of a
// document (`get --page N`). The document is read up to page n and not
// after it (decodeUpTo): a local file (file://) is mapped, not read, and
// scanned with Decode's own code (same limits and errors for what it
// reads), its scanned bytes dropped from memory behind the scan; http(s)
// asks for the first bytes with a Range request and for more only when
// page n is not in them; both stop once page n is indexed. Only page n's
// bytes are kept. The Opened then has no Body, the pages before n are
// headers only (EnsurePage says they were not kept), and when the read
// stopped early it is Partial: the pages after n, the document's page
// count and its whole-document findings are not known (check reads them).
// A document whose pages up to n are out of page_index order, or that
// has fewer pages, is read whole. n ≤ 0 changes nothing.
func WithPageOnly(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, pageOnlyKey{}, n)
}

func pageOnly(ctx context.Context) int {
	n, _ := ctx.Value(pageOnlyKey{}).(int)
	return n
}

// PageOnly is the page WithPageOnly marked ctx for, 0 when none: a local
// file converted in-process then converts only that page.
func PageOnly(ctx context.Context) int { return pageOnly(ctx) }

// pageWatchRange is what a page-only read of http(s) asks for first:
// the first pages of most documents, in one round trip.
const pageWatchRange = 1 << 20

// pageWatch is the progress hook of a page-only read that is not mapped:
// once the prefix classifies as a document (with as much of its head as
// Classify reads) and holds page keep (decodeUpTo reached it), the read
// stops there and doc is that prefix's document. A failed try waits for
// a quarter more bytes: the read goes at most that far past the page, and
// the tries scan at most five times the bytes read. A prefix that never
// reaches the page is read whole and decoded as usual, so its errors are
// Decode's.
type pageWatch struct {
	lim      Limits
	keep     int
	mimeType string // the Access's, when the answer declares none
	next     int
	doc      *Document
}

func (w *pageWatch) see(prefix []byte, mimeType string) bool {
	if len(prefix) < classifyHead || len(prefix) < w.next {
		return false
	}
	if (mimeType == "" || mimeType == "application/octet-stream") && w.mimeType != "" {
		mimeType = w.mimeType
	}
	if Classify(prefix, mimeType) != KindDocument {
		w.next = math.MaxInt // not a document: read it whole
		return false
	}
	d, reached, err := decodeUpTo(prefix[:len(prefix):len(prefix)], w.lim, w.keep, nil)
	if err != nil || !reached {
		w.next = len(prefix) + len(prefix)/4
		return false
	}
	w.doc = d
	return true
}

// loadMapped is loadAt for a page-only open of a local file; done is
// false when it does not apply (fetch as usual).
func (o *Opener) loadMapped(ctx context.Context, op *Opened, acc Access, keep int) (done bool, err error) {
	m, ok, err := o.fetcher().mapFile(ctx, acc.URI, acc.OwnComputer)
	if !ok {
		return false, nil
	}
	ev := TraceEvent{Kind: TraceFetch, URI: RedactURI(acc.URI), Err: errString(err)}
	if err != nil {
		o.trace(ev)
		return true, err
	}
	defer m.close()
	ev.Bytes, ev.Duration, ev.Detail = int64(len(m.data)), m.duration, m.mimeType+" (mapped)"
	o.trace(ev)
	mt := m.mimeType
	if mt == "" || mt == "application/octet-stream" {
		if acc.MimeType != "" {
			mt = acc.MimeType
		}
	}
	var kind ContentKind
	var body []byte
	if err := guardFault(func() error {
		if kind = Classify(m.data, mt); kind != KindDocument {
			body = bytes.Clone(m.data)
		}
		return nil
	}); err != nil {
		return true, &FetchError{URI: RedactURI(acc.URI), Err: err}
	}
	var doc *Document
	reached := false
	if kind == KindDocument {
		start := time.Now()
		doc, reached, err = decodeMapped(m.data, o.Limits, keep)
		dev := TraceEvent{Kind: TraceDecode, URI: RedactURI(acc.URI), Bytes: int64(len(m.data)), Duration: time.Since(start), Err: errString(err)}
		switch {
		case err == nil && reached:
			dev.Detail = fmt.Sprintf("read up to page %d, not the pages after it", keep+1)
		case err == nil:
			dev.Detail = fmt.Sprintf("indexed %s, kept page %d", plural.Count(len(doc.Pages), "page", "pages"), keep+1)
		}
		o.trace(dev)
		if errors.Is(err, errFileChanged) {
			return true, &FetchError{URI: RedactURI(acc.URI), Err: err}
		}
		if err != nil {
			return true, err
		}
	}
	op.Access, op.Kind, op.Doc, op.Body, op.MimeType, op.Partial = acc, kind, doc, body, mt, reached
	return true, nil
}

// classifyHead is how much of a body Classify sniffs.
const classifyHead = 8192

// firstPageWatch is the progress hook of one fetch: once the prefix
// classifies as a document (with as much of its head as Classify reads,
// so it cannot say otherwise of the whole) and holds an inline first
// page, OnFirstPage gets it.
func (o *Opener) firstPageWatch(op *Opened, acc Access) progressFunc {
	lim := o.Limits.withDefaults()
	fp := &firstPager{lim: lim, fn: func(d *Document) {
		op.firstSent = true
		o.trace(TraceEvent{Kind: TraceDecode, URI: RedactURI(acc.URI), Detail: "page 1 shown before the rest arrived"})
		o.OnFirstPage(&Opened{DPE: op.DPE, Access: acc, Kind: KindDocument, Doc: d, Partial: true, dpe: op.dpe})
	}}
	return func(prefix []byte, mimeType string) bool {
		if fp.done || len(prefix) < classifyHead {
			return false
		}
		mt := mimeType
		if (mt == "" || mt == "application/octet-stream") && acc.MimeType != "" {
			mt = acc.MimeType
		}
		if Classify(prefix, mt) != KindDocument {
			fp.done = true
			return false
		}
		return fp.feed(prefix)
	}
}

// retryable: access problems are; content problems (limits, malformed or
// non-document JSON) and refusals by policy are not, nor is a cancelled
// caller.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var le *LimitError
	var se *SyntaxError
	if errors.As(err, &le) || errors.As(err, &se) || errors.Is(err, ErrNotDocument) ||
		errors.Is(err, ErrFileRefused) || errors.Is(err, ErrUnsupportedURI) {
		return false
	}
	var ee *ExpiredError
	var fe *FetchError
	return errors.As(err, &ee) || errors.As(err, &fe)
}

// PageLoad is what LoadPage found. Page is page i decoded, a copy the
// caller owns (op's document is not written). Reopened is non-nil when
// LoadPage had to call get_dpe again: it is the Opened to use from now on
// (the new access URI; when the answer named another version of the
// document, also its Doc, Body and Version, and Page belongs to that Doc).
// op itself is never written, so a screen may go on reading it while a
// load runs and install the answer when it arrives.
type PageLoad struct {
	Page     *Page
	Reopened *Opened
	// json is the fetched page body (Opener.KeepPageJSON), for Keep.
	json json.RawMessage
}

// LoadPage decodes page i of op.Doc: an inline page from its Raw bytes; a
// manifest page fetched from its uri (relative URIs resolve against the
// document's access URI). When the access URI has expired, or the page
// fetch fails, get_dpe is called once and the answer is returned as
// PageLoad.Reopened (with an error too, when the page still failed
// after it: the *RefetchError then reports both). Errors name the page
// 1-based, as the user counts.
func (o *Opener) LoadPage(ctx context.Context, op *Opened, i int) (PageLoad, error) {
	if op.Doc == nil {
		return PageLoad{}, fmt.Errorf("page %d: not a DPE document", i+1)
	}
	if i < 0 || i >= len(op.Doc.Pages) {
		return PageLoad{}, fmt.Errorf("page %d out of range (document has %d pages)", i+1, len(op.Doc.Pages))
	}
	p := op.Doc.Pages[i]
	what := fmt.Sprintf("page %d", i+1)
	if p.Decoded {
		return PageLoad{Page: p}, nil
	}
	if p.hasElements {
		q, err := o.inlineCopy(op, i)
		return PageLoad{Page: q}, err
	}
	if op.pageURI(p) == "" {
		return PageLoad{}, fmt.Errorf("%s has neither \"elements\" nor \"uri\"", what)
	}
	var reopened *Opened
	cur := op
	if cur.dpe != "" && cur.Access.Expired(o.now()) {
		o.trace(TraceEvent{Kind: TraceRefetch, URI: RedactURI(cur.Access.URI), Detail: what + ": access URI expired, calling get_dpe again once"})
		next, err := o.reopen(ctx, cur)
		if err != nil {
			return PageLoad{}, fmt.Errorf("%s: access URI expired; re-resolving failed: %w", what, err)
		}
		reopened, cur = next, next
		q, done, err := o.pageOf(cur, i)
		if err != nil || done {
			return PageLoad{Page: q, Reopened: reopened}, err
		}
		p = cur.Doc.Pages[i]
	}
	q, raw, err := o.loadManifestPage(ctx, cur, i, p)
	if err == nil {
		return PageLoad{Page: q, Reopened: reopened, json: raw}, nil
	}
	if reopened != nil || cur.dpe == "" || !retryable(ctx, err) {
		return PageLoad{Reopened: reopened}, fmt.Errorf("%s: %w", what, err)
	}
	o.trace(TraceEvent{Kind: TraceRefetch, URI: RedactURI(resolveRef(cur.Access.URI, cur.pageURI(p))), Detail: what + ": calling get_dpe again once", Err: err.Error()})
	next, err2 := o.reopen(ctx, cur)
	if err2 != nil {
		return PageLoad{}, &RefetchError{What: what, First: err, Second: err2}
	}
	q, done, err2 := o.pageOf(next, i)
	if err2 == nil && !done {
		q, raw, err2 = o.loadManifestPage(ctx, next, i, next.Doc.Pages[i])
	}
	if err2 != nil {
		return PageLoad{Reopened: next}, &RefetchError{What: what, First: err, Second: err2}
	}
	return PageLoad{Page: q, Reopened: next, json: raw}, nil
}

// LoadPageInto is LoadPage for a caller that owns op alone (a headless
// command, a test): the answer is kept in op (Keep).
func (o *Opener) LoadPageInto(ctx context.Context, op *Opened, i int) error {
	pl, err := o.LoadPage(ctx, op, i)
	op.Keep(i, pl) // a re-resolve is kept even when the page failed
	return err
}

// Keep installs what LoadPage returned for page i into op, for a caller
// that owns op alone: the re-resolved access (and version) replace op's,
// and the page is kept in op's document for the session. A screen never
// calls it: it keeps its own copies.
func (op *Opened) Keep(i int, pl PageLoad) {
	op.mu.Lock()
	defer op.mu.Unlock()
	if r := pl.Reopened; r != nil {
		op.Access, op.Kind, op.Doc, op.Body, op.MimeType = r.Access, r.Kind, r.Doc, r.Body, r.MimeType
		op.Notes, op.Version, op.uris, op.pageJSON = r.Notes, r.Version, r.uris, r.pageJSON
	}
	if pl.Page == nil || op.Doc == nil || i < 0 || i >= len(op.Doc.Pages) {
		return
	}
	op.Doc.Pages[i] = pl.Page
	if pl.json != nil {
		if op.pageJSON == nil {
			op.pageJSON = map[int]json.RawMessage{}
		}
		op.pageJSON[pl.Page.pos] = pl.json
	}
}

// WithPages is op as its holder sees it: op's document with page i
// replaced by pages[i] wherever that is not nil (the holder's own decoded
// copies), for Validate. Neither op, its document nor pages is written.
func (op *Opened) WithPages(pages []*Page) *Opened {
	v := &Opened{DPE: op.DPE, Access: op.Access, Kind: op.Kind, Body: op.Body, MimeType: op.MimeType, Notes: op.Notes,
		Version: op.Version, Partial: op.Partial, dpe: op.dpe, uris: op.uris}
	if op.Doc == nil {
		return v
	}
	d := *op.Doc
	d.Pages = slices.Clone(op.Doc.Pages)
	for i, p := range pages {
		if p != nil && i < len(d.Pages) {
			if p.pos != d.Pages[i].pos {
				// A page decoded on its own (converted, fetched apart)
				// stands where the page it replaces stood: the rules read
				// source positions (order, JSON paths), and its own is 0.
				q := *p
				q.pos = d.Pages[i].pos
				p = &q
			}
			d.Pages[i] = p
		}
	}
	v.Doc = &d
	return v
}

// inlineCopy decodes inline page i of op's document into a copy.
func (o *Opener) inlineCopy(op *Opened, i int) (*Page, error) {
	start := time.Now()
	q, err := op.Doc.PageCopy(i, o.Limits)
	o.trace(TraceEvent{Kind: TraceDecode, Detail: fmt.Sprintf("page %d", i+1), Bytes: int64(len(op.Doc.Pages[i].Raw)), Duration: time.Since(start), Err: errString(err)})
	return q, err
}

// pageOf is page i of a re-resolved Opened when it needs no fetch (done):
// decoded already, or inline in the new version. Otherwise it must be
// fetched from its uri.
func (o *Opener) pageOf(op *Opened, i int) (q *Page, done bool, err error) {
	if i >= len(op.Doc.Pages) {
		return nil, true, fmt.Errorf("page %d: the new version of the document has %d pages", i+1, len(op.Doc.Pages))
	}
	p := op.Doc.Pages[i]
	if p.Decoded {
		return p, true, nil
	}
	if p.hasElements {
		q, err := o.inlineCopy(op, i)
		return q, true, err
	}
	return nil, false, nil
}

// reopen re-resolves op's dpe URI and returns the Opened that replaces
// op; op is not written. The same version (same _meta.etag, or no etag
// and the same page count) keeps op's document, so the pages a holder has
// loaded stay valid, and takes the new page URIs; another version
// replaces the whole page index (and counts in Version), so one open
// document never mixes pages of two versions.
func (o *Opener) reopen(ctx context.Context, op *Opened) (*Opened, error) {
	acc, err := o.resolve(ctx, op.dpe)
	if err != nil {
		return nil, err
	}
	fresh := &Opened{}
	if err := o.loadAt(ctx, fresh, acc, true, false); err != nil {
		return nil, err
	}
	if fresh.Doc == nil {
		return nil, fmt.Errorf("re-resolved content is %s, not a DPE document", kindWord(fresh.Kind))
	}
	next := &Opened{DPE: op.DPE, Access: acc, Kind: op.Kind, Doc: op.Doc, Body: op.Body, MimeType: op.MimeType,
		Notes: slices.Clone(op.Notes), Version: op.Version, firstSent: true, dpe: op.dpe, pageJSON: maps.Clone(op.pageJSON)}
	o.noteIfExpired(next, acc)
	if acc.ETag != op.Access.ETag || len(fresh.Doc.Pages) != len(op.Doc.Pages) {
		note := "the document changed while open (the new answer names another version); its page index was reloaded"
		o.trace(TraceEvent{Kind: TraceGetDPE, URI: RedactURI(acc.URI), Detail: note})
		next.Notes = append(next.Notes, note)
		next.Doc, next.Body, next.Kind, next.MimeType = fresh.Doc, fresh.Body, fresh.Kind, fresh.MimeType
		next.pageJSON = nil
		next.Version++
		return next, nil
	}
	next.uris = make(map[int]string, len(fresh.Doc.Pages))
	for _, np := range fresh.Doc.Pages {
		if np.URI != "" {
			next.uris[np.Index] = np.URI
		}
	}
	return next, nil
}

// pageURI is where manifest page p lives now: the URI the latest get_dpe
// answer gave it, else the one in the document.
func (op *Opened) pageURI(p *Page) string {
	if u, ok := op.uris[p.Index]; ok {
		return u
	}
	return p.URI
}

func kindWord(k ContentKind) string {
	switch k {
	case KindMarkdown:
		return "Markdown"
	case KindText:
		return "plain text"
	}
	return "binary data"
}

// loadManifestPage fetches and decodes manifest page i (p) of op into a
// copy of p; raw is the body when Opener.KeepPageJSON asks for it.
func (o *Opener) loadManifestPage(ctx context.Context, op *Opened, i int, p *Page) (q *Page, raw json.RawMessage, err error) {
	pageURI := resolveRef(op.Access.URI, op.pageURI(p))
	// A page URI is the document's word, and the document came from
	// op.Access's computer: the same file:// rule applies.
	if err := o.checkFileOrigin(op.Access, pageURI); err != nil {
		return nil, nil, err
	}
	what := fmt.Sprintf("page %d", i+1)
	f, err := o.fetcher().fetch(ctx, pageURI, op.Access.OwnComputer)
	ev := TraceEvent{Kind: TraceFetchPage, URI: RedactURI(pageURI), Detail: what, Err: errString(err)}
	if f != nil {
		ev.Status, ev.Bytes, ev.Duration = f.Status, int64(len(f.Bytes)), f.Duration
	} else {
		var fe *FetchError
		if errors.As(err, &fe) {
			ev.Status = fe.Status
		}
	}
	o.trace(ev)
	if err != nil {
		return nil, nil, err
	}
	start := time.Now()
	np, err := DecodePage(f.Bytes, o.Limits)
	o.trace(TraceEvent{Kind: TraceDecode, URI: RedactURI(pageURI), Detail: what,
		Bytes: int64(len(f.Bytes)), Duration: time.Since(start), Err: errString(err)})
	if err != nil {
		return nil, nil, err
	}
	for _, el := range np.Elements {
		if !np.hasIndex && el.PageIndex == np.Index {
			el.PageIndex = p.Index
		}
	}
	c := *p
	c.URI = op.pageURI(p)
	prefix := fmt.Sprintf("$.pages[%d]", p.pos)
	c.problems = slices.Clone(p.problems)
	for _, f := range np.problems {
		f.Path = prefix + strings.TrimPrefix(f.Path, "$")
		c.problems = append(c.problems, f)
	}
	c.Elements = np.Elements
	c.nElements = len(np.Elements)
	c.Decoded = true
	if o.KeepPageJSON {
		raw = f.Bytes
	}
	return &c, raw, nil
}

// resolveRef resolves a page uri against the document's access URI, so a
// resolver may write manifest pages as relative references.
func resolveRef(base, ref string) string {
	r, err := url.Parse(ref)
	if err != nil || r.IsAbs() {
		return ref
	}
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	return b.ResolveReference(r).String()
}

// Validate runs Validate on op's document and traces it.
func (o *Opener) Validate(op *Opened) []Finding {
	if op.Doc == nil {
		return nil
	}
	op.mu.Lock()
	defer op.mu.Unlock()
	start := time.Now()
	fs := Validate(op.Doc)
	v := 0
	for _, f := range fs {
		if f.Severity == Violation {
			v++
		}
	}
	o.trace(TraceEvent{Kind: TraceValidate, Detail: plural.Count(len(fs), "finding", "findings") + ", " + plural.Count(v, "violation", "violations"), Duration: time.Since(start)})
	return fs
}

// ErrPageNotLoaded is wrapped by AssembledJSON for a manifest page whose
// body was not fetched with Opener.KeepPageJSON.
var ErrPageNotLoaded = errors.New("page not loaded")

// AssembledJSON is op's document as one inline document: the top-level
// fields as they arrived, and every page object with its elements — a
// manifest page's entry merged with the page JSON fetched from its uri.
// Page "uri" fields are left out: they are access URIs, often signed, and
// the assembled document no longer needs them. Every manifest page must
// have been loaded by an Opener with KeepPageJSON.
func (op *Opened) AssembledJSON() ([]byte, error) {
	op.mu.Lock()
	defer op.mu.Unlock()
	if op.Doc == nil {
		return nil, ErrNotDocument
	}
	top, err := objectFields(op.Body)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(op.Body) + 64*len(op.Doc.Pages))
	b.WriteByte('{')
	n := 0
	for _, f := range top {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		writeKey(&b, f.key)
		if f.key != "pages" {
			if err := json.Compact(&b, f.val); err != nil {
				return nil, err
			}
			continue
		}
		b.WriteByte('[')
		for i, p := range op.Doc.Pages {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := op.writePage(&b, p); err != nil {
				return nil, fmt.Errorf("page %d: %w", i+1, err)
			}
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// PageJSON is page i (0-based) as one page object with its elements, like
// an entry of AssembledJSON.
func (op *Opened) PageJSON(i int) ([]byte, error) {
	op.mu.Lock()
	defer op.mu.Unlock()
	if op.Doc == nil || i < 0 || i >= len(op.Doc.Pages) {
		return nil, fmt.Errorf("page %d out of range", i+1)
	}
	var b bytes.Buffer
	if err := op.writePage(&b, op.Doc.Pages[i]); err != nil {
		return nil, fmt.Errorf("page %d: %w", i+1, err)
	}
	return b.Bytes(), nil
}

func (op *Opened) writePage(b *bytes.Buffer, p *Page) error {
	entry, err := objectFields(p.Raw)
	if err != nil {
		return err
	}
	var body []field
	if !p.hasElements && p.URI != "" {
		raw, ok := op.pageJSON[p.pos]
		if !ok {
			return ErrPageNotLoaded
		}
		if body, err = objectFields(raw); err != nil {
			return err
		}
	}
	// The fetched page wins over its manifest entry (it is the page); the
	// entry's fields it lacks (page_index, title …) are kept in order.
	inBody := make(map[string]bool, len(body))
	for _, f := range body {
		inBody[f.key] = true
	}
	merged := make([]field, 0, len(entry)+len(body))
	for _, f := range entry {
		if !inBody[f.key] && f.key != "element_count" {
			merged = append(merged, f)
		}
	}
	merged = append(merged, body...)
	b.WriteByte('{')
	n := 0
	for _, f := range merged {
		if f.key == "uri" {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		writeKey(b, f.key)
		if err := json.Compact(b, f.val); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

type field struct {
	key string
	val json.RawMessage
}

// objectFields splits a JSON object into its members, in order.
func objectFields(raw []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, notDocument("not a JSON object")
	}
	var out []field
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, field{k, v})
	}
	return out, nil
}

func writeKey(b *bytes.Buffer, k string) {
	kb, _ := json.Marshal(k)
	b.Write(kb)
	b.WriteByte(':')
}
