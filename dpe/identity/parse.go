package identity

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dpe-tui/dpe-tui/internal/jsonfast"
)

// Parsing DPE v1 objects and documents: core §2.8's validation order,
// the same for every implementation, so that one input gives one error
// code. Step 0 I-JSON (valid Unicode, no duplicate keys), 1 shape (an
// object with its required fields, null counts as absent), 2 category,
// 3 closed schema (an undefined field is rejected even when null), 4 each
// field in the order of core §2.1–§2.3 (type, file_type syntax, blob
// reference, every metadata value, every child hash).

// maxDepthJSON bounds the nesting of any value parsed here (the parser
// recurses).
const maxDepthJSON = 256

// ParseElement parses one element object from the wire. Problem paths
// are JSON Pointers relative to the object (core §2.8).
func ParseElement(b []byte) (*Element, *Problem) {
	v, p := decodeIJSON(b)
	if p != nil {
		return nil, p
	}
	if p := checkDepth(depthOf(v), pointer{}); p != nil {
		return nil, p
	}
	e, p := element(v, pointer{})
	if p != nil {
		return nil, p
	}
	return e, nil
}

// ParsePageObject parses one page object from the wire (pointer paths).
func ParsePageObject(b []byte) (*PageObject, *Problem) {
	v, p := decodeIJSON(b)
	if p != nil {
		return nil, p
	}
	if p := checkDepth(depthOf(v), pointer{}); p != nil {
		return nil, p
	}
	return parsePageObject(v, pointer{})
}

func parsePageObject(v any, at where) (*PageObject, *Problem) {
	o, p := object(v, at, []string{"elements"}, []string{"title", "page_metadata", "elements"})
	if p != nil {
		return nil, p
	}
	po := &PageObject{}
	if po.Title, p = optString(o, "title", at); p != nil {
		return nil, p
	}
	if po.PageMetadata, p = metadata(o, "page_metadata", at); p != nil {
		return nil, p
	}
	if po.Elements, p = childHashes(o["elements"], at.key("elements")); p != nil {
		return nil, p
	}
	return po, nil
}

// ParseDocumentObject parses one document object from the wire (pointer
// paths).
func ParseDocumentObject(b []byte) (*DocumentObject, *Problem) {
	v, p := decodeIJSON(b)
	if p != nil {
		return nil, p
	}
	if p := checkDepth(depthOf(v), pointer{}); p != nil {
		return nil, p
	}
	return parseDocumentObject(v, pointer{})
}

func parseDocumentObject(v any, at where) (*DocumentObject, *Problem) {
	o, p := object(v, at, []string{"file_type", "pages"}, []string{"file_type", "title", "doc_metadata", "pages"})
	if p != nil {
		return nil, p
	}
	do := &DocumentObject{}
	if do.FileType, p = fileType(o, at); p != nil {
		return nil, p
	}
	if do.Title, p = optString(o, "title", at); p != nil {
		return nil, p
	}
	if do.DocMetadata, p = metadata(o, "doc_metadata", at); p != nil {
		return nil, p
	}
	if do.Pages, p = childHashes(o["pages"], at.key("pages")); p != nil {
		return nil, p
	}
	return do, nil
}

// CheckObject lists every problem of one wire object of the given shape
// for a person fixing a file, as ParseDocument lists each object's: §2.8's
// first problem first (the one a remote answers), then the object's
// further problems, with JSON paths ("$.blob") as documents have them.
// No problem: nil.
func CheckObject(b []byte, shape Shape) []Problem {
	v, p := decodeIJSON(b)
	if p != nil {
		p.Path = "$"
		return []Problem{*p}
	}
	root := jsonPath{}
	var probs []Problem
	each(v, root, func(p *Problem) { probs = append(probs, *p) }, func(v any) *Problem {
		if p := checkDepth(depthOf(v), root); p != nil {
			return p
		}
		var p *Problem
		switch shape {
		case ShapeElement:
			_, p = element(v, root)
		case ShapePageObject:
			_, p = parsePageObject(v, root)
		case ShapeDocumentObject:
			_, p = parseDocumentObject(v, root)
		default:
			p = &Problem{root.String(), CodeValidation, shape.String() + " is not a single object"}
		}
		return p
	})
	return probs
}

// maxDocumentProblems bounds the problems one document reports.
const maxDocumentProblems = 100

// ParseDocument parses a DPE v1 document with pages and elements inline
// (the conformance vectors' documents shape). It checks objects in core
// §2.8's order for a request carrying several: the document object, then
// every page object in array order, then every element object in array
// order; within each object, the steps of §2.8. So the first problem of
// all is the one §2.8 names; after it, each object's further problems
// follow (see each), so that a person fixing a file sees all of them at
// once. Paths are JSON paths into the document
// ("$.pages[0].elements[2].blob"). The document is nil when any problem
// was found.
func ParseDocument(b []byte) (*Document, []Problem) {
	v, p := decodeIJSON(b)
	if p != nil {
		p.Path = "$"
		return nil, []Problem{*p}
	}
	root := jsonPath{}
	var probs []Problem
	add := func(p *Problem) {
		if len(probs) < maxDocumentProblems {
			probs = append(probs, *p)
		}
	}
	docAllowed := []string{"file_type", "title", "doc_metadata", "pages"}
	d := &Document{}
	// The document's own fields; a problem with one of them does not hide
	// the pages' problems.
	v, _ = each(v, root, add, func(v any) *Problem {
		if p := checkDepth(depthAsWire(v, "pages"), root); p != nil {
			return p
		}
		o, p := object(v, root, []string{"file_type", "pages"}, docAllowed)
		if p != nil {
			return p
		}
		if d.FileType, p = fileType(o, root); p != nil {
			return p
		}
		if d.Title, p = optString(o, "title", root); p != nil {
			return p
		}
		d.DocMetadata, p = metadata(o, "doc_metadata", root)
		return p
	})
	o, p := object(v, root, []string{"file_type", "pages"}, docAllowed)
	if p != nil {
		// Not an object, or pages missing: nothing more to look at.
		return nil, probs
	}
	pages, ok := o["pages"].([]any)
	if !ok {
		add(&Problem{root.key("pages").String(), CodeValidation, "pages is not an array"})
		return nil, probs
	}
	d.Pages = make([]Page, len(pages))
	elements := make([][]any, len(pages))
	for i, pv := range pages {
		at := root.key("pages").index(i)
		pg := &d.Pages[i]
		// A page's own problems do not hide its elements'.
		if po, ok := pv.(map[string]any); ok {
			elements[i], _ = po["elements"].([]any)
		}
		each(pv, at, add, func(v any) *Problem {
			if p := checkDepth(depthAsWire(v, "elements"), at); p != nil {
				return p
			}
			po, p := object(v, at, []string{"elements"}, []string{"title", "page_metadata", "elements"})
			if p != nil {
				return p
			}
			if pg.Title, p = optString(po, "title", at); p != nil {
				return p
			}
			if pg.PageMetadata, p = metadata(po, "page_metadata", at); p != nil {
				return p
			}
			if _, ok := po["elements"].([]any); !ok {
				return &Problem{at.key("elements").String(), CodeValidation, "elements is not an array"}
			}
			return nil
		})
	}
	for i, els := range elements {
		d.Pages[i].Elements = make([]Element, len(els))
		for j, ev := range els {
			at := root.key("pages").index(i).key("elements").index(j)
			each(ev, at, add, func(v any) *Problem {
				if p := checkDepth(depthOf(v), at); p != nil {
					return p
				}
				e, p := element(v, at)
				if e != nil {
					d.Pages[i].Elements[j] = *e
				}
				return p
			})
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return d, nil
}

// maxObjectDepth is core §2.8 step 0's nesting limit of one object
// (vectors/nesting_depth.json: limit 64).
const maxObjectDepth = 64

// depthOf is a value's nesting depth as core §2.8 counts it: a scalar 0,
// an object or array 1 + its deepest child (an empty one 1).
func depthOf(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, c := range x {
			d = max(d, depthOf(c))
		}
	case []any:
		for _, c := range x {
			d = max(d, depthOf(c))
		}
	default:
		return 0
	}
	return 1 + d
}

// depthAsWire is the depth of an inline page or document as its wire
// object has it: the list under key (elements, pages) is a list of hashes
// there, depth 1, whatever it holds inline.
func depthAsWire(v any, key string) int {
	o, ok := v.(map[string]any)
	if !ok {
		return depthOf(v)
	}
	d := 0
	for k, c := range o {
		if k == key {
			d = max(d, 1)
		} else {
			d = max(d, depthOf(c))
		}
	}
	return 1 + d
}

// checkDepth is the problem of an object nested deeper than the limit;
// it names the object itself (the vector's rule), not the deepest value.
func checkDepth(depth int, at where) *Problem {
	if depth <= maxObjectDepth {
		return nil
	}
	return &Problem{at.String(), CodeValidation, fmt.Sprintf("nested %d deep, over the limit of %d", depth, maxObjectDepth)}
}

// maxProblemsPerObject bounds the problems each reports for one object.
const maxProblemsPerObject = 16

// each reports every problem of the object v, not only §2.8's first:
// check gives the first problem; when it is on one field that is not
// the object as a whole (an undefined key, a value of the wrong type or
// form), that field is set aside and check runs again on the rest. A
// problem of the object itself (not an object, a required field missing,
// which setting a field aside may cause) ends it. It returns v without
// the fields set aside, and whether v had no problem.
func each(v any, at where, add func(*Problem), check func(v any) *Problem) (any, bool) {
	clean := true
	for range maxProblemsPerObject {
		p := check(v)
		if p == nil {
			return v, clean
		}
		o, isObj := v.(map[string]any)
		if !clean && p.Path == at.String() {
			// Caused by setting a field aside, not the user's.
			return v, false
		}
		add(p)
		clean = false
		k := fieldAt(o, at, p.Path)
		if !isObj || k == "" {
			return v, false
		}
		rest := make(map[string]any, len(o)-1)
		for kk, vv := range o {
			if kk != k {
				rest[kk] = vv
			}
		}
		v = rest
	}
	return v, false
}

// fieldAt is the key of o that path (a problem's) lies in, or "".
func fieldAt(o map[string]any, at where, path string) string {
	for k := range o {
		kp := at.key(k).String()
		if path == kp || strings.HasPrefix(path, kp+".") || strings.HasPrefix(path, kp+"[") {
			return k
		}
	}
	return ""
}

// where names a place in a parsed value: a JSON Pointer for wire objects,
// a JSON path for documents.
type where interface {
	key(k string) where
	index(i int) where
	String() string
}

type pointer struct{ s string }

func (p pointer) key(k string) where {
	k = strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
	return pointer{p.s + "/" + k}
}
func (p pointer) index(i int) where { return pointer{p.s + "/" + strconv.Itoa(i)} }
func (p pointer) String() string    { return p.s }

type jsonPath struct{ s string }

func (p jsonPath) key(k string) where { return jsonPath{p.s + pathKey(k)} }
func (p jsonPath) index(i int) where  { return jsonPath{p.s + "[" + strconv.Itoa(i) + "]"} }
func (p jsonPath) String() string     { return "$" + p.s }

// object is steps 1 and 3 for one object: v is an object, every required
// key is there and not null, and no key is outside allowed (an undefined
// key is rejected even when its value is null). Several undefined keys:
// the least in UTF-16 code-unit order is named (core §2.8).
func object(v any, at where, required, allowed []string) (map[string]any, *Problem) {
	o, ok := v.(map[string]any)
	if !ok {
		return nil, &Problem{at.String(), CodeValidation, "not a JSON object"}
	}
	for _, k := range required {
		if o[k] == nil {
			return nil, &Problem{at.String(), CodeValidation, k + " is missing"}
		}
	}
	if p := closed(o, at, allowed); p != nil {
		return nil, p
	}
	return o, nil
}

func closed(o map[string]any, at where, allowed []string) *Problem {
	var extra []string
	for k := range o {
		if !slices.Contains(allowed, k) {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	slices.SortFunc(extra, compareUTF16)
	return &Problem{at.key(extra[0]).String(), CodeValidation, "field " + quote(extra[0]) + " is not defined here (allowed: " + strings.Join(allowed, ", ") + ")"}
}

// compareUTF16 orders strings by UTF-16 code units (JCS, core §2.8).
func compareUTF16(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// element parses one element object (steps 1–4).
func element(v any, at where) (*Element, *Problem) {
	o, ok := v.(map[string]any)
	if !ok {
		return nil, &Problem{at.String(), CodeValidation, "not a JSON object"}
	}
	if o["category"] == nil {
		return nil, &Problem{at.String(), CodeValidation, "category is missing"}
	}
	cat, ok := o["category"].(string)
	if !ok {
		return nil, &Problem{at.key("category").String(), CodeValidation, "category is not a string"}
	}
	fields, known := ContentFields(cat)
	if !known {
		return nil, &Problem{at.key("category").String(), CodeCategoryUnknown, "category " + quote(cat) + " is not in the dpe1 category set"}
	}
	allowed := append([]string{"category"}, fields...)
	allowed = append(allowed, "metadata")
	if p := closed(o, at, allowed); p != nil {
		if k := p.Path[len(at.String()):]; k == at.key("text_as_html").String()[len(at.String()):] ||
			k == at.key("blob").String()[len(at.String()):] || k == at.key("mime_type").String()[len(at.String()):] {
			p.Message += "; " + cat + " does not carry it"
		}
		return nil, p
	}
	e := &Element{Category: cat}
	var p *Problem
	// core §2.3's field order: category, text, text_as_html, blob /
	// mime_type, metadata.
	if e.Text, p = optString(o, "text", at); p != nil {
		return nil, p
	}
	if e.TextAsHTML, p = optString(o, "text_as_html", at); p != nil {
		return nil, p
	}
	if e.Blob, p = optString(o, "blob", at); p != nil {
		return nil, p
	}
	if e.Blob != nil && !validBlobRef(*e.Blob) {
		return nil, &Problem{at.key("blob").String(), CodeValidation, "blob must be sha256:<64 lowercase hex>, not " + quote(*e.Blob)}
	}
	if e.MimeType, p = optString(o, "mime_type", at); p != nil {
		return nil, p
	}
	if e.Metadata, p = metadata(o, "metadata", at); p != nil {
		return nil, p
	}
	return e, nil
}

func optString(o map[string]any, k string, at where) (*string, *Problem) {
	v := o[k]
	if v == nil {
		return nil, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, &Problem{at.key(k).String(), CodeValidation, k + " is not a string"}
	}
	return &s, nil
}

func fileType(o map[string]any, at where) (string, *Problem) {
	s, ok := o["file_type"].(string)
	if !ok {
		return "", &Problem{at.key("file_type").String(), CodeValidation, "file_type is not a string"}
	}
	if !ValidFileType(s) {
		return "", &Problem{at.key("file_type").String(), CodeValidation, fileTypeProblem(s)}
	}
	return s, nil
}

// metadata checks a metadata field (an object, or absent / null) and every
// value in it (core §2.6), and returns its JSON (nil: absent).
func metadata(o map[string]any, k string, at where) (json.RawMessage, *Problem) {
	v := o[k]
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &Problem{at.key(k).String(), CodeValidation, k + " is not a JSON object"}
	}
	if p := numbers(m, at.key(k), 0); p != nil {
		return nil, p
	}
	b, err := jsonfast.Marshal(m) // a parsed value back as JSON, numbers as sent
	if err != nil {
		return nil, &Problem{at.key(k).String(), CodeValidation, err.Error()}
	}
	return b, nil
}

// numbers is core §2.6 on every value under v, keys in UTF-16 order (so
// that the problem reported is the same each run).
func numbers(v any, at where, depth int) *Problem {
	if depth > maxDepthJSON {
		return &Problem{at.String(), CodeValidation, "nested too deep"}
	}
	switch x := v.(type) {
	case json.Number:
		if p := numberProblem(string(x)); p != "" {
			return &Problem{at.String(), CodeValidation, p}
		}
	case []any:
		for i, e := range x {
			if p := numbers(e, at.index(i), depth+1); p != nil {
				return p
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		for _, k := range keys {
			if p := numbers(x[k], at.key(k), depth+1); p != nil {
				return p
			}
		}
	}
	return nil
}

// numberProblem is core §2.6 on one literal: an integer beyond ±(2^53−1),
// or a double beyond the double range.
func numberProblem(lit string) string {
	if err := checkInteger(lit, ""); err != nil {
		return "integer " + truncate(lit, 40) + " is beyond ±(2^53−1); send large ids as strings"
	}
	if strings.ContainsAny(lit, ".eE") {
		if f, err := strconv.ParseFloat(lit, 64); err != nil || math.IsInf(f, 0) {
			return "number " + truncate(lit, 40) + " is beyond the double range"
		}
	}
	return ""
}

// childHashes is step 4 on a list of child hashes (core §2.8 4.5).
func childHashes(v any, at where) ([]Hash, *Problem) {
	a, ok := v.([]any)
	if !ok {
		return nil, &Problem{at.String(), CodeValidation, "not an array of hashes"}
	}
	out := make([]Hash, len(a))
	for i, x := range a {
		h, p := parseHash(x, at, i)
		if p != nil {
			return nil, p
		}
		out[i] = h
	}
	return out, nil
}

// parseHash checks one hash value (contract §1): a prefix naming a
// supported contract, then 64 lowercase hex digits.
func parseHash(x any, list where, i int) (Hash, *Problem) {
	// The item's path is built only for a problem: a skeleton lists
	// thousands of hashes, each checked on every open.
	s, ok := x.(string)
	if !ok {
		return "", &Problem{list.index(i).String(), CodeValidation, "hash is not a string"}
	}
	c, _, found := strings.Cut(s, ":")
	if !found || c != strings.TrimSuffix(Prefix, ":") {
		return "", &Problem{list.index(i).String(), CodeContractUnsupported, "hash " + quote(s) + " does not name a supported contract (dpe1)"}
	}
	if !validHex64(s, Prefix) {
		return "", &Problem{list.index(i).String(), CodeValidation, "hash " + quote(s) + " is not dpe1: and 64 lowercase hex digits"}
	}
	return Hash(s), nil
}

// CheckIJSON is step 0 on a whole body (a request or an answer holding
// objects): b is one I-JSON value.
func CheckIJSON(b []byte) *Problem {
	_, p := decodeIJSON(b)
	return p
}

// decodeIJSON is step 0: b is one I-JSON value (RFC 7493: valid Unicode
// with no lone surrogate escapes, no duplicate key in an object). Numbers
// are kept as their literal (json.Number): their range is judged at step
// 4, on the value that has it.
func decodeIJSON(b []byte) (any, *Problem) {
	if p := CheckText(b); p != nil {
		return nil, p
	}
	v, err := parseIJSON(b)
	if err != nil {
		return nil, &Problem{"", CodeValidation, "not I-JSON: " + err.Error()}
	}
	return v, nil
}

// CheckText is the text half of step 0 on b: valid UTF-8 with no lone
// surrogate escape. A caller that walks an envelope itself (its own
// duplicate-key check) and parses each object it holds checks the whole
// body with this once.
func CheckText(b []byte) *Problem {
	if !utf8.Valid(b) {
		return &Problem{"", CodeValidation, "not valid UTF-8"}
	}
	if i := loneSurrogate(b); i >= 0 {
		return &Problem{"", CodeValidation, fmt.Sprintf("a \\u escape at byte %d is a lone surrogate", i)}
	}
	return nil
}

// loneSurrogate returns the offset of the first \u escape in a string of
// b that is a surrogate not in a high-low pair, or -1.
func loneSurrogate(b []byte) int {
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !in {
			if c == '"' {
				in = true
			}
			continue
		}
		switch c {
		case '"':
			in = false
		case '\\':
			if i+1 < len(b) && b[i+1] == 'u' {
				r, ok := hex4(b, i+2)
				if ok && r >= 0xD800 && r <= 0xDBFF {
					r2, ok2 := rune(0), false
					if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
						r2, ok2 = hex4(b, i+8)
					}
					if !ok2 || r2 < 0xDC00 || r2 > 0xDFFF {
						return i
					}
					i += 11
					continue
				}
				if ok && r >= 0xDC00 && r <= 0xDFFF {
					return i
				}
				i += 5
				continue
			}
			i++ // the escaped character
		}
	}
	return -1
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[at:at+4]), 16, 16)
	return rune(n), err == nil
}

// Shape is which DPE a document JSON is written in.
type Shape int

const (
	// ShapeV1 is DPE v1 (core §2): file_type, title, doc_metadata,
	// pages[{title, page_metadata, elements[{category, text, …, metadata}]}].
	ShapeV1 Shape = iota
	// ShapeV02 is the DPE of A2C-SMCP 0.2 (our dpe.Document), hashed through
	// Map.
	ShapeV02
	// ShapeElement, ShapePageObject and ShapeDocumentObject are single
	// DPE v1 wire objects (core §2.1–§2.3), children by hash.
	ShapeElement
	ShapePageObject
	ShapeDocumentObject
)

func (s Shape) String() string {
	switch s {
	case ShapeV02:
		return "DPE v0.2"
	case ShapeElement:
		return "a DPE v1 element object"
	case ShapePageObject:
		return "a DPE v1 page object"
	case ShapeDocumentObject:
		return "a DPE v1 document object"
	}
	return "DPE v1"
}

// Sniff tells the shapes apart. A top-level category is an element object,
// top-level elements without pages a page object, pages that are all
// strings a document object. Otherwise it tells a v0.2 document from a
// v1 one by the fields only v0.2 has:
// file_uri, uri, doc_ref, page_count, summary, keywords, last_modified at
// the top; page_index, number, uri, element_count, doc_ref, or no inline
// elements on a page (manifest mode); ele_metadata, element_id, id,
// doc_ref, page_index on an element. Anything else is v1, parsed by its
// closed schema, so that a misspelt field is a problem naming it rather
// than metadata.
func Sniff(body []byte) Shape {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return ShapeV1 // ParseDocument says what is wrong
	}
	if hasAny(top, "file_uri", "uri", "doc_ref", "page_count", "summary", "keywords", "last_modified") {
		return ShapeV02
	}
	if _, ok := top["category"]; ok {
		return ShapeElement
	}
	if _, ok := top["elements"]; ok && !hasAny(top, "pages") {
		return ShapePageObject
	}
	var refs []string
	if json.Unmarshal(top["pages"], &refs) == nil && len(refs) > 0 {
		return ShapeDocumentObject
	}
	var pages []map[string]json.RawMessage
	if json.Unmarshal(top["pages"], &pages) != nil {
		return ShapeV1
	}
	for _, p := range pages {
		if _, inline := p["elements"]; !inline || hasAny(p, "page_index", "number", "uri", "element_count", "doc_ref") {
			return ShapeV02
		}
		var els []map[string]json.RawMessage
		if json.Unmarshal(p["elements"], &els) != nil {
			continue
		}
		for _, e := range els {
			if hasAny(e, "ele_metadata", "element_id", "id", "doc_ref", "page_index") {
				return ShapeV02
			}
		}
	}
	return ShapeV1
}

func hasAny(m map[string]json.RawMessage, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}
