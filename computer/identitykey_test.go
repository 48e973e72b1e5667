package computer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// Two spellings of one document (whitespace, an absent title for a null
// one, a metadata key whose value is null) have one doc_hash (DPE v1 core
// §2.7); a document outside the contract (here a file_type the open rule
// ^[a-z0-9][a-z0-9_]{0,31}$ refuses) is keyed by its bytes.
const (
	docA     = `{"file_type":"md","pages":[{"page_index":0,"title":null,"elements":[{"category":"NarrativeText","text":"x"}]}]}`
	docB     = `{ "file_type": "md", "pages": [ { "page_index": 0, "elements": [ { "category": "NarrativeText", "text": "x", "ele_metadata": { "note": null } } ] } ] }`
	docOther = `{"file_type":"Not A Type","pages":[{"page_index":0,"elements":[{"category":"NarrativeText","text":"x"}]}]}`
)

func TestResolverCachesKeyByDocHash(t *testing.T) {
	key := identity.Key([]byte(docA))
	if !strings.HasPrefix(key, identity.Prefix) || identity.Key([]byte(docB)) != key {
		t.Fatalf("keys %s / %s: equivalent documents must share their doc_hash", key, identity.Key([]byte(docB)))
	}
	sum := sha256.Sum256([]byte(docOther))
	if got := identity.Key([]byte(docOther)); got != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Fatalf("a document outside the contract is keyed %s", got)
	}
	want := identity.KeyHex(key)

	h, err := NewHTTPResolver(HTTPResolverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	fr := NewFileResolver(t.TempDir())
	for name, r := range map[string]Resolver{"http": h, "file": fr} {
		t.Run(name, func(t *testing.T) {
			for _, doc := range []string{docA, docB, docA} {
				res, err := r.Resolve(context.Background(), protocol.A2CResource{Name: "d"}, Contents{Kind: ContentsInline, Document: []byte(doc)}, Hint{})
				if err != nil {
					t.Fatal(err)
				}
				if res.Meta == nil || res.Meta.ETag != want {
					t.Fatalf("etag %+v, want the doc_hash hex %s", res.Meta, want)
				}
				if got := fetchBody(t, res.URI); got != doc {
					t.Fatalf("served %q, want the bytes of this resolve %q", got, doc)
				}
			}
			res, err := r.Resolve(context.Background(), protocol.A2CResource{Name: "o"}, Contents{Kind: ContentsInline, Document: []byte(docOther)}, Hint{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Meta.ETag != hex.EncodeToString(sum[:]) {
				t.Fatalf("etag of a non-contract document %s", res.Meta.ETag)
			}
		})
	}
}

func fetchBody(t *testing.T, uri string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	if u.Scheme == "file" {
		b, err := os.ReadFile(u.Path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	resp, err := http.Get(uri)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
