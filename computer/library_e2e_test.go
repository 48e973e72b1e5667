package computer

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/library"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// TestLibraryCorpus_EveryDocumentResolvesAndDecodes runs the project's own
// library (embedded corpus) behind the Computer with the http resolver at
// its default manifest threshold: every dpe:// resource listed through
// get_resources resolves with get_dpe, its URL serves a Document that
// dpe.Decode accepts, and documents above 1 MiB arrive in manifest mode with
// fetchable pages.
func TestLibraryCorpus_EveryDocumentResolvesAndDecodes(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the whole corpus")
	}
	srv, err := libraryServer(library.Options{Host: "io.github.dpetui.library", PageSize: 50})
	if err != nil {
		t.Fatal(err)
	}
	h := newTestHTTPResolver(t, HTTPResolverOptions{})
	o := startOffice(t, Options{Resolver: h}, func(c *Computer) { inProc(t, c, "library", srv) })

	var uris []string
	var cursor *string
	for pages := 0; ; pages++ {
		payload := map[string]any{"mcp_server": "library"}
		if cursor != nil {
			payload["cursor"] = *cursor
		}
		var ret resourcesRet
		if perr := o.agent.call(protocol.EventGetResources, o.name, payload, &ret); perr != nil {
			t.Fatal(perr)
		}
		for _, r := range ret.Resources {
			var uri string
			_ = json.Unmarshal(r["uri"], &uri)
			if strings.HasPrefix(uri, "dpe://") {
				uris = append(uris, uri)
			}
		}
		if ret.NextCursor == nil {
			break
		}
		cursor = ret.NextCursor
		if pages > 1000 {
			t.Fatal("cursor loop")
		}
	}
	if len(uris) < 12 {
		t.Fatalf("only %d dpe resources", len(uris))
	}
	manifests := 0
	for _, uri := range uris {
		ret, perr := getDPE(t, o, uri)
		if perr != nil {
			t.Fatalf("get_dpe %s: %v", uri, perr)
		}
		status, body := httpGet(t, ret.URI)
		if status != http.StatusOK {
			t.Fatalf("%s: GET %d", uri, status)
		}
		doc, err := dpe.Decode(body, dpe.DefaultLimits())
		if err != nil {
			t.Fatalf("%s: decode: %v", uri, err)
		}
		for i, p := range doc.Pages {
			if p.URI == "" {
				continue
			}
			if i == 0 {
				manifests++
			}
			status, pb := httpGet(t, p.URI)
			if status != http.StatusOK {
				t.Fatalf("%s page %d: GET %d", uri, i, status)
			}
			if _, err := dpe.DecodePage(pb, dpe.DefaultLimits()); err != nil {
				t.Fatalf("%s page %d: %v", uri, i, err)
			}
		}
	}
	if manifests == 0 {
		t.Fatal("no corpus document was served in manifest mode (the corpus has one above 1 MiB)")
	}
	t.Logf("%d documents resolved, %d in manifest mode", len(uris), manifests)
}
