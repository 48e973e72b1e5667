package protocol

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is the A2C-SMCP protocol version this build speaks.
const Version = "0.2.0"

// Supported range advertised in 4008 bodies. In 0.x only MAJOR.MINOR must
// match (versioning.md §v0.x), so the range is the whole 0.2 line.
const (
	MinSupported = "0.2.0"
	MaxSupported = "0.2.999"
)

// QueryVersion is the URL query parameter carrying the client's version.
const QueryVersion = "a2c_version"

// HeaderErrorCode is the redundant diagnostic header on HTTP-layer errors.
const HeaderErrorCode = "X-A2C-Error-Code"

// SemVer is a parsed MAJOR.MINOR.PATCH.
type SemVer struct{ Major, Minor, Patch int }

func (v SemVer) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// ParseVersion parses a strict MAJOR.MINOR.PATCH with non-negative decimal parts.
func ParseVersion(s string) (SemVer, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return SemVer{}, fmt.Errorf("invalid a2c_version %q: want MAJOR.MINOR.PATCH", s)
	}
	var n [3]int
	for i, p := range parts {
		if p == "" || len(p) > 9 || strings.TrimLeft(p, "0123456789") != "" {
			return SemVer{}, fmt.Errorf("invalid a2c_version %q: part %q is not a number", s, p)
		}
		v, err := strconv.Atoi(p)
		if err != nil {
			return SemVer{}, fmt.Errorf("invalid a2c_version %q: %w", s, err)
		}
		n[i] = v
	}
	return SemVer{n[0], n[1], n[2]}, nil
}

// Compatible reports whether a client at version c may talk to a server at s.
// 0.x: MAJOR and MINOR equal. 1.0+: MAJOR equal (versioning.md §兼容性判定规则).
func Compatible(server, client SemVer) bool {
	if server.Major != client.Major {
		return false
	}
	if server.Major == 0 {
		return server.Minor == client.Minor
	}
	return true
}
