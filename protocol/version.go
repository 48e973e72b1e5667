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

// Protocol lines this build speaks as an agent, and the version it sends
// for each. In 0.x only MAJOR.MINOR must match (versioning.md §v0.x), so
// one version per line is enough. 0.5.0 is in development upstream
// (versioning.md, commit 25059e6: "当前协议版本 0.5.0-dev"): it is spoken
// only when asked for by name, never reached by negotiation.
const (
	Version02 = "0.2.0"
	Version03 = "0.3.0"
	Version04 = "0.4.0"
	Version05 = "0.5.0"
	// SpokenVersions is for messages: what negotiation reaches.
	SpokenVersions = "0.2.x, 0.3.x and 0.4.x"
	// ExplicitVersions is for messages: what --a2c-version accepts.
	ExplicitVersions = "0.2.x, 0.3.x, 0.4.x, or 0.5.0 (in development, only when asked for)"
)

// Negotiate returns the version to send to a server that speaks server
// (e.g. the server_version of a 4008 body): this build's version of the
// same 0.x line, if it speaks that line. A 0.5 server is not negotiated
// into: its rules (one computer per office, flat join acks) are a draft,
// so the user asks for it with its version.
func Negotiate(server string) (string, bool) {
	v, err := ParseVersion(strings.TrimSpace(server))
	if err != nil || v.Major != 0 {
		return "", false
	}
	switch v.Minor {
	case 2:
		return Version02, true
	case 3:
		return Version03, true
	case 4:
		return Version04, true
	}
	return "", false
}

// Speakable reports whether v may be asked for explicitly: any version of
// the 0.2, 0.3 and 0.4 lines, or exactly 0.5.0. The error says what is
// accepted.
func Speakable(v string) error {
	sv, err := ParseVersion(v)
	if err != nil {
		return err
	}
	if sv.Major == 0 && sv.Minor >= 2 && sv.Minor <= 4 {
		return nil
	}
	if sv == (SemVer{0, 5, 0}) {
		return nil
	}
	return fmt.Errorf("a2c_version %s is not spoken by this build: want %s", v, ExplicitVersions)
}

// line is the MINOR of a 0.x version, -1 when it is not one.
func line(version string) int {
	v, err := ParseVersion(version)
	if err != nil || v.Major != 0 {
		return -1
	}
	return v.Minor
}

// RoleInAuth reports whether version carries the role in the Socket.IO
// connect auth. From 0.3 the role is declared in server:join_office only.
func RoleInAuth(version string) bool { return line(version) < 3 }

// HasGetDPE reports whether version has client:get_dpe. 0.3 removed it:
// DPE moved to its own protocol (dpe-protocol); dpe:// resources may still
// be listed by client:get_resources.
func HasGetDPE(version string) bool { return line(version) < 3 }

// ServersByBundleID reports whether client:get_config keys servers by
// bundle_id (0.3), with name for display only and possibly not unique,
// rather than by name (0.2).
func ServersByBundleID(version string) bool { return line(version) >= 3 }

// HasPutBlob reports whether version has client:put_blob (0.4.0,
// blob-transfer.md §3: "Agent 以「自身 minor ≥ 0.4 且已连接」为能力门控").
func HasPutBlob(version string) bool { return line(version) >= 4 }
