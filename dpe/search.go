package dpe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Hit is one match: element Element of Document.Pages[Page], bytes
// [Start, End) of its Text.
type Hit struct {
	Page, Element int
	Start, End    int
}

// Search finds query case-insensitively (Unicode simple folding) in the
// text of every element, in document order, loading pages as needed. It
// collects SearchSeq; page errors do not stop it and come back joined.
func Search(ctx context.Context, d *Document, query string, lim Limits, load func(i int) error) ([]Hit, error) {
	var hits []Hit
	var errs []error
	for h, err := range SearchSeq(ctx, d, query, lim, load) {
		if err != nil {
			if ctx.Err() != nil {
				return hits, ctx.Err()
			}
			errs = append(errs, err)
			continue
		}
		hits = append(hits, h)
	}
	return hits, errors.Join(errs...)
}

// SearchSeq yields hits as it finds them (the UI shows the first ones
// while the rest of a huge document is searched). A page that cannot be
// searched yields (Hit{Page: i, Element: -1}, err) and the search goes on;
// a cancelled ctx yields its error once and stops.
//
// Pages are handled so that a rare word costs about one memchr pass over
// the document (issue 5 P5): an undecoded inline page is first checked on
// its raw bytes, and decoded only when the word may be in it. That check
// is exact unless JSON escapes could hide the word (see rawMayMatch).
// Pages that must be decoded go through load(i) when load is non-nil (the
// UI's loader, which caches); with load nil, inline pages are decoded
// transiently and d is not modified, and manifest pages that are not
// loaded are reported as errors.
func SearchSeq(ctx context.Context, d *Document, query string, lim Limits, load func(i int) error) iter.Seq2[Hit, error] {
	return func(yield func(Hit, error) bool) {
		if query == "" || d == nil {
			return
		}
		m := newMatcher(query)
		for i, p := range d.Pages {
			if err := ctx.Err(); err != nil {
				yield(Hit{Page: i, Element: -1}, err)
				return
			}
			elems := p.Elements
			if !p.Decoded {
				if p.hasElements && m.rawRulesOut(p.Raw) {
					continue
				}
				var err error
				switch {
				case load != nil:
					if err = load(i); err == nil {
						if !p.Decoded {
							err = errors.New("loader did not decode the page")
						}
						elems = p.Elements
					}
				case p.hasElements:
					var q *Page
					if q, err = decodeInline(p, lim); err == nil {
						elems = q.Elements
					}
				default:
					err = fmt.Errorf("manifest page not loaded")
				}
				if err != nil {
					if !yield(Hit{Page: i, Element: -1}, fmt.Errorf("search page %d: %w", p.Index, err)) {
						return
					}
					continue
				}
			}
			for j, el := range elems {
				from := 0
				for {
					s, e := m.find(el.Text, from)
					if s < 0 {
						break
					}
					if !yield(Hit{Page: i, Element: j, Start: s, End: e}, nil) {
						return
					}
					from = e
				}
			}
		}
	}
}

// matcher is a case-insensitive substring finder. It jumps between
// occurrences of one anchor byte with strings.IndexByte (memchr speed) and
// verifies candidates rune by rune with simple case folding.
type matcher struct {
	q     []rune
	off   int    // byte offset of the anchor in the query
	cands []byte // bytes the anchor may be in the text (its case variants)
	// For the raw pre-check:
	asciiNoKS bool   // query is ASCII without k/s (whose fold orbits leave ASCII)
	qbytes    []byte // the query's bytes in both cases
	shortEsc  []string
}

func newMatcher(q string) *matcher {
	m := &matcher{q: []rune(q), asciiNoKS: true}
	// The anchor: the rarest byte in the query's leading run of ASCII
	// characters other than k/s. Within that run every match has the
	// same byte layout as the query, so the match starts at anchor-off.
	best := -1
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c >= 0x80 || c == 'k' || c == 'K' || c == 's' || c == 'S' {
			break
		}
		if best < 0 || byteRank(c) < byteRank(q[best]) {
			best = i
		}
	}
	if best >= 0 {
		m.off = best
		c := q[best]
		m.cands = appendUnique(m.cands, lowerASCII(c))
		m.cands = appendUnique(m.cands, upperASCII(c))
	} else {
		// Anchor on the first rune: the lead bytes of its case variants.
		r := m.q[0]
		var buf [utf8.UTFMax]byte
		for v := r; ; {
			utf8.EncodeRune(buf[:], v)
			m.cands = appendUnique(m.cands, buf[0])
			if v = unicode.SimpleFold(v); v == r {
				break
			}
		}
	}
	for _, r := range m.q {
		if r >= 0x80 || r == 'k' || r == 'K' || r == 's' || r == 'S' {
			m.asciiNoKS = false
		}
		if r < 0x80 {
			m.qbytes = appendUnique(m.qbytes, lowerASCII(byte(r)))
			m.qbytes = appendUnique(m.qbytes, upperASCII(byte(r)))
		}
		switch r {
		case '"':
			m.shortEsc = append(m.shortEsc, `\"`)
		case '\\':
			m.shortEsc = append(m.shortEsc, `\\`)
		case '/':
			m.shortEsc = append(m.shortEsc, `\/`)
		case '\n':
			m.shortEsc = append(m.shortEsc, `\n`)
		case '\t':
			m.shortEsc = append(m.shortEsc, `\t`)
		case '\r':
			m.shortEsc = append(m.shortEsc, `\r`)
		case '\b':
			m.shortEsc = append(m.shortEsc, `\b`)
		case '\f':
			m.shortEsc = append(m.shortEsc, `\f`)
		}
	}
	return m
}

func appendUnique(s []byte, c byte) []byte {
	if bytes.IndexByte(s, c) >= 0 {
		return s
	}
	return append(s, c)
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// byteRank orders bytes from rare (low) to common (high) in English text
// inside JSON, so the anchor is the byte memchr stops on least.
func byteRank(c byte) int {
	const freq = "etaoinshrdlcumwfgypbvkjxqz" // most → least frequent
	l := lowerASCII(c)
	if i := strings.IndexByte(freq, l); i >= 0 {
		return 100 - i
	}
	switch {
	case c == ' ' || c == '"' || c == ',' || c == ':' || c == '{' || c == '}' || c == '_':
		return 200
	case c >= '0' && c <= '9':
		return 80
	}
	return 50
}

// find returns the first match in s at or after from, as byte offsets, or
// (-1, -1).
func (m *matcher) find(s string, from int) (int, int) {
	var next [4]int
	n := len(m.cands)
	if n > len(next) {
		n = len(next)
	}
	for k := range n {
		next[k] = -2 // unknown
	}
	pos := from + m.off
	for pos <= len(s) {
		// The nearest occurrence of any candidate byte at or after pos.
		best := -1
		for k := 0; k < n; k++ {
			if next[k] != -1 && next[k] < pos {
				if i := strings.IndexByte(s[pos:], m.cands[k]); i >= 0 {
					next[k] = pos + i
				} else {
					next[k] = -1
				}
			}
			if next[k] >= 0 && (best < 0 || next[k] < best) {
				best = next[k]
			}
		}
		if best < 0 {
			return -1, -1
		}
		start := best - m.off
		if end, ok := m.matchAt(s, start); ok {
			return start, end
		}
		pos = best + 1
	}
	return -1, -1
}

// matchAt reports whether the query matches s at start (rune by rune,
// simple case folding) and where the match ends.
func (m *matcher) matchAt(s string, start int) (int, bool) {
	j := start
	for _, qr := range m.q {
		if j >= len(s) {
			return 0, false
		}
		c := s[j]
		if c < utf8.RuneSelf && qr < utf8.RuneSelf {
			if lowerASCII(c) != lowerASCII(byte(qr)) {
				return 0, false
			}
			j++
			continue
		}
		tr, size := utf8.DecodeRuneInString(s[j:])
		if !equalFold(qr, tr) {
			return 0, false
		}
		j += size
	}
	return j, true
}

func equalFold(a, b rune) bool {
	if a == b {
		return true
	}
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}

// rawRulesOut reports whether a page's raw JSON proves that none of its
// element texts contains the query: the query does not occur in the raw
// bytes, and no JSON escape in them could spell part of it. Escapes that
// could: \uXXXX (any, for a query with non-ASCII or k/s, whose case
// variants are non-ASCII; otherwise only \u00XX of a query character) and
// the short escapes of characters the query contains.
func (m *matcher) rawRulesOut(raw []byte) bool {
	// Read-only view: raw is never modified, and copying a page to search
	// it would cost more than the search.
	s := unsafe.String(unsafe.SliceData(raw), len(raw))
	if st, _ := m.find(s, 0); st >= 0 {
		return false
	}
	for _, e := range m.shortEsc {
		if strings.Contains(s, e) {
			return false
		}
	}
	if !m.asciiNoKS {
		return !strings.Contains(s, `\u`)
	}
	for i := 0; ; {
		k := strings.Index(s[i:], `\u00`)
		if k < 0 {
			return true
		}
		i += k + 4
		if i+2 > len(s) {
			return true
		}
		hi, ok1 := unhex(s[i])
		lo, ok2 := unhex(s[i+1])
		if ok1 && ok2 && bytes.IndexByte(m.qbytes, hi<<4|lo) >= 0 {
			return false
		}
	}
}
