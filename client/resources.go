package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

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
}

// ResourceMeta is what dpe.md §Resource 元数据 puts in _meta and annotations.
// Fields with the wrong type read as zero values (the listing is still shown).
type ResourceMeta struct {
	Keywords     []string // _meta.keywords; nil unless an array of strings
	FileType     string   // _meta.file_type
	PageCount    int      // _meta.page_count; 0 unless an integer ≥ 1
	FileURI      string   // _meta.file_uri (removed in v0.2, still shown when sent)
	LastModified string   // annotations.lastModified, else _meta.last_modified
	Audience     []string // annotations.audience
}

// IsDPE reports whether the resource is a dpe:// document.
func (r Resource) IsDPE() bool {
	return len(r.URI) >= 6 && strings.EqualFold(r.URI[:6], protocol.DPEScheme+"://")
}

// Resources fetches one page of server's resources on computer. An empty
// cursor asks for the first page.
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
	if s, ok := ret.NextCursor.(string); ok {
		page.NextCursor = s
	}
	for _, r := range ret.Resources {
		res, ok := decodeResource(r)
		if !ok {
			continue
		}
		res.Computer, res.Server = computer, server
		page.Resources = append(page.Resources, res)
	}
	return page, nil
}

// decodeResource reads one MCP Resource field by field, so that one field
// of the wrong type does not lose the entry. A resource needs a string uri.
func decodeResource(raw json.RawMessage) (Resource, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return Resource{}, false
	}
	var r Resource
	if json.Unmarshal(m["uri"], &r.URI) != nil || r.URI == "" {
		return Resource{}, false
	}
	_ = json.Unmarshal(m["name"], &r.Name)
	_ = json.Unmarshal(m["title"], &r.Title)
	_ = json.Unmarshal(m["description"], &r.Description)
	_ = json.Unmarshal(m["mimeType"], &r.MimeType)
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
	out.Keywords = stringList(m["keywords"])
	out.FileType = str(m, "file_type")
	if n, ok := m["page_count"].(float64); ok && n >= 1 && n == math.Trunc(n) && n <= math.MaxInt32 {
		out.PageCount = int(n)
	}
	out.FileURI = str(m, "file_uri")
	out.LastModified = str(a, "lastModified")
	if out.LastModified == "" {
		out.LastModified = str(m, "last_modified")
	}
	out.Audience = stringList(a["audience"])
	return out
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

// CursorError stops a Pager: a repeated cursor or the page cap.
type CursorError struct {
	Err      error // ErrRepeatedCursor or ErrPageCap
	Computer string
	Server   string
	Cursor   string // the repeated cursor, or the next cursor not followed
	Pages    int
	Loaded   int
}

func (e *CursorError) Error() string {
	if errors.Is(e.Err, ErrRepeatedCursor) {
		return fmt.Sprintf("resources of %s on %s: the server repeated cursor %q after %d pages (%d resources); stopped to avoid a loop",
			e.Server, e.Computer, truncate(e.Cursor, 60), e.Pages, e.Loaded)
	}
	return fmt.Sprintf("resources of %s on %s: stopped at the cap of %d pages (%d resources loaded, more remain)",
		e.Server, e.Computer, e.Pages, e.Loaded)
}

func (e *CursorError) Unwrap() error { return e.Err }

// PagerOptions bound a Pager.
type PagerOptions struct {
	MaxPages int // default 1000
}

// Pager walks client:get_resources page by page (events.md: absent or empty
// next_cursor ends the listing). It detects a repeated cursor and a page cap
// instead of looping. A Pager is not safe for concurrent use.
type Pager struct {
	computer, server string
	max              int
	fetch            func(ctx context.Context, cursor string) (*ResourcePage, error)

	cursor string
	seen   map[string]bool
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
	return &Pager{computer: computer, server: server, max: opt.MaxPages, fetch: fetch, seen: map[string]bool{}}
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
		p.err = &CursorError{Err: ErrPageCap, Computer: p.computer, Server: p.server, Cursor: p.cursor, Pages: p.pages, Loaded: p.loaded}
		return nil, p.err
	}
	page, err := p.fetch(ctx, p.cursor)
	if err != nil {
		return nil, err
	}
	p.pages++
	p.loaded += len(page.Resources)
	for i := range page.Resources {
		page.Resources[i].PageNo = p.pages
	}
	if p.cursor != "" {
		p.seen[p.cursor] = true
	}
	switch next := page.NextCursor; {
	case next == "":
		p.done = true
	case next == p.cursor || p.seen[next]:
		p.err = &CursorError{Err: ErrRepeatedCursor, Computer: p.computer, Server: p.server, Cursor: next, Pages: p.pages, Loaded: p.loaded}
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
