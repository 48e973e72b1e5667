package computer

import (
	"context"
	"encoding/json"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Contents kinds (data-structures.md §ResolverContents).
const (
	ContentsInline   = "inline"
	ContentsExternal = "external"
)

// Resolver is the DPE Resolver hook (dpe.md §DPE Resolver Hook): it turns the
// contents of a dpe:// resource into an A2CResource whose URI the agent can
// fetch. An error becomes 4013 resolver_error; a result without a usable URI
// becomes 4013 resolver_returned_invalid.
type Resolver interface {
	Resolve(ctx context.Context, res protocol.A2CResource, contents Contents, hint Hint) (protocol.A2CResource, error)
}

// ResolverFunc adapts a function to Resolver.
type ResolverFunc func(ctx context.Context, res protocol.A2CResource, contents Contents, hint Hint) (protocol.A2CResource, error)

// Resolve calls f.
func (f ResolverFunc) Resolve(ctx context.Context, res protocol.A2CResource, contents Contents, hint Hint) (protocol.A2CResource, error) {
	return f(ctx, res, contents, hint)
}

// Contents is ResolverContents: what resources/read returned, already checked
// against the two A2C mimetypes (dpe.md §DPE 文档读取的两种形态).
type Contents struct {
	// Kind is ContentsInline or ContentsExternal.
	Kind string
	// Document is the DPE Document JSON (inline). It is a JSON object with
	// a pages array; the bytes are exactly what the MCP server sent. It is
	// nil when Paged is set: use Inline for the whole document.
	Document json.RawMessage
	// Paged is set instead of Document for a document the MCP server hands
	// over in pages (our library, for documents over PagedMessageBytes):
	// a resolver that serves pages reads them one run at a time.
	Paged *PagedDocument
	// External is the URI reference (external).
	External *protocol.DPEURIRef
}

// Hint is ResolverHint: who asked, and which MCP server the URI routed to.
type Hint struct {
	MCPServerName, Agent, ReqID string
}
