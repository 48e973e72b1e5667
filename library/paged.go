package library

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Paged reads: a document too big for one MCP message is handed to a
// client that asks for it (our computer) in pieces, so that no single
// message holds it whole. The client puts PagedMetaKey in the _meta of
// resources/read:
//
//	{"max_bytes": N}                          index: the document without its
//	                                          pages, and how many there are
//	{"version": V, "from": i, "max_bytes": N} pages i, i+1, … as a JSON array,
//	                                          as many as fit in N bytes (at
//	                                          least one)
//
// The answer's content carries PagedMetaKey in its _meta too: {"version",
// "pages", "bytes"} for an index, {"version", "from", "count"} for pages. A
// document of at most N bytes is answered whole, as without the key, and
// so is every read without it: other MCP clients see no difference. A
// version that is no longer the document's is refused (ErrVersionChanged),
// so one document's pages never mix two versions. No answer sets a cache
// TTL: go-sdk's client caches resources/read results by URI alone.
const PagedMetaKey = "io.github.dpetui/paged"

// ErrVersionChanged is the refusal of a page read whose version is no
// longer the document's (it changed on disk since the index was read).
var ErrVersionChanged = errors.New("the document changed since its page index was read")

// pagedRequest is the value of PagedMetaKey in a read's _meta.
type pagedRequest struct {
	MaxBytes int    `json:"max_bytes"`
	Version  string `json:"version,omitempty"`
	From     *int   `json:"from,omitempty"`
}

// minPagedBytes keeps a client from asking for one tiny message per page.
const minPagedBytes = 64 << 10

func parsePagedRequest(meta mcp.Meta) (*pagedRequest, error) {
	v, ok := meta[PagedMetaKey]
	if !ok {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var r pagedRequest
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("_meta %s: %w", PagedMetaKey, err)
	}
	if r.MaxBytes < minPagedBytes {
		r.MaxBytes = minPagedBytes
	}
	return &r, nil
}

// pagedView is a document split at its pages: offsets into data, which is
// shared with whoever loaded it (never copied).
type pagedView struct {
	data    []byte
	version string
	head    []byte   // the document without "pages"
	pages   [][2]int // [start, end) of each page object in data
}

// splitPages finds the page objects of a Document JSON without decoding
// them: one byte scan of the top-level object (encoding/json's Decoder
// would copy the whole document into its buffer and cost a decode).
func splitPages(data []byte) (*pagedView, error) {
	sum := sha256.Sum256(data)
	v := &pagedView{data: data, version: hex.EncodeToString(sum[:])}
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, errors.New("the document is not a JSON object")
	}
	var head bytes.Buffer
	head.WriteByte('{')
	i++
	seen := false
	for {
		i = skipSpace(data, i)
		if i < len(data) && data[i] == '}' {
			break
		}
		kEnd, err := skipValue(data, i)
		if err != nil || data[i] != '"' {
			return nil, errors.New("the document is not a JSON object")
		}
		key := data[i:kEnd]
		i = skipSpace(data, kEnd)
		if i >= len(data) || data[i] != ':' {
			return nil, errors.New("the document is not a JSON object")
		}
		i = skipSpace(data, i+1)
		vEnd, err := skipValue(data, i)
		if err != nil {
			return nil, err
		}
		if string(key) == `"pages"` {
			seen = true
			if data[i] != '[' {
				return nil, errors.New("pages is not an array")
			}
			for j := i + 1; ; {
				j = skipSpace(data, j)
				if j >= vEnd-1 {
					break // at the closing bracket
				}
				e, err := skipValue(data, j)
				if err != nil {
					return nil, err
				}
				v.pages = append(v.pages, [2]int{j, e})
				j = skipSpace(data, e)
				if j < vEnd && data[j] == ',' {
					j++
				}
			}
		} else {
			if head.Len() > 1 {
				head.WriteByte(',')
			}
			head.Write(key)
			head.WriteByte(':')
			head.Write(data[i:vEnd])
		}
		i = skipSpace(data, vEnd)
		if i < len(data) && data[i] == ',' {
			i++
		}
	}
	if !seen {
		return nil, errors.New("the document has no pages")
	}
	head.WriteByte('}')
	if !json.Valid(head.Bytes()) {
		return nil, errors.New("the document is not valid JSON")
	}
	v.head = head.Bytes()
	return v, nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at b[i]. It tracks
// strings and nesting only; the document was checked as JSON when it was
// listed, and each page is checked by whoever decodes it.
func skipValue(b []byte, i int) (int, error) {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(b) {
				return 0, errors.New("unterminated string")
			}
			i++
			if depth == 0 {
				return i, nil
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return 0, errors.New("unbalanced JSON")
			}
			if depth == 0 {
				return i + 1, nil
			}
		case ',', ' ', '\n', '\r', '\t', ':':
			if depth == 0 {
				return i, nil
			}
		default:
			if depth == 0 {
				j := i
				for j < len(b) && !strings.ContainsRune(",}] \n\r\t", rune(b[j])) {
					j++
				}
				return j, nil
			}
		}
		i++
	}
	if depth != 0 {
		return 0, errors.New("truncated JSON")
	}
	return i, nil
}

// pagedCache keeps the split of the last documents read in pages: a page
// client reads one document in several messages in a row, and a document
// this large is over the document cache's per-entry bound.
type pagedCache struct {
	mu    sync.Mutex
	views []*pagedEntry // most recent last
}

type pagedEntry struct {
	key  string
	view *pagedView
}

const pagedCacheEntries = 2

func (c *pagedCache) get(key string) *pagedView {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.views {
		if e.key == key {
			return e.view
		}
	}
	return nil
}

func (c *pagedCache) put(key string, v *pagedView) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.views {
		if e.key == key {
			c.views = append(c.views[:i], c.views[i+1:]...)
			break
		}
	}
	c.views = append(c.views, &pagedEntry{key: key, view: v})
	if len(c.views) > pagedCacheEntries {
		c.views = c.views[len(c.views)-pagedCacheEntries:]
	}
}

// readPaged answers a read that carries PagedMetaKey. done is false when
// the document is answered whole (it fits, or it is not a dpe document).
func (l *library) readPaged(uri string, s *source, key string, req *pagedRequest, data []byte) (*mcp.ReadResourceResult, bool, error) {
	if s.mime != protocol.MimeDPEInline {
		return nil, false, nil
	}
	v := l.paged.get(key)
	if v == nil {
		if req.From == nil && len(data) <= req.MaxBytes {
			return nil, false, nil
		}
		var err error
		if v, err = splitPages(data); err != nil {
			return nil, false, nil // not splittable: whole, as before
		}
		l.paged.put(key, v)
	}
	if req.From == nil {
		if len(v.data) <= req.MaxBytes {
			return nil, false, nil
		}
		return pagedResult(uri, string(v.head), map[string]any{"version": v.version, "pages": len(v.pages), "bytes": len(v.data)}), true, nil
	}
	if req.Version != v.version {
		return nil, true, fmt.Errorf("library: read %s: %w", uri, ErrVersionChanged)
	}
	from := *req.From
	if from < 0 || from >= len(v.pages) {
		return nil, true, fmt.Errorf("library: read %s: page %d of %d", uri, from+1, len(v.pages))
	}
	var b bytes.Buffer
	b.WriteByte('[')
	n, sent := 0, 2
	for i := from; i < len(v.pages); i++ {
		p := v.data[v.pages[i][0]:v.pages[i][1]]
		// The budget is what goes on the wire: the run travels as a JSON
		// string, where quotes, backslashes and (go-sdk escapes HTML)
		// < > & grow.
		k := escapedLen(p) + 1
		if n > 0 && sent+k > req.MaxBytes {
			break
		}
		sent += k
		if n > 0 {
			b.WriteByte(',')
		}
		b.Write(p)
		n++
	}
	b.WriteByte(']')
	return pagedResult(uri, b.String(), map[string]any{"version": v.version, "from": from, "count": n}), true, nil
}

func pagedResult(uri, text string, meta map[string]any) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: uri, MIMEType: protocol.MimeDPEInline, Text: text, Meta: mcp.Meta{PagedMetaKey: meta},
	}}}
}

// escapedLen is len(p) once written as the body of a JSON string.
func escapedLen(p []byte) int {
	n := len(p)
	for _, c := range p {
		switch {
		case c == '"' || c == '\\':
			n++
		case c == '<' || c == '>' || c == '&' || c < 0x20:
			n += 5
		}
	}
	return n
}
