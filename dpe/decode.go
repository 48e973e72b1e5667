package dpe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"sort"
)

// Decode indexes a Document JSON (dpe.md §DPE 内容标准格式) lazily: it
// validates the JSON, reads the document fields and every page header
// (page_index/number, title, doc_ref, uri, element_count), counts inline
// elements against the limits, and keeps each page's bytes in Raw with
// Decoded false. Elements are built on demand by EnsurePage, so opening a
// huge document costs one scan, not one allocation per element.
//
// Decode keeps slices of data (Raw fields): do not modify data afterwards.
//
// The older kernel shape is accepted: "number" for page_index, and
// "doc_metadata" (kept in Extra; its summary/last_modified/title fill the
// model when the top level lacks them). Pages are ordered by index.
//
// A named field with the wrong JSON type does not fail the decode: the field
// stays zero, its raw value is kept in Extra, and Validate reports it.
// Structure that makes the value not a document (not an object, no
// "pages" array, a page or element that is not an object) is an error
// wrapping ErrNotDocument; limits give a *LimitError; malformed JSON a
// *SyntaxError.
func Decode(data []byte, lim Limits) (*Document, error) {
	return decode(data, lim, nil)
}

// decode is Decode; scanned, when not nil, is told after each page how far
// the scan has got (data before that offset is not read again by the
// scan, so a mapped file's pages can be dropped from memory behind it),
// and no search index is built.
func decode(data []byte, lim Limits, scanned func(end int)) (*Document, error) {
	d, _, err := decodeUpTo(data, lim, -1, scanned)
	return d, err
}

// errPageReached stops decodeUpTo's scan once the page it looks for is
// indexed.
var errPageReached = errors.New("page reached")

// decodeUpTo is decode that, for keep ≥ 0, stops as soon as the page at
// position keep is indexed and the pages before it are in page_index
// order: reached is then true, and d holds the top-level fields before
// "pages" and pages 0..keep (indexed, not decoded); nothing after that
// page is read, so neither its limits, its syntax nor its findings are
// known. A later page whose page_index sorts before page keep (the
// document breaks page-order, which check reports) is not looked for.
// Pages out of order before it, or fewer pages than keep+1, read the
// whole: d is then decode's.
func decodeUpTo(data []byte, lim Limits, keep int, scanned func(end int)) (d *Document, reached bool, err error) {
	lim = lim.withDefaults()
	s, i, err := objectStart(data, lim, "document size", "empty input", "top-level", `an object with a "pages" array`)
	if err != nil {
		return nil, false, err
	}
	s.noSearch = scanned != nil
	d = &Document{}
	f := fields{s: s, depth: 1, extra: &d.Extra, probs: &d.problems, path: "$"}
	pagesSeen, ordered := false, true
	end, err := s.object(i, 1, func(key []byte, v int) (int, error) {
		if end, ok, err := docField(&f, d, key, v); ok {
			return end, err
		}
		switch string(key) {
		case "pages":
			if data[v] == 'n' {
				return s.scalar(v)
			}
			if data[v] != '[' {
				if _, err := s.value(v, 1); err != nil {
					return 0, err
				}
				return 0, notDocument("\"pages\" is %s, want an array", s.kind(v))
			}
			pagesSeen = true
			return s.array(v, 2, func(n, pv int) (int, error) {
				if n >= lim.MaxPages {
					return 0, &LimitError{What: "pages", Limit: int64(lim.MaxPages), Got: int64(n + 1)}
				}
				if data[pv] != '{' {
					if _, err := s.value(pv, 2); err != nil {
						return 0, err
					}
					return 0, notDocument("$.pages[%d] is %s, want a page object", n, s.kind(pv))
				}
				p, end, err := indexPage(s, pv, n, lim)
				if err != nil {
					return 0, err
				}
				ordered = ordered && (n == 0 || d.Pages[n-1].Index <= p.Index)
				d.Pages = append(d.Pages, p)
				if scanned != nil {
					scanned(end)
				}
				if n == keep && ordered {
					return 0, errPageReached
				}
				return end, nil
			})
		}
		return f.keep(key, v)
	})
	if errors.Is(err, errPageReached) {
		liftKernelMetadata(d)
		return d, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	if err := s.trailing(end); err != nil {
		return nil, false, err
	}
	if !pagesSeen {
		return nil, false, notDocument("no \"pages\" array")
	}
	liftKernelMetadata(d)
	if !sort.SliceIsSorted(d.Pages, func(a, b int) bool { return d.Pages[a].Index < d.Pages[b].Index }) {
		sort.SliceStable(d.Pages, func(a, b int) bool { return d.Pages[a].Index < d.Pages[b].Index })
	}
	return d, false, nil
}

// docField reads one named top-level field of d (all but "pages"); ok is
// false for a key it does not name.
func docField(f *fields, d *Document, key []byte, v int) (end int, ok bool, err error) {
	switch string(key) {
	case "doc_ref":
		end, err = f.str(key, v, &d.DocRef)
	case "uri":
		end, err = f.str(key, v, &d.URI)
	case "file_uri":
		end, err = f.str(key, v, &d.FileURI)
	case "file_type":
		end, err = f.str(key, v, &d.FileType)
	case "title":
		end, err = f.str(key, v, &d.Title)
	case "summary":
		end, err = f.str(key, v, &d.Summary)
	case "last_modified":
		end, err = f.str(key, v, &d.LastModified)
	case "page_count":
		end, err = f.integer(key, v, &d.PageCount, &d.hasPageCount)
	case "keywords":
		end, err = f.strings(key, v, &d.Keywords)
	default:
		return 0, false, nil
	}
	return end, true, err
}

// DecodePage decodes a page object fetched from a manifest page's uri
// (dpe.md: "Agent SDK 拉 Page URI 后拿到的内容仍是一个 Page 对象（含 elements
// 数组）"), fully: Elements built, Decoded true. Index is page_index (or
// number) when present, else 0.
func DecodePage(data []byte, lim Limits) (*Page, error) {
	lim = lim.withDefaults()
	s, i, err := objectStart(data, lim, "page size", "empty page", "page", "a page object")
	if err != nil {
		return nil, err
	}
	p := &Page{ElementCount: -1}
	end, err := decodePage(s, i, 1, p, lim, true, "$")
	if err != nil {
		return nil, err
	}
	if err := s.trailing(end); err != nil {
		return nil, err
	}
	if !p.hasElements {
		// Said so that the one who wrote the page knows the fix (the
		// caller names the page).
		return nil, notDocument("its JSON has no \"elements\" array: a page fetched from its uri must be a page object listing its elements ([] when it has none)")
	}
	p.Raw = data[i:end]
	return p, nil
}

// EnsurePage builds the elements of inline page i from its Raw bytes if that
// has not happened yet. It does no I/O: a manifest page gives an error
// wrapping ErrManifestPage. A Document is not safe for concurrent
// EnsurePage calls.
func (d *Document) EnsurePage(i int, lim Limits) error {
	if i < 0 || i >= len(d.Pages) {
		return fmt.Errorf("page %d out of range (document has %d pages)", i+1, len(d.Pages))
	}
	p := d.Pages[i]
	if p.Decoded {
		return nil
	}
	if !p.hasElements {
		if p.URI != "" {
			return fmt.Errorf("page %d: %w", i+1, ErrManifestPage)
		}
		return fmt.Errorf("page %d has neither \"elements\" nor \"uri\"", i+1)
	}
	if p.Raw == nil {
		return fmt.Errorf("page %d was not kept (the document was opened for one page)", i+1)
	}
	q, err := decodeInline(p, lim)
	if err != nil {
		return fmt.Errorf("page %d: %w", i+1, err)
	}
	p.Elements = q.Elements
	p.problems = append(p.problems, q.problems...)
	p.Decoded = true
	return nil
}

// maxSpans bounds the text-span index of one page (two offsets per element).
const maxSpans = 2 * DefaultMaxElementsPerPage

// decodeInline decodes the elements of an indexed inline page into a new
// Page without touching p (Validate walks huge documents this way without
// keeping every page decoded). Its errors do not name the page: the
// caller knows its 1-based number.
func decodeInline(p *Page, lim Limits) (*Page, error) {
	lim = lim.withDefaults()
	s := &jscan{data: p.Raw, maxDepth: lim.MaxDepth}
	q := &Page{Index: p.Index, pos: p.pos, ElementCount: p.ElementCount}
	if _, err := decodePage(s, 0, 3, q, lim, false, fmt.Sprintf("$.pages[%d]", p.pos)); err != nil {
		return nil, err
	}
	return q, nil
}

// indexPage reads a page header and skips (validating and counting) its
// elements. depth of the page object is 3 ($ → pages → page).
func indexPage(s *jscan, pv, pos int, lim Limits) (*Page, int, error) {
	p := &Page{pos: pos, Index: pos, ElementCount: -1}
	esc := &escapes{}
	var bg bigramScratch
	defer func() { s.esc = nil }()
	path := fmt.Sprintf("$.pages[%d]", pos)
	f := fields{s: s, depth: 3, extra: &p.Extra, probs: &p.problems, path: path}
	fromPageIndex := false
	end, err := s.object(pv, 3, func(key []byte, v int) (int, error) {
		switch string(key) {
		case "page_index", "number":
			if string(key) == "number" && fromPageIndex {
				return f.keep(key, v)
			}
			var set bool
			end, err := f.integer(key, v, &p.Index, &set)
			if set {
				p.hasIndex = true
				fromPageIndex = string(key) == "page_index"
			}
			return end, err
		case "title":
			return f.str(key, v, &p.Title)
		case "doc_ref":
			return f.str(key, v, &p.DocRef)
		case "uri":
			return f.str(key, v, &p.URI)
		case "element_count":
			return f.integer(key, v, &p.ElementCount, nil)
		case "elements":
			if s.data[v] == 'n' {
				return s.scalar(v)
			}
			if s.data[v] != '[' {
				return f.wrong(key, v, "an array")
			}
			p.hasElements = true
			p.nElements = 0
			return s.array(v, 4, func(n, ev int) (int, error) {
				if n >= lim.MaxElementsPerPage {
					return 0, &LimitError{What: fmt.Sprintf("elements on page %d", p.pos+1), Limit: int64(lim.MaxElementsPerPage), Got: int64(n + 1)}
				}
				if s.data[ev] != '{' {
					if _, err := s.value(ev, 4); err != nil {
						return 0, err
					}
					return 0, notDocument("%s.elements[%d] is %s, want an element object", path, n, s.kind(ev))
				}
				p.nElements++
				// Read the element's keys (not build it) to note where
				// its "text" string lies and which escapes it uses: Search
				// then scans only text bytes of undecoded pages.
				return s.object(ev, 5, func(k []byte, v int) (int, error) {
					if string(k) != "text" || s.data[v] != '"' || s.noSearch {
						return s.value(v, 5)
					}
					s.esc = esc
					end, err := s.str(v)
					s.esc = nil
					if err == nil && len(p.spans) < maxSpans {
						p.spans = append(p.spans, uint32(v+1-pv), uint32(end-1-pv))
						bg.add(s.data[v+1 : end-1])
					}
					return end, err
				})
			})
		}
		return f.keep(key, v)
	})
	if err != nil {
		return nil, 0, err
	}
	p.Raw = s.data[pv:end]
	if esc.runes != nil || esc.short != [8]bool{} {
		p.esc = esc
	}
	// Offsets are uint32: a page over 4 GiB (only with raised limits)
	// gets no span index and Search scans its raw bytes instead.
	p.spansKnown = uint64(end-pv) <= math.MaxUint32 && len(p.spans) < maxSpans
	p.bigrams = bg.filter()
	if p.hasElements && p.nElements == 0 {
		p.Decoded = true
	}
	return p, end, nil
}

// decodePage fully decodes the page object at pv (depth = its depth) into
// p. With header false only "elements" is read (EnsurePage: the header came
// from indexPage).
func decodePage(s *jscan, pv, depth int, p *Page, lim Limits, header bool, path string) (int, error) {
	var probs []Finding
	f := fields{s: s, depth: depth, extra: &p.Extra, probs: &probs, path: path}
	fromPageIndex := false
	end, err := s.object(pv, depth, func(key []byte, v int) (int, error) {
		k := string(key)
		if k == "elements" {
			if s.data[v] == 'n' {
				return s.scalar(v)
			}
			if s.data[v] != '[' {
				return f.wrong(key, v, "an array")
			}
			p.hasElements = true
			p.Elements = p.Elements[:0]
			return s.array(v, depth+1, func(n, ev int) (int, error) {
				if n >= lim.MaxElementsPerPage {
					// The caller names the page (1-based): a fetched
					// manifest page does not know its place.
					return 0, &LimitError{What: "elements", Limit: int64(lim.MaxElementsPerPage), Got: int64(n + 1)}
				}
				if s.data[ev] != '{' {
					if _, err := s.value(ev, depth+1); err != nil {
						return 0, err
					}
					return 0, notDocument("%s.elements[%d] is %s, want an element object", path, n, s.kind(ev))
				}
				pi := p.Index
				if header {
					pi = -1 // page_index may come after "elements"; fixed below
				}
				el, end, err := decodeElement(s, ev, depth+2, pi, fmt.Sprintf("%s.elements[%d]", path, n), n, &probs)
				if err != nil {
					return 0, err
				}
				p.Elements = append(p.Elements, el)
				return end, nil
			})
		}
		if !header {
			return s.value(v, depth)
		}
		switch k {
		case "page_index", "number":
			if k == "number" && fromPageIndex {
				return f.keep(key, v)
			}
			var set bool
			end, err := f.integer(key, v, &p.Index, &set)
			if set {
				p.hasIndex = true
				fromPageIndex = k == "page_index"
			}
			return end, err
		case "title":
			return f.str(key, v, &p.Title)
		case "doc_ref":
			return f.str(key, v, &p.DocRef)
		case "uri":
			return f.str(key, v, &p.URI)
		case "element_count":
			return f.integer(key, v, &p.ElementCount, nil)
		}
		return f.keep(key, v)
	})
	if err != nil {
		return 0, err
	}
	if header {
		// Elements carry the page index when they omit their own.
		for _, el := range p.Elements {
			if el.PageIndex == -1 {
				el.PageIndex = p.Index
			}
		}
	}
	p.nElements = len(p.Elements)
	p.Decoded = p.hasElements
	p.problems = append(p.problems, probs...)
	return end, nil
}

func decodeElement(s *jscan, ev, depth, pageIndex int, path string, n int, probs *[]Finding) (*Element, int, error) {
	el := &Element{PageIndex: pageIndex}
	var extra map[string]json.RawMessage // wrong-typed values; Raw has them anyway
	f := fields{s: s, depth: depth, extra: &extra, probs: probs, path: path, elem: n, isElem: true}
	fromElementID := false
	end, err := s.object(ev, depth, func(key []byte, v int) (int, error) {
		switch string(key) {
		case "element_id", "id":
			if string(key) == "id" && fromElementID {
				return s.value(v, depth)
			}
			if c := s.data[v]; c == '-' || (c >= '0' && c <= '9') {
				// Kernel IDs may be numbers; keep their literal spelling.
				end, err := s.number(v)
				el.ID = string(s.data[v:end])
				fromElementID = string(key) == "element_id"
				return end, err
			}
			end, err := f.str(key, v, &el.ID)
			if el.ID != "" {
				fromElementID = string(key) == "element_id"
			}
			return end, err
		case "category":
			return f.str(key, v, &el.Category)
		case "text":
			return f.str(key, v, &el.Text)
		case "doc_ref":
			return f.str(key, v, &el.DocRef)
		case "page_index":
			return f.integer(key, v, &el.PageIndex, nil)
		case "ele_metadata":
			if s.data[v] == 'n' {
				return s.scalar(v)
			}
			if s.data[v] != '{' {
				return f.wrong(key, v, "an object")
			}
			el.Metadata = map[string]json.RawMessage{}
			return s.object(v, depth+1, func(k []byte, mv int) (int, error) {
				end, err := s.value(mv, depth+1)
				if err != nil {
					return 0, err
				}
				el.Metadata[string(k)] = json.RawMessage(s.data[mv:end])
				return end, nil
			})
		}
		return s.value(v, depth)
	})
	if err != nil {
		return nil, 0, err
	}
	el.Raw = s.data[ev:end]
	return el, end, nil
}

// fields reads named fields of one object, recording wrong types.
type fields struct {
	s      *jscan
	depth  int // depth of the object holding the fields
	extra  *map[string]json.RawMessage
	probs  *[]Finding
	path   string
	elem   int
	isElem bool
}

func (f *fields) keep(key []byte, v int) (int, error) {
	end, err := f.s.value(v, f.depth)
	if err != nil {
		return 0, err
	}
	if *f.extra == nil {
		*f.extra = map[string]json.RawMessage{}
	}
	(*f.extra)[string(key)] = json.RawMessage(f.s.data[v:end])
	return end, nil
}

func (f *fields) wrong(key []byte, v int, want string) (int, error) {
	end, err := f.keep(key, v)
	if err != nil {
		return 0, err
	}
	elem := -1
	if f.isElem {
		elem = f.elem
	}
	*f.probs = append(*f.probs, Finding{
		Path:     f.path + "." + string(key),
		Rule:     RuleFieldType,
		Message:  fmt.Sprintf("%q is %s, want %s", key, f.s.kind(v), want),
		Severity: Violation,
		Page:     -1,
		Element:  elem,
	})
	return end, nil
}

func (f *fields) str(key []byte, v int, dst *string) (int, error) {
	switch f.s.data[v] {
	case '"':
		end, err := f.s.str(v)
		if err != nil {
			return 0, err
		}
		*dst = decodeString(f.s.data[v:end])
		return end, nil
	case 'n':
		return f.s.scalar(v)
	}
	return f.wrong(key, v, "a string")
}

func (f *fields) integer(key []byte, v int, dst *int, set *bool) (int, error) {
	switch c := f.s.data[v]; {
	case c == 'n':
		return f.s.scalar(v)
	case c == '-' || (c >= '0' && c <= '9'):
		end, err := f.s.number(v)
		if err != nil {
			return 0, err
		}
		if n, ok := decodeInt(f.s.data[v:end]); ok {
			*dst = n
			if set != nil {
				*set = true
			}
			return end, nil
		}
	}
	return f.wrong(key, v, "an integer")
}

func (f *fields) strings(key []byte, v int, dst *[]string) (int, error) {
	switch f.s.data[v] {
	case 'n':
		return f.s.scalar(v)
	case '[':
	default:
		return f.wrong(key, v, "an array of strings")
	}
	var out []string
	ok := true
	end, err := f.s.array(v, f.depth+1, func(n, ev int) (int, error) {
		if f.s.data[ev] != '"' {
			ok = false
			return f.s.value(ev, f.depth+1)
		}
		end, err := f.s.str(ev)
		if err != nil {
			return 0, err
		}
		out = append(out, decodeString(f.s.data[ev:end]))
		return end, nil
	})
	if err != nil {
		return 0, err
	}
	if !ok {
		return f.wrong(key, v, "an array of strings")
	}
	if out == nil {
		out = []string{}
	}
	*dst = out
	return end, nil
}

func (s *jscan) trailing(end int) error {
	if i := s.ws(end); i < len(s.data) {
		return s.synerr(i, "data after the top-level value")
	}
	return nil
}

func skipBOM(data []byte) int {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return 3
	}
	return 0
}

// liftKernelMetadata fills summary, last_modified and title from the older
// kernel "doc_metadata" (proposal §3.1) when the top level lacks them.
func liftKernelMetadata(d *Document) {
	raw, ok := d.Extra["doc_metadata"]
	if !ok {
		return
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	take := func(dst *string, keys ...string) {
		if *dst != "" {
			return
		}
		for _, k := range keys {
			var v string
			if json.Unmarshal(m[k], &v) == nil && v != "" {
				*dst = v
				return
			}
		}
	}
	take(&d.Summary, "summary")
	take(&d.LastModified, "last_modified")
	take(&d.Title, "title", "filename")
}

// objectStart applies the size limit and finds the opening brace of the
// top-level object. Valid JSON of another kind is "not a DPE document"
// (naming what it is); malformed JSON is a *SyntaxError.
func objectStart(data []byte, lim Limits, sizeWhat, emptyMsg, what, want string) (*jscan, int, error) {
	if int64(len(data)) > lim.MaxBytes {
		return nil, 0, &LimitError{What: sizeWhat, Limit: lim.MaxBytes, Got: int64(len(data))}
	}
	s := &jscan{data: data, maxDepth: lim.MaxDepth}
	i := s.ws(skipBOM(data))
	if i >= len(data) {
		return nil, 0, notDocument("%s", emptyMsg)
	}
	if data[i] != '{' {
		end, err := s.value(i, 0)
		if err != nil {
			return nil, 0, err
		}
		if err := s.trailing(end); err != nil {
			return nil, 0, err
		}
		return nil, 0, notDocument("%s JSON is %s, want %s", what, s.kind(i), want)
	}
	return s, i, nil
}

// The first page before the whole file. A document's first page is
// usually a sliver of its bytes: decoding it from the prefix that holds it
// lets a viewer show it while the rest is still read, scanned and indexed.
// The provisional document is built by peekFirstPage from the prefix; the
// final one by Decode from all the bytes, so every limit, error and
// finding is exactly Decode's, and the two share nothing mutable.

// peekFirstPage scans data, a prefix of a document still arriving, up to
// the end of its first page. It returns a Document holding the top-level
// fields that precede "pages" and that page, decoded; ok is false when the
// prefix does not hold an inline first page yet, or does not start a
// document at all. Decode of the whole has the last word either way.
func peekFirstPage(data []byte, lim Limits) (*Document, bool) {
	// Cap at len: nothing the provisional page keeps can reach the bytes
	// still being written after the prefix.
	d, reached, err := decodeUpTo(data[:len(data):len(data)], lim, 0, nil)
	if err != nil || !reached || !d.Pages[0].hasElements || d.EnsurePage(0, lim) != nil {
		return nil, false
	}
	return d, true
}

// firstPager watches a body arrive and hands its first page over once.
type firstPager struct {
	lim Limits
	fn  func(*Document)
	// next: try again once this many bytes are in. Doubling keeps the
	// retries of a first page that spans many reads O(n) in all.
	next int
	done bool
}

// feed sees the bytes read so far (a prefix: a body that is complete
// needs no provisional page). A nil firstPager does nothing. It never
// stops the read (false): the whole body is the final document.
func (fp *firstPager) feed(buf []byte) bool {
	if fp == nil || fp.done || len(buf) < fp.next {
		return false
	}
	if d, ok := peekFirstPage(buf, fp.lim); ok {
		fp.done = true
		fp.fn(d)
		return false
	}
	fp.next = 2 * len(buf)
	return false
}

// readChunk is how much readBody asks for at a time when it reports
// progress: small enough that a first page is seen early, large enough
// that the retries of peekFirstPage stay rare.
const readChunk = 1 << 20

// readBody reads r to its end into one buffer: of the stated size when
// size > 0 (no doubling garbage: documents are large and peak memory is
// a budget), growing otherwise; more than max bytes is a *LimitError
// naming what. progress, when not nil, sees the bytes read so far after
// each read that did not complete a stated size; when it says stop
// (true), readBody returns those bytes and reads no more.
func readBody(ctx context.Context, r io.Reader, size, max int64, what string, progress func([]byte) bool) ([]byte, error) {
	if size > max {
		return nil, &LimitError{What: what, Limit: max, Got: size}
	}
	var data []byte
	if size > 0 {
		data = make([]byte, 0, size)
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			if size > 0 && int64(len(data)) >= size {
				// The stated size is read; the file may have grown since
				// it was stated: read the rest, still bounded.
				rest, err := io.ReadAll(io.LimitReader(r, max+1-int64(len(data))))
				if err != nil {
					return nil, err
				}
				data = append(data, rest...)
				if int64(len(data)) > max {
					return nil, &LimitError{What: what, Limit: max, Got: int64(len(data))}
				}
				return data, nil
			}
			data = slices.Grow(data, min(readChunk, int(max+1)-len(data)))
		}
		end := min(cap(data), len(data)+readChunk)
		if int64(end) > max+1 {
			end = int(max + 1)
		}
		n, err := r.Read(data[len(data):end])
		data = data[:len(data)+n]
		if int64(len(data)) > max {
			return nil, &LimitError{What: what, Limit: max, Got: int64(len(data))}
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if n > 0 && progress != nil && (size <= 0 || int64(len(data)) < size) && progress(data) {
			return data, nil
		}
	}
}

// One page of a mapped file. `get --page N` needs one page: decodeMapped
// scans a read-only mapping of the file up to that page with Decode's own
// code, dropping the scanned bytes from memory behind the scan, then keeps
// copies of what the document must hold on to (that
// page's bytes, the fields kept raw) and nothing of the mapping.

// dropWindow is how much scanned data may stay resident before it is
// dropped: large enough that the drops are few.
const dropWindow = 256 << 10

// errFileChanged: reading a mapped file faulted; it shrank under us.
var errFileChanged = errors.New("the file changed (it shrank) while it was read")

// guardFault runs fn, turning a memory fault inside it (a mapped file
// truncated meanwhile) into errFileChanged instead of a crash.
func guardFault(fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); fault {
				err = errFileChanged
				return
			}
			panic(r)
		}
	}()
	return fn()
}

// decodeMapped decodes data, a read-only file mapping, up to page keep
// (decodeUpTo) and detaches the result from it, keeping the bytes of
// d.Pages[keep] only (none when keep is out of range). data may be
// unmapped afterwards.
func decodeMapped(data []byte, lim Limits, keep int) (d *Document, reached bool, err error) {
	err = guardFault(func() error {
		var err error
		dropped := 0
		d, reached, err = decodeUpTo(data, lim, keep, func(end int) {
			if end-dropped < dropWindow {
				return
			}
			to := end &^ (os.Getpagesize() - 1)
			dropResident(data[dropped:to])
			dropped = to
		})
		if err != nil {
			return err
		}
		d.detach(keep)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return d, reached, nil
}

// detach copies every byte slice d holds of its source (raw fields, the
// kept page's JSON) and forgets the other pages' bytes: EnsurePage says
// they were not kept.
func (d *Document) detach(keep int) {
	d.Extra = cloneRaw(d.Extra)
	for i, p := range d.Pages {
		p.Extra = cloneRaw(p.Extra)
		if i == keep {
			p.Raw = bytes.Clone(p.Raw)
			continue
		}
		p.Raw = nil
		p.spans, p.bigrams, p.spansKnown = nil, nil, false
	}
}

func cloneRaw(m map[string]json.RawMessage) map[string]json.RawMessage {
	for k, v := range m {
		m[k] = bytes.Clone(v)
	}
	return m
}
