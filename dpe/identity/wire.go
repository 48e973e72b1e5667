package identity

import (
	"encoding/json"
	"strings"
)

// Hash is one dpe1 hash value: "dpe1:" and 64 lowercase hex digits
// (contract §1). A content_hash, page_hash and doc_hash are all Hashes; a
// blob reference ("sha256:…") is not.
type Hash string

// Hex is the 64 hex digits of h (for file names and URL paths).
func (h Hash) Hex() string { return strings.TrimPrefix(string(h), Prefix) }

// The wire objects of DPE v1 (core §2). A Document, Page and Element carry
// their children inline: the shape of a document a connector produces and
// of the conformance vectors' "documents". DocumentObject and PageObject
// are the tree objects a remote stores and the HTTP binding sends, with
// their children referenced by hash. Element is both.
//
// Optional strings are pointers: absent and null are the same (contract
// §3.2 norm), "" is a value of its own. Metadata is kept as the JSON it
// arrived as (nil: absent), so that integer range and null keys are judged
// on what was sent.

// Document is a DPE v1 document with its pages and elements inline.
type Document struct {
	FileType    string          `json:"file_type"`
	Title       *string         `json:"title,omitempty"`
	DocMetadata json.RawMessage `json:"doc_metadata,omitempty"`
	Pages       []Page          `json:"pages"`
}

// Page is one page of a Document, with its elements inline. It has no
// number: its position in Document.Pages is its place (core §2.2).
type Page struct {
	Title        *string         `json:"title,omitempty"`
	PageMetadata json.RawMessage `json:"page_metadata,omitempty"`
	Elements     []Element       `json:"elements"`
}

// Element is one element object (core §2.3), addressed by its
// content_hash. Which content fields a category allows is contract §4.1
// (ContentFields).
type Element struct {
	Category   string          `json:"category"`
	Text       *string         `json:"text,omitempty"`
	TextAsHTML *string         `json:"text_as_html,omitempty"`
	Blob       *string         `json:"blob,omitempty"`
	MimeType   *string         `json:"mime_type,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
}

// DocumentObject is the root tree object (core §2.1): pages by page_hash,
// in reading order. Its hash is the doc_hash.
type DocumentObject struct {
	FileType    string          `json:"file_type"`
	Title       *string         `json:"title,omitempty"`
	DocMetadata json.RawMessage `json:"doc_metadata,omitempty"`
	Pages       []Hash          `json:"pages"`
}

// PageObject is one page tree object (core §2.2): elements by
// content_hash, in reading order. Its hash is the page_hash.
type PageObject struct {
	Title        *string         `json:"title,omitempty"`
	PageMetadata json.RawMessage `json:"page_metadata,omitempty"`
	Elements     []Hash          `json:"elements"`
}
