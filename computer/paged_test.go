package computer

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/internal/dpegen"
	"github.com/dpe-tui/dpe-tui/library"
)

// The computer and the library agree on the paged-read key.
func TestPaged_KeyIsTheLibrarys(t *testing.T) {
	if PagedMetaKey != library.PagedMetaKey {
		t.Fatalf("computer %q, library %q", PagedMetaKey, library.PagedMetaKey)
	}
}

// messageSizes records the size of every answer the library's MCP server
// sends, as JSON: the frames on the in-process transport between library
// and computer (plus a few bytes of JSON-RPC envelope each).
type messageSizes struct {
	mu   sync.Mutex
	max  int
	n    int
	read int // resources/read answers
}

func (m *messageSizes) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if res != nil {
			b, _ := json.Marshal(res)
			m.mu.Lock()
			m.n++
			m.max = max(m.max, len(b))
			if method == "resources/read" {
				m.read++
			}
			m.mu.Unlock()
		}
		return res, err
	}
}

// A document far over one MCP message goes from the library to the
// computer in pages: no answer between them exceeds the run size
// (plus a page, the unit that cannot be split), the resolver serves it in
// manifest mode, and every page fetched is the library's page, byte for
// byte.
func TestPaged_LargeDocumentCrossesInBoundedMessages(t *testing.T) {
	// Runs of 512 KiB stand in for PagedMessageBytes: the same code path
	// on a document a race-enabled CI run reads in seconds.
	const runBytes = 512 << 10
	o := dpegen.Options{Pages: 120, ElementsPerPage: 40, TextBytes: 300, TableEvery: 4, TableRows: 12, TableCols: 6, Seed: 5}
	doc := dpegen.Document(o)
	if len(doc) < 4*runBytes {
		t.Fatalf("generated %d bytes, want several paged messages", len(doc))
	}
	lib, err := libraryServer(library.Options{FS: fstest.MapFS{"big.dpe.json": {Data: doc}}, Host: "org.example.big"})
	if err != nil {
		t.Fatal(err)
	}
	var sizes messageSizes
	lib.AddReceivingMiddleware(sizes.middleware)
	h := newTestHTTPResolver(t, HTTPResolverOptions{})
	off := startOffice(t, Options{Resolver: h}, func(c *Computer) { c.pagedBytes = runBytes; inProc(t, c, "library", lib) })

	ret, perr := getDPE(t, off, "dpe://org.example.big/big.dpe.json")
	if perr != nil {
		t.Fatal(perr)
	}
	status, body := httpGet(t, ret.URI)
	if status != http.StatusOK {
		t.Fatalf("GET manifest: %d", status)
	}
	var manifest, src struct {
		Pages []json.RawMessage `json:"pages"`
	}
	if err := json.Unmarshal(body, &manifest); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc, &src); err != nil {
		t.Fatal(err)
	}
	if len(manifest.Pages) != o.Pages {
		t.Fatalf("manifest of %d pages, want %d", len(manifest.Pages), o.Pages)
	}
	largestPage := 0
	for _, p := range src.Pages {
		largestPage = max(largestPage, len(p))
	}
	for _, i := range []int{0, 1, 77, o.Pages - 1} {
		var e struct {
			URI string `json:"uri"`
		}
		if err := json.Unmarshal(manifest.Pages[i], &e); err != nil || e.URI == "" {
			t.Fatalf("page %d has no uri: %s", i, manifest.Pages[i])
		}
		status, pb := httpGet(t, e.URI)
		if status != http.StatusOK || string(pb) != string(src.Pages[i]) {
			t.Fatalf("page %d: GET %d, %d bytes, want the library's %d", i, status, len(pb), len(src.Pages[i]))
		}
	}
	sizes.mu.Lock()
	defer sizes.mu.Unlock()
	bound := runBytes + largestPage + 4<<10
	if sizes.max > bound {
		t.Errorf("an MCP answer of %d bytes from the library (bound %d) for a %d-byte document", sizes.max, bound, len(doc))
	}
	if sizes.read < 1+len(doc)/runBytes {
		t.Errorf("%d resources/read answers for %d bytes: not read in pages", sizes.read, len(doc))
	}
	t.Logf("%d bytes in %d resources/read answers, largest MCP answer %d bytes", len(doc), sizes.read, sizes.max)

	// The same document again: the resolver keeps it (same version), the
	// library is asked for the index only.
	before := sizes.read
	sizes.mu.Unlock()
	if _, perr := getDPE(t, off, "dpe://org.example.big/big.dpe.json"); perr != nil {
		t.Fatal(perr)
	}
	sizes.mu.Lock()
	if got := sizes.read - before; got != 1 {
		t.Errorf("second get_dpe: %d resources/read, want 1 (the index)", got)
	}
}

// A document under PagedMessageBytes still comes whole, as does every
// document of a server that does not know the key.
func TestPaged_SmallDocumentIsReadWhole(t *testing.T) {
	doc := dpegen.Document(dpegen.Options{Pages: 3, Seed: 2})
	lib, err := libraryServer(library.Options{FS: fstest.MapFS{"s.dpe.json": {Data: doc}}, Host: "org.example.small"})
	if err != nil {
		t.Fatal(err)
	}
	var sizes messageSizes
	lib.AddReceivingMiddleware(sizes.middleware)
	h := newTestHTTPResolver(t, HTTPResolverOptions{})
	off := startOffice(t, Options{Resolver: h}, func(c *Computer) { inProc(t, c, "library", lib) })
	ret, perr := getDPE(t, off, "dpe://org.example.small/s.dpe.json")
	if perr != nil {
		t.Fatal(perr)
	}
	status, body := httpGet(t, ret.URI)
	if status != http.StatusOK || string(body) != string(doc) {
		t.Fatalf("GET %d, %d bytes, want the %d-byte document as served", status, len(body), len(doc))
	}
	if sizes.read != 1 {
		t.Errorf("%d resources/read, want 1", sizes.read)
	}
}

// libraryServer is library.Open's MCP server (no Finder to close).
func libraryServer(opt library.Options) (*mcp.Server, error) {
	l, err := library.Open(opt)
	if err != nil {
		return nil, err
	}
	return l.Server(), nil
}
