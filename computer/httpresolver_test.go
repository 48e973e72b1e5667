package computer

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func newTestHTTPResolver(t *testing.T, opt HTTPResolverOptions) *HTTPResolver {
	t.Helper()
	h, err := NewHTTPResolver(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}

func resolveInline(t *testing.T, r Resolver, doc string) protocol.A2CResource {
	t.Helper()
	out, err := r.Resolve(context.Background(), protocol.A2CResource{URI: "dpe://" + host + "/x"},
		Contents{Kind: ContentsInline, Document: json.RawMessage(doc)}, Hint{MCPServerName: "lib"})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestHTTPResolver_RefusesForgedAndExpiredURLs(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	h := newTestHTTPResolver(t, HTTPResolverOptions{TTL: time.Minute, Now: clock.Now, ManifestThreshold: 200})
	small := resolveInline(t, h, docJSON(host, "x", 1, 0))
	big := resolveInline(t, h, docJSON(host, "y", 3, 100))
	var manifest struct {
		Pages []struct {
			URI string `json:"uri"`
		} `json:"pages"`
	}
	_, body := httpGet(t, big.URI)
	if err := json.Unmarshal(body, &manifest); err != nil || len(manifest.Pages) != 3 {
		t.Fatalf("manifest: %v %s", err, body)
	}
	page := manifest.Pages[1].URI

	exp := strconv.FormatInt(clock.Now().Add(time.Minute).Unix(), 10)
	later := strconv.FormatInt(clock.Now().Add(time.Hour).Unix(), 10)
	tests := []struct {
		name string
		url  string
		want int
	}{
		{"Valid", small.URI, http.StatusOK},
		{"ValidPage", page, http.StatusOK},
		{"MissingSignature", strings.Split(small.URI, "&sig=")[0], http.StatusForbidden},
		{"TamperedSignature", small.URI[:len(small.URI)-4] + "0000", http.StatusForbidden},
		{"ExtendedExpiry", strings.Replace(small.URI, "exp="+exp, "exp="+later, 1), http.StatusForbidden},
		{"SignatureOfAnotherPage", strings.Replace(page, "/p/1?", "/p/2?", 1), http.StatusForbidden},
		{"UnknownPath", h.URL() + "/etc/passwd", http.StatusNotFound},
		{"UnsignedPage", h.URL() + "/d/" + big.Meta.ETag + "/p/7?exp=1&sig=00", http.StatusForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if status, b := httpGet(t, tc.url); status != tc.want {
				t.Fatalf("GET %s: %d %s, want %d", tc.url, status, b, tc.want)
			}
		})
	}
	clock.Advance(time.Minute)
	for _, u := range []string{small.URI, page} {
		if status, _ := httpGet(t, u); status != http.StatusGone {
			t.Fatalf("expired %s answered %d, want 410", u, status)
		}
	}
}

func TestHTTPResolver_ManifestThresholdDecidesMode(t *testing.T) {
	doc := docJSON(host, "m", 4, 50)
	tests := []struct {
		name      string
		threshold int64
		manifest  bool
	}{
		{"BelowThresholdInline", int64(len(doc)), false},
		{"AboveThresholdManifest", int64(len(doc)) - 1, true},
		{"NegativeDisables", -1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHTTPResolver(t, HTTPResolverOptions{ManifestThreshold: tc.threshold})
			out := resolveInline(t, h, doc)
			_, body := httpGet(t, out.URI)
			isManifest := !strings.Contains(string(body), `"elements"`)
			if isManifest != tc.manifest {
				t.Fatalf("manifest=%v, want %v: %.300s", isManifest, tc.manifest, body)
			}
			if !tc.manifest && string(body) != doc {
				t.Fatal("inline mode must serve the document bytes unchanged")
			}
			if *out.Size != int64(len(body)) {
				t.Fatalf("size %d, served %d", *out.Size, len(body))
			}
		})
	}
}

func TestHTTPResolver_EvictsOldestBeyondMaxBytes(t *testing.T) {
	d1, d2 := docJSON(host, "a", 1, 300), docJSON(host, "b", 1, 300)
	h := newTestHTTPResolver(t, HTTPResolverOptions{MaxBytes: int64(len(d1) + len(d2)/2)})
	first := resolveInline(t, h, d1)
	second := resolveInline(t, h, d2)
	if status, _ := httpGet(t, first.URI); status != http.StatusNotFound {
		t.Fatalf("evicted document answered %d, want 404", status)
	}
	if status, _ := httpGet(t, second.URI); status != http.StatusOK {
		t.Fatalf("newest document answered %d", status)
	}
}

func FuzzParseResolverPath(f *testing.F) {
	id := strings.Repeat("ab", 32)
	for _, s := range []string{"/d/" + id, "/d/" + id + "/p/0", "/d/" + id + "/p/01", "/d/x", "/", "/d/" + id + "/p/-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		gotID, page, ok := parseResolverPath(p)
		if !ok {
			return
		}
		want := "/d/" + gotID
		if page >= 0 {
			want += "/p/" + strconv.Itoa(page)
		}
		if want != p {
			t.Fatalf("%q parsed to %q page %d, which does not round-trip", p, gotID, page)
		}
	})
}
