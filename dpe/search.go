package dpe

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// Hit is one match: element Element of Document.Pages[Page], bytes
// [Start, End) of its Text.
type Hit struct {
	Page, Element int
	Start, End    int
}

// matcher is a case-insensitive substring finder. It jumps between
// occurrences of one anchor byte with strings.IndexByte (memchr speed) and
// verifies candidates rune by rune with simple case folding.
type matcher struct {
	q     []rune
	off   int    // byte offset of the anchor in the query
	cands []byte // bytes the anchor may be in the text (its case variants)
	// For the raw pre-check: every rune that folds to a query rune, and
	// whether the query has runes outside the BMP (escaped as surrogates).
	fold    []rune
	nonBMP  bool
	bigrams []uint32
}

func newMatcher(q string) *matcher {
	m := &matcher{q: []rune(q)}
	m.bigrams = queryBigrams(m.q)
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
		if r > 0xFFFF {
			m.nonBMP = true
		}
		for v := r; ; {
			if !slices.Contains(m.fold, v) {
				m.fold = append(m.fold, v)
			}
			if v = unicode.SimpleFold(v); v == r {
				break
			}
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

// rulesOut reports whether an undecoded page's raw JSON proves that none
// of its element texts contains the query. It cannot when a JSON escape in
// the texts could spell part of the query: a \uXXXX of a rune that folds
// to a query rune (or a surrogate, when the query has runes outside the
// BMP), or a short escape (\" \/ \n …) of a character the query
// contains. Otherwise every match is literal in the raw text bytes, so a
// query bigram missing from the page's bigram filter, or no match in the
// text spans, rules the page out. Decode built the spans, the escape
// summary and the filter in its one pass, so a rare word costs a few bit
// tests per page (docs/performance.md, P5).
func (m *matcher) rulesOut(p *Page) bool {
	// Read-only view: Raw is never modified, and copying a page to search
	// it would cost more than the search.
	s := unsafe.String(unsafe.SliceData(p.Raw), len(p.Raw))
	esc := p.esc
	if !p.spansKnown {
		// No index (huge page): all of Raw and all of its escapes.
		esc = &escapes{}
		sc := &jscan{data: p.Raw, maxDepth: 1 << 30, esc: esc}
		if _, err := sc.value(0, 0); err != nil {
			return false
		}
	}
	if esc != nil {
		for _, r := range m.q {
			if i := strings.IndexRune(shortEscapeChars, r); i >= 0 && esc.short[i] {
				return false
			}
		}
		for _, r := range m.fold {
			if _, ok := esc.runes[r]; ok {
				return false
			}
		}
		if m.nonBMP {
			for r := range esc.runes {
				if utf16.IsSurrogate(r) {
					return false
				}
			}
		}
	}
	if !p.spansKnown {
		st, _ := m.find(s, 0)
		return st < 0
	}
	if f := p.bigrams; len(f) > 0 {
		for _, h := range m.bigrams {
			if !f.has(h) {
				return true
			}
		}
	}
	for k := 0; k+1 < len(p.spans); k += 2 {
		if st, _ := m.find(s[p.spans[k]:p.spans[k+1]], 0); st >= 0 {
			return false
		}
	}
	return true
}

// bigramFilter is a Bloom-style set of the ASCII-lowercased byte pairs of
// a page's texts; its size is a power of two ≥ 64 bits.
type bigramFilter []uint64

// bigramHash maps a byte pair to 12 bits; a filter of n bits uses the low
// log2(n) bits, so folding a 4096-bit filter by OR-ing halves keeps it
// exact.
func bigramHash(a, b byte) uint32 {
	return (uint32(a)<<8 | uint32(b)) * 2654435761 >> 20
}

func (f bigramFilter) has(h uint32) bool {
	h &= uint32(len(f)*64 - 1)
	return f[h>>6]&(1<<(h&63)) != 0
}

// bigramScratch collects one page's bigrams at full size.
type bigramScratch struct {
	bits  [64]uint64
	bytes int
}

func (b *bigramScratch) add(text []byte) {
	if len(text) == 0 {
		return
	}
	b.bytes += len(text)
	prev := lowerASCII(text[0])
	for _, c := range text[1:] {
		c = lowerASCII(c)
		h := bigramHash(prev, c)
		b.bits[h>>6] |= 1 << (h & 63)
		prev = c
	}
}

// filter folds the scratch to about one bit per text byte.
func (b *bigramScratch) filter() bigramFilter {
	if b.bytes < 2 {
		return nil
	}
	words := 64
	for words > 1 && words*64 > 2*b.bytes {
		words /= 2
	}
	bits := b.bits
	for n := 64; n > words; n /= 2 {
		for i := 0; i < n/2; i++ {
			bits[i] |= bits[i+n/2]
		}
	}
	return bigramFilter(append([]uint64(nil), bits[:words]...))
}

// queryBigrams lists the bigram hashes every literal match must contain:
// byte pairs inside runs of query runes whose matches have a fixed byte
// form after ASCII lowercasing — ASCII other than k/s (whose case variants
// are non-ASCII) and non-ASCII runes without case variants (CJK …).
func queryBigrams(q []rune) []uint32 {
	var out []uint32
	var run []byte
	flush := func() {
		for i := 1; i < len(run); i++ {
			out = append(out, bigramHash(run[i-1], run[i]))
		}
		run = run[:0]
	}
	for _, r := range q {
		stable := r < utf8.RuneSelf && !strings.ContainsRune("kKsS", r) ||
			r >= utf8.RuneSelf && r != utf8.RuneError && unicode.SimpleFold(r) == r
		if !stable {
			flush()
			continue
		}
		if r < utf8.RuneSelf {
			run = append(run, lowerASCII(byte(r)))
		} else {
			run = utf8.AppendRune(run, r)
		}
	}
	flush()
	return out
}

// shortEscapeChars are the characters the short escapes of shortEscapes
// stand for, in the same order.
const shortEscapeChars = "\"\\/\b\f\n\r\t"

// Matcher is a compiled query for callers that search page by page (the
// UI's stepwise search): skip pages PageMayMatch rules out, load the
// others, then Find in element texts. Same semantics as Search.
// A query and a text may write one accented letter in two Unicode forms
// (NFC's "é", or NFD's "e" and a combining accent, as macOS names files
// and some PDFs set text): a query with letters the forms write apart is
// looked for in both.
type Matcher struct{ m, alt *matcher }

// NewMatcher compiles query (non-empty).
func NewMatcher(query string) *Matcher {
	c, d := norm.NFC.String(query), norm.NFD.String(query)
	m := &Matcher{m: newMatcher(c)}
	if d != c {
		m.alt = newMatcher(d)
	}
	return m
}

// PageMayMatch is false only when p certainly has no hit: p is an
// undecoded inline page whose raw text bytes rule the query out. Decoded
// pages and manifest pages that are not loaded report true.
func (m *Matcher) PageMayMatch(p *Page) bool {
	if p.Decoded || !p.hasElements {
		return true
	}
	return !m.m.rulesOut(p) || (m.alt != nil && !m.alt.rulesOut(p))
}

// Find returns the byte offsets of the first match in text at or after
// from, or (-1, -1).
func (m *Matcher) Find(text string, from int) (start, end int) {
	if from < 0 || from > len(text) {
		return -1, -1
	}
	start, end = m.m.find(text, from)
	if m.alt != nil {
		if s, e := m.alt.find(text, from); s >= 0 && (start < 0 || s < start) {
			start, end = s, e
		}
	}
	return start, end
}

// PageCopy decodes inline page i into a new Page and leaves d untouched,
// so callers that read d from several goroutines (the UI's search and page
// loader) need no lock: the UI installs the copy in its own state. The
// copy keeps the page's title, raw JSON and decode findings. A manifest
// page gives an error wrapping ErrManifestPage (it needs a fetch).
func (d *Document) PageCopy(i int, lim Limits) (*Page, error) {
	if i < 0 || i >= len(d.Pages) {
		return nil, fmt.Errorf("page %d out of range (document has %d pages)", i+1, len(d.Pages))
	}
	p := d.Pages[i]
	if !p.hasElements {
		if p.URI != "" {
			return nil, fmt.Errorf("page %d: %w", i+1, ErrManifestPage)
		}
		return nil, fmt.Errorf("page %d has neither \"elements\" nor \"uri\"", i+1)
	}
	if p.Decoded {
		q := &Page{Index: p.Index, Title: p.Title, DocRef: p.DocRef, ElementCount: p.ElementCount, Elements: p.Elements,
			Decoded: true, Raw: p.Raw, Extra: p.Extra, pos: p.pos, hasIndex: p.hasIndex, hasElements: true, nElements: len(p.Elements)}
		return q, nil
	}
	q, err := decodeInline(p, lim)
	if err != nil {
		return nil, fmt.Errorf("page %d: %w", i+1, err)
	}
	q.Title, q.DocRef, q.Raw, q.Extra = p.Title, p.DocRef, p.Raw, p.Extra
	q.hasIndex, q.hasElements, q.nElements, q.Decoded = p.hasIndex, true, len(q.Elements), true
	return q, nil
}

// Inline reports whether the page arrived with its "elements" array, so
// PageCopy can decode it without I/O (a manifest page needs a fetch).
func (p *Page) Inline() bool { return p.hasElements }
