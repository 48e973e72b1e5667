// Package wire is the vocabulary of the DPE v1 HTTP binding that both
// sides speak: the client (package dpev1) and our remote (package remote)
// share these types and nothing else but dpe/identity, which validates
// and hashes every object (contract.go is the one bridge to it).
//
// Rules come from github.com/A2C-SMCP/dpe-protocol: spec/core.md at
// 4c25829 and spec/bindings/http.md at 06c15e8 (both "定稿", 2026-10-06),
// and the published 0.2.1 pages at 0808ede.
package wire

import (
	"encoding/json"

	"github.com/dpe-tui/dpe-tui/dpe/identity"
)

// Protocol is capabilities.protocol (http §4.1).
const Protocol = "dpe/1"

// Contract is the one hash contract we speak (http §3.1).
const Contract = "dpe1"

// Header names of the binding.
const (
	HeaderContract       = "DPE-Hash-Contract"
	HeaderDocHash        = "DPE-Doc-Hash"
	HeaderErrorCode      = "DPE-Error-Code"
	HeaderUploadOffset   = "DPE-Upload-Offset"
	HeaderSessionExpires = "DPE-Session-Expires"
)

// MediaProblem is the media type of an error body (RFC 9457).
const MediaProblem = "application/problem+json"

// FeatureMove is required in v1 and listed anyway (http §4.1).
const FeatureMove = "move"

// FeatureReadObjects names our opt-in read extension: GET objects/{hash}
// answers a page or element object (or a blob) referenced by a document
// the caller may read. core §3 leaves such a read to an extension that is
// limited to readable documents.
const FeatureReadObjects = "read_objects"

// Limits is capabilities.limits (http §4.1).
type Limits struct {
	MaxPayloadBytes   int64 `json:"max_payload_bytes"`
	PageMaxBytes      int64 `json:"page_max_bytes"`
	StagingTTLSeconds int64 `json:"staging_ttl_seconds"`
	BlobMaxBytes      int64 `json:"blob_max_bytes"`
	BlobChunkBytes    int64 `json:"blob_chunk_bytes"`
	BatchHeadMax      int   `json:"batch_head_max"`
	ListPageMax       int   `json:"list_page_max"`
}

// Capabilities is the body of GET capabilities.
type Capabilities struct {
	Protocol         string   `json:"protocol"`
	HashContracts    []string `json:"hash_contracts"`
	Limits           Limits   `json:"limits"`
	ContentEncodings []string `json:"content_encodings"`
	Features         []string `json:"features"`
}

// Has reports whether the remote lists feature f.
func (c *Capabilities) Has(f string) bool {
	for _, x := range c.Features {
		if x == f {
			return true
		}
	}
	return false
}

// Head is one answer of head / batch_head.
type Head struct {
	DocHash string `json:"doc_hash"`
}

// HeadsRequest and HeadsResponse are POST heads (http §4.2).
type HeadsRequest struct {
	URIs []string `json:"uris"`
}

// HeadsResponse holds one entry per requested URI; nil: no such document.
type HeadsResponse struct {
	Heads []*Head `json:"heads"`
}

// Document is a document object (core §2.1). Metadata is kept as the raw
// JSON that was sent, so what is read back is what was written (core §2.7).
type Document struct {
	FileType    string          `json:"file_type"`
	Title       *string         `json:"title,omitempty"`
	DocMetadata json.RawMessage `json:"doc_metadata,omitempty"`
	Pages       []string        `json:"pages"`
}

// Page is a page object (core §2.2).
type Page struct {
	Title        *string         `json:"title,omitempty"`
	PageMetadata json.RawMessage `json:"page_metadata,omitempty"`
	Elements     []string        `json:"elements"`
}

// Element is an element object (core §2.3): identity's, which defines
// its fields and hash; the wire has no other shape of it.
type Element = identity.Element

// Skeleton is the body of get_skeleton (http §4.3): the document object
// and all its page objects in its order (a repeated hash repeats).
type Skeleton struct {
	FileURI  string            `json:"file_uri"`
	DocHash  string            `json:"doc_hash"`
	Document json.RawMessage   `json:"document"`
	Pages    []json.RawMessage `json:"pages"`
}

// ListEntry is one document of list.
type ListEntry struct {
	FileURI string `json:"file_uri"`
	DocHash string `json:"doc_hash"`
}

// ListResponse is the body of list (http §4.4); NextCursor nil: the end.
type ListResponse struct {
	Documents  []ListEntry `json:"documents"`
	NextCursor *string     `json:"next_cursor"`
}

// NegotiateRequest is POST negotiate (http §4.5).
type NegotiateRequest struct {
	FileURI  string            `json:"file_uri"`
	Document json.RawMessage   `json:"document"`
	Pages    []json.RawMessage `json:"pages,omitempty"`
}

// Session is a staging session handle.
type Session struct {
	ID        string `json:"id"`
	ExpiresAt string `json:"expires_at"`
}

// NegotiateResponse lists what the remote lacks.
type NegotiateResponse struct {
	MissingPages         []string `json:"missing_pages"`
	MissingContentHashes []string `json:"missing_content_hashes"`
	StagingSession       Session  `json:"staging_session"`
}

// UploadResponse is the next layer's missing list (http §4.6): a page
// upload answers content hashes, an element upload blobs, a blob nothing.
type UploadResponse struct {
	MissingContentHashes []string `json:"missing_content_hashes,omitempty"`
	MissingBlobs         []string `json:"missing_blobs,omitempty"`
}

// CommitRequest is the body of PUT documents (http §4.8). The
// precondition travels in headers, never here.
type CommitRequest struct {
	Document       json.RawMessage   `json:"document"`
	Pages          []json.RawMessage `json:"pages,omitempty"`
	Objects        []json.RawMessage `json:"objects,omitempty"`
	StagingSession string            `json:"staging_session,omitempty"`
	Force          bool              `json:"force,omitempty"`
}

// Delta is core §3.3's multiset difference of element content hashes
// (identity's, computed by DeltaOf).
type Delta = identity.Delta

// Commit statuses (core §3.3).
const (
	StatusCreated   = "created"
	StatusUpdated   = "updated"
	StatusUnchanged = "unchanged"
)

// CommitResponse is the body of a successful commit.
type CommitResponse struct {
	Status  string `json:"status"`
	DocHash string `json:"doc_hash"`
	Delta   Delta  `json:"delta"`
}

// MoveRequest is POST move (http §4.9).
type MoveRequest struct {
	FromURI  string `json:"from_uri"`
	ToURI    string `json:"to_uri"`
	BaseHash string `json:"base_hash,omitempty"`
}

// MoveResponse is the body of a successful move.
type MoveResponse struct {
	DocHash string `json:"doc_hash"`
}
