// Package dpe is the document layer: dpe:// URIs, the Document → Page →
// Element model, decoding (lazy, page by page), conformance validation and
// fetching access URIs. It knows nothing of Socket.IO; the agent plugs in
// through the Resolver interface.
//
// Spec: ../shared/spec/dpe.md, dpe-standardization-proposal.md, seed 000.
package dpe

import "encoding/json"

// Document is the top level of DPE content JSON (dpe.md §Document JSON).
type Document struct {
	DocRef       string
	URI          string
	FileURI      string
	FileType     string
	Title        string
	Summary      string
	PageCount    int // as declared; 0 when absent
	Keywords     []string
	LastModified string

	// Pages in reading order (sorted by Index when the source used the older
	// kernel shape with "number").
	Pages []*Page

	// Extra keeps top-level fields this model does not name (including the
	// older kernel "doc_metadata"), for the inspector and raw view.
	Extra map[string]json.RawMessage

	// problems are shape findings seen while decoding (a field with the
	// wrong JSON type …), reported by Validate.
	problems     []Finding
	hasPageCount bool
}

// Page is one logical page. A manifest-mode page has URI set and Elements
// nil until it is loaded; an inline page may still be undecoded (Raw set,
// Decoded false) when the document was opened lazily.
type Page struct {
	Index        int // page_index (or kernel "number")
	Title        string
	DocRef       string
	URI          string // manifest mode: where the page JSON lives
	ElementCount int    // element_count hint; -1 when absent

	Elements []*Element
	// Decoded is true once Elements reflects the page's content.
	Decoded bool

	// Raw is the page object's JSON exactly as it arrived.
	Raw json.RawMessage
	// Extra keeps fields the model does not name (kernel "page_metadata"...).
	Extra map[string]json.RawMessage

	pos         int  // position in the source "pages" array (JSON paths)
	hasIndex    bool // page_index or number was present
	hasElements bool // an inline "elements" array was present
	nElements   int  // inline elements counted while indexing
	// Search index built by Decode: the [start,end) offsets in Raw of
	// every element's "text" string body, and the escapes inside them
	// (nil: none). Valid when spansKnown.
	spans      []uint32
	esc        *escapes
	bigrams    bigramFilter // byte pairs of the texts (nil: none)
	spansKnown bool
	problems   []Finding
}

// Element is one content unit. Category is an open string.
type Element struct {
	ID        string
	Category  string
	Text      string
	DocRef    string
	PageIndex int

	// Metadata is ele_metadata, field by field, raw.
	Metadata map[string]json.RawMessage

	// Raw is the element's JSON exactly as it arrived.
	Raw json.RawMessage
}
