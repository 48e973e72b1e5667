package computer

import (
	"errors"
	"strconv"
	"strings"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// dpeURI is what get_dpe needs from a dpe:// URI: the host to route by and
// the string to hand to resources/read.
type dpeURI struct {
	Host string // lower-cased: hosts are DNS-like namespaces
	// Read is the URI to pass to resources/read: the input with any query
	// and fragment cut off, otherwise byte for byte as the agent sent it
	// (MCP servers match resource URIs as strings).
	Read     string
	Segments []string // percent-decoded, each non-empty
}

// uriError is a 4012 reason.
type uriError struct{ Reason string }

func (e *uriError) Error() string { return "invalid dpe URI: " + e.Reason }

// parseDPEURI validates s with dpe.ParseURILenient: the Computer is the
// lenient consumer of dpe.md §URI query / fragment 处理分层, so a query or
// fragment is dropped and reported as a warning instead of failing.
func parseDPEURI(s string) (dpeURI, []string, error) {
	u, warns, err := dpe.ParseURILenient(s)
	if err != nil {
		var ue *dpe.URIError
		if errors.As(err, &ue) {
			return dpeURI{}, nil, &uriError{Reason: ue.Reason}
		}
		return dpeURI{}, nil, &uriError{Reason: err.Error()}
	}
	read := s
	if i := strings.IndexAny(read, "?#"); i >= 0 {
		read = read[:i]
	}
	return dpeURI{Host: strings.ToLower(u.Host), Read: read, Segments: u.Segments}, warns, nil
}

// hostStyleWarning reports whether host breaks the SHOULD naming rules of
// dpe.md §host 命名规范 (reverse-domain, lower-case, letters digits dots).
// It is lint only: the host is still used.
func hostStyleWarning(host string) string {
	if !strings.Contains(host, ".") {
		return "single-label host; reverse-domain style (com.example.docs) is recommended"
	}
	for _, r := range host {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.':
		default:
			return "host should be lower-case letters, digits and dots only"
		}
	}
	return ""
}

// hostOf returns the lower-cased host of a dpe:// URI, or "" if s is not one.
func hostOf(s string) string {
	if len(s) < 6 || !strings.EqualFold(s[:6], "dpe://") {
		return ""
	}
	u, _, err := parseDPEURI(s)
	if err != nil {
		return ""
	}
	return u.Host
}

// authorityPrefix is "dpe://", uri's authority and the "/" after it, or ""
// when no path follows the authority.
func authorityPrefix(uri string) string {
	const scheme = len("dpe://")
	if len(uri) < scheme {
		return ""
	}
	i := strings.IndexAny(uri[scheme:], "/?#")
	if i < 0 || uri[scheme+i] != '/' {
		return ""
	}
	return uri[:scheme+i+1]
}

func quoteTrunc(s string) string {
	const max = 40
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return strconv.Quote(s)
}
