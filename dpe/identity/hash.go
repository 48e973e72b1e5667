package identity

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"slices"
	"strconv"
)

// Prefix starts every dpe1 hash value (contract §1).
const Prefix = "dpe1:"

// Input is the contract's hash input view of one document (the DPE v1
// shape): file_type, doc_metadata and pages in source order. Metadata
// values are raw JSON objects (nil: absent); Meta applies the null rule and
// JCS. Build one with Map (from a decoded dpe.Document) or by hand.
type Input struct {
	FileType    *string
	DocMetadata []byte
	Pages       []InputPage
	// Problems found while mapping (unknown category or file_type, a field
	// the contract has no place for …). Compute adds its own.
	Problems []Problem
}

// InputPage is one page of an Input.
type InputPage struct {
	Number       int64
	Title        *string
	PageMetadata []byte
	Elements     []InputElement
	Path         string // JSON path of the page in the source
}

// InputElement is one content object (core §2.3). Unmappable is set when
// the source element could not be mapped; its problem is in
// Input.Problems and it has no content hash.
type InputElement struct {
	Category      string
	Text          *string
	TextAsHTML    *string
	ImageBlob     *string // "sha256:<64 hex>" or nil
	ImageMimeType *string
	Metadata      []byte
	Path          string
	Unmappable    bool
}

// Problem is one reason a value cannot be hashed under dpe1. Code is the
// contract's error code (DPE_VALIDATION, DPE_CATEGORY_UNKNOWN).
type Problem struct {
	Path    string
	Code    string
	Message string
}

// Error codes (core §6).
const (
	CodeValidation      = "DPE_VALIDATION"
	CodeCategoryUnknown = "DPE_CATEGORY_UNKNOWN"
)

// Result is what Compute found. Pages are in source order. A value that
// could not be computed (because of a Problem) is "".
type Result struct {
	FileType string
	DocMeta  []byte // meta(doc_metadata)
	DocHash  string
	Pages    []PageResult
	Problems []Problem
}

// PageResult is one page's identity.
type PageResult struct {
	Number   int64
	Title    string
	Meta     []byte // meta(page_metadata)
	PageHash string
	Elements []ElementResult
	Path     string
}

// ElementResult is one element's identity, with what a diff shows of it.
type ElementResult struct {
	ContentHash string
	Category    string
	Text        string
	Path        string
}

// Hashes is the conformance vectors' "expected" shape, also printed by
// `dpe-tui hash --json`.
type Hashes struct {
	DocHash string       `json:"doc_hash"`
	Pages   []PageHashes `json:"pages"`
}

// PageHashes is one page of Hashes.
type PageHashes struct {
	Number   int64    `json:"number"`
	PageHash string   `json:"page_hash"`
	Elements []string `json:"elements"`
}

// Hashes returns r in the vectors' "expected" shape.
func (r *Result) Hashes() Hashes {
	h := Hashes{DocHash: r.DocHash, Pages: make([]PageHashes, len(r.Pages))}
	for i, p := range r.Pages {
		ph := PageHashes{Number: p.Number, PageHash: p.PageHash, Elements: make([]string, len(p.Elements))}
		for j, e := range p.Elements {
			ph.Elements[j] = e.ContentHash
		}
		h.Pages[i] = ph
	}
	return h
}

// OK reports whether every value was computed.
func (r *Result) OK() bool { return len(r.Problems) == 0 && r.DocHash != "" }

// digest is H(P…) of contract §3.1: SHA-256 over length-prefixed segments.
type digest struct{ h hash.Hash }

func newDigest() *digest { return &digest{h: sha256.New()} }

func (d *digest) seg(b []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(b)))
	d.h.Write(n[:])
	d.h.Write(b)
}

// text is text(s) of §3.2: null and "" give the same (empty) segment.
func (d *digest) text(s *string) {
	if s == nil {
		d.seg(nil)
		return
	}
	d.seg([]byte(*s))
}

func (d *digest) sum() string { return Prefix + hex.EncodeToString(d.h.Sum(nil)) }

// ContentHash computes an element's content_hash (contract §4).
func ContentHash(e *InputElement) (string, error) {
	kind, ok := categoryOf(e.Category)
	if !ok {
		return "", &problemError{Problem{e.Path + ".category", CodeCategoryUnknown, "category " + strconv.Quote(e.Category) + " is not in the dpe1 category set"}}
	}
	if e.TextAsHTML != nil && kind != kindHTML {
		return "", &problemError{Problem{e.Path + ".text_as_html", CodeValidation, "text_as_html is only defined for Table and Formula, not " + e.Category}}
	}
	if (e.ImageBlob != nil || e.ImageMimeType != nil) && kind != kindImage {
		return "", &problemError{Problem{e.Path, CodeValidation, "image_blob and image_mime_type are only defined for Image, not " + e.Category}}
	}
	if e.ImageBlob != nil && !validBlobRef(*e.ImageBlob) {
		return "", &problemError{Problem{e.Path + ".image_blob", CodeValidation, "image_blob must be sha256:<64 lowercase hex>"}}
	}
	meta, err := Meta(e.Metadata, e.Path+".metadata")
	if err != nil {
		return "", metaProblem(err, e.Path+".metadata")
	}
	d := newDigest()
	d.text(&e.Category)
	d.text(e.Text)
	switch kind {
	case kindImage:
		if e.ImageBlob != nil {
			ref := "blob:" + *e.ImageBlob
			d.text(&ref)
		} else {
			d.text(nil)
		}
		d.text(e.ImageMimeType)
	case kindHTML:
		d.text(e.TextAsHTML)
	}
	d.seg(meta)
	return d.sum(), nil
}

func validBlobRef(s string) bool {
	h, ok := cutPrefix(s, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

type problemError struct{ p Problem }

func (e *problemError) Error() string { return e.p.Path + ": " + e.p.Message }

func metaProblem(err error, path string) *problemError {
	if pe, ok := err.(*problemError); ok {
		return pe
	}
	if ie, ok := err.(*IntegerError); ok {
		return &problemError{Problem{ie.Path, CodeValidation, "integer " + ie.Literal + " is beyond ±(2^53−1); send large ids as strings"}}
	}
	return &problemError{Problem{path, CodeValidation, err.Error()}}
}

// Compute hashes in. Whatever cannot be hashed is a Problem; the values
// depending on it (its page's page_hash, the doc_hash) stay "".
func Compute(in *Input) *Result {
	r := &Result{Problems: slices.Clone(in.Problems)}
	add := func(err error) {
		if pe, ok := err.(*problemError); ok {
			r.Problems = append(r.Problems, pe.p)
		}
	}
	docOK := len(in.Problems) == 0
	if in.FileType == nil {
		add(&problemError{Problem{"$.file_type", CodeValidation, "file_type is missing"}})
		docOK = false
	} else if !FileTypeKnown(*in.FileType) {
		add(&problemError{Problem{"$.file_type", CodeValidation, "file_type " + strconv.Quote(*in.FileType) + " is not in the dpe1 file_type set"}})
		docOK = false
	} else {
		r.FileType = *in.FileType
	}
	dm, err := Meta(in.DocMetadata, "$.doc_metadata")
	if err != nil {
		add(metaProblem(err, "$.doc_metadata"))
		docOK = false
	}
	r.DocMeta = dm
	seen := map[int64]string{}
	for _, p := range in.Pages {
		pr := PageResult{Number: p.Number, Path: p.Path}
		if p.Title != nil {
			pr.Title = *p.Title
		}
		pageOK := true
		if p.Number > MaxSafeInteger || p.Number < -MaxSafeInteger {
			add(&problemError{Problem{p.Path + ".number", CodeValidation, "page number is beyond ±(2^53−1)"}})
			pageOK = false
		}
		if first, dup := seen[p.Number]; dup {
			add(&problemError{Problem{p.Path + ".number", CodeValidation, "page number " + strconv.FormatInt(p.Number, 10) + " repeats " + first}})
			docOK = false
		} else {
			seen[p.Number] = p.Path
		}
		pm, err := Meta(p.PageMetadata, p.Path+".page_metadata")
		if err != nil {
			add(metaProblem(err, p.Path+".page_metadata"))
			pageOK = false
		}
		pr.Meta = pm
		for i := range p.Elements {
			e := &p.Elements[i]
			er := ElementResult{Category: e.Category, Path: e.Path}
			if e.Text != nil {
				er.Text = *e.Text
			}
			if e.Unmappable {
				pageOK = false
			} else if h, err := ContentHash(e); err != nil {
				add(err)
				pageOK = false
			} else {
				er.ContentHash = h
			}
			pr.Elements = append(pr.Elements, er)
		}
		if pageOK {
			d := newDigest()
			d.seg([]byte(strconv.FormatInt(p.Number, 10)))
			d.text(p.Title)
			d.seg(pm)
			for _, e := range pr.Elements {
				d.seg([]byte(e.ContentHash))
			}
			pr.PageHash = d.sum()
		} else {
			docOK = false
		}
		r.Pages = append(r.Pages, pr)
	}
	if docOK {
		order := make([]int, len(r.Pages))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch na, nb := r.Pages[a].Number, r.Pages[b].Number; {
			case na < nb:
				return -1
			case na > nb:
				return 1
			}
			return 0
		})
		d := newDigest()
		d.seg([]byte(r.FileType))
		d.seg(dm)
		for _, i := range order {
			d.seg([]byte(r.Pages[i].PageHash))
		}
		r.DocHash = d.sum()
	}
	return r
}
