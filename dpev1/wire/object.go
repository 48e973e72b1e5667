package wire

import (
	"fmt"
	"strings"
)

// Violation is a refused object or request: its code, the RFC 6901
// pointer of the first violation (core §2.8) and a short reason. The
// pointer is for diagnostics; the HTTP problem body does not carry it.
type Violation struct {
	Code    Code
	Pointer string
	Msg     string
}

func (v *Violation) Error() string {
	if v.Pointer == "" {
		return string(v.Code) + ": " + v.Msg
	}
	return string(v.Code) + " " + v.Detail()
}

// Detail is the violation without its code: where and why. A problem
// body carries the code in its own member, so its detail is this.
func (v *Violation) Detail() string {
	if v.Pointer == "" {
		return v.Msg
	}
	return fmt.Sprintf("at %s: %s", v.Pointer, v.Msg)
}

// ValidHash reports whether s is a well-formed dpe1 hash value.
func ValidHash(s string) bool {
	h, ok := strings.CutPrefix(s, HashPrefix)
	return ok && lowerHex64(h)
}

// ValidBlobRef reports whether s is "sha256:<64 lowercase hex>".
func ValidBlobRef(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	return ok && lowerHex64(h)
}

func lowerHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
