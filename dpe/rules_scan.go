package dpe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// The ele_metadata keys the one-element rules read. Check keeps only
// these (raw, in fixed slots) instead of building each element's
// Metadata map: a large document has one map per element, and building
// them cost more than the rules.
const (
	mLastModified = iota
	mParentID
	mRelatedIDs
	mCategoryDepth
	mIsContinuation
	mCoordinates
	mLanguages
	mTextAsHTML
	mImageBase64
	mImagePath
	mImageURL
	mImageURI
	mURL
	mImageMimeType
	mChecked
	mLanguage
	mCodeLanguage
	mProgrammingLanguage
	nMetaKeys
)

// metaSlot is the slot of an ele_metadata key (-1: no rule reads it).
func metaSlot(k string) int {
	switch k {
	case "last_modified":
		return mLastModified
	case "parent_id":
		return mParentID
	case "related_ids":
		return mRelatedIDs
	case "category_depth":
		return mCategoryDepth
	case "is_continuation":
		return mIsContinuation
	case "coordinates":
		return mCoordinates
	case "languages":
		return mLanguages
	case "text_as_html":
		return mTextAsHTML
	case "image_base64":
		return mImageBase64
	case "image_path":
		return mImagePath
	case "image_url":
		return mImageURL
	case "image_uri":
		return mImageURI
	case "url":
		return mURL
	case "image_mime_type":
		return mImageMimeType
	case "checked":
		return mChecked
	case "language":
		return mLanguage
	case "code_language":
		return mCodeLanguage
	case "programming_language":
		return mProgrammingLanguage
	}
	return -1
}

// elemView is what the one-element rules read of an element: either a
// decoded *Element or the raw bytes of an undecoded page, scanned once.
// Strings are decoded only when a rule needs them (a finding, or a text
// the fast check cannot clear).
type elemView struct {
	idRaw    []byte // element_id token (string or number literal); nil: none
	id       string // when idKnown (taken from an Element)
	idKnown  bool
	category string
	textRaw  []byte // the text string token, quotes included; nil: none
	text     string // when decoded (or taken from an Element)
	hasText  bool   // text is set
	raw      []byte // the element object
	meta     [nMetaKeys]json.RawMessage
	// textScanned: textClear and textNonBlank say what textClear would
	// of textRaw (computed while scanning it).
	textScanned, textClear, textNonBlank bool
}

// fromElement fills v from a decoded element.
func (v *elemView) fromElement(el *Element) {
	*v = elemView{id: el.ID, idKnown: true, category: el.Category, text: el.Text, hasText: true, raw: el.Raw}
	for k, raw := range el.Metadata {
		if s := metaSlot(k); s >= 0 {
			v.meta[s] = raw
		}
	}
}

// getText is the element's text, decoded on first use.
func (v *elemView) getText() string {
	if !v.hasText {
		if v.textRaw != nil {
			v.text = decodeString(v.textRaw)
		}
		v.hasText = true
	}
	return v.text
}

// knownCategory returns the canonical category constant spelled exactly as
// b, so the common case needs no allocation ("" when b is anything else).
func knownCategory(b []byte) string {
	switch string(b) {
	case CategoryText:
		return CategoryText
	case CategoryTitle:
		return CategoryTitle
	case CategoryNarrativeText:
		return CategoryNarrativeText
	case CategoryListItem:
		return CategoryListItem
	case CategoryAddress:
		return CategoryAddress
	case CategoryEmailAddress:
		return CategoryEmailAddress
	case CategoryCompositeElement:
		return CategoryCompositeElement
	case CategoryCodeSnippet:
		return CategoryCodeSnippet
	case CategoryFigureCaption:
		return CategoryFigureCaption
	case CategoryPageNumber:
		return CategoryPageNumber
	case CategoryFormula:
		return CategoryFormula
	case CategoryImage:
		return CategoryImage
	case CategoryPageBreak:
		return CategoryPageBreak
	case CategoryTable:
		return CategoryTable
	case CategoryTableChunk:
		return CategoryTableChunk
	case CategoryHeader:
		return CategoryHeader
	case CategoryFooter:
		return CategoryFooter
	case CategoryFormKeysValues:
		return CategoryFormKeysValues
	case CategoryCheckBox:
		return CategoryCheckBox
	}
	return ""
}

// normCategory is checkPage's normalized category: the canonical name, or
// "" when the category is not a known one.
func normCategory(c string) string {
	if k := knownCategory([]byte(c)); k != "" {
		return k // a canonical name normalizes to itself
	}
	n, ok := normalizeCategory(c)
	if !ok {
		return ""
	}
	return n
}

// errRescan makes scanPage give up on a page shape it does not mirror
// exactly (a repeated "elements" key): checkPage then decodes the page.
var errRescan = fmt.Errorf("rescan")

// scanPage reads the elements of an undecoded inline page the way
// decodeInline does (same limits, same errors, same wrong-type problems)
// without building them, calling fn for each element. problem records a
// wrong-type finding of element n, built only when called.
func scanPage(p *Page, lim Limits, fn func(n int, v *elemView) error, problem func(n int, key []byte, kind, want string)) error {
	s := &jscan{data: p.Raw, maxDepth: lim.MaxDepth}
	var v elemView
	seen := false
	_, err := s.object(0, 3, func(key []byte, pv int) (int, error) {
		if string(key) != "elements" {
			return s.value(pv, 3)
		}
		switch s.data[pv] {
		case 'n':
			return s.scalar(pv)
		case '[':
		default:
			// indexPage saw an array here: a repeated key.
			return 0, errRescan
		}
		if seen {
			return 0, errRescan
		}
		seen = true
		return s.array(pv, 4, func(n, ev int) (int, error) {
			if n >= lim.MaxElementsPerPage {
				return 0, &LimitError{What: fmt.Sprintf("elements on page %d", p.pos+1), Limit: int64(lim.MaxElementsPerPage), Got: int64(n + 1)}
			}
			if s.data[ev] != '{' {
				if _, err := s.value(ev, 4); err != nil {
					return 0, err
				}
				return 0, notDocument("$.pages[%d].elements[%d] is %s, want an element object", p.pos, n, s.kind(ev))
			}
			end, err := scanElement(s, ev, 5, n, &v, problem)
			if err != nil {
				return 0, err
			}
			v.raw = s.data[ev:end]
			if err := fn(n, &v); err != nil {
				return 0, err
			}
			return end, nil
		})
	})
	if err != nil && err != errRescan {
		return fmt.Errorf("page %d: %w", p.pos+1, err)
	}
	return err
}

// scanElement mirrors decodeElement into v.
func scanElement(s *jscan, ev, depth, n int, v *elemView, problem func(n int, key []byte, kind, want string)) (int, error) {
	*v = elemView{}
	d := s.data
	fromElementID := false
	wrong := func(key []byte, at int, want string) (int, error) {
		end, err := s.value(at, depth)
		if err != nil {
			return 0, err
		}
		problem(n, key, s.kind(at), want)
		return end, nil
	}
	str := func(key []byte, at int, dst *[]byte) (int, error) {
		switch d[at] {
		case '"':
			end, err := s.str(at)
			if err != nil {
				return 0, err
			}
			*dst = d[at:end]
			return end, nil
		case 'n':
			return s.scalar(at)
		}
		return wrong(key, at, "a string")
	}
	return s.object(ev, depth, func(key []byte, at int) (int, error) {
		switch string(key) {
		case "element_id", "id":
			if string(key) == "id" && fromElementID {
				return s.value(at, depth)
			}
			if c := d[at]; c == '-' || (c >= '0' && c <= '9') {
				end, err := s.number(at)
				v.idRaw = d[at:end]
				fromElementID = string(key) == "element_id"
				return end, err
			}
			end, err := str(key, at, &v.idRaw)
			if v.idRaw != nil && !(len(v.idRaw) == 2 && v.idRaw[0] == '"') {
				fromElementID = string(key) == "element_id"
			}
			return end, err
		case "category":
			var c []byte
			end, err := str(key, at, &c)
			if c != nil {
				if k := knownCategory(c[1 : len(c)-1]); k != "" {
					v.category = k
				} else {
					v.category = decodeString(c)
				}
			}
			return end, err
		case "text":
			if d[at] != '"' {
				return str(key, at, &v.textRaw)
			}
			end, clear, nonBlank, err := s.textStr(at)
			if err != nil {
				return 0, err
			}
			v.textRaw, v.textScanned, v.textClear, v.textNonBlank = d[at:end], true, clear, nonBlank
			return end, nil
		case "doc_ref":
			var ignored []byte
			return str(key, at, &ignored)
		case "page_index":
			switch c := d[at]; {
			case c == 'n':
				return s.scalar(at)
			case c == '-' || (c >= '0' && c <= '9'):
				end, err := s.number(at)
				if err != nil {
					return 0, err
				}
				if _, ok := decodeInt(d[at:end]); ok {
					return end, nil
				}
			}
			return wrong(key, at, "an integer")
		case "ele_metadata":
			if d[at] == 'n' {
				return s.scalar(at)
			}
			if d[at] != '{' {
				return wrong(key, at, "an object")
			}
			v.meta = [nMetaKeys]json.RawMessage{}
			return s.object(at, depth+1, func(k []byte, mv int) (int, error) {
				end, err := s.value(mv, depth+1)
				if err != nil {
					return 0, err
				}
				if slot := metaSlot(string(k)); slot >= 0 {
					v.meta[slot] = d[mv:end]
				}
				return end, nil
			})
		}
		return s.value(at, depth)
	})
}

// idString is the element_id as decodeElement keeps it ("" when none).
func (v *elemView) idString() string {
	if v.idKnown {
		return v.id
	}
	if v.idRaw == nil {
		return ""
	}
	if v.idRaw[0] != '"' {
		return string(v.idRaw)
	}
	return decodeString(v.idRaw)
}

// hasID reports whether the element has a non-empty element_id.
func (v *elemView) hasID() bool {
	if v.idKnown {
		return v.id != ""
	}
	return v.idRaw != nil && !(len(v.idRaw) == 2 && v.idRaw[0] == '"')
}

// appendID appends the element_id as idString spells it.
func (v *elemView) appendID(buf []byte) []byte {
	if v.idKnown {
		return append(buf, v.id...)
	}
	if v.idRaw == nil {
		return buf
	}
	if v.idRaw[0] != '"' {
		return append(buf, v.idRaw...)
	}
	body := v.idRaw[1 : len(v.idRaw)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return append(buf, body...)
	}
	return append(buf, decodeString(v.idRaw)...)
}

// textClear reports whether text t certainly draws no text finding: valid
// UTF-8 without U+FFFD or control characters (other than \t \n \r), and,
// when blankMatters, not blank. When jsonBody is true, t is the body of a
// JSON string token and its escapes are read. false means "look closer"
// (the exact rules then run on the decoded text), never "bad".
func textClear[T string | []byte](t T, jsonBody, blankMatters bool) bool {
	nonBlank := false
	for i := 0; i < len(t); {
		c := t[i]
		if c >= 0x20 && c < 0x7f && (c != '\\' || !jsonBody) { // printable ASCII
			nonBlank = nonBlank || c != ' '
			i++
			continue
		}
		var r rune
		switch {
		case c == '\\' && jsonBody:
			if i+1 >= len(t) {
				return false
			}
			switch t[i+1] {
			case '"', '\\', '/':
				nonBlank = true
				i += 2
				continue
			case 'n', 'r', 't':
				i += 2
				continue
			case 'u':
				if i+6 > len(t) {
					return false
				}
				for k := i + 2; k < i+6; k++ {
					h, ok := unhex(t[k])
					if !ok {
						return false
					}
					r = r<<4 | rune(h)
				}
				if utf16IsSurrogate(r) {
					return false
				}
				i += 6
			default:
				return false
			}
		case c < utf8.RuneSelf:
			r = rune(c)
			i++
		default:
			var size int
			r, size = utf8.DecodeRuneInString(string(t[i:min(i+utf8.UTFMax, len(t))]))
			i += size
		}
		switch {
		case r == utf8.RuneError:
			return false
		case (r < 0x20 && r != '\n' && r != '\t' && r != '\r') || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			return false
		case !nonBlank && !unicode.IsSpace(r):
			nonBlank = true
		}
	}
	return nonBlank || !blankMatters
}

func utf16IsSurrogate(r rune) bool { return r >= 0xd800 && r < 0xe000 }

// textStr is str for an element's text, which is most of a document's
// bytes: it validates the string at s.data[i] == '"' exactly as str does
// (any problem is left to str, for the same error) and, in the same pass,
// reports what textClear would: clear (valid UTF-8, no U+FFFD, no control
// character but \t \n \r) and nonBlank.
func (s *jscan) textStr(i int) (end int, clear, nonBlank bool, err error) {
	d := s.data
	clear = true
	j := i + 1
	for j < len(d) {
		// A run of plain printable ASCII: the bulk of most texts.
		k := j
		for j < len(d) {
			if c := d[j]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
				break
			}
			j++
		}
		if !nonBlank {
			for _, c := range d[k:j] {
				if c != ' ' {
					nonBlank = true
					break
				}
			}
		}
		if j >= len(d) {
			break
		}
		c := d[j]
		switch {
		case c == '"':
			return j + 1, clear, nonBlank, nil
		case c == '\\' && j+1 < len(d):
			switch d[j+1] {
			case '"', '\\', '/':
				nonBlank = true
				j += 2
				continue
			case 'n', 'r', 't':
				j += 2
				continue
			case 'b', 'f':
				clear = false
				j += 2
				continue
			case 'u':
				if j+6 > len(d) {
					break
				}
				var r rune
				ok := true
				for k := j + 2; k < j+6; k++ {
					h, hok := unhex(d[k])
					ok = ok && hok
					r = r<<4 | rune(h)
				}
				if !ok {
					break
				}
				j += 6
				switch {
				case utf16IsSurrogate(r), r == utf8.RuneError,
					(r < 0x20 && r != '\n' && r != '\t' && r != '\r') || r == 0x7f || (r >= 0x80 && r <= 0x9f):
					clear = false
				case !nonBlank && !unicode.IsSpace(r):
					nonBlank = true
				}
				continue
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(d[j:])
			j += size
			switch {
			case r == utf8.RuneError, r >= 0x80 && r <= 0x9f:
				clear = false
			case !nonBlank && !unicode.IsSpace(r):
				nonBlank = true
			}
			continue
		}
		break // a control byte, a bad escape or the end: str says what
	}
	end, err = s.str(i)
	return end, false, false, err
}
