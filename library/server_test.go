package library

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image/png"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// connect starts srv on an in-memory transport and returns a client session.
func connect(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "library-test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

// listAll pages resources/list until next_cursor is empty and returns the
// resources and the number of cursor pages.
func listAll(t *testing.T, cs *mcp.ClientSession) ([]*mcp.Resource, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var all []*mcp.Resource
	cursor := ""
	seen := map[string]bool{}
	for pages := 1; ; pages++ {
		res, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatalf("list page %d: %v", pages, err)
		}
		all = append(all, res.Resources...)
		if res.NextCursor == "" {
			return all, pages
		}
		if seen[res.NextCursor] {
			t.Fatalf("cursor %q repeated", res.NextCursor)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

func read(t *testing.T, cs *mcp.ClientSession, uri string) *mcp.ResourceContents {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %d contents, want 1", uri, len(res.Contents))
	}
	return res.Contents[0]
}

// wireDoc is the Document JSON as a consumer decodes it.
type wireDoc struct {
	DocRef    string   `json:"doc_ref"`
	URI       string   `json:"uri"`
	Title     string   `json:"title"`
	PageCount int      `json:"page_count"`
	FileType  string   `json:"file_type"`
	Keywords  []string `json:"keywords"`
	Pages     []struct {
		PageIndex *int   `json:"page_index"`
		Title     string `json:"title"`
		DocRef    string `json:"doc_ref"`
		Elements  []struct {
			ElementID string         `json:"element_id"`
			Category  string         `json:"category"`
			Text      *string        `json:"text"`
			PageIndex *int           `json:"page_index"`
			Metadata  map[string]any `json:"ele_metadata"`
		} `json:"elements"`
	} `json:"pages"`
}

func TestList_DefaultCorpusPagesWithCursorsAndMetadata(t *testing.T) {
	srv, err := New(Options{Generated: 250})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	all, pages := listAll(t, cs)
	docs := 0
	for _, r := range all {
		if strings.HasPrefix(r.URI, "dpe://") {
			docs++
		}
	}
	// 16 corpus files + the PNG a guide embeds (an image is a document
	// too) + 6 real files in real/ + 2 generated corpus documents + 250
	// notes + status.
	if want := 16 + 1 + 6 + 2 + 250 + 1; len(all) != want {
		t.Fatalf("listed %d resources, want %d", len(all), want)
	}
	if want := (len(all) + DefaultPageSize - 1) / DefaultPageSize; pages != want || pages < 5 {
		t.Errorf("cursor pages = %d, want %d (≥ 5)", pages, want)
	}
	uris := map[string]bool{}
	for _, r := range all {
		if uris[r.URI] {
			t.Errorf("duplicate uri %s", r.URI)
		}
		uris[r.URI] = true
		if r.URI == "window://"+DefaultHost+"/status" {
			if r.MIMEType != "text/plain" {
				t.Errorf("status mime = %q", r.MIMEType)
			}
			continue
		}
		if !strings.HasPrefix(r.URI, "dpe://"+DefaultHost+"/") {
			t.Errorf("unexpected uri %s", r.URI)
			continue
		}
		checkResourceShape(t, r)
	}
	if docs != len(all)-1 {
		t.Errorf("dpe resources = %d, want all but status", docs)
	}
}

// checkResourceShape asserts seed 000 §DPE Resource 元数据 on one listing entry.
func checkResourceShape(t *testing.T, r *mcp.Resource) {
	t.Helper()
	if r.MIMEType != protocol.MimeDPEInline {
		t.Errorf("%s: mimeType %q", r.URI, r.MIMEType)
	}
	if r.Name == "" || r.Title == "" || r.Description == "" {
		t.Errorf("%s: name/title/description missing: %q %q %q", r.URI, r.Name, r.Title, r.Description)
	}
	if r.Annotations == nil || !slices.Equal(r.Annotations.Audience, []mcp.Role{"user"}) {
		t.Errorf("%s: annotations.audience = %+v", r.URI, r.Annotations)
	} else if _, err := time.Parse(time.RFC3339, r.Annotations.LastModified); err != nil {
		t.Errorf("%s: lastModified %q: %v", r.URI, r.Annotations.LastModified, err)
	}
	raw, _ := json.Marshal(r.Meta)
	var meta struct {
		Keywords  []string `json:"keywords"`
		FileType  *string  `json:"file_type"`
		PageCount *float64 `json:"page_count"`
		FileURI   *string  `json:"file_uri"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatalf("%s: _meta %s: %v", r.URI, raw, err)
	}
	if meta.Keywords == nil {
		t.Errorf("%s: _meta.keywords missing or not an array: %s", r.URI, raw)
	}
	if meta.FileType == nil || *meta.FileType == "" || strings.ToLower(*meta.FileType) != *meta.FileType {
		t.Errorf("%s: _meta.file_type not lowercase: %s", r.URI, raw)
	}
	if meta.PageCount == nil || *meta.PageCount < 1 || *meta.PageCount != float64(int(*meta.PageCount)) {
		t.Errorf("%s: _meta.page_count not a positive integer: %s", r.URI, raw)
	}
	if meta.FileURI == nil || !strings.HasPrefix(*meta.FileURI, "file:///") {
		t.Errorf("%s: _meta.file_uri: %s", r.URI, raw)
	}
}

// TestRead_EveryCorpusDocumentDecodesAndCoversAllCategories reads every
// listed resource once and checks the Document JSON shape, the agreement
// with the listing, the agent-side validator, and category coverage.
func TestRead_EveryCorpusDocumentDecodesAndCoversAllCategories(t *testing.T) {
	srv, err := New(Options{Generated: 2})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	all, _ := listAll(t, cs)
	if n := len(all) - 1 - 2; n < 12 {
		t.Fatalf("corpus has %d documents, want ≥ 12", n)
	}
	cats := map[string]bool{}
	readInfo := map[string]struct {
		Title     string `json:"title"`
		PageCount int    `json:"page_count"`
	}{}
	for _, r := range all {
		c := read(t, cs, r.URI)
		if c.URI != r.URI {
			t.Errorf("contents uri %q, want %q", c.URI, r.URI)
		}
		if !strings.HasPrefix(r.URI, "dpe://") {
			if c.MIMEType != "text/plain" || !strings.Contains(c.Text, "documents:") {
				t.Errorf("status: %q %q", c.MIMEType, c.Text)
			}
			continue
		}
		if c.MIMEType != protocol.MimeDPEInline {
			t.Errorf("%s: read mimeType %q", r.URI, c.MIMEType)
		}
		checkConformance(t, r.URI, c.Text)
		var d wireDoc
		if err := json.Unmarshal([]byte(c.Text), &d); err != nil {
			t.Errorf("%s: Document JSON: %v", r.URI, err)
			continue
		}
		if len(d.Pages) == 0 || d.PageCount != len(d.Pages) {
			t.Errorf("%s: page_count %d, %d pages", r.URI, d.PageCount, len(d.Pages))
		}
		if got := r.Meta["page_count"]; got != float64(len(d.Pages)) {
			t.Errorf("%s: _meta.page_count %v, document has %d pages", r.URI, got, len(d.Pages))
		}
		// Generated notes and converted files are not built until read,
		// so they list no size.
		if r.Size != 0 && r.Size != int64(len(c.Text)) {
			t.Errorf("%s: size %d, read %d bytes", r.URI, r.Size, len(c.Text))
		}
		var head struct {
			Title     string `json:"title"`
			PageCount int    `json:"page_count"`
		}
		if strings.HasPrefix(r.URI, "dpe://") && json.Unmarshal([]byte(c.Text), &head) == nil {
			readInfo[r.URI] = head
		}
		ids := map[string]bool{}
		for i, p := range d.Pages {
			if p.PageIndex == nil || *p.PageIndex != i {
				t.Errorf("%s: page %d has page_index %v", r.URI, i, p.PageIndex)
			}
			if p.Elements == nil {
				t.Errorf("%s: page %d has no elements array", r.URI, i)
			}
			for _, e := range p.Elements {
				if e.ElementID == "" || ids[e.ElementID] {
					t.Errorf("%s: element id %q empty or repeated", r.URI, e.ElementID)
				}
				ids[e.ElementID] = true
				if e.Text == nil || e.PageIndex == nil || *e.PageIndex != i || e.Metadata == nil {
					t.Errorf("%s: element %s misses text/page_index/ele_metadata", r.URI, e.ElementID)
				}
				cats[e.Category] = true
			}
		}
	}
	for _, c := range StandardCategories() {
		if !cats[c] {
			t.Errorf("no corpus document uses category %s", c)
		}
	}
	// A read refines the listing where the conversion learnt more than
	// the walk's probe: the relisting agrees with every document read.
	again, _ := listAll(t, cs)
	for _, r := range again {
		want, ok := readInfo[r.URI]
		if !ok {
			continue
		}
		if r.Title != want.Title || r.Meta["page_count"] != float64(want.PageCount) {
			t.Errorf("%s: relisted title %q page_count %v, document %q %d", r.URI, r.Title, r.Meta["page_count"], want.Title, want.PageCount)
		}
	}
}

func TestRead_UnknownURIIsResourceNotFound(t *testing.T) {
	srv, err := New(Options{FS: fstest.MapFS{"a.md": {Data: []byte("# A\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	for _, uri := range []string{
		"dpe://" + DefaultHost + "/missing.md",
		"dpe://other.host/a.md",
		"dpe://" + DefaultHost + "/a.md?x=1",
	} {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("read %s: err %v, want resource-not-found (%d)", uri, err, jsonrpc.CodeInvalidParams)
		}
	}
}

func TestNew_FolderURIsAreEscapedPerSegment(t *testing.T) {
	fsys := fstest.MapFS{
		"dir one/a%b.md":     {Data: []byte("# Title\n\ntext\n")},
		"dir one/.hidden.md": {Data: []byte("# hidden\n")},
		".git/config.md":     {Data: []byte("# no\n")},
		"bin/blob.bin":       {Data: []byte{0, 1, 2}},
		"x/broken.dpe.json":  {Data: []byte(`[1,2]`)},
		"x/nopages.dpe.json": {Data: []byte(`{"title":"t"}`)},
		"x/ok.dpe.json":      {Data: []byte(`{"title":"Fine","keywords":["k",3],"pages":[{"page_index":0,"elements":[]}]}`)},
		"日本/メモ.txt":          {Data: []byte("こんにちは\n\n二段落目")},
	}
	srv, err := New(Options{FS: fsys, Host: "org.example.docs", PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	all, pages := listAll(t, cs)
	var uris []string
	for _, r := range all {
		uris = append(uris, r.URI)
	}
	// go-sdk lists in URI order.
	// The two broken .dpe.json files are listed with their error.
	want := []string{
		"dpe://org.example.docs/%E6%97%A5%E6%9C%AC/%E3%83%A1%E3%83%A2.txt",
		"dpe://org.example.docs/dir%20one/a%25b.md",
		"dpe://org.example.docs/x/broken.dpe.json",
		"dpe://org.example.docs/x/nopages.dpe.json",
		"dpe://org.example.docs/x/ok.dpe.json",
		"window://org.example.docs/status",
	}
	if !slices.Equal(uris, want) {
		t.Fatalf("uris =\n%s\nwant\n%s", strings.Join(uris, "\n"), strings.Join(want, "\n"))
	}
	if pages != 3 {
		t.Errorf("pages = %d, want 3 at PageSize 2", pages)
	}
	for i, cause := range map[int]string{2: "must be an object", 3: "needs a pages array"} {
		if e, _ := all[i].Meta["error"].(string); !strings.Contains(e, cause) || !strings.Contains(all[i].Description, cause) {
			t.Errorf("%s: _meta.error %q, description %q, want %q", all[i].URI, e, all[i].Description, cause)
		}
	}
	want = slices.Delete(want, 2, 4)
	all = slices.Delete(all, 2, 4)
	c := read(t, cs, want[1])
	var d wireDoc
	if err := json.Unmarshal([]byte(c.Text), &d); err != nil {
		t.Fatal(err)
	}
	if d.DocRef != "dir one/a%b.md" || d.URI != want[1] || d.Title != "Title" {
		t.Errorf("doc_ref %q uri %q title %q", d.DocRef, d.URI, d.Title)
	}
	if fu := all[1].Meta["file_uri"]; fu != "file:///dir%20one/a%25b.md" {
		t.Errorf("file_uri = %v", fu)
	}
	ok := read(t, cs, want[2])
	if ok.Text != string(fsys["x/ok.dpe.json"].Data) {
		t.Errorf("dpe.json not served as is: %s", ok.Text)
	}
	if kw := all[2].Meta["keywords"]; !slices.Equal(toStrings(kw), []string{"k"}) {
		t.Errorf("keywords = %v", kw)
	}
}

func toStrings(v any) []string {
	var out []string
	if a, ok := v.([]any); ok {
		for _, x := range a {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func TestNew_RejectsHostWithPathCharacters(t *testing.T) {
	for _, h := range []string{"a/b", "a:80", "a b", "a?b"} {
		if _, err := New(Options{Host: h}); err == nil {
			t.Errorf("host %q accepted", h)
		}
	}
}

func TestCorpus_GradientPNGIsARealImage(t *testing.T) {
	c, err := checkDPE("images/gradient.dpe.json", mustRead(t, "images/gradient.dpe.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d wireDoc
	if err := json.Unmarshal(c.JSON, &d); err != nil {
		t.Fatal(err)
	}
	for _, e := range d.Pages[0].Elements {
		if e.Category != dpe.CategoryImage {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(e.Metadata["image_base64"].(string))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != 16 || b.Dy() != 16 {
			t.Errorf("image is %v, want 16×16", b)
		}
		return
	}
	t.Fatal("no Image element")
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := fs.ReadFile(Corpus(), p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRead_FileRemovedAfterNewIsNotFoundAndBrokenFileIsAnError(t *testing.T) {
	fsys := fstest.MapFS{"gone.md": {Data: []byte("# x\n")}, "bad.dpe.json": {Data: []byte(`{"pages":[{}]}`)}}
	srv, err := New(Options{FS: fsys, CacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	delete(fsys, "gone.md")
	fsys["bad.dpe.json"] = &fstest.MapFile{Data: []byte(`[]`)}
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "dpe://" + DefaultHost + "/gone.md"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("removed file: %v, want resource-not-found", err)
	}
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "dpe://" + DefaultHost + "/bad.dpe.json"})
	if err == nil || !strings.Contains(err.Error(), "must be an object") {
		t.Errorf("broken file: %v", err)
	}
}
