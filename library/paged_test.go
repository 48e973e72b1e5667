package library

import (
	"context"
	"encoding/json"
	"testing"
	"testing/fstest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/internal/dpegen"
)

func pagedSession(t *testing.T, doc []byte) *mcp.ClientSession {
	t.Helper()
	srv, err := New(Options{FS: fstest.MapFS{"big.dpe.json": {Data: doc}}, Host: "org.example.big"})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// A paged read: the index, then runs of pages that concatenate to the
// document's pages exactly; a stale version is refused; a read without the
// key gets the document whole.
func TestPaged_IndexThenRunsOfPages(t *testing.T) {
	doc := dpegen.Document(dpegen.Options{Pages: 120, ElementsPerPage: 30, TextBytes: 300, Seed: 9})
	cs := pagedSession(t, doc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const uri = "dpe://org.example.big/big.dpe.json"
	const max = 256 << 10
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri, Meta: mcp.Meta{PagedMetaKey: map[string]any{"max_bytes": max}}})
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := rr.Contents[0].Meta[PagedMetaKey].(map[string]any)
	version, _ := meta["version"].(string)
	if n, _ := meta["pages"].(float64); n != 120 || version == "" {
		t.Fatalf("index meta %v", rr.Contents[0].Meta)
	}
	var src struct{ Pages []json.RawMessage }
	_ = json.Unmarshal(doc, &src)
	var got []json.RawMessage
	for len(got) < 120 {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri, Meta: mcp.Meta{PagedMetaKey: map[string]any{"max_bytes": max, "version": version, "from": len(got)}}})
		if err != nil {
			t.Fatalf("from %d: %v", len(got), err)
		}
		if b, _ := json.Marshal(rr.Contents[0].Text); len(b) > max {
			t.Fatalf("a run of %d bytes as sent, over %d", len(b), max)
		}
		var run []json.RawMessage
		if err := json.Unmarshal([]byte(rr.Contents[0].Text), &run); err != nil || len(run) == 0 {
			t.Fatalf("from %d: %v (%d pages)", len(got), err, len(run))
		}
		got = append(got, run...)
	}
	for i := range got {
		if string(got[i]) != string(src.Pages[i]) {
			t.Fatalf("page %d differs", i)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri, Meta: mcp.Meta{PagedMetaKey: map[string]any{"max_bytes": max, "version": "old", "from": 0}}}); err == nil {
		t.Error("a stale version was answered")
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil || rr.Contents[0].Text != string(doc) {
		t.Fatalf("a plain read: %v", err)
	}
}

// The byte scan splits pages exactly where encoding/json does, through
// strings with escaped quotes, brackets and braces.
func TestPaged_SplitMatchesEncodingJSON(t *testing.T) {
	doc := []byte(`{ "title" : "a \"} ] [{ title",
	  "pages": [ {"page_index":0,"elements":[{"text":"x\\\"]}"}]} ,
	{"page_index":1,"n":-1.5e3,"t":true,"z":null,"a":[1,[2,{}]]}
	] , "keywords":["k,]"], "page_count": 2 }`)
	v, err := splitPages(doc)
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Pages []json.RawMessage `json:"pages"`
	}
	if err := json.Unmarshal(doc, &want); err != nil {
		t.Fatal(err)
	}
	if len(v.pages) != 2 {
		t.Fatalf("%d pages", len(v.pages))
	}
	for i, p := range v.pages {
		if got := string(doc[p[0]:p[1]]); got != string(want.Pages[i]) {
			t.Errorf("page %d: %q, want %q", i, got, want.Pages[i])
		}
	}
	var head map[string]json.RawMessage
	if err := json.Unmarshal(v.head, &head); err != nil || len(head) != 3 || head["pages"] != nil {
		t.Errorf("head %s: %v", v.head, err)
	}
	for _, bad := range []string{`[]`, `{"pages":{}}`, `{"title":"x"}`, `{"pages":[{"a":"unterminated}]}`} {
		if _, err := splitPages([]byte(bad)); err == nil {
			t.Errorf("%s: split", bad)
		}
	}
}
