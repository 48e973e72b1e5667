package identity

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Prefix starts every dpe1 hash value (contract §1).
const Prefix = "dpe1:"

// Input is the hash input of one document with the source path of every
// part, so that a Problem names the field the user wrote. Build one from a
// v1 Document (Document.Input) or from a decoded v0.2 document (Map).
// Metadata values are raw JSON objects (nil: absent).
type Input struct {
	FileType    *string
	Title       *string
	DocMetadata []byte
	Pages       []InputPage
	// Problems found while building the input (an unknown category, a
	// field the contract has no place for …). Compute adds its own.
	Problems []Problem
}

// InputPage is one page of an Input, in reading order.
type InputPage struct {
	Title        *string
	PageMetadata []byte
	Elements     []InputElement
	Path         string // where the page is in the source ("$.pages[2]")
}

// InputElement is one element of an Input. Unmappable is set when the
// source element could not be mapped; its problem is in Input.Problems
// and it has no content_hash.
type InputElement struct {
	Category   string
	Text       *string
	TextAsHTML *string
	Blob       *string // "sha256:<64 hex>"
	MimeType   *string
	Metadata   []byte
	Path       string
	Unmappable bool
}

// Problem is one reason a value cannot be hashed or is not a valid DPE v1
// object. Code is core §6's error code; Path names the field: a JSON path
// into the source ("$.pages[0].elements[1].blob") for documents, a JSON
// Pointer relative to the object ("/metadata/a/0", core §2.8) for the
// object parsers.
type Problem struct {
	Path    string
	Code    string
	Message string
}

func (p *Problem) Error() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// Error codes (core §6).
const (
	CodeValidation          = "DPE_VALIDATION"
	CodeCategoryUnknown     = "DPE_CATEGORY_UNKNOWN"
	CodeContractUnsupported = "DPE_CONTRACT_UNSUPPORTED"
)

// Result is what Compute found. Pages are in reading order. A hash that
// could not be computed (because of a Problem) is "", and so is every hash
// above it.
type Result struct {
	FileType string
	Title    *string
	DocMeta  []byte // canonical doc_metadata (norm, JCS)
	DocHash  Hash
	Object   []byte // the document object, canonical: the doc_hash preimage
	Pages    []PageResult
	Problems []Problem
}

// PageResult is one page's identity.
type PageResult struct {
	Title    *string
	Meta     []byte // canonical page_metadata
	PageHash Hash
	Object   []byte // the page object, canonical: the page_hash preimage
	Elements []ElementResult
	Path     string
}

// ElementResult is one element's identity, with what a diff shows of it.
type ElementResult struct {
	ContentHash Hash
	Object      []byte // the element object, canonical: the content_hash preimage
	Category    string
	Text        string
	Blob        string // the blob it references ("sha256:…"), or ""
	Path        string
}

// Hashes is the conformance vectors' expected shape (expected.<doc>.dpe1),
// also what `dpe-tui hash --json` prints.
type Hashes struct {
	DocHash Hash         `json:"doc_hash"`
	Pages   []PageHashes `json:"pages"`
}

// PageHashes is one page of Hashes.
type PageHashes struct {
	PageHash Hash   `json:"page_hash"`
	Elements []Hash `json:"elements"`
}

// Hashes returns r in the vectors' expected shape.
func (r *Result) Hashes() Hashes {
	h := Hashes{DocHash: r.DocHash, Pages: make([]PageHashes, len(r.Pages))}
	for i, p := range r.Pages {
		ph := PageHashes{PageHash: p.PageHash, Elements: make([]Hash, len(p.Elements))}
		for j, e := range p.Elements {
			ph.Elements[j] = e.ContentHash
		}
		h.Pages[i] = ph
	}
	return h
}

// OK reports whether every value was computed.
func (r *Result) OK() bool { return len(r.Problems) == 0 && r.DocHash != "" }

// HashDocument computes the identity of a v1 document: Compute(d.Input()).
func HashDocument(d *Document) *Result { return Compute(d.Input()) }

// Input is d as a hash input, with JSON paths of the vectors' shape.
func (d *Document) Input() *Input {
	ft := d.FileType
	in := &Input{FileType: &ft, Title: d.Title, DocMetadata: d.DocMetadata, Pages: make([]InputPage, len(d.Pages))}
	for i, p := range d.Pages {
		ip := InputPage{Title: p.Title, PageMetadata: p.PageMetadata, Path: fmt.Sprintf("$.pages[%d]", i),
			Elements: make([]InputElement, len(p.Elements))}
		for j, e := range p.Elements {
			ip.Elements[j] = InputElement{Category: e.Category, Text: e.Text, TextAsHTML: e.TextAsHTML,
				Blob: e.Blob, MimeType: e.MimeType, Metadata: e.Metadata, Path: fmt.Sprintf("%s.elements[%d]", ip.Path, j)}
		}
		in.Pages[i] = ip
	}
	return in
}

// objectHash is H(obj) of contract §3.1 over an object already in
// canonical form: "dpe1:" + hex(SHA-256(JCS(norm(obj)))).
func objectHash(canonical []byte) Hash {
	sum := sha256.Sum256(canonical)
	return Hash(Prefix + hex.EncodeToString(sum[:]))
}

// The three objects are written in canonical form directly: their keys
// are fixed ASCII names, written in JCS order (UTF-16 code units, which
// for ASCII is byte order); absent and null members are left out (norm
// step 1); metadata is always present (norm step 2) and comes from Meta.

// elementObject is the canonical element object of e, whose fields the
// caller has checked against its category.
func elementObject(e *InputElement, meta []byte) []byte {
	b := make([]byte, 0, 64+len(meta))
	b = append(b, '{')
	b = member(b, "blob", e.Blob, true)
	b = member(b, "category", &e.Category, e.Blob == nil)
	b = append(b, `,"metadata":`...)
	b = append(b, meta...)
	b = member(b, "mime_type", e.MimeType, false)
	b = member(b, "text", e.Text, false)
	b = member(b, "text_as_html", e.TextAsHTML, false)
	return append(b, '}')
}

// pageObject is the canonical page object.
func pageObject(title *string, meta []byte, elements []Hash) []byte {
	b := make([]byte, 0, 32+len(meta)+len(elements)*72)
	b = append(b, `{"elements":`...)
	b = hashList(b, elements)
	b = append(b, `,"page_metadata":`...)
	b = append(b, meta...)
	b = member(b, "title", title, false)
	return append(b, '}')
}

// documentObject is the canonical document object.
func documentObject(fileType string, title *string, meta []byte, pages []Hash) []byte {
	b := make([]byte, 0, 48+len(meta)+len(pages)*72)
	b = append(b, `{"doc_metadata":`...)
	b = append(b, meta...)
	b = member(b, "file_type", &fileType, false)
	b = append(b, `,"pages":`...)
	b = hashList(b, pages)
	b = member(b, "title", title, false)
	return append(b, '}')
}

// member appends ,"key":"value" (without the comma when first), or
// nothing when v is nil.
func member(b []byte, key string, v *string, first bool) []byte {
	if v == nil {
		return b
	}
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	b = append(b, `":`...)
	return jcsString(b, *v)
}

func hashList(b []byte, hs []Hash) []byte {
	b = append(b, '[')
	for i, h := range hs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jcsString(b, string(h))
	}
	return append(b, ']')
}

// jcsString appends s as RFC 8785 §3.2.2.2 serialises a string: the
// ECMAScript JSON.stringify escapes (\b \t \n \f \r, \u00xx for the other
// controls, \" and \\) and every other character as itself in UTF-8.
func jcsString(b []byte, s string) []byte {
	const hexd = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// checkElement is contract §4.1 on one element: a known category, and no
// content field the category does not allow. It returns the problem or nil.
func checkElement(e *InputElement) *Problem {
	kind, ok := categoryOf(e.Category)
	if !ok {
		return &Problem{e.Path + ".category", CodeCategoryUnknown, "category " + quote(e.Category) + " is not in the dpe1 category set"}
	}
	if e.TextAsHTML != nil && kind != kindHTML {
		return &Problem{e.Path + ".text_as_html", CodeValidation, "text_as_html is only defined for Table and Formula, not " + e.Category}
	}
	if e.Blob != nil && kind != kindImage {
		return &Problem{e.Path + ".blob", CodeValidation, "blob is only defined for Image, not " + e.Category}
	}
	if e.MimeType != nil && kind != kindImage {
		return &Problem{e.Path + ".mime_type", CodeValidation, "mime_type is only defined for Image, not " + e.Category}
	}
	if e.Blob != nil && !validBlobRef(*e.Blob) {
		return &Problem{e.Path + ".blob", CodeValidation, "blob must be sha256:<64 lowercase hex>, not " + quote(*e.Blob)}
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"text", e.Text}, {"text_as_html", e.TextAsHTML}, {"mime_type", e.MimeType}} {
		if f.v != nil && !utf8.ValidString(*f.v) {
			return &Problem{e.Path + "." + f.name, CodeValidation, f.name + " is not valid UTF-8"}
		}
	}
	return nil
}

// ContentHash computes an element's content_hash (contract §4) and its
// canonical object.
func ContentHash(e *InputElement) (Hash, []byte, *Problem) {
	if p := checkElement(e); p != nil {
		return "", nil, p
	}
	meta, err := Meta(e.Metadata, e.Path+".metadata")
	if err != nil {
		return "", nil, metaProblem(err, e.Path+".metadata")
	}
	obj := elementObject(e, meta)
	return objectHash(obj), obj, nil
}

func validBlobRef(s string) bool { return validHex64(s, "sha256:") }

// validHex64 reports whether s is prefix and 64 lowercase hex digits.
func validHex64(s, prefix string) bool {
	h, ok := cutPrefix(s, prefix)
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

// quote is strconv.Quote bounded to 60 bytes of s: problems repeat what
// the user wrote, not all of it.
func quote(s string) string {
	if len(s) > 60 {
		return strconv.Quote(s[:60]) + "…"
	}
	return strconv.Quote(s)
}

func metaProblem(err error, path string) *Problem {
	if pe, ok := err.(*Problem); ok {
		return pe
	}
	if ie, ok := err.(*IntegerError); ok {
		return &Problem{ie.Path, CodeValidation, "integer " + truncate(ie.Literal, 40) + " is beyond ±(2^53−1); send large ids as strings"}
	}
	return &Problem{path, CodeValidation, err.Error()}
}

// Compute hashes in. Whatever cannot be hashed is a Problem; the values
// depending on it (its page's page_hash, the doc_hash) stay "".
func Compute(in *Input) *Result {
	r := &Result{Problems: slices.Clone(in.Problems), Title: in.Title}
	add := func(p *Problem) { r.Problems = append(r.Problems, *p) }
	docOK := len(in.Problems) == 0
	switch {
	case in.FileType == nil:
		add(&Problem{"$.file_type", CodeValidation, "file_type is missing"})
		docOK = false
	case !ValidFileType(*in.FileType):
		add(&Problem{"$.file_type", CodeValidation, fileTypeProblem(*in.FileType)})
		docOK = false
	default:
		r.FileType = *in.FileType
	}
	if in.Title != nil && !utf8.ValidString(*in.Title) {
		add(&Problem{"$.title", CodeValidation, "title is not valid UTF-8"})
		docOK = false
	}
	dm, err := Meta(in.DocMetadata, "$.doc_metadata")
	if err != nil {
		add(metaProblem(err, "$.doc_metadata"))
		docOK = false
	}
	r.DocMeta = dm
	pageHashes := make([]Hash, 0, len(in.Pages))
	for _, p := range in.Pages {
		pr := PageResult{Title: p.Title, Path: p.Path, Elements: make([]ElementResult, 0, len(p.Elements))}
		pageOK := true
		if p.Title != nil && !utf8.ValidString(*p.Title) {
			add(&Problem{p.Path + ".title", CodeValidation, "title is not valid UTF-8"})
			pageOK = false
		}
		pm, err := Meta(p.PageMetadata, p.Path+".page_metadata")
		if err != nil {
			add(metaProblem(err, p.Path+".page_metadata"))
			pageOK = false
		}
		pr.Meta = pm
		hs := make([]Hash, 0, len(p.Elements))
		for i := range p.Elements {
			e := &p.Elements[i]
			er := ElementResult{Category: e.Category, Path: e.Path}
			if e.Text != nil {
				er.Text = *e.Text
			}
			if e.Blob != nil {
				er.Blob = *e.Blob
			}
			if e.Unmappable {
				pageOK = false
			} else if h, obj, prob := ContentHash(e); prob != nil {
				add(prob)
				pageOK = false
			} else {
				er.ContentHash, er.Object = h, obj
				hs = append(hs, h)
			}
			pr.Elements = append(pr.Elements, er)
		}
		if pageOK {
			pr.Object = pageObject(p.Title, pm, hs)
			pr.PageHash = objectHash(pr.Object)
			pageHashes = append(pageHashes, pr.PageHash)
		} else {
			docOK = false
		}
		r.Pages = append(r.Pages, pr)
	}
	if docOK {
		r.Object = documentObject(r.FileType, in.Title, dm, pageHashes)
		r.DocHash = objectHash(r.Object)
	}
	return r
}

// Hash is e's content_hash and canonical object (contract §4), or the
// problem that keeps it from having one.
func (e *Element) Hash() (Hash, []byte, *Problem) {
	return ContentHash(&InputElement{Category: e.Category, Text: e.Text, TextAsHTML: e.TextAsHTML,
		Blob: e.Blob, MimeType: e.MimeType, Metadata: e.Metadata})
}

// Hash is p's page_hash and canonical object (contract §5).
func (p *PageObject) Hash() (Hash, []byte, *Problem) {
	if p.Title != nil && !utf8.ValidString(*p.Title) {
		return "", nil, &Problem{"/title", CodeValidation, "title is not valid UTF-8"}
	}
	meta, err := Meta(p.PageMetadata, "/page_metadata")
	if err != nil {
		return "", nil, metaProblem(err, "/page_metadata")
	}
	obj := pageObject(p.Title, meta, p.Elements)
	return objectHash(obj), obj, nil
}

// Hash is d's doc_hash and canonical object (contract §5).
func (d *DocumentObject) Hash() (Hash, []byte, *Problem) {
	if !ValidFileType(d.FileType) {
		return "", nil, &Problem{"/file_type", CodeValidation, fileTypeProblem(d.FileType)}
	}
	if d.Title != nil && !utf8.ValidString(*d.Title) {
		return "", nil, &Problem{"/title", CodeValidation, "title is not valid UTF-8"}
	}
	meta, err := Meta(d.DocMetadata, "/doc_metadata")
	if err != nil {
		return "", nil, metaProblem(err, "/doc_metadata")
	}
	obj := documentObject(d.FileType, d.Title, meta, d.Pages)
	return objectHash(obj), obj, nil
}

// ObjectHash is the hash of one wire object: an element, page or
// document object as a remote stores it (Sniff tells which). Kind is
// "content_hash", "page_hash" or "doc_hash", the name of what it is.
type ObjectHash struct {
	Kind      string
	Hash      Hash
	Canonical []byte
}

// HashObject parses one wire object of the given shape (ShapeElement,
// ShapePageObject or ShapeDocumentObject) and hashes it.
func HashObject(b []byte, shape Shape) (*ObjectHash, *Problem) {
	var (
		h    Hash
		obj  []byte
		p    *Problem
		kind string
	)
	switch shape {
	case ShapeElement:
		e, pe := ParseElement(b)
		if pe != nil {
			return nil, pe
		}
		kind = "content_hash"
		h, obj, p = e.Hash()
	case ShapePageObject:
		po, pe := ParsePageObject(b)
		if pe != nil {
			return nil, pe
		}
		kind = "page_hash"
		h, obj, p = po.Hash()
	case ShapeDocumentObject:
		do, pe := ParseDocumentObject(b)
		if pe != nil {
			return nil, pe
		}
		kind = "doc_hash"
		h, obj, p = do.Hash()
	default:
		return nil, &Problem{"", CodeValidation, shape.String() + " is not a single object"}
	}
	if p != nil {
		return nil, p
	}
	return &ObjectHash{Kind: kind, Hash: h, Canonical: obj}, nil
}
