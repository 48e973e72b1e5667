package wire

import (
	"encoding/json"

	"github.com/dpe-tui/dpe-tui/dpe/identity"
)

// This file is the one bridge to dpe/identity, which owns the dpe1
// contract: core §2.8's validation of the three objects, their hashes
// (contract 1 §3–§5) and the file_uri normalization of core §1.1.
// Nothing in dpev1 or remote validates or hashes an object otherwise.

// HashPrefix starts every dpe1 hash value.
const HashPrefix = identity.Prefix

func fromProblem(p *identity.Problem) *Violation {
	return &Violation{Code: Code(p.Code), Pointer: p.Path, Msg: p.Message}
}

func hashes(hs []identity.Hash) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = string(h)
	}
	return out
}

// ParseElement validates an element object (core §2.3, §2.8) and returns
// it with its content_hash.
func ParseElement(raw []byte) (*Element, string, *Violation) {
	e, p := identity.ParseElement(raw)
	if p != nil {
		return nil, "", fromProblem(p)
	}
	h, _, p := e.Hash()
	if p != nil {
		return nil, "", fromProblem(p)
	}
	return e, string(h), nil
}

// ParsePage validates a page object (core §2.2) and returns its page_hash.
func ParsePage(raw []byte) (*Page, string, *Violation) {
	po, p := identity.ParsePageObject(raw)
	if p != nil {
		return nil, "", fromProblem(p)
	}
	h, _, p := po.Hash()
	if p != nil {
		return nil, "", fromProblem(p)
	}
	return &Page{Title: po.Title, PageMetadata: po.PageMetadata, Elements: hashes(po.Elements)}, string(h), nil
}

// ParseDocument validates a document object (core §2.1) and returns its
// doc_hash.
func ParseDocument(raw []byte) (*Document, string, *Violation) {
	do, p := identity.ParseDocumentObject(raw)
	if p != nil {
		return nil, "", fromProblem(p)
	}
	h, _, p := do.Hash()
	if p != nil {
		return nil, "", fromProblem(p)
	}
	return &Document{FileType: do.FileType, Title: do.Title, DocMetadata: do.DocMetadata, Pages: hashes(do.Pages)}, string(h), nil
}

// NormalizeURI is core §1.1 (identity.NormalizeFileURI): the checked,
// syntax-normalized form of a file_uri.
func NormalizeURI(s string) (string, *Violation) {
	n, p := identity.NormalizeFileURI(s)
	if p != nil {
		return "", fromProblem(p)
	}
	return n, nil
}

// DeltaOf is core §3.3's delta between two documents' element content
// hashes (identity.DeltaOf).
func DeltaOf(old, new []string) Delta {
	conv := func(s []string) []identity.Hash {
		out := make([]identity.Hash, len(s))
		for i, h := range s {
			out[i] = identity.Hash(h)
		}
		return out
	}
	return identity.DeltaOf(conv(old), conv(new))
}

// CheckIJSON is core §2.8 step 0 on a whole body (valid Unicode without
// lone surrogates, no duplicate key in an object): identity's check, the
// one the objects themselves go through.
func CheckIJSON(body []byte) *Violation {
	if p := identity.CheckIJSON(body); p != nil {
		return fromProblem(p)
	}
	return nil
}

// Member is one member of an envelope, its value raw (identity.Member).
type Member = identity.Member

// SplitObject is an envelope's members in order, without a duplicate
// key, each value raw for its own parse (identity.SplitObject).
func SplitObject(body []byte) ([]Member, *Violation) {
	ms, p := identity.SplitObject(body)
	if p != nil {
		return nil, fromProblem(p)
	}
	return ms, nil
}

// SplitArray is an array's (or null's) elements raw (identity.SplitArray).
func SplitArray(body []byte) ([]json.RawMessage, *Violation) {
	es, p := identity.SplitArray(body)
	if p != nil {
		return nil, fromProblem(p)
	}
	return es, nil
}

// CheckText is the text half of step 0 (identity.CheckText): valid UTF-8,
// no lone surrogate escape.
func CheckText(body []byte) *Violation {
	if p := identity.CheckText(body); p != nil {
		return fromProblem(p)
	}
	return nil
}
