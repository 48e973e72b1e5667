package computer

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// PagedMetaKey asks an MCP server for a large document in pages (see
// library.PagedMetaKey, which must stay equal): our library answers
// resources/read with a page index, then with runs of pages, so no MCP
// message holds the whole document. A server that does not know the key
// ignores it and answers the whole document, as before.
const PagedMetaKey = "io.github.dpetui/paged"

// PagedMessageBytes is the size the computer asks each paged answer to
// stay under (a single page larger than it still comes alone).
const PagedMessageBytes = 4 << 20

// maxPagedPages bounds the pages one paged document may announce.
const maxPagedPages = 1 << 20

// PagedDocument is an inline document read in pages (Contents.Paged).
type PagedDocument struct {
	// Head is the Document JSON object without its "pages".
	Head json.RawMessage
	// Pages is how many pages it has; Bytes the whole document's size.
	Pages int
	Bytes int64
	// Version identifies the document's bytes (the library's hash of
	// them); every page read names it, so pages of two versions never mix.
	Version string

	read func(ctx context.Context, from int) ([]json.RawMessage, error)
}

// ReadPages calls fn with every page object in order, reading them from
// the MCP server a run at a time.
func (p *PagedDocument) ReadPages(ctx context.Context, fn func(i int, page json.RawMessage) error) error {
	for next := 0; next < p.Pages; {
		run, err := p.read(ctx, next)
		if err != nil {
			return err
		}
		if len(run) == 0 {
			return fmt.Errorf("paged read: no page at %d of %d", next, p.Pages)
		}
		for _, pg := range run {
			if next >= p.Pages {
				return fmt.Errorf("paged read: more than the %d pages announced", p.Pages)
			}
			if err := fn(next, pg); err != nil {
				return err
			}
			next++
		}
	}
	return nil
}

// Inline is the whole Document JSON: Document, or for a paged document its
// head and pages assembled (for resolvers that store the document whole).
func (c Contents) Inline(ctx context.Context) (json.RawMessage, error) {
	if c.Paged == nil {
		return c.Document, nil
	}
	var b bytes.Buffer
	b.Grow(int(min(c.Paged.Bytes, 1<<30)))
	head := bytes.TrimSpace(c.Paged.Head)
	b.Write(head[:len(head)-1]) // without its closing brace
	if len(head) > 2 {
		b.WriteByte(',')
	}
	b.WriteString(`"pages":[`)
	err := c.Paged.ReadPages(ctx, func(i int, page json.RawMessage) error {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(page)
		return nil
	})
	if err != nil {
		return nil, err
	}
	b.WriteString("]}")
	return b.Bytes(), nil
}

// pagedInfo is the value of PagedMetaKey in an answer's content _meta.
type pagedInfo struct {
	Version string `json:"version"`
	Pages   *int   `json:"pages"`
	Bytes   int64  `json:"bytes"`
	From    *int   `json:"from"`
	Count   int    `json:"count"`
}

func pagedMeta(m mcp.Meta) (pagedInfo, bool) {
	v, ok := m[PagedMetaKey]
	if !ok {
		return pagedInfo{}, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return pagedInfo{}, false
	}
	var pi pagedInfo
	if json.Unmarshal(b, &pi) != nil {
		return pagedInfo{}, false
	}
	return pi, true
}

// readDocument is step 5 of get_dpe: resources/read, asking for pages.
// paged is set when the server answered a page index.
func (c *Computer) readDocument(ctx context.Context, s *mcpServer, uri string) (*mcp.ReadResourceResult, *PagedDocument, error) {
	runBytes := cmp.Or(c.pagedBytes, PagedMessageBytes)
	readCtx, cancel := c.callContext(ctx, s.timeout)
	defer cancel()
	rr, err := s.session.ReadResource(readCtx, &mcp.ReadResourceParams{URI: uri,
		Meta: mcp.Meta{PagedMetaKey: map[string]any{"max_bytes": runBytes}}})
	if err != nil {
		return nil, nil, err
	}
	var rc *mcp.ResourceContents
	for _, cand := range rr.Contents {
		if cand != nil && cand.URI == uri {
			rc = cand
			break
		}
	}
	if rc == nil {
		return rr, nil, nil
	}
	pi, ok := pagedMeta(rc.Meta)
	if !ok || pi.Pages == nil || pi.From != nil {
		return rr, nil, nil
	}
	if *pi.Pages < 1 || *pi.Pages > maxPagedPages || pi.Version == "" {
		return nil, nil, fmt.Errorf("paged read of %s: an index of %d pages", quoteTrunc(uri), *pi.Pages)
	}
	var head map[string]json.RawMessage
	if err := json.Unmarshal([]byte(rc.Text), &head); err != nil || head == nil {
		return nil, nil, errors.New("paged read: the page index is not a JSON object")
	}
	p := &PagedDocument{Head: json.RawMessage(rc.Text), Pages: *pi.Pages, Bytes: pi.Bytes, Version: pi.Version}
	p.read = func(ctx context.Context, from int) ([]json.RawMessage, error) {
		rctx, cancel := c.callContext(ctx, s.timeout)
		defer cancel()
		rr, err := s.session.ReadResource(rctx, &mcp.ReadResourceParams{URI: uri,
			Meta: mcp.Meta{PagedMetaKey: map[string]any{"max_bytes": runBytes, "version": p.Version, "from": from}}})
		if err != nil {
			return nil, fmt.Errorf("paged read of %s from page %d: %w", quoteTrunc(uri), from+1, err)
		}
		for _, rc := range rr.Contents {
			if rc == nil || rc.URI != uri {
				continue
			}
			pi, ok := pagedMeta(rc.Meta)
			if !ok || pi.From == nil || *pi.From != from || pi.Version != p.Version {
				return nil, fmt.Errorf("paged read of %s: the answer is not pages from %d of this version", quoteTrunc(uri), from)
			}
			var run []json.RawMessage
			if err := json.Unmarshal([]byte(rc.Text), &run); err != nil {
				return nil, fmt.Errorf("paged read of %s: pages from %d: %w", quoteTrunc(uri), from, err)
			}
			return run, nil
		}
		return nil, fmt.Errorf("paged read of %s: no contents", quoteTrunc(uri))
	}
	return rr, p, nil
}

// pagedContents checks a page index like dpeContents checks a document.
func pagedContents(uri, server string, p *PagedDocument) (Contents, *protocol.Error) {
	var head map[string]json.RawMessage
	if json.Unmarshal(p.Head, &head) != nil {
		return Contents{}, resolutionFailed(uri, protocol.CategoryInvalidDPEMime, "DPE source answered an invalid document: page index is not a JSON object",
			map[string]string{"mcp_server_name": server})
	}
	return Contents{Kind: ContentsInline, Paged: p}, nil
}
