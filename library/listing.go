package library

import (
	"bytes"
	"context"
	"strconv"
	"sync/atomic"

	"github.com/dpe-tui/dpe-tui/internal/jsonfast"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A resources/list page is some 100 resources whose JSON never changes
// between listings (a source is replaced whole, never edited). go-sdk
// encodes every field of every resource by reflection for every page it
// sends: about an eighth of serve's CPU on a 100,000-resource listing
// (docs/performance.md, P3). The library writes a page from each source's
// JSON instead, made once per source on its first listing, with the same
// bytes go-sdk's encoder writes.

// listedJSON is a source's resource as go-sdk writes it, made on first use.
type listedJSON struct{ b atomic.Pointer[[]byte] }

// of is s's listing JSON (a source is immutable once published).
func (j *listedJSON) of(s *source) ([]byte, error) {
	if p := j.b.Load(); p != nil {
		return *p, nil
	}
	var b []byte
	if s.slim {
		b = s.appendListing(make([]byte, 0, s.listingSize()))
	} else {
		m, err := jsonfast.Marshal(s.res)
		if err != nil {
			return nil, err
		}
		// Kept for the source's life: without the encoder's spare
		// capacity.
		b = bytes.Clone(m)
	}
	j.b.Store(&b)
	return b, nil
}

// appendListing appends the JSON go-sdk's encoder writes for s.resource()
// (encoding/json, HTML not escaped: mcp.Resource's fields in order, those
// with omitempty left out when empty, _meta's keys sorted), written
// directly: encoding the resource by reflection, its _meta map sorted on
// every call, was most of the first listing's allocations.
// TestAppendListing_IsGoSDKsEncoding and FuzzAppendListing hold the two
// to the same bytes.
func (s *source) appendListing(b []byte) []byte {
	info := &s.shown
	str := jsonfast.AppendStringNoHTML
	b = append(b, `{"_meta":{`...)
	if info.Err != "" {
		b = append(b, `"error":`...)
		b = append(str(b, info.Err), ',')
	}
	b = append(b, `"file_type":`...)
	b = str(b, info.FileType)
	b = append(b, `,"file_uri":`...)
	b = str(b, s.fileURI)
	b = append(b, `,"keywords":[`...)
	for i, k := range info.Keywords {
		if i > 0 {
			b = append(b, ',')
		}
		b = str(b, k)
	}
	b = append(b, ']')
	if info.PageCount >= 1 {
		b = append(b, `,"page_count":`...)
		b = strconv.AppendInt(b, int64(info.PageCount), 10)
	}
	b = append(b, `},"annotations":{"audience":["user"]`...)
	if info.LastModified != "" {
		b = append(b, `,"lastModified":`...)
		b = str(b, info.LastModified)
	}
	b = append(b, `},"description":`...)
	b = str(b, s.description())
	b = append(b, `,"mimeType":`...) // never empty: MimeDPEInline
	b = str(b, s.res.MIMEType)
	b = append(b, `,"name":`...)
	b = str(b, s.res.Name)
	if s.size != 0 {
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, s.size, 10)
	}
	if info.Title != "" {
		b = append(b, `,"title":`...)
		b = str(b, info.Title)
	}
	b = append(b, `,"uri":`...)
	b = str(b, s.res.URI)
	return append(b, '}')
}

// listingSize is about appendListing's length, for its one allocation.
func (s *source) listingSize() int {
	n := 200 + len(s.shown.Err) + len(s.shown.FileType) + len(s.fileURI) + len(s.shown.LastModified) +
		len(s.shown.Summary) + len(s.res.MIMEType) + len(s.res.Name) + len(s.shown.Title) + len(s.res.URI)
	for _, k := range s.shown.Keywords {
		n += len(k) + 3
	}
	return n + n/8
}

// listPage is go-sdk's resources/list result, written from the sources'
// JSON. It embeds the result, so it is the mcp.Result go-sdk expects, and
// is encoded when go-sdk sends it: the fields go-sdk sets on the way out
// (its result type) are in the envelope.
type listPage struct {
	*mcp.ListResourcesResult
	lib *library
}

// MarshalJSON writes the envelope as go-sdk would, resources left empty,
// and the resources' JSON in the brackets. go-sdk holds slim resources
// (server.go, source): each is written as its source lists it — the
// current source of its URI when a rescan or a refinement replaced the
// one go-sdk holds — and one no source has any more as go-sdk holds it.
func (p *listPage) MarshalJSON() ([]byte, error) {
	env := *p.ListResourcesResult
	env.Resources = []*mcp.Resource{}
	head, err := jsonfast.Marshal(&env)
	if err != nil {
		return nil, err
	}
	const tail = `"resources":[]}`
	if !bytes.HasSuffix(head, []byte(tail)) {
		return p.marshalWhole()
	}
	head = head[:len(head)-2]
	entries := make([][]byte, len(p.Resources))
	size := len(head) + 2 + len(p.Resources)
	p.lib.mu.RLock()
	for i, r := range p.Resources {
		if r == nil {
			continue
		}
		if s := p.lib.sources[r.URI]; s != nil {
			entries[i], err = s.listed.of(s)
			if err != nil {
				break
			}
		}
	}
	p.lib.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	for i, r := range p.Resources {
		if entries[i] == nil {
			if entries[i], err = jsonfast.Marshal(r); err != nil {
				return nil, err
			}
		}
		size += len(entries[i])
	}
	out := make([]byte, 0, size)
	out = append(out, head...)
	for i, e := range entries {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, "]}"...), nil
}

// listMiddleware answers resources/list with go-sdk's page (its order,
// cursors and page size) written by listPage.
func (l *library) listMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "resources/list" || err != nil {
			return res, err
		}
		if lr, ok := res.(*mcp.ListResourcesResult); ok && lr != nil {
			return &listPage{ListResourcesResult: lr, lib: l}, nil
		}
		return res, nil
	}
}

// marshalWhole is the page encoded whole by encoding/json, each resource
// as its source lists it: for an envelope go-sdk ends otherwise.
func (p *listPage) marshalWhole() ([]byte, error) {
	whole := *p.ListResourcesResult
	whole.Resources = make([]*mcp.Resource, len(p.Resources))
	p.lib.mu.RLock()
	for i, r := range p.Resources {
		whole.Resources[i] = r
		if r == nil {
			continue
		}
		if s := p.lib.sources[r.URI]; s != nil {
			whole.Resources[i] = s.resource()
		}
	}
	p.lib.mu.RUnlock()
	return jsonfast.Marshal(&whole)
}
