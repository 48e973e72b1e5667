package ui

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// foldKey is the one form a list filter and what it filters are compared
// in: lower case, accents set apart and dropped (NFD without its
// combining marks), so "café" typed finds a name macOS wrote in NFD ("e"
// and a combining accent) or a keyboard in NFC, and "cafe" finds both,
// as a file finder does.
func foldKey(s string) string {
	d := norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	for _, r := range d {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
