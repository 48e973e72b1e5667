package sanitize

import (
	"net/url"
	"regexp"
	"strings"
)

// redacted stands in for every secret a URL may carry. It is the same
// marker net/url's Redacted uses for passwords, so people recognise it.
const redacted = "xxxxx"

// URL redacts the parts of a URL that carry credentials before it is shown
// anywhere (an error, the TUI, the trace, a log line): the whole userinfo
// (a bare user name is often a token, as in https://TOKEN@host), every
// query value (signed access URIs keep their signature there; the keys stay
// so a reader can still tell what kind of URL it is) and the fragment.
//
// Text that does not parse as a URL with a scheme is cut at its first '?'
// or '#', and anything before an '@' in its authority is replaced, so a
// malformed URL leaks no more than a well-formed one. It is the one URL
// redactor of the product; the result is still untrusted text for the
// terminal and goes through Text or Line like any other.
func URL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return redactLoose(s)
	}
	if u.User != nil {
		u.User = url.User(redacted)
	}
	if u.RawQuery != "" {
		u.RawQuery = redactQuery(u.RawQuery)
	}
	if u.Fragment != "" || u.RawFragment != "" {
		u.Fragment, u.RawFragment = redacted, ""
	}
	return u.String()
}

// redactQuery keeps the keys of a raw query and replaces each value, in the
// original order (url.Values would sort and re-encode them).
func redactQuery(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		if k, _, ok := strings.Cut(p, "="); ok {
			parts[i] = k + "=" + redacted
		}
	}
	return strings.Join(parts, "&")
}

func redactLoose(s string) string {
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i] + "?" + redacted
	}
	if scheme, rest, ok := strings.Cut(s, "://"); ok {
		auth, path, _ := strings.Cut(rest, "/")
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			rest = redacted + auth[at:]
			if path != "" || strings.Contains(s[len(scheme)+3:], "/") {
				rest += "/" + path
			}
			s = scheme + "://" + rest
		}
	}
	return s
}

// urlInText finds URL-shaped runs inside free text, such as the URL an
// *url.Error or a dial error quotes.
var urlInText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]+`)

// URLsIn applies URL to every URL inside a free text (an error message a
// library wrote, say) and leaves the rest as it is.
func URLsIn(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlInText.ReplaceAllStringFunc(s, URL)
}

// HyperlinkURL is u as the target of a terminal hyperlink (OSC 8), or ok
// false when it may not be one: only http and https URLs with a host,
// re-encoded by net/url so every byte is printable ASCII (0x21–0x7e). No
// ESC, BEL, C1, space or other control byte can end the sequence early
// or write to the terminal, and no other scheme (file:, javascript:, a
// custom handler) is ever made clickable.
func HyperlinkURL(u string) (string, bool) {
	p, err := url.Parse(u)
	if err != nil || p.Opaque != "" || p.Host == "" {
		return "", false
	}
	if s := strings.ToLower(p.Scheme); s != "http" && s != "https" {
		return "", false
	}
	out := p.String()
	for i := 0; i < len(out); i++ {
		if out[i] < 0x21 || out[i] > 0x7e {
			return "", false
		}
	}
	return out, true
}
