package computer

import (
	"net/url"
	"strconv"
	"strings"
)

// dpeURI is what get_dpe needs from a dpe:// URI: the host to route by and
// the string to hand to resources/read.
//
// This is a local, minimal validator: dpe/uri.go (dpe.ParseURILenient) had
// not landed when this package was written. It implements dpe.md §校验规则
// with the Computer-side leniency of §URI query / fragment 处理分层: a query
// or fragment is dropped with a warning instead of failing the request.
type dpeURI struct {
	Host string // lower-cased
	// Read is the URI to pass to resources/read: the input with any query
	// and fragment cut off, otherwise byte for byte as the agent sent it
	// (MCP servers match resource URIs as strings).
	Read     string
	Segments []string // percent-decoded, each non-empty
}

// uriError is a 4012 reason.
type uriError struct{ Reason string }

func (e *uriError) Error() string { return "invalid dpe URI: " + e.Reason }

// parseDPEURI validates s leniently and returns the warnings it produced.
func parseDPEURI(s string) (dpeURI, []string, error) {
	var warns []string
	if strings.TrimSpace(s) == "" {
		return dpeURI{}, nil, &uriError{"empty URI"}
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return dpeURI{}, nil, &uriError{"contains whitespace"}
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return dpeURI{}, nil, &uriError{"contains control characters"}
		}
	}
	read := s
	if i := strings.IndexByte(read, '#'); i >= 0 {
		warns = append(warns, "fragment dropped")
		read = read[:i]
	}
	if i := strings.IndexByte(read, '?'); i >= 0 {
		warns = append(warns, "query dropped")
		read = read[:i]
	}
	scheme, rest, ok := strings.Cut(read, ":")
	if !ok || scheme == "" {
		return dpeURI{}, nil, &uriError{"missing scheme"}
	}
	if !strings.EqualFold(scheme, "dpe") {
		return dpeURI{}, nil, &uriError{"scheme is " + quoteTrunc(scheme) + ", want dpe"}
	}
	if !strings.HasPrefix(rest, "//") {
		return dpeURI{}, nil, &uriError{"missing // after dpe:"}
	}
	rest = rest[2:]
	host, path, _ := strings.Cut(rest, "/")
	if host == "" {
		return dpeURI{}, nil, &uriError{"missing host"}
	}
	if strings.Contains(host, "@") {
		return dpeURI{}, nil, &uriError{"host must not carry userinfo"}
	}
	if h, err := url.PathUnescape(host); err != nil || h != host {
		return dpeURI{}, nil, &uriError{"host must not be percent-encoded"}
	}
	if path == "" {
		return dpeURI{}, nil, &uriError{"missing doc-ref"}
	}
	raw := strings.Split(path, "/")
	segs := make([]string, 0, len(raw))
	for i, seg := range raw {
		if seg == "" {
			if i == len(raw)-1 && i > 0 {
				// A trailing slash adds no segment; be lenient like
				// with query and fragment.
				warns = append(warns, "trailing slash ignored")
				continue
			}
			return dpeURI{}, nil, &uriError{"empty doc-ref segment"}
		}
		dec, err := url.PathUnescape(seg)
		if err != nil {
			return dpeURI{}, nil, &uriError{"bad percent-encoding in doc-ref"}
		}
		if dec == "" {
			return dpeURI{}, nil, &uriError{"empty doc-ref segment"}
		}
		segs = append(segs, dec)
	}
	if len(segs) == 0 {
		return dpeURI{}, nil, &uriError{"missing doc-ref"}
	}
	return dpeURI{Host: strings.ToLower(host), Read: read, Segments: segs}, warns, nil
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

func quoteTrunc(s string) string {
	const max = 40
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return strconv.Quote(s)
}
