package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/jsonfast"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// ResourcePage is one client:get_resources answer (one MCP resources/list page).
type ResourcePage struct {
	Resources  []Resource
	NextCursor string          // empty at the end
	Raw        json.RawMessage // the ack as received
}

// Resource is an MCP resource with where it came from and its DPE metadata.
type Resource struct {
	protocol.Resource
	Computer string
	Server   protocol.ServerKey // the key it was listed under
	PageNo   int                // 1-based page of a Pager walk; 0 from a direct Resources call
	Meta     ResourceMeta
	// Truncated is true when a field was over ListingLimits.MaxFieldBytes
	// and was cut on receipt (its text ends with a marker), or _meta /
	// annotations were too large and were dropped.
	Truncated bool
}

// ResourceMeta is what dpe.md §Resource 元数据 puts in _meta and annotations.
// Fields with the wrong type read as zero values (the listing is still shown).
type ResourceMeta struct {
	Keywords     []string // _meta.keywords; nil unless an array of strings
	FileType     string   // _meta.file_type
	PageCount    int      // _meta.page_count; 0 unless an integer ≥ 1
	FileURI      string   // _meta.file_uri (removed in v0.2, still shown when sent)
	LastModified string   // annotations.lastModified, else _meta.last_modified
	// LastModifiedInvalid: LastModified is set but not an ISO 8601
	// date-time (it is still shown, marked).
	LastModifiedInvalid bool
	Audience            []string // annotations.audience
	// ConversionError is _meta.error: the server has the file but could
	// not convert it (our library's key, not the spec's), one line. The
	// document will fail the same way when read.
	ConversionError string
	// Problems are what the listing got wrong (a keyword that is not a
	// string, an invalid lastModified …), one short sentence each, so a
	// listing shows what it dropped instead of hiding it.
	Problems []string
}

// IsDPE reports whether the resource is a dpe:// document.
func (r Resource) IsDPE() bool {
	return len(r.URI) >= 6 && strings.EqualFold(r.URI[:6], protocol.DPEScheme+"://")
}

// Resources fetches one page of server's resources on computer. An empty
// cursor asks for the first page. A next_cursor longer than
// ListingLimits.MaxCursorBytes is refused: the page is returned without it,
// together with a *CursorError (ErrCursorTooLong).
func (c *Client) Resources(ctx context.Context, computer string, server protocol.ServerKey, cursor string) (*ResourcePage, error) {
	return c.resources(ctx, computer, server, cursor, true)
}

// resources is Resources; without parseMeta each Resource.Meta is left
// zero for the caller to fill in (PagerOptions.DeferMeta).
func (c *Client) resources(ctx context.Context, computer string, server protocol.ServerKey, cursor string, parseMeta bool) (*ResourcePage, error) {
	req := protocol.GetResourcesReq{AgentCallData: c.agentCall(), Computer: computer, MCPServer: server, Timeout: c.timeoutSeconds()}
	if cursor != "" {
		req.Cursor = &cursor
	}
	var ret resourcesAck
	raw, err := c.do(ctx, protocol.EventGetResources, computer, req, &ret)
	if err != nil {
		return nil, fmt.Errorf("resources of %s: %w", server, err)
	}
	page := &ResourcePage{Raw: raw}
	lim := c.opt.Limits
	page.Resources = make([]Resource, 0, len(ret.Resources))
	for i := range ret.Resources {
		res, ok := ret.Resources[i].resource(lim.MaxFieldBytes, parseMeta)
		if !ok {
			continue
		}
		res.Computer, res.Server = computer, server
		page.Resources = append(page.Resources, res)
	}
	if s, ok := ret.NextCursor.(string); ok {
		if len(s) > lim.MaxCursorBytes {
			return page, &CursorError{Err: ErrCursorTooLong, Computer: computer, Server: server, Cursor: s,
				Limit: lim.MaxCursorBytes, Loaded: len(page.Resources)}
		}
		page.NextCursor = s
	}
	return page, nil
}

// truncMarker ends a field cut on receipt.
const truncMarker = "…[truncated]"

// truncField cuts s to at most max bytes on a rune boundary, with a marker.
func truncField(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + truncMarker, true
}

// resourcesAck is a get_resources answer, decoded in one pass straight into
// typed fields. It is a lenientAck: a field of the wrong JSON type reads as
// its zero value, and the rest of the page is still read.
type resourcesAck struct {
	Resources  []wireResource `json:"resources"`
	NextCursor any            `json:"next_cursor"`
}

func (*resourcesAck) lenientAck() {}

// wireResource is one MCP Resource as listed. A field of the wrong type is
// left zero by the decoder, so one bad field does not lose the entry.
type wireResource struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	MimeType    string          `json:"mimeType"`
	Size        any             `json:"size"` // a pointer would be allocated even for a wrong type
	Annotations json.RawMessage `json:"annotations"`
	Meta        json.RawMessage `json:"_meta"`
}

// resource checks and bounds a listed resource. It needs a string uri.
//
// Fields longer than maxField bytes are cut with a marker; a uri that long
// loses the entry (a cut URI would name another resource), and _meta or
// annotations over 8×maxField are dropped. Meta is parsed from what is
// kept, unless parseMeta is false.
func (w *wireResource) resource(maxField int, parseMeta bool) (Resource, bool) {
	if maxField <= 0 {
		maxField = DefaultMaxFieldBytes
	}
	if w.URI == "" || len(w.URI) > maxField {
		return Resource{}, false
	}
	var r Resource
	r.URI = w.URI
	for _, f := range []struct {
		src string
		dst *string
	}{{w.Name, &r.Name}, {w.Title, &r.Title}, {w.Description, &r.Description}, {w.MimeType, &r.MimeType}} {
		var cut bool
		if *f.dst, cut = truncField(f.src, maxField); cut {
			r.Truncated = true
		}
	}
	for _, f := range []*json.RawMessage{&w.Annotations, &w.Meta} {
		if len(*f) > 8*maxField {
			*f = nil
			r.Truncated = true
		}
	}
	if size, ok := w.Size.(float64); ok && size >= 0 && size <= math.MaxInt64 && size == math.Trunc(size) {
		n := int64(size)
		r.Size = &n
	}
	r.Annotations = nullToNil(w.Annotations)
	r.Resource.Meta = nullToNil(w.Meta)
	if parseMeta {
		r.Meta = ParseResourceMeta(r.Resource.Meta, r.Annotations)
	}
	return r, true
}

// ParseResourceMeta reads the DPE metadata leniently (dpe.md §Resource 元数据):
// keywords must be an array of strings, page_count an integer ≥ 1.
func ParseResourceMeta(meta, annotations json.RawMessage) ResourceMeta {
	if out, ok := parseResourceMetaTyped(meta, annotations); ok {
		return out
	}
	return parseResourceMetaLoose(meta, annotations)
}

// parseResourceMetaTyped is ParseResourceMeta for metadata of the expected
// types, the usual case, decoded straight into typed fields instead of
// into interfaces (a tenth of the allocations). It gives up (false) on
// anything else: a key of the wrong type fails the decode, and a null
// anywhere is refused because a null in a []string decodes as "" where the
// loose path reports it. What it accepts, both paths read the same
// (TestParseResourceMeta_TypedSameAsLoose).
func parseResourceMetaTyped(meta, annotations json.RawMessage) (ResourceMeta, bool) {
	var out ResourceMeta
	null := []byte("null")
	if bytes.Contains(meta, null) || bytes.Contains(annotations, null) {
		return out, false
	}
	var m struct {
		Keywords     []string `json:"keywords"`
		FileType     string   `json:"file_type"`
		PageCount    float64  `json:"page_count"`
		FileURI      string   `json:"file_uri"`
		LastModified string   `json:"last_modified"`
		Error        string   `json:"error"`
	}
	var a struct {
		LastModified string   `json:"lastModified"`
		Audience     []string `json:"audience"`
	}
	if len(meta) > 0 && jsonfast.Unmarshal(meta, &m) != nil {
		return out, false
	}
	if len(annotations) > 0 && jsonfast.Unmarshal(annotations, &a) != nil {
		return out, false
	}
	out.Keywords = m.Keywords
	out.FileType = m.FileType
	if n := m.PageCount; n >= 1 && n == math.Trunc(n) && n <= math.MaxInt32 {
		out.PageCount = int(n)
	}
	out.FileURI = m.FileURI
	out.ConversionError = m.Error
	out.LastModified = a.LastModified
	if out.LastModified == "" {
		out.LastModified = m.LastModified
	}
	out.checkLastModified()
	out.Audience = a.Audience
	return out, true
}

// checkLastModified marks a LastModified that is not an ISO 8601 date-time.
func (out *ResourceMeta) checkLastModified() {
	if out.LastModified != "" {
		if _, err := dpe.ParseTimestamp(out.LastModified); err != nil {
			out.LastModifiedInvalid = true
			out.Problems = append(out.Problems, fmt.Sprintf("lastModified %q is not an ISO 8601 date-time", truncate(out.LastModified, 40)))
		}
	}
}

// parseResourceMetaLoose reads each key into an interface, to tell a wrong
// type from an absent key and report it.
func parseResourceMetaLoose(meta, annotations json.RawMessage) ResourceMeta {
	var out ResourceMeta
	// Only the keys read here are decoded (into any, to tell a wrong type
	// from an absent key); the rest of _meta is skipped, not built.
	var m struct {
		Keywords     any `json:"keywords"`
		FileType     any `json:"file_type"`
		PageCount    any `json:"page_count"`
		FileURI      any `json:"file_uri"`
		LastModified any `json:"last_modified"`
		Error        any `json:"error"`
	}
	var a struct {
		LastModified any `json:"lastModified"`
		Audience     any `json:"audience"`
	}
	if len(meta) > 0 {
		_ = jsonfast.Unmarshal(meta, &m)
	}
	if len(annotations) > 0 {
		_ = jsonfast.Unmarshal(annotations, &a)
	}
	str := func(v any) string { s, _ := v.(string); return s }
	var bad []string
	out.Keywords, bad = stringListReport(m.Keywords)
	for _, b := range bad {
		out.Problems = append(out.Problems, "_meta.keywords: "+b)
	}
	if v := m.Keywords; v != nil {
		if _, isArr := v.([]any); !isArr {
			out.Problems = append(out.Problems, fmt.Sprintf("_meta.keywords is %s, not an array of strings", valueKind(v)))
		}
	}
	out.FileType = str(m.FileType)
	if n, ok := m.PageCount.(float64); ok && n >= 1 && n == math.Trunc(n) && n <= math.MaxInt32 {
		out.PageCount = int(n)
	}
	out.FileURI = str(m.FileURI)
	out.ConversionError = str(m.Error)
	out.LastModified = str(a.LastModified)
	if out.LastModified == "" {
		out.LastModified = str(m.LastModified)
	}
	out.checkLastModified()
	out.Audience = stringList(a.Audience)
	return out
}

// stringListReport is stringList that also says which entries it dropped.
func stringListReport(v any) ([]string, []string) {
	arr, ok := v.([]any)
	if !ok {
		return nil, nil
	}
	out := make([]string, 0, len(arr))
	var bad []string
	for i, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		} else if len(bad) < 4 {
			bad = append(bad, fmt.Sprintf("entry %d is %s, not a string", i+1, valueKind(e)))
		}
	}
	return out, bad
}

func valueKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}

func stringList(v any) []string {
	arr, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func nullToNil(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// ErrRepeatedCursor is wrapped by *CursorError when a server hands back a
// cursor it already gave: following it would loop forever.
var ErrRepeatedCursor = errors.New("repeated cursor")

// ErrPageCap is wrapped by *CursorError when the page cap is reached.
var ErrPageCap = errors.New("page cap reached")

// ErrResourceBudget is wrapped by *CursorError when a Pager has loaded its
// budget of resources and the server still offers more.
var ErrResourceBudget = errors.New("resource budget reached")

// ErrCursorTooLong is wrapped by *CursorError for a next_cursor over
// ListingLimits.MaxCursorBytes.
var ErrCursorTooLong = errors.New("cursor too long")

// CursorError stops a listing: a repeated cursor, the page cap, the
// resource budget, or an oversized cursor.
type CursorError struct {
	Err      error // ErrRepeatedCursor, ErrPageCap, ErrResourceBudget or ErrCursorTooLong
	Computer string
	Server   protocol.ServerKey
	Cursor   string // the repeated or refused cursor, or the next cursor not followed
	Pages    int
	Loaded   int
	Bytes    int64 // listing bytes received (ErrByteBudget)
	Limit    int   // the cap, budget or cursor limit that was hit
}

func (e *CursorError) Error() string {
	switch {
	case errors.Is(e.Err, ErrRepeatedCursor):
		return fmt.Sprintf("resources of %s on %s: the server repeated cursor %q after %d pages (%d resources); stopped to avoid a loop",
			e.Server, e.Computer, truncate(e.Cursor, 60), e.Pages, e.Loaded)
	case errors.Is(e.Err, ErrCursorTooLong):
		return fmt.Sprintf("resources of %s on %s: refused a next_cursor of %d bytes (limit %d); the listing stops here",
			e.Server, e.Computer, len(e.Cursor), e.Limit)
	case errors.Is(e.Err, ErrByteBudget):
		return fmt.Sprintf("resources of %s on %s: stopped at the budget of %d listing bytes after %d pages (%d resources loaded, more remain)",
			e.Server, e.Computer, e.Limit, e.Pages, e.Loaded)
	case errors.Is(e.Err, ErrResourceBudget):
		return fmt.Sprintf("resources of %s on %s: stopped at the budget of %d resources after %d pages (more remain)",
			e.Server, e.Computer, e.Limit, e.Pages)
	}
	return fmt.Sprintf("resources of %s on %s: stopped at the cap of %d pages (%d resources loaded, more remain)",
		e.Server, e.Computer, e.Pages, e.Loaded)
}

func (e *CursorError) Unwrap() error { return e.Err }

// PagerOptions bound a listing walk (Paging, Pager).
type PagerOptions struct {
	MaxPages     int   // default DefaultMaxPages
	MaxResources int   // default DefaultMaxResources
	MaxBytes     int64 // listing acks received, in bytes; default DefaultMaxListingBytes
	// DeferMeta (Pager only): each Resource.Meta is left zero, for the
	// caller to fill in with ParseResourceMeta(r.Resource.Meta,
	// r.Annotations), which gives what Resources would have. A caller
	// that fetches on one goroutine and prints on another parses on the
	// printing one, so the next request goes out sooner; the walk's rules
	// do not read Meta.
	DeferMeta bool
}

// Listing bounds by default: a server whose cursors never end must not keep
// a client listing forever, nor fill its memory.
const (
	DefaultMaxPages        = 1000
	DefaultMaxResources    = 200000
	DefaultMaxListingBytes = 256 << 20
)

// ErrByteBudget is wrapped by *CursorError when a listing has received its
// budget of bytes and the server still offers more.
var ErrByteBudget = errors.New("byte budget reached")

// Paging is the cursor rules of one get_resources listing as a value, with
// no I/O (events.md: an absent or empty next_cursor ends the listing): the
// caller fetches Cursor() however it likes (a loop in Pager, a tea.Cmd in
// the TUI) and hands each answer to Add, which returns why the listing
// stopped early, if it did: a repeated cursor, the page cap, the resource
// budget, the byte budget (all *CursorError). Not safe for concurrent use.
type Paging struct {
	computer string
	server   protocol.ServerKey
	opt      PagerOptions

	cursor string
	// seen holds a fingerprint of every cursor followed, not the cursor:
	// a server may mint long fresh cursors on every page.
	seen   map[[16]byte]struct{}
	pages  int
	loaded int
	bytes  int64
	done   bool
	err    error
}

// NewPaging starts a listing of server's resources on computer.
func NewPaging(computer string, server protocol.ServerKey, opt PagerOptions) *Paging {
	if opt.MaxPages <= 0 {
		opt.MaxPages = DefaultMaxPages
	}
	if opt.MaxResources <= 0 {
		opt.MaxResources = DefaultMaxResources
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxListingBytes
	}
	return &Paging{computer: computer, server: server, opt: opt, seen: map[[16]byte]struct{}{}}
}

// Cursor is the cursor to ask for next ("" for the first page).
func (p *Paging) Cursor() string { return p.cursor }

// Add takes the answer to Cursor(). refused is the error that came with the
// page, if any: a *CursorError for a next_cursor the client refused
// (ErrCursorTooLong) keeps the page and ends the listing with it; pass nil
// otherwise. Add numbers the page's resources (Resource.PageNo) and returns
// the *CursorError that stopped the listing at this page, or nil when it
// ended normally or goes on (see Done). Once stopped, the error is sticky
// and Add ignores further pages.
func (p *Paging) Add(page *ResourcePage, refused error) error {
	if p.Done() {
		return p.err
	}
	if page == nil {
		page = &ResourcePage{}
	}
	p.pages++
	// The budget is what is kept, not what was sent: a page that crosses
	// it is cut there and ends the listing.
	cut := false
	if room := max(p.opt.MaxResources-p.loaded, 0); len(page.Resources) > room {
		page.Resources, cut = page.Resources[:room], true
	}
	p.loaded += len(page.Resources)
	p.bytes += pageBytes(page)
	for i := range page.Resources {
		page.Resources[i].PageNo = p.pages
	}
	var ce *CursorError
	if errors.As(refused, &ce) {
		e := *ce
		e.Computer, e.Server, e.Pages, e.Loaded = p.computer, p.server, p.pages, p.loaded
		p.err = &e
		return p.err
	}
	if p.cursor != "" {
		p.seen[fingerprint(p.cursor)] = struct{}{}
	}
	next := page.NextCursor
	stop := func(err error, limit int) error {
		p.err = &CursorError{Err: err, Computer: p.computer, Server: p.server, Cursor: truncate(next, 60),
			Pages: p.pages, Loaded: p.loaded, Bytes: p.bytes, Limit: limit}
		return p.err
	}
	_, repeated := p.seen[fingerprint(next)]
	switch {
	case cut:
		return stop(ErrResourceBudget, p.opt.MaxResources)
	case next == "":
		p.done = true
		return nil
	case next == p.cursor || repeated:
		return stop(ErrRepeatedCursor, 0)
	case p.loaded >= p.opt.MaxResources:
		return stop(ErrResourceBudget, p.opt.MaxResources)
	case p.bytes >= p.opt.MaxBytes:
		return stop(ErrByteBudget, int(min(p.opt.MaxBytes, math.MaxInt)))
	case p.pages >= p.opt.MaxPages:
		return stop(ErrPageCap, p.opt.MaxPages)
	}
	p.cursor = next
	return nil
}

// pageBytes is what one listing page cost: its raw ack, or when none was
// kept (a test double), the size of the fields it holds.
func pageBytes(page *ResourcePage) int64 {
	if len(page.Raw) > 0 {
		return int64(len(page.Raw))
	}
	var n int64
	for _, r := range page.Resources {
		n += int64(len(r.URI) + len(r.Name) + len(r.Title) + len(r.Description) + len(r.MimeType) + len(r.Resource.Meta) + len(r.Annotations))
	}
	return n + int64(len(page.NextCursor))
}

// Done reports whether the listing is over: its last page, or a stop.
func (p *Paging) Done() bool { return p.done || p.err != nil }

// Err is the sticky *CursorError that stopped the listing, if any.
func (p *Paging) Err() error { return p.err }

// Pages counts the pages added.
func (p *Paging) Pages() int { return p.pages }

// Loaded counts the resources added.
func (p *Paging) Loaded() int { return p.loaded }

// Bytes is the size of the listing acks added.
func (p *Paging) Bytes() int64 { return p.bytes }

// Pager walks client:get_resources page by page: a Paging with the fetch
// loop. A Pager is not safe for concurrent use.
type Pager struct {
	walk  *Paging
	fetch func(ctx context.Context, cursor string) (*ResourcePage, error)
}

// Pager returns a pager over server's resources on computer.
func (c *Client) Pager(computer string, server protocol.ServerKey, opt PagerOptions) *Pager {
	return newPager(computer, server, opt, func(ctx context.Context, cursor string) (*ResourcePage, error) {
		return c.resources(ctx, computer, server, cursor, !opt.DeferMeta)
	})
}

func newPager(computer string, server protocol.ServerKey, opt PagerOptions, fetch func(context.Context, string) (*ResourcePage, error)) *Pager {
	return &Pager{walk: NewPaging(computer, server, opt), fetch: fetch}
}

func fingerprint(cursor string) [16]byte {
	sum := sha256.Sum256([]byte(cursor))
	var fp [16]byte
	copy(fp[:], sum[:])
	return fp
}

// Next fetches the next page. It returns io.EOF after the last page, and a
// *CursorError (ErrRepeatedCursor, ErrPageCap, ErrResourceBudget,
// ErrByteBudget) on the call after the page that stopped the listing; an
// oversized next_cursor (ErrCursorTooLong) comes back as the page with no
// error, and its error on the next call. Both are sticky. A network error
// is not: Next may be called again to retry the same cursor.
func (p *Pager) Next(ctx context.Context) (*ResourcePage, error) {
	w := p.walk
	if err := w.Err(); err != nil {
		return nil, err
	}
	if w.Done() {
		return nil, io.EOF
	}
	page, err := p.fetch(ctx, w.Cursor())
	var ce *CursorError
	if err != nil && !(page != nil && errors.As(err, &ce)) {
		return nil, err
	}
	w.Add(page, err)
	return page, nil
}

// Done reports whether the listing ended (last page, repeated cursor or cap).
func (p *Pager) Done() bool { return p.walk.Done() }

// Err is the sticky error that stopped the pager, if any.
func (p *Pager) Err() error { return p.walk.Err() }

// Loaded counts the resources loaded so far.
func (p *Pager) Loaded() int { return p.walk.Loaded() }

// Pages counts the pages loaded so far.
func (p *Pager) Pages() int { return p.walk.Pages() }

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
