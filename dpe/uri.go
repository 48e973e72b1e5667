package dpe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// URI is a parsed dpe://{host}/{doc-ref} (dpe.md §dpe:// URI 规范).
//
// Segments are percent-decoded one by one, so "a%2Fb" is the single segment
// "a/b" and is distinct from the two segments "a", "b".
type URI struct {
	Host     string
	Segments []string // percent-decoded, each non-empty
}

// MaxURILength bounds the input of ParseURI: a dpe URI is an identifier,
// not a payload, and the limit keeps error messages and logs small.
const MaxURILength = 8192

// URIError is a rejected dpe URI; Reason says precisely why.
type URIError struct {
	Input  string
	Reason string
}

func (e *URIError) Error() string {
	in := e.Input
	if len(in) > 200 {
		in = in[:200] + "…"
	}
	return fmt.Sprintf("invalid dpe URI %q: %s", in, e.Reason)
}

// DocRef is the decoded segments joined with "/", for display. It is
// ambiguous ("a/b" may be one segment or two); use String to round-trip.
func (u URI) DocRef() string { return strings.Join(u.Segments, "/") }

// String is the canonical form: "dpe://" + host + each segment re-escaped.
// Only what would change the parse is escaped ('/', '?', '#', '%', space,
// controls and characters RFC 3986 forbids); non-ASCII stays as UTF-8 so
// the string remains readable (IRI style). Send the original string from a
// listing on the wire, not this one: servers compare their own spelling.
func (u URI) String() string {
	var b strings.Builder
	b.WriteString("dpe://")
	b.WriteString(u.Host)
	for _, s := range u.Segments {
		b.WriteByte('/')
		escapeSegment(&b, s)
	}
	return b.String()
}

// Equal compares hosts case-insensitively (a host is a DNS-like namespace)
// and the decoded segments exactly (dpe.md: doc-refs are compared after URL
// decoding).
func (u URI) Equal(v URI) bool {
	if !strings.EqualFold(u.Host, v.Host) || len(u.Segments) != len(v.Segments) {
		return false
	}
	for i := range u.Segments {
		if u.Segments[i] != v.Segments[i] {
			return false
		}
	}
	return true
}

// ParseURI parses a dpe URI typed by a user. It is strict: a query or
// fragment is an error (dpe.md: DPE URIs carry neither), as is any
// character that must be percent-encoded.
func ParseURI(s string) (URI, error) {
	u, _, err := parseURI(s, false)
	return u, err
}

// ParseURILenient parses a dpe URI that arrived from a server. dpe.md says a
// query or fragment "should be logged as WARN and dropped": they are, and
// the warnings are returned. Characters that should have been
// percent-encoded (space, '"', '<' …) are accepted with a warning too.
func ParseURILenient(s string) (URI, []string, error) {
	return parseURI(s, true)
}

func parseURI(s string, lenient bool) (URI, []string, error) {
	fail := func(format string, a ...any) (URI, []string, error) {
		return URI{}, nil, &URIError{Input: s, Reason: fmt.Sprintf(format, a...)}
	}
	if s == "" {
		return fail("empty")
	}
	if len(s) > MaxURILength {
		return fail("too long (%d bytes, limit %d)", len(s), MaxURILength)
	}
	if !utf8.ValidString(s) {
		return fail("not valid UTF-8")
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return fail("control character %#02x at byte %d", c, i)
		}
	}
	for i, r := range s {
		if r >= 0x80 && r <= 0x9f {
			return fail("control character U+%04X at byte %d", r, i)
		}
	}
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return fail("missing scheme: want dpe://host/doc-ref")
	}
	if scheme := s[:colon]; !strings.EqualFold(scheme, "dpe") {
		return fail("scheme is %q, want \"dpe\"", scheme)
	}
	rest := s[colon+1:]
	if !strings.HasPrefix(rest, "//") {
		return fail("missing \"//\" after \"dpe:\"")
	}
	rest = rest[2:]

	var warnings []string
	// Query and fragment: the first '?' or '#' ends the path (RFC 3986 §3).
	if q := strings.IndexAny(rest, "?#"); q >= 0 {
		what := "query"
		if rest[q] == '#' {
			what = "fragment"
		} else if strings.IndexByte(rest[q:], '#') >= 0 {
			what = "query and fragment"
		}
		if !lenient {
			return fail("%s not allowed (dpe URIs name a whole document; pages and elements are not addressable)", what)
		}
		warnings = append(warnings, fmt.Sprintf("dpe URI %q: %s %q dropped", s, what, rest[q:]))
		rest = rest[:q]
	}

	authority, path := rest, ""
	if slash := strings.IndexByte(rest, '/'); slash >= 0 {
		authority, path = rest[:slash], rest[slash:]
	}
	if authority == "" {
		return fail("host is empty")
	}
	if strings.IndexByte(authority, '@') >= 0 {
		return fail("userinfo (\"…@\") not allowed: a dpe host is a namespace, not a login")
	}
	// Port: rejected. The host is the MCP server's resource namespace
	// (dpe.md §组成部分, reverse-domain style), not a network address; a
	// ":port" can only be a mistake or an attempt to smuggle an address.
	if i := strings.IndexByte(authority, ':'); i >= 0 {
		return fail("port not allowed: host %q is a namespace, not a network address", authority)
	}
	for i := 0; i < len(authority); i++ {
		c := authority[i]
		if c == '%' {
			return fail("host must not be percent-encoded")
		}
		if c >= 0x80 || !isHostByte(c) {
			r, _ := utf8.DecodeRuneInString(authority[i:])
			return fail("host contains %q (allowed: letters, digits, \"-._~\" and \"!$&'()*+,;=\")", r)
		}
	}
	if path == "" || path == "/" {
		return fail("doc-ref is empty (want dpe://%s/doc-ref)", authority)
	}
	raw := strings.Split(path[1:], "/")
	segs := make([]string, 0, len(raw))
	warnedChars := false
	for n, seg := range raw {
		if seg == "" {
			if n == len(raw)-1 {
				return fail("trailing \"/\": segment %d is empty", n+1)
			}
			return fail("segment %d is empty (\"//\")", n+1)
		}
		dec, bad, err := unescapeSegment(seg)
		if err != "" {
			return fail("segment %d: %s", n+1, err)
		}
		if bad != 0 {
			if !lenient {
				return fail("segment %d: %q must be percent-encoded", n+1, string(rune(bad)))
			}
			if !warnedChars {
				warnings = append(warnings, fmt.Sprintf("dpe URI %q: unencoded %q accepted", s, string(rune(bad))))
				warnedChars = true
			}
		}
		// Dot segments would be removed by any RFC 3986 resolver and can
		// walk a file-backed resolver out of its root; no document key
		// needs them.
		if dec == "." || dec == ".." {
			return fail("segment %d is the dot segment %q", n+1, dec)
		}
		segs = append(segs, dec)
	}
	return URI{Host: authority, Segments: segs}, warnings, nil
}

// isHostByte: RFC 3986 reg-name without pct-encoded (unreserved / sub-delims).
func isHostByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=", c) >= 0
}

// isSegmentByte: RFC 3986 pchar without pct-encoded, ASCII only.
func isSegmentByte(c byte) bool {
	return isHostByte(c) || c == ':' || c == '@'
}

// unescapeSegment percent-decodes one segment. bad is the first ASCII
// character that should have been encoded (0 if none); errMsg is non-empty
// for a malformed escape or a decoded control character / invalid UTF-8.
func unescapeSegment(seg string) (dec string, bad byte, errMsg string) {
	if strings.IndexByte(seg, '%') < 0 {
		for i := 0; i < len(seg); i++ {
			if c := seg[i]; c < 0x80 && !isSegmentByte(c) && bad == 0 {
				bad = c
			}
		}
		return seg, bad, ""
	}
	var b strings.Builder
	b.Grow(len(seg))
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c != '%' {
			if c < 0x80 && !isSegmentByte(c) && bad == 0 {
				bad = c
			}
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(seg) {
			return "", 0, fmt.Sprintf("incomplete percent escape %q", seg[i:])
		}
		hi, ok1 := unhex(seg[i+1])
		lo, ok2 := unhex(seg[i+2])
		if !ok1 || !ok2 {
			return "", 0, fmt.Sprintf("bad percent escape %q", seg[i:i+3])
		}
		v := hi<<4 | lo
		if v < 0x20 || v == 0x7f {
			return "", 0, fmt.Sprintf("%%%02X decodes to a control character", v)
		}
		b.WriteByte(v)
		i += 2
	}
	dec = b.String()
	if !utf8.ValidString(dec) {
		return "", 0, "percent escapes decode to invalid UTF-8"
	}
	for _, r := range dec {
		if r >= 0x80 && r <= 0x9f {
			return "", 0, fmt.Sprintf("percent escapes decode to control character U+%04X", r)
		}
	}
	return dec, bad, ""
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func escapeSegment(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || isSegmentByte(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
}

// NormalizeURI is how a dpe URI typed by a user becomes the string sent on
// the wire: RFC 3986 normalisation, applied once. Non-ASCII characters and
// ASCII characters a path segment may not hold (space, '"', '<' …) are
// percent-encoded as UTF-8 bytes; existing escapes are kept exactly as
// written, case included, because servers compare resource URIs as
// strings; nothing is decoded. A URI already in that form — any URI taken
// from a listing — comes back byte for byte. The result is checked with
// ParseURI, so a query, fragment or malformed escape is still an error.
func NormalizeURI(s string) (string, error) {
	if len(s) > MaxURILength {
		_, err := ParseURI(s)
		return "", err
	}
	start := 0
	if i := strings.Index(s, "://"); i >= 0 {
		// The host is validated by ParseURI, never rewritten: start after
		// the authority.
		start = i + 3
		if j := strings.IndexByte(s[start:], '/'); j >= 0 {
			start += j
		} else {
			start = len(s)
		}
	}
	var b strings.Builder
	changed := false
	const hex = "0123456789ABCDEF"
	for i := start; i < len(s); i++ {
		c := s[i]
		keep := c == '/' || c == '?' || c == '#' || (c < 0x80 && isSegmentByte(c)) ||
			c < 0x20 || c == 0x7f // controls stay so ParseURI names them
		if c == '%' {
			_, ok1 := unhexAt(s, i+1)
			_, ok2 := unhexAt(s, i+2)
			keep = ok1 && ok2 // an escape stays as written; a bare '%' is one
		}
		if keep {
			if changed {
				b.WriteByte(c)
			}
			continue
		}
		if !changed {
			b.Grow(len(s) + 16)
			b.WriteString(s[:i])
			changed = true
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	out := s
	if changed {
		out = b.String()
	}
	if !utf8.ValidString(s) {
		return "", &URIError{Input: s, Reason: "not valid UTF-8"}
	}
	if _, err := ParseURI(out); err != nil {
		return "", err
	}
	return out, nil
}

func unhexAt(s string, i int) (byte, bool) {
	if i >= len(s) {
		return 0, false
	}
	return unhex(s[i])
}

// WireString is the form to send for a URI rebuilt from its segments (a
// server's URI that needed repair): String with every byte ≥ 0x80 also
// percent-encoded, so strict servers accept it.
func (u URI) WireString() string {
	s, err := NormalizeURI(u.String())
	if err != nil {
		return u.String()
	}
	return s
}
