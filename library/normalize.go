package library

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/unicode/norm"
)

// A file's name on disk may be in any Unicode normalization form: macOS
// writes NFD ("e" + U+0301), most editors and keyboards type NFC ("é").
// The listing shows the name as it is on disk, but a user who types the URI
// types NFC. So a dpe:// URI that names no resource exactly is matched by
// its NFC form against the NFC forms of the folder's files:
//
//   - an exact match always wins (two files whose names differ only by
//     normalization are both reachable, each by its own URI);
//   - otherwise the NFC match is used only when exactly one file has it;
//   - several files with that NFC form and none exact is not found, with
//     a message saying why: the library never picks one of them.
//
// Only files of the folder take part (generated members and window://
// status have ASCII names of this program's own). Matching happens before
// the MCP server looks the URI up (a receiving middleware rewrites
// resources/read to the file's own URI), so the answer carries the URI the
// listing shows.

// nfcKey is uri with its host lower-cased and every path segment
// percent-decoded, NFC-normalized and escaped again the way the listing
// escapes it; ok is false for a URI that is not dpe://.
func nfcKey(uri string) (string, bool) {
	u, err := url.Parse(uri)
	// A query, fragment or userinfo makes it another URI, not another
	// spelling of a listed one.
	if err != nil || u.Scheme != "dpe" || u.Host == "" || u.Opaque != "" || u.User != nil ||
		u.RawQuery != "" || u.ForceQuery || strings.Contains(uri, "#") {
		return "", false
	}
	segs := strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
	for i, s := range segs {
		if _, err := url.PathUnescape(s); err != nil {
			return "", false
		}
		segs[i] = norm.NFC.String(unescapeNonASCII(s))
	}
	return escapeDocRef(strings.ToLower(u.Host), strings.Join(segs, "/")), true
}

// unescapeNonASCII decodes the percent escapes of bytes ≥ 0x80 only (the
// UTF-8 a normalization form changes) and keeps every other escape as
// written: "x%2Dy.md" is another URI than "x-y.md", not another
// normalization of it. s is a valid escaped path segment.
func unescapeNonASCII(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil && v >= 0x80 {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// indexNFC rebuilds l.byNFC from l.sources; l.mu is held for writing.
func (l *library) indexNFC() {
	idx := make(map[string][]string)
	for uri, s := range l.sources {
		if s.path == "" {
			continue
		}
		if k, ok := nfcKey(uri); ok {
			idx[k] = append(idx[k], uri)
		}
	}
	l.byNFC = idx
}

// errAmbiguousName is a typed URI whose NFC form names several files and
// none of them exactly.
type errAmbiguousName struct {
	uri string
	n   int
}

func (e *errAmbiguousName) Error() string {
	return fmt.Sprintf("%d files have names that differ only in Unicode normalization and match %s; use the URI the listing shows", e.n, e.uri)
}

// resolveURI is the listed URI uri stands for: itself when listed, else the
// one folder file with the same NFC form. ok is false when none matches;
// err is set when several do.
func (l *library) resolveURI(uri string) (string, bool, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if _, ok := l.sources[uri]; ok {
		return uri, true, nil
	}
	k, ok := nfcKey(uri)
	if !ok {
		return "", false, nil
	}
	switch c := l.byNFC[k]; len(c) {
	case 0:
		return "", false, nil
	case 1:
		return c[0], true, nil
	default:
		return "", false, &errAmbiguousName{uri: uri, n: len(c)}
	}
}

// normalizeMiddleware rewrites a resources/read of a URI that is listed
// only under another normalization form (resolveURI) to the listed URI,
// before the MCP server looks it up; an ambiguous one is answered "not
// found" with the reason.
func (l *library) normalizeMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "resources/read" {
			return next(ctx, method, req)
		}
		rr, ok := req.(*mcp.ReadResourceRequest)
		if !ok || rr.Params == nil {
			return next(ctx, method, req)
		}
		uri, found, err := l.resolveURI(rr.Params.URI)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Resource not found: " + err.Error()}
		}
		if found && uri != rr.Params.URI {
			p := *rr.Params
			p.URI = uri
			rr.Params = &p
		}
		return next(ctx, method, req)
	}
}
