package identity

import (
	"strings"
	"unicode/utf8"
)

// NormalizeFileURI is core §1.1: the syntax-only normalisation of a
// file_uri (RFC 3986 §6.2.2), whose result is the document identity
// remotes compare. Validity is the closed list of §1.1: a scheme (ALPHA
// *(ALPHA / DIGIT / "+" / "-" / ".") then ":"), and every character a
// pct-encoded triplet or an ASCII unreserved or reserved character;
// anything else is a DPE_VALIDATION Problem. The transform decodes the
// triplets of unreserved characters, lowercases the scheme and (with an
// authority) the host, and uppercases the hex of the triplets left. It
// does nothing else: no dot-segment removal, no default port or slash
// rules, no IDNA. It is idempotent.
func NormalizeFileURI(s string) (string, *Problem) {
	bad := func(msg string) (string, *Problem) {
		return "", &Problem{"", CodeValidation, "file_uri " + quote(s) + ": " + msg}
	}
	colon := schemeEnd(s)
	if colon < 0 {
		return bad("does not start with a scheme (a letter, then letters, digits, + - ., then :)")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return bad("% is not followed by two hex digits")
			}
			i += 2
			continue
		}
		if !unreserved(c) && !reserved(c) {
			// The character, not its first byte: "é", not "Ã".
			r, _ := utf8.DecodeRuneInString(s[i:])
			return bad("character " + quote(string(r)) + " must be percent-encoded (UTF-8) first")
		}
	}
	hs, he := hostRange(s, colon)
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		lower := i < colon || i >= hs && i < he
		if c == '%' {
			d := unhex(s[i+1])<<4 | unhex(s[i+2])
			if unreserved(d) {
				if lower {
					d = toLower(d)
				}
				b.WriteByte(d)
			} else {
				b.WriteByte('%')
				b.WriteByte(toUpper(s[i+1]))
				b.WriteByte(toUpper(s[i+2]))
			}
			i += 2
			continue
		}
		if lower {
			c = toLower(c)
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// schemeEnd is the index of the ":" ending a valid scheme at the start of
// s, or -1.
func schemeEnd(s string) int {
	if s == "" || !isAlpha(s[0]) {
		return -1
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			return i
		case isAlpha(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.':
		default:
			return -1
		}
	}
	return -1
}

// hostRange is the [start, end) of the host of s's authority, or an empty
// range when there is no authority. The delimiters it looks for are
// reserved characters, which decoding never produces, so the range holds
// before and after the transform.
func hostRange(s string, colon int) (int, int) {
	if !strings.HasPrefix(s[colon+1:], "//") {
		return 0, 0
	}
	start := colon + 3
	end := len(s)
	if i := strings.IndexAny(s[start:], "/?#"); i >= 0 {
		end = start + i
	}
	auth := s[start:end]
	hs := start
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		hs = start + at + 1
	}
	host := s[hs:end]
	if strings.HasPrefix(host, "[") {
		if rb := strings.IndexByte(host, ']'); rb >= 0 {
			return hs, hs + rb + 1
		}
		return hs, end
	}
	if c := strings.IndexByte(host, ':'); c >= 0 {
		return hs, hs + c
	}
	return hs, end
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func unreserved(c byte) bool {
	return isAlpha(c) || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func reserved(c byte) bool { return strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0 }

func toLower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func toUpper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// EncodeIRI maps an IRI a person typed to the URI core §1.1 accepts (RFC
// 3987 §3.1): each byte outside ASCII is percent-encoded, so "ü" becomes
// "%C3%BC", as push encodes a file's name. ASCII is left as it is, so what
// §1.1 refuses there (a space, a lone %) is still reported as written.
// Every command that takes a file_uri passes it through this first.
func EncodeIRI(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			b = append(b, '%', hex[c>>4], hex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}
