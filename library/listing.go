package library

import (
	"bytes"
	"context"
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
	b, err := jsonfast.Marshal(s.resource())
	if err != nil {
		return nil, err
	}
	// Kept for the source's life: without the encoder's spare capacity
	// (a third more on 100,000 generated resources).
	b = bytes.Clone(b)
	j.b.Store(&b)
	return b, nil
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
