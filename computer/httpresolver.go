package computer

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// Defaults of HTTPResolverOptions.
const (
	DefaultResolverTTL       = 10 * time.Minute
	DefaultManifestThreshold = 1 << 20 // dpe.md: inline "< 1MB 量级"
	DefaultResolverMaxBytes  = 256 << 20
)

// HTTPResolverOptions configure NewHTTPResolver. Zero values are defaults.
type HTTPResolverOptions struct {
	// Addr to listen on; default 127.0.0.1:0. The resolver serves
	// documents to agents, so keep it on loopback unless agents are remote.
	Addr string
	// TTL of a signed URL; default DefaultResolverTTL.
	TTL time.Duration
	// ManifestThreshold: a Document JSON larger than this many bytes is
	// served in manifest mode, each page at its own signed URL (dpe.md
	// §Page 对象, 模式 B). Default DefaultManifestThreshold; negative
	// disables manifest mode.
	ManifestThreshold int64
	// MaxBytes bounds the documents kept in memory; the oldest are
	// dropped first (their URLs then answer 404 and agents re-resolve).
	// Default DefaultResolverMaxBytes.
	MaxBytes int64
	// Now is the clock (tests of expiry); default time.Now.
	Now func() time.Time
	// Logger; nil discards.
	Logger *slog.Logger
}

// HTTPResolver serves resolved documents from a loopback HTTP server at
// signed, expiring URLs:
//
//	/d/{sha256}?exp={unix}&sig={hmac}          the document (or its manifest)
//	/d/{sha256}/p/{i}?exp={unix}&sig={hmac}    page i, in manifest mode
//
// sig is HMAC-SHA256 over the path and exp with a per-process random key,
// so URLs cannot be forged or extended and die with the process. A bad or
// missing signature answers 403 Forbidden; a valid but expired URL answers
// 410 Gone, so an agent can tell "ask get_dpe again" from "this was never
// valid". The answer carries _meta.expires_at (RFC 3339) and etag (the
// hex of the document's identity key, stable across resolves).
type HTTPResolver struct {
	opt  HTTPResolverOptions
	log  *slog.Logger
	key  []byte
	ln   net.Listener
	srv  *http.Server
	base string

	mu    sync.Mutex
	docs  map[string]*storedDoc
	order []string // insertion order, for eviction
	total int64
}

type storedDoc struct {
	id   string
	raw  []byte // nil for a document read in pages (storePaged)
	size int64  // bytes kept, for eviction
	// Manifest mode: head is the document without "pages"; pages are the
	// page objects, entries their manifest stand-ins (uri filled per URL).
	manifest bool
	head     map[string]json.RawMessage
	pages    []json.RawMessage
	entries  []manifestEntry
}

type manifestEntry struct {
	PageIndex    json.RawMessage `json:"page_index"`
	Title        json.RawMessage `json:"title,omitempty"`
	DocRef       json.RawMessage `json:"doc_ref,omitempty"`
	URI          string          `json:"uri"`
	ElementCount int             `json:"element_count"`
	// keep is set for pages that already were manifest entries (uri, no
	// elements): they are passed through untouched.
	keep json.RawMessage
}

// NewHTTPResolver listens and starts serving.
func NewHTTPResolver(opt HTTPResolverOptions) (*HTTPResolver, error) {
	if opt.Addr == "" {
		opt.Addr = "127.0.0.1:0"
	}
	if opt.TTL <= 0 {
		opt.TTL = DefaultResolverTTL
	}
	if opt.ManifestThreshold == 0 {
		opt.ManifestThreshold = DefaultManifestThreshold
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultResolverMaxBytes
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("http resolver: signing key: %w", err)
	}
	ln, err := net.Listen("tcp", opt.Addr)
	if err != nil {
		return nil, fmt.Errorf("http resolver: listen %s: %w", opt.Addr, err)
	}
	h := &HTTPResolver{opt: opt, log: log, key: key, ln: ln, base: "http://" + ln.Addr().String(),
		docs: map[string]*storedDoc{}}
	h.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	go func() {
		if err := h.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("http resolver stopped", "err", err)
		}
	}()
	return h, nil
}

// URL is the resolver's base URL (http://127.0.0.1:port).
func (h *HTTPResolver) URL() string { return h.base }

// Close stops the server.
func (h *HTTPResolver) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := h.srv.Shutdown(ctx); err != nil {
		return h.srv.Close()
	}
	return nil
}

// Resolve stores an inline document and answers a signed URL for it. An
// external reference is passed through unchanged.
func (h *HTTPResolver) Resolve(ctx context.Context, res protocol.A2CResource, contents Contents, _ Hint) (protocol.A2CResource, error) {
	if contents.Kind == ContentsExternal {
		return passThrough(res, contents.External), nil
	}
	if contents.Kind != ContentsInline || (len(contents.Document) == 0 && contents.Paged == nil) {
		return protocol.A2CResource{}, fmt.Errorf("http resolver: unsupported contents kind %q", contents.Kind)
	}
	if err := ctx.Err(); err != nil {
		return protocol.A2CResource{}, err
	}
	var d *storedDoc
	var err error
	if contents.Paged != nil {
		d, err = h.storePaged(ctx, contents.Paged)
	} else {
		d, err = h.store(contents.Document)
	}
	if err != nil {
		return protocol.A2CResource{}, fmt.Errorf("http resolver: %w", err)
	}
	exp := h.opt.Now().Add(h.opt.TTL).Unix()
	body := d.raw
	if d.manifest {
		if body, err = h.manifestBody(d, exp); err != nil {
			return protocol.A2CResource{}, fmt.Errorf("http resolver: manifest: %w", err)
		}
	}
	size := int64(len(body))
	return protocol.A2CResource{
		URI:         h.signedURL("/d/"+d.id, exp),
		Name:        res.Name,
		Description: res.Description,
		MimeType:    "application/json",
		Size:        &size,
		Annotations: res.Annotations,
		Meta: &protocol.AccessMeta{
			ExpiresAt: time.Unix(exp, 0).UTC().Format(time.RFC3339),
			ETag:      d.id,
		},
	}, nil
}

func (h *HTTPResolver) sign(path string, exp int64) string {
	m := hmac.New(sha256.New, h.key)
	m.Write([]byte(path))
	m.Write([]byte{0})
	m.Write([]byte(strconv.FormatInt(exp, 10)))
	return hex.EncodeToString(m.Sum(nil))
}

func (h *HTTPResolver) signedURL(path string, exp int64) string {
	return h.base + path + "?exp=" + strconv.FormatInt(exp, 10) + "&sig=" + h.sign(path, exp)
}

// store keeps doc under its content hash, preparing manifest mode when the
// document is above the threshold.
//
// The key is the document's identity (identity.Key: its dpe1 doc_hash, or
// the sha256 of the bytes for a document outside the contract); id, the
// URL path segment and etag, is its 64 hex digits. An equivalent document
// with other bytes replaces the stored one, so each resolve serves the
// bytes it was given.
func (h *HTTPResolver) store(doc []byte) (*storedDoc, error) {
	id := identity.KeyHex(identity.Key(doc))
	h.mu.Lock()
	if d, ok := h.docs[id]; ok && bytes.Equal(d.raw, doc) {
		h.mu.Unlock()
		return d, nil
	}
	h.mu.Unlock()

	d := &storedDoc{id: id, raw: bytes.Clone(doc), size: int64(len(doc))}
	if h.opt.ManifestThreshold > 0 && int64(len(doc)) > h.opt.ManifestThreshold {
		if err := splitManifest(d); err != nil {
			return nil, err
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if old, ok := h.docs[id]; ok && bytes.Equal(old.raw, doc) {
		return old, nil
	}
	h.keep(d)
	return d, nil
}

// keep stores d (replacing a document of the same id) and evicts the
// oldest documents over MaxBytes. Called with mu held.
func (h *HTTPResolver) keep(d *storedDoc) {
	if old, ok := h.docs[d.id]; ok {
		h.total -= old.size
		h.docs[d.id] = d
		h.total += d.size
		return
	}
	h.docs[d.id] = d
	h.order = append(h.order, d.id)
	h.total += d.size
	for h.total > h.opt.MaxBytes && len(h.order) > 1 {
		victim := h.order[0]
		h.order = h.order[1:]
		if v, ok := h.docs[victim]; ok {
			h.total -= v.size
			delete(h.docs, victim)
			h.log.Debug("http resolver evicted document", "etag", victim)
		}
	}
}

// storePaged keeps a document the MCP server handed over in pages: it is
// read a run of pages at a time and served in manifest mode whatever its
// size, so neither the MCP read nor the agent's first fetch holds it
// whole. Its id (URL segment and etag) is the server's version of its
// bytes, so a document already kept is not read again.
func (h *HTTPResolver) storePaged(ctx context.Context, p *PagedDocument) (*storedDoc, error) {
	id := p.Version
	if _, err := hex.DecodeString(id); err != nil || len(id) != 64 {
		sum := sha256.Sum256([]byte(p.Version))
		id = hex.EncodeToString(sum[:])
	}
	h.mu.Lock()
	if d, ok := h.docs[id]; ok && d.raw == nil {
		h.mu.Unlock()
		return d, nil
	}
	h.mu.Unlock()
	var head map[string]json.RawMessage
	if err := json.Unmarshal(p.Head, &head); err != nil {
		return nil, fmt.Errorf("page index: %w", err)
	}
	delete(head, "pages")
	pages := make([]json.RawMessage, 0, p.Pages)
	var size int64
	err := p.ReadPages(ctx, func(_ int, page json.RawMessage) error {
		pages = append(pages, page)
		size += int64(len(page))
		return nil
	})
	if err != nil {
		return nil, err
	}
	d := &storedDoc{id: id, size: size + int64(len(p.Head))}
	if err := buildManifest(d, head, pages); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.keep(d)
	return d, nil
}

func splitManifest(d *storedDoc) error {
	var head map[string]json.RawMessage
	if err := json.Unmarshal(d.raw, &head); err != nil {
		return err
	}
	var pages []json.RawMessage
	if err := json.Unmarshal(head["pages"], &pages); err != nil {
		return fmt.Errorf("pages: %w", err)
	}
	delete(head, "pages")
	return buildManifest(d, head, pages)
}

// buildManifest makes d a manifest-mode document of head and pages.
func buildManifest(d *storedDoc, head map[string]json.RawMessage, pages []json.RawMessage) error {
	d.head, d.pages = head, pages
	d.entries = make([]manifestEntry, len(pages))
	for i, p := range pages {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(p, &obj); err != nil {
			return fmt.Errorf("page %d: %w", i+1, err)
		}
		e := manifestEntry{PageIndex: obj["page_index"], Title: obj["title"], DocRef: obj["doc_ref"]}
		if e.PageIndex == nil {
			e.PageIndex = obj["number"] // older kernel shape
		}
		if e.PageIndex == nil {
			e.PageIndex = json.RawMessage(strconv.Itoa(i))
		}
		var elements []json.RawMessage
		if raw, ok := obj["elements"]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &elements); err != nil {
				return fmt.Errorf("page %d elements: %w", i+1, err)
			}
		} else if _, hasURI := obj["uri"]; hasURI {
			e.keep = p
		}
		e.ElementCount = len(elements)
		d.entries[i] = e
	}
	d.manifest = true
	return nil
}

// manifestBody is d's manifest with page URLs signed until exp.
func (h *HTTPResolver) manifestBody(d *storedDoc, exp int64) ([]byte, error) {
	return manifestJSON(d, func(i int) (string, error) {
		return h.signedURL("/d/"+d.id+"/p/"+strconv.Itoa(i), exp), nil
	})
}

// manifestJSON is d's head with its page entries, the one manifest
// builder of both resolvers: each entry's uri comes from pageURI, which is
// where they differ (this resolver's HMAC-signed URL, a presigned S3 URL);
// a page kept whole (it had a uri of its own) goes as it was.
func manifestJSON(d *storedDoc, pageURI func(i int) (string, error)) ([]byte, error) {
	pages := make([]json.RawMessage, len(d.entries))
	for i, e := range d.entries {
		if e.keep != nil {
			pages[i] = e.keep
			continue
		}
		u, err := pageURI(i)
		if err != nil {
			return nil, err
		}
		e.URI = u
		b, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		pages[i] = b
	}
	out := make(map[string]json.RawMessage, len(d.head)+1)
	for k, v := range d.head {
		out[k] = v
	}
	pb, err := json.Marshal(pages)
	if err != nil {
		return nil, err
	}
	out["pages"] = pb
	return json.Marshal(out)
}

// ServeHTTP serves signed document and page URLs.
func (h *HTTPResolver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	id, page, ok := parseResolverPath(r.URL.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	exp, err := strconv.ParseInt(q.Get("exp"), 10, 64)
	sig, _ := hex.DecodeString(q.Get("sig"))
	want, _ := hex.DecodeString(h.sign(r.URL.Path, exp))
	if err != nil || len(sig) == 0 || !hmac.Equal(sig, want) {
		h.log.Info("http resolver refused a bad signature", "path", r.URL.Path)
		http.Error(w, "forbidden: bad or missing signature", http.StatusForbidden)
		return
	}
	if h.opt.Now().Unix() >= exp {
		h.log.Info("http resolver refused an expired URL", "path", r.URL.Path)
		http.Error(w, "gone: URL expired; resolve the dpe:// URI again", http.StatusGone)
		return
	}
	h.mu.Lock()
	d := h.docs[id]
	h.mu.Unlock()
	if d == nil {
		http.Error(w, "not found: document no longer cached; resolve the dpe:// URI again", http.StatusNotFound)
		return
	}
	var body []byte
	switch {
	case page < 0 && !d.manifest:
		body = d.raw
	case page < 0:
		if body, err = h.manifestBody(d, exp); err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
	case d.manifest && page < len(d.pages) && d.entries[page].keep == nil:
		body = d.pages[page]
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", `"`+d.id+`"`)
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

func parseResolverPath(p string) (id string, page int, ok bool) {
	rest, found := strings.CutPrefix(p, "/d/")
	if !found {
		return "", 0, false
	}
	parts := strings.Split(rest, "/")
	if len(parts[0]) != 64 {
		return "", 0, false
	}
	if _, err := hex.DecodeString(parts[0]); err != nil {
		return "", 0, false
	}
	switch {
	case len(parts) == 1:
		return parts[0], -1, true
	case len(parts) == 3 && parts[1] == "p":
		n, err := strconv.Atoi(parts[2])
		if err != nil || n < 0 || strconv.Itoa(n) != parts[2] {
			return "", 0, false
		}
		return parts[0], n, true
	}
	return "", 0, false
}
