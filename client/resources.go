package client

import (
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
	Computer, Server string
	PageNo           int // 1-based page of a Pager walk; 0 from a direct Resources call
	Meta             ResourceMeta
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
func (c *Client) Resources(ctx context.Context, computer, server, cursor string) (*ResourcePage, error) {
	req := protocol.GetResourcesReq{AgentCallData: c.agentCall(), Computer: computer, MCPServer: server, Timeout: c.timeoutSeconds()}
	if cursor != "" {
		req.Cursor = &cursor
	}
	var ret struct {
		Resources  []json.RawMessage `json:"resources"`
		NextCursor any               `json:"next_cursor"`
	}
	raw, err := c.do(ctx, protocol.EventGetResources, computer, req, &ret)
	if err != nil {
		return nil, fmt.Errorf("resources of %s: %w", server, err)
	}
	page := &ResourcePage{Raw: raw}
	lim := c.opt.Limits
	for _, r := range ret.Resources {
		res, ok := decodeResource(r, lim.MaxFieldBytes)
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

// decodeResource reads one MCP Resource field by field, so that one field
// of the wrong type does not lose the entry. A resource needs a string uri.
//
// Fields longer than maxField bytes are cut with a marker; a uri that long
// loses the entry (a cut URI would name another resource), and _meta or
// annotations over 8×maxField are dropped.
func decodeResource(raw json.RawMessage, maxField int) (Resource, bool) {
	if maxField <= 0 {
		maxField = DefaultMaxFieldBytes
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return Resource{}, false
	}
	var r Resource
	if json.Unmarshal(m["uri"], &r.URI) != nil || r.URI == "" || len(r.URI) > maxField {
		return Resource{}, false
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"name", &r.Name}, {"title", &r.Title}, {"description", &r.Description}, {"mimeType", &r.MimeType}} {
		_ = json.Unmarshal(m[f.key], f.dst)
		var cut bool
		if *f.dst, cut = truncField(*f.dst, maxField); cut {
			r.Truncated = true
		}
	}
	for _, k := range []string{"annotations", "_meta"} {
		if len(m[k]) > 8*maxField {
			delete(m, k)
			r.Truncated = true
		}
	}
	var size float64
	if json.Unmarshal(m["size"], &size) == nil && size >= 0 && size <= math.MaxInt64 && size == math.Trunc(size) {
		n := int64(size)
		r.Size = &n
	}
	r.Annotations = nullToNil(m["annotations"])
	r.Resource.Meta = nullToNil(m["_meta"])
	r.Meta = ParseResourceMeta(r.Resource.Meta, r.Annotations)
	return r, true
}

// ParseResourceMeta reads the DPE metadata leniently (dpe.md §Resource 元数据):
// keywords must be an array of strings, page_count an integer ≥ 1.
func ParseResourceMeta(meta, annotations json.RawMessage) ResourceMeta {
	var out ResourceMeta
	var m, a map[string]any
	_ = json.Unmarshal(meta, &m)
	_ = json.Unmarshal(annotations, &a)
	str := func(o map[string]any, k string) string { s, _ := o[k].(string); return s }
	var bad []string
	out.Keywords, bad = stringListReport(m["keywords"])
	for _, b := range bad {
		out.Problems = append(out.Problems, "_meta.keywords: "+b)
	}
	if v, ok := m["keywords"]; ok && v != nil {
		if _, isArr := v.([]any); !isArr {
			out.Problems = append(out.Problems, fmt.Sprintf("_meta.keywords is %s, not an array of strings", valueKind(v)))
		}
	}
	out.FileType = str(m, "file_type")
	if n, ok := m["page_count"].(float64); ok && n >= 1 && n == math.Trunc(n) && n <= math.MaxInt32 {
		out.PageCount = int(n)
	}
	out.FileURI = str(m, "file_uri")
	out.LastModified = str(a, "lastModified")
	if out.LastModified == "" {
		out.LastModified = str(m, "last_modified")
	}
	if out.LastModified != "" {
		if _, err := dpe.ParseTimestamp(out.LastModified); err != nil {
			out.LastModifiedInvalid = true
			out.Problems = append(out.Problems, fmt.Sprintf("lastModified %q is not an ISO 8601 date-time", truncate(out.LastModified, 40)))
		}
	}
	out.Audience = stringList(a["audience"])
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
	Server   string
	Cursor   string // the repeated or refused cursor, or the next cursor not followed
	Pages    int
	Loaded   int
	Limit    int // the cap, budget or cursor limit that was hit
}

func (e *CursorError) Error() string {
	switch {
	case errors.Is(e.Err, ErrRepeatedCursor):
		return fmt.Sprintf("resources of %s on %s: the server repeated cursor %q after %d pages (%d resources); stopped to avoid a loop",
			e.Server, e.Computer, truncate(e.Cursor, 60), e.Pages, e.Loaded)
	case errors.Is(e.Err, ErrCursorTooLong):
		return fmt.Sprintf("resources of %s on %s: refused a next_cursor of %d bytes (limit %d); the listing stops here",
			e.Server, e.Computer, len(e.Cursor), e.Limit)
	case errors.Is(e.Err, ErrResourceBudget):
		return fmt.Sprintf("resources of %s on %s: stopped at the budget of %d resources after %d pages (more remain)",
			e.Server, e.Computer, e.Limit, e.Pages)
	}
	return fmt.Sprintf("resources of %s on %s: stopped at the cap of %d pages (%d resources loaded, more remain)",
		e.Server, e.Computer, e.Pages, e.Loaded)
}

func (e *CursorError) Unwrap() error { return e.Err }

// PagerOptions bound a Pager.
type PagerOptions struct {
	MaxPages     int // default 1000
	MaxResources int // default DefaultMaxResources
}

// DefaultMaxResources is a Pager's default resource budget.
const DefaultMaxResources = 200000

// Pager walks client:get_resources page by page (events.md: absent or empty
// next_cursor ends the listing). It detects a repeated cursor and a page cap
// instead of looping. A Pager is not safe for concurrent use.
type Pager struct {
	computer, server string
	max              int
	maxResources     int
	fetch            func(ctx context.Context, cursor string) (*ResourcePage, error)

	cursor string
	// seen holds a fingerprint of every cursor followed, not the cursor:
	// a server may mint long fresh cursors on every page.
	seen   map[[16]byte]struct{}
	pages  int
	loaded int
	done   bool
	err    error
}

// Pager returns a pager over server's resources on computer.
func (c *Client) Pager(computer, server string, opt PagerOptions) *Pager {
	return newPager(computer, server, opt, func(ctx context.Context, cursor string) (*ResourcePage, error) {
		return c.Resources(ctx, computer, server, cursor)
	})
}

func newPager(computer, server string, opt PagerOptions, fetch func(context.Context, string) (*ResourcePage, error)) *Pager {
	if opt.MaxPages <= 0 {
		opt.MaxPages = 1000
	}
	if opt.MaxResources <= 0 {
		opt.MaxResources = DefaultMaxResources
	}
	return &Pager{computer: computer, server: server, max: opt.MaxPages, maxResources: opt.MaxResources, fetch: fetch, seen: map[[16]byte]struct{}{}}
}

func fingerprint(cursor string) [16]byte {
	sum := sha256.Sum256([]byte(cursor))
	var fp [16]byte
	copy(fp[:], sum[:])
	return fp
}

// Next fetches the next page. It returns io.EOF after the last page, and a
// *CursorError (ErrRepeatedCursor, ErrPageCap) when it stops early; both are
// sticky. A network error is not sticky: Next may be called again to retry
// the same cursor.
func (p *Pager) Next(ctx context.Context) (*ResourcePage, error) {
	if p.err != nil {
		return nil, p.err
	}
	if p.done {
		return nil, io.EOF
	}
	if p.pages >= p.max {
		p.err = &CursorError{Err: ErrPageCap, Computer: p.computer, Server: p.server, Pages: p.pages, Loaded: p.loaded, Limit: p.max}
		return nil, p.err
	}
	if p.loaded >= p.maxResources {
		p.err = &CursorError{Err: ErrResourceBudget, Computer: p.computer, Server: p.server, Pages: p.pages, Loaded: p.loaded, Limit: p.maxResources}
		return nil, p.err
	}
	page, err := p.fetch(ctx, p.cursor)
	var ce *CursorError
	if err != nil && !(page != nil && errors.As(err, &ce)) {
		return nil, err
	}
	p.pages++
	p.loaded += len(page.Resources)
	for i := range page.Resources {
		page.Resources[i].PageNo = p.pages
	}
	if ce != nil {
		// An oversized cursor: keep the page, end the listing with why.
		ce.Pages, ce.Loaded = p.pages, p.loaded
		p.err = ce
		return page, nil
	}
	if p.cursor != "" {
		p.seen[fingerprint(p.cursor)] = struct{}{}
	}
	next := page.NextCursor
	_, repeated := p.seen[fingerprint(next)]
	switch {
	case next == "":
		p.done = true
	case next == p.cursor || repeated:
		// Keep only a prefix for the message.
		p.err = &CursorError{Err: ErrRepeatedCursor, Computer: p.computer, Server: p.server, Cursor: truncate(next, 60), Pages: p.pages, Loaded: p.loaded}
	default:
		p.cursor = next
	}
	return page, nil
}

// Done reports whether the listing ended (last page, repeated cursor or cap).
func (p *Pager) Done() bool { return p.done || p.err != nil }

// Err is the sticky error that stopped the pager, if any.
func (p *Pager) Err() error { return p.err }

// Loaded counts the resources loaded so far.
func (p *Pager) Loaded() int { return p.loaded }

// Pages counts the pages loaded so far.
func (p *Pager) Pages() int { return p.pages }

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
