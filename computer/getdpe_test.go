package computer

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

type getDPERet struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	MimeType    string          `json:"mime_type"`
	Size        *int64          `json:"size"`
	Annotations json.RawMessage `json:"annotations"`
	Meta        *struct {
		ExpiresAt string `json:"expires_at"`
		ETag      string `json:"etag"`
	} `json:"_meta"`
	ReqID string `json:"req_id"`
}

func getDPE(t *testing.T, o *office, uri string) (getDPERet, *protocol.Error) {
	t.Helper()
	var ret getDPERet
	perr := o.agent.call(protocol.EventGetDPE, o.name, map[string]any{"uri": uri}, &ret)
	return ret, perr
}

func httpGet(t *testing.T, u string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// fakeClock is a settable clock for the http resolver.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

const host = "com.example.docs"

func libOffice(t *testing.T, r Resolver) *office {
	return startOffice(t, Options{Resolver: r}, func(c *Computer) {
		inProc(t, c, "lib", newDocServer(docServerOptions{Host: host, Docs: 3}))
		inProc(t, c, "tools", newToolsOnlyServer())
		inProc(t, c, "com.example.toolsonly", newToolsOnlyServer())
	})
}

func TestGetDPE_FileResolverWritesDocumentAndAnswersFileURI(t *testing.T) {
	dir := t.TempDir()
	o := libOffice(t, NewFileResolver(dir))
	ret, perr := getDPE(t, o, "dpe://"+host+"/doc-001")
	if perr != nil {
		t.Fatal(perr)
	}
	u, err := url.Parse(ret.URI)
	if err != nil || u.Scheme != "file" {
		t.Fatalf("uri %q is not file://", ret.URI)
	}
	if !strings.HasPrefix(u.Path, dir) {
		t.Fatalf("file %s not under cache dir %s", u.Path, dir)
	}
	fi, err := os.Stat(u.Path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	body, _ := os.ReadFile(u.Path)
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil || doc["doc_ref"] != "doc-001" {
		t.Fatalf("cached file is not the document: %s", body)
	}
	if ret.Size == nil || *ret.Size != int64(len(body)) {
		t.Fatalf("size %v, want %d", ret.Size, len(body))
	}
	if ret.Meta == nil || ret.Meta.ETag == "" || !strings.Contains(u.Path, ret.Meta.ETag) {
		t.Fatalf("etag %+v should name the content-addressed file %s", ret.Meta, u.Path)
	}
	if ret.ReqID == "" || ret.Name != "doc-001" || ret.Description != "desc doc-001" {
		t.Fatalf("resource fields not carried: %+v", ret)
	}
	// Same content, same file.
	again, perr := getDPE(t, o, "dpe://"+host+"/doc-001")
	if perr != nil || again.URI != ret.URI {
		t.Fatalf("second resolve: %v %q, want the same file %q", perr, again.URI, ret.URI)
	}
}

func TestGetDPE_HTTPResolverServesSignedExpiringURL(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	h, err := NewHTTPResolver(HTTPResolverOptions{TTL: time.Minute, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	o := libOffice(t, h)

	ret, perr := getDPE(t, o, "dpe://"+host+"/doc-002")
	if perr != nil {
		t.Fatal(perr)
	}
	if !strings.HasPrefix(ret.URI, h.URL()+"/d/") || !strings.Contains(ret.URI, "sig=") || !strings.Contains(ret.URI, "exp=") {
		t.Fatalf("uri %q is not a signed resolver URL", ret.URI)
	}
	if ret.Meta == nil || ret.Meta.ExpiresAt != "2026-05-01T12:01:00Z" || len(ret.Meta.ETag) != 64 {
		t.Fatalf("_meta %+v, want expires_at 2026-05-01T12:01:00Z and a sha256 etag", ret.Meta)
	}
	status, body := httpGet(t, ret.URI)
	if status != http.StatusOK {
		t.Fatalf("GET: %d %s", status, body)
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil || doc["doc_ref"] != "doc-002" {
		t.Fatalf("served body is not the document: %.200s", body)
	}
	if ret.Size == nil || *ret.Size != int64(len(body)) {
		t.Fatalf("size %v, want %d", ret.Size, len(body))
	}

	// Past expiry the URL is refused; a fresh get_dpe gives a working one.
	clock.Advance(2 * time.Minute)
	if status, _ := httpGet(t, ret.URI); status != http.StatusGone {
		t.Fatalf("expired URL answered %d, want 410", status)
	}
	fresh, perr := getDPE(t, o, "dpe://"+host+"/doc-002")
	if perr != nil {
		t.Fatal(perr)
	}
	if fresh.URI == ret.URI {
		t.Fatal("fresh get_dpe returned the expired URL")
	}
	if status, body2 := httpGet(t, fresh.URI); status != http.StatusOK || string(body2) != string(body) {
		t.Fatalf("fresh URL: %d, same body %v", status, string(body2) == string(body))
	}
	if fresh.Meta.ETag != ret.Meta.ETag {
		t.Fatal("etag changed for the same content")
	}
}

func TestGetDPE_HTTPResolverManifestModeServesPagesLazily(t *testing.T) {
	h, err := NewHTTPResolver(HTTPResolverOptions{ManifestThreshold: 4096})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	o := libOffice(t, h)

	ret, perr := getDPE(t, o, "dpe://"+host+"/big")
	if perr != nil {
		t.Fatal(perr)
	}
	status, body := httpGet(t, ret.URI)
	if status != http.StatusOK {
		t.Fatalf("GET manifest: %d", status)
	}
	var manifest struct {
		DocRef string `json:"doc_ref"`
		Pages  []struct {
			PageIndex    int             `json:"page_index"`
			Title        string          `json:"title"`
			DocRef       string          `json:"doc_ref"`
			URI          string          `json:"uri"`
			ElementCount int             `json:"element_count"`
			Elements     json.RawMessage `json:"elements"`
		} `json:"pages"`
	}
	if err := json.Unmarshal(body, &manifest); err != nil {
		t.Fatal(err)
	}
	if manifest.DocRef != "big" || len(manifest.Pages) != 8 {
		t.Fatalf("manifest doc_ref %q with %d pages, want big with 8", manifest.DocRef, len(manifest.Pages))
	}
	if int64(len(body)) >= 4096*8 {
		t.Fatalf("manifest is %d bytes: pages were not split out", len(body))
	}
	for i, p := range manifest.Pages {
		if p.Elements != nil {
			t.Fatalf("page %d still inline in the manifest", i)
		}
		if p.PageIndex != i || p.Title == "" || p.DocRef != "big" || p.ElementCount != 2 || p.URI == "" {
			t.Fatalf("page %d entry %+v", i, p)
		}
		status, pb := httpGet(t, p.URI)
		if status != http.StatusOK {
			t.Fatalf("GET page %d: %d", i, status)
		}
		var page struct {
			PageIndex int               `json:"page_index"`
			Elements  []json.RawMessage `json:"elements"`
		}
		if err := json.Unmarshal(pb, &page); err != nil || page.PageIndex != i || len(page.Elements) != 2 {
			t.Fatalf("page %d body: %v %.200s", i, err, pb)
		}
	}
}

func TestGetDPE_ErrorPayloads(t *testing.T) {
	o := libOffice(t, NewFileResolver(t.TempDir()))
	tests := []struct {
		name string
		uri  string
		want protocol.Error
	}{
		{"WrongSchemeIs4012", "http://" + host + "/doc-001", protocol.Error{Code: 4012}},
		{"MissingDocRefIs4012", "dpe://" + host, protocol.Error{Code: 4012}},
		{"EmptyDocRefIs4012", "dpe://" + host + "/", protocol.Error{Code: 4012}},
		{"EmptyHostIs4012", "dpe:///doc-001", protocol.Error{Code: 4012}},
		{"UnknownHostIs4014WithHost", "dpe://org.nowhere.docs/doc-001", protocol.Error{Code: 4014, MCPServerName: "org.nowhere.docs"}},
		{"ServerWithoutResourcesIs4015", "dpe://com.example.toolsonly/x", protocol.Error{Code: 4015, MCPServerName: "com.example.toolsonly", Capability: "resources"}},
		{"WrongMimeIs4013InvalidDPEMime", "dpe://" + host + "/bad-mime", protocol.Error{Code: 4013, Category: protocol.CategoryInvalidDPEMime}},
		{"UnparsableBodyIs4013InvalidDPEMime", "dpe://" + host + "/bad-body", protocol.Error{Code: 4013, Category: protocol.CategoryInvalidDPEMime}},
		{"DocumentWithoutPagesIs4013InvalidDPEMime", "dpe://" + host + "/no-pages", protocol.Error{Code: 4013, Category: protocol.CategoryInvalidDPEMime}},
		{"URIRefWithoutURIIs4013InvalidDPEMime", "dpe://" + host + "/bad-ref", protocol.Error{Code: 4013, Category: protocol.CategoryInvalidDPEMime}},
		{"UpstreamErrorIs4013UpstreamUnavailable", "dpe://" + host + "/failing", protocol.Error{Code: 4013, Category: protocol.CategoryUpstreamUnavailable}},
		// The server is up and has no such resource: a not-found 4013
		// (no category fits), not "source unavailable".
		{"UnlistedResourceIs4013NotFound", "dpe://" + host + "/not-there", protocol.Error{Code: 4013, Category: ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, perr := getDPE(t, o, tc.uri)
			if perr == nil {
				t.Fatal("no error")
			}
			if perr.Code != tc.want.Code || perr.Category != tc.want.Category ||
				perr.MCPServerName != tc.want.MCPServerName || perr.Capability != tc.want.Capability {
				t.Fatalf("got %+v, want %+v", perr, tc.want)
			}
			switch perr.Code {
			case 4011, 4012, 4013:
				if perr.URI != tc.uri {
					t.Fatalf("uri %q, want %q", perr.URI, tc.uri)
				}
			}
			if perr.Code == 4013 && perr.Category == "" && !strings.HasPrefix(perr.Message, NotFoundMessage) {
				t.Fatalf("not-found message %q", perr.Message)
			}
			if perr.Code == 4012 && perr.Reason == "" {
				t.Fatal("4012 without reason")
			}
			if perr.Code == 4013 {
				var d map[string]string
				if err := json.Unmarshal(perr.Details, &d); err != nil || d["mcp_server_name"] != "lib" {
					t.Fatalf("details %s: want mcp_server_name lib", perr.Details)
				}
			}
		})
	}
}

func TestGetDPE_ReadTimeoutIs4013UpstreamUnavailable(t *testing.T) {
	o := libOffice(t, NewFileResolver(t.TempDir()))
	var ret getDPERet
	perr := o.agent.call(protocol.EventGetDPE, o.name, map[string]any{"uri": "dpe://" + host + "/slow", "timeout": 1}, &ret)
	if perr == nil || perr.Code != 4013 || perr.Category != protocol.CategoryUpstreamUnavailable {
		t.Fatalf("got %+v, want 4013 upstream_unavailable", perr)
	}
}

func TestGetDPE_ResolverFailures(t *testing.T) {
	tests := []struct {
		name     string
		resolver Resolver
		category string
	}{
		{"ErrorIsResolverError", ResolverFunc(func(context.Context, protocol.A2CResource, Contents, Hint) (protocol.A2CResource, error) {
			return protocol.A2CResource{}, errors.New("bucket unreachable")
		}), protocol.CategoryResolverError},
		{"PanicIsResolverError", ResolverFunc(func(context.Context, protocol.A2CResource, Contents, Hint) (protocol.A2CResource, error) {
			panic("boom")
		}), protocol.CategoryResolverError},
		{"MissingURIIsResolverReturnedInvalid", ResolverFunc(func(context.Context, protocol.A2CResource, Contents, Hint) (protocol.A2CResource, error) {
			return protocol.A2CResource{MimeType: "application/json"}, nil
		}), protocol.CategoryResolverReturnedInvalid},
		{"RelativeURIIsResolverReturnedInvalid", ResolverFunc(func(context.Context, protocol.A2CResource, Contents, Hint) (protocol.A2CResource, error) {
			return protocol.A2CResource{URI: "cache/doc.json"}, nil
		}), protocol.CategoryResolverReturnedInvalid},
		{"BadExpiryIsResolverReturnedInvalid", ResolverFunc(func(context.Context, protocol.A2CResource, Contents, Hint) (protocol.A2CResource, error) {
			return protocol.A2CResource{URI: "https://x.example/doc", Meta: &protocol.AccessMeta{ExpiresAt: "tomorrow"}}, nil
		}), protocol.CategoryResolverReturnedInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := libOffice(t, tc.resolver)
			_, perr := getDPE(t, o, "dpe://"+host+"/doc-000")
			if perr == nil || perr.Code != 4013 || perr.Category != tc.category {
				t.Fatalf("got %+v, want 4013 %s", perr, tc.category)
			}
			var d map[string]string
			if err := json.Unmarshal(perr.Details, &d); err != nil || d["resolver_exception"] == "" || d["mcp_server_name"] != "lib" {
				t.Fatalf("details %s: want resolver_exception and mcp_server_name", perr.Details)
			}
		})
	}
}

func TestGetDPE_NoResolverIs4011(t *testing.T) {
	o := libOffice(t, nil)
	uri := "dpe://" + host + "/doc-000"
	_, perr := getDPE(t, o, uri)
	if perr == nil || perr.Code != 4011 || perr.URI != uri {
		t.Fatalf("got %+v, want 4011 with uri", perr)
	}
}

func TestGetDPE_QueryAndFragmentDroppedWithWarning(t *testing.T) {
	var got []Contents
	var mu sync.Mutex
	r := ResolverFunc(func(_ context.Context, res protocol.A2CResource, c Contents, h Hint) (protocol.A2CResource, error) {
		mu.Lock()
		got = append(got, c)
		mu.Unlock()
		if res.URI != "dpe://"+host+"/doc-001" || h.MCPServerName != "lib" || h.Agent == "" || h.ReqID == "" {
			return protocol.A2CResource{}, errors.New("bad input")
		}
		return protocol.A2CResource{URI: "https://cdn.example/doc-001.json"}, nil
	})
	o := libOffice(t, r)
	ret, perr := getDPE(t, o, "dpe://"+host+"/doc-001?format=md#page=2")
	if perr != nil {
		t.Fatal(perr)
	}
	if ret.URI != "https://cdn.example/doc-001.json" {
		t.Fatalf("uri %q", ret.URI)
	}
	if !strings.Contains(o.logs.String(), "level=WARN") || !strings.Contains(o.logs.String(), "dropped") {
		t.Fatal("no WARN about the dropped query/fragment")
	}
	if len(got) != 1 || got[0].Kind != ContentsInline || !strings.Contains(string(got[0].Document), `"doc_ref":"doc-001"`) {
		t.Fatalf("resolver contents %+v", got)
	}
}

func TestGetDPE_ExternalReferenceReachesResolver(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Resolver
	}{{"File", NewFileResolver(t.TempDir())}, {"Passthrough", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r
			if r == nil {
				h, err := NewHTTPResolver(HTTPResolverOptions{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = h.Close() })
				r = h
			}
			o := libOffice(t, r)
			ret, perr := getDPE(t, o, "dpe://"+host+"/external")
			if perr != nil {
				t.Fatal(perr)
			}
			if ret.URI != "https://oss.example.com/doc-1.pdf" || ret.MimeType != "application/pdf" ||
				ret.Size == nil || *ret.Size != 12345678 || ret.Meta == nil || ret.Meta.ExpiresAt != "2026-04-27T12:00:00Z" {
				t.Fatalf("external reference not passed through: %+v", ret)
			}
		})
	}
}

func readFileURI(t *testing.T, uri string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		t.Fatalf("%q is not a file URI", uri)
	}
	b, err := os.ReadFile(u.Path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestScrubDetail_RemovesURLsAndAddresses(t *testing.T) {
	tests := []struct{ in, want string }{
		{`Post "https://mcp.internal:8443/mcp?access_token=abc": dial tcp 10.0.0.5:8443: connect: connection refused`,
			`Post "<url>": dial tcp <addr>: connect: connection refused`},
		{"upload to s3://bucket/key?X-Signature=zz failed", "upload to <url> failed"},
		{"dial [::1]:9000 refused", "dial <addr> refused"},
		{"disk on fire", "disk on fire"},
	}
	for _, tc := range tests {
		if got := scrubDetail(tc.in); got != tc.want {
			t.Errorf("scrubDetail(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
