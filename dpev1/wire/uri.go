package wire

import "strings"

// NormalizeURI checks s against core §1.1's closed list (a scheme, then
// only pct-encoded, unreserved and reserved ASCII) and returns its
// syntax-normalized form: unreserved triplets decoded, scheme and host
// lower-cased, other triplets upper-cased. Nothing else is touched (no dot
// segments, no default port, no IDNA).
func NormalizeURI(s string) (string, *Violation) {
	bad := func(why string) (string, *Violation) {
		return "", violation(CodeValidation, "", "file_uri %s", why)
	}
	colon := strings.IndexByte(s, ':')
	if colon < 1 || !isAlpha(s[0]) {
		return bad("has no scheme")
	}
	for i := 1; i < colon; i++ {
		if c := s[i]; !(isAlpha(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return bad("has an invalid scheme")
		}
	}
	// Decode unreserved triplets and upper-case the others in one pass;
	// validity of the character set is judged on the input.
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return bad("has a bad percent-encoding")
			}
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(upper(s[i+1]))
				b.WriteByte(upper(s[i+2]))
			}
			i += 2
			continue
		}
		if !isUnreserved(c) && !strings.ContainsRune(":/?#[]@!$&'()*+,;=", rune(c)) {
			return bad("has a character outside RFC 3986 (percent-encode it as UTF-8)")
		}
		b.WriteByte(c)
	}
	out := b.String()
	// Lower-case the scheme, and the host when there is an authority.
	colon = strings.IndexByte(out, ':')
	res := strings.ToLower(out[:colon+1])
	rest := out[colon+1:]
	if strings.HasPrefix(rest, "//") {
		auth := rest[2:]
		end := strings.IndexAny(auth, "/?#")
		if end < 0 {
			end = len(auth)
		}
		a := auth[:end]
		hostStart := strings.LastIndexByte(a, '@') + 1
		hostEnd := len(a)
		if p := strings.LastIndexByte(a[hostStart:], ':'); p >= 0 && !strings.Contains(a[hostStart+p:], "]") {
			hostEnd = hostStart + p
		}
		res += "//" + a[:hostStart] + lowerASCIIKeepTriplets(a[hostStart:hostEnd]) + a[hostEnd:] + auth[end:]
	} else {
		res += rest
	}
	return res, nil
}

// lowerASCIIKeepTriplets lower-cases letters outside percent triplets.
func lowerASCIIKeepTriplets(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		if b[i] == '%' {
			i += 2
			continue
		}
		if b[i] >= 'A' && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isHex(c byte) bool   { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func isUnreserved(c byte) bool {
	return isAlpha(c) || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}
