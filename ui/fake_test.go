package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// fixedNow is the clock of every UI test.
var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// fakeAgent is an in-memory Agent: an office with two computers, servers,
// paged resources and a resolver answering file:// access URIs to documents
// written in a temp dir (fetched by a real dpe.Fetcher with AllowFile).
type fakeAgent struct {
	mu        sync.Mutex
	events    chan client.Event
	state     client.StateEvent
	computers []protocol.SessionInfo
	configs   map[string]*client.Config
	// pages[server][cursor] is one get_resources answer.
	pages map[string]map[string]*client.ResourcePage
	// docs maps a dpe:// URI to the file holding its content.
	docs map[string]string
	mime map[string]string
	// block makes every call wait for ctx (or forever when ignoreCtx).
	dir string
	// expireFirst makes the first get_dpe answer already expired, so the
	// opener calls get_dpe again (dpe.md §URI 生命周期).
	expireFirst bool
	resolved    int
	noEvents    bool
	panics      bool
	block       bool
	ignoreCtx   bool
	release     chan struct{}
	calls       int
	// resourcesFn, when set, answers every get_resources (hostile
	// servers); resourceCalls counts them.
	resourcesFn   func(cursor string) *client.ResourcePage
	resourceCalls int
	// resourcesErr, when set, fails every get_resources with it (counted
	// in resourceCalls too).
	resourcesErr error
	// resourcesFor, when set, may refuse a get_resources by the server it
	// names (a 0.3 computer answers 4014 to a display name).
	resourcesFor func(server string) error
	// computersGate, when set, runs inside every list_room before it
	// answers (a slow server); computersCalls counts the calls and
	// eventsLeft records how many events were still queued as each began.
	computersGate  func(ctx context.Context)
	computersCalls int
	eventsLeft     []int
}

func (f *fakeAgent) Events() <-chan client.Event {
	if f.noEvents {
		return nil
	}
	return f.events
}
func (f *fakeAgent) State() client.StateEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state
}
func (f *fakeAgent) URL() string    { return "http://127.0.0.1:7410" }
func (f *fakeAgent) Office() string { return "demo" }
func (f *fakeAgent) Name() string   { return "dpe-tui" }

func (f *fakeAgent) wait(ctx context.Context) error {
	f.mu.Lock()
	f.calls++
	block, ignore, rel := f.block, f.ignoreCtx, f.release
	f.mu.Unlock()
	if !block {
		return nil
	}
	if ignore {
		<-rel
		return context.Canceled
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-rel:
		return nil
	}
}

func (f *fakeAgent) Computers(ctx context.Context) ([]protocol.SessionInfo, error) {
	if f.panics {
		panic("fake agent exploded")
	}
	if err := f.wait(ctx); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.computersCalls++
	f.eventsLeft = append(f.eventsLeft, len(f.events))
	gate := f.computersGate
	f.mu.Unlock()
	if gate != nil {
		gate(ctx)
	}
	return append([]protocol.SessionInfo(nil), f.computers...), nil
}

func (f *fakeAgent) Config(ctx context.Context, computer string) (*client.Config, error) {
	if err := f.wait(ctx); err != nil {
		return nil, err
	}
	c, ok := f.configs[computer]
	if !ok {
		return nil, fmt.Errorf("get_config on %s: computer not in office", computer)
	}
	return c, nil
}

func (f *fakeAgent) Resources(ctx context.Context, computer string, server protocol.ServerKey, cursor string) (*client.ResourcePage, error) {
	if err := f.wait(ctx); err != nil {
		return nil, err
	}
	if f.resourcesErr != nil {
		f.mu.Lock()
		f.resourceCalls++
		f.mu.Unlock()
		return nil, f.resourcesErr
	}
	if f.resourcesFor != nil {
		if err := f.resourcesFor(string(server)); err != nil {
			return nil, err
		}
	}
	if f.resourcesFn != nil {
		f.mu.Lock()
		f.resourceCalls++
		f.mu.Unlock()
		return f.resourcesFn(cursor), nil
	}
	p, ok := f.pages[string(server)][cursor]
	if !ok {
		return nil, fmt.Errorf("get_resources %s: unknown cursor %q", server, cursor)
	}
	out := *p
	out.Resources = append([]client.Resource(nil), p.Resources...)
	for i := range out.Resources {
		out.Resources[i].Computer, out.Resources[i].Server = computer, server
	}
	return &out, nil
}

func (f *fakeAgent) Resolver(computer string) dpe.Resolver {
	if computer == "" {
		// Like the client: a URI typed without a listing is routed by
		// its host to the computer serving it.
		computer = "laptop"
	}
	return dpe.ResolverFunc(func(ctx context.Context, uri string) (dpe.Access, error) {
		if err := f.wait(ctx); err != nil {
			return dpe.Access{}, err
		}
		path, ok := f.docs[uri]
		if !ok {
			return dpe.Access{}, fmt.Errorf("get_dpe %s on %s: resource not found", uri, computer)
		}
		st, err := os.Stat(path)
		if err != nil {
			return dpe.Access{}, err
		}
		access := (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
		exp := fixedNow.Add(10 * time.Minute)
		f.mu.Lock()
		f.resolved++
		if f.expireFirst && f.resolved == 1 {
			exp = fixedNow.Add(-time.Minute)
		}
		f.mu.Unlock()
		raw, _ := json.Marshal(map[string]any{"uri": "file:///…/" + filepath.Base(path), "mime_type": f.mime[uri], "size": st.Size(),
			"_meta": map[string]any{"expires_at": exp.Format(time.RFC3339), "etag": `"v1"`}, "req_id": "r-1"})
		return dpe.Access{URI: access, MimeType: f.mime[uri], Size: st.Size(), ExpiresAt: exp, ETag: `"v1"`, Computer: computer, RawJSON: raw}, nil
	})
}

func res(uri, name, mime string, meta map[string]any) client.Resource {
	r := client.Resource{Resource: protocol.Resource{URI: uri, Name: name, MimeType: mime, Description: "The " + name + " document"}}
	if meta != nil {
		b, _ := json.Marshal(meta)
		r.Resource.Meta = b
		if kw, ok := meta["keywords"].([]string); ok {
			r.Meta.Keywords = kw
		}
		if ft, ok := meta["file_type"].(string); ok {
			r.Meta.FileType = ft
		}
		if pc, ok := meta["page_count"].(int); ok {
			r.Meta.PageCount = pc
		}
		if lm, ok := meta["last_modified"].(string); ok {
			r.Meta.LastModified = lm
		}
	}
	r.Annotations = json.RawMessage(`{"audience":["user"],"priority":0.8}`)
	return r
}

const (
	reportURI  = "dpe://io.github.dpetui.library/annual-report"
	notesURI   = "dpe://io.github.dpetui.library/notes"
	readmeURI  = "dpe://io.github.dpetui.library/readme-md"
	binaryURI  = "dpe://io.github.dpetui.library/logo"
	missingURI = "dpe://io.github.dpetui.library/missing"
)

// newFakeAgent builds the office: computers laptop (3 servers, one
// disabled) and build-box; library lists resources on two cursor pages.
func newFakeAgent(t testing.TB) *fakeAgent {
	t.Helper()
	// The temp dir shows in the trace; a fixed-length path keeps the
	// truncated lines of the golden stable (normalize masks it).
	dir := fixedLenDir(t)
	f := &fakeAgent{
		dir:     dir,
		events:  make(chan client.Event, 16),
		state:   client.StateEvent{State: client.Connected},
		release: make(chan struct{}),
		computers: []protocol.SessionInfo{
			{SID: "s1", Name: "laptop", Role: protocol.RoleComputer, OfficeID: "demo", A2CVersion: "0.2.0"},
			{SID: "s2", Name: "build-box", Role: protocol.RoleComputer, OfficeID: "demo", A2CVersion: "0.1.4"},
		},
		configs: map[string]*client.Config{
			"laptop": {Servers: []client.ServerConfig{
				{Name: "everything", Type: "streamable", Disabled: true, Parameters: json.RawMessage(`{"url":"http://127.0.0.1:9000/mcp?token=secret"}`)},
				{Name: "library", Type: "stdio", Parameters: json.RawMessage(`{"command":"dpe-tui","args":["library","--dir","docs"],"env":{"API_KEY":"******"}}`)},
				{Name: "notes", Type: "sse", Parameters: json.RawMessage(`{"url":"http://127.0.0.1:9001/sse"}`)},
			}},
			"build-box": {Servers: []client.ServerConfig{{Name: "artifacts", Type: "stdio", Parameters: json.RawMessage(`{"command":"artifacts-mcp"}`)}}},
		},
		docs: map[string]string{},
		mime: map[string]string{},
	}
	meta := func(ft string, pages int, kw ...string) map[string]any {
		return map[string]any{"file_type": ft, "page_count": pages, "keywords": kw, "last_modified": "2026-01-15T08:30:00Z"}
	}
	f.pages = map[string]map[string]*client.ResourcePage{
		"library": {
			"": {Resources: []client.Resource{
				res(reportURI, "Annual report 2026", "application/vnd.a2c.dpe-uri+json", meta("xlsx", 3, "finance", "report")),
				res(notesURI, "Meeting notes", "application/vnd.a2c.dpe-uri+json", meta("md", 1, "notes")),
				res("file:///srv/docs/raw.bin", "raw.bin", "application/octet-stream", nil),
				res(readmeURI, "README", "application/vnd.a2c.dpe-uri+json", meta("md", 1, "docs")),
			}, NextCursor: "c2", Raw: json.RawMessage(`{"resources":[…],"next_cursor":"c2"}`)},
			"c2": {Resources: []client.Resource{
				res(binaryURI, "Logo", "application/vnd.a2c.dpe-uri+json", meta("png", 1, "brand")),
				res("dpe://io.github.dpetui.library/budget-q3", "Budget Q3 report", "application/vnd.a2c.dpe-uri+json", meta("csv", 1, "finance")),
			}, Raw: json.RawMessage(`{"resources":[…]}`)},
		},
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f.docs[reportURI] = write("annual-report.json", reportJSON(t))
	write("page-3.json", page3JSON())
	f.mime[reportURI] = "application/json"
	f.docs[notesURI] = write("notes.json", []byte(`{"doc_ref":"notes","title":"Meeting notes","page_count":1,"pages":[{"page_index":0,"elements":[{"category":"NarrativeText","text":"Agreed to ship the browser."}]}]}`))
	f.docs[readmeURI] = write("readme.md", []byte("# Read me\n\nThis is **Markdown**, not a DPE document.\n\n- one\n- two\n"))
	f.mime[readmeURI] = "text/markdown"
	f.docs[binaryURI] = write("logo.bin", []byte{0x00, 0x01, 0xff, 0xfe, 0x89, 'P', 'N', 'G'})
	f.mime[binaryURI] = "application/octet-stream"
	return f
}

func tinyPNG(t testing.TB) string {
	img := image.NewNRGBA(image.Rect(0, 0, 8, 4))
	for y := 0; y < 4; y++ {
		for x := 0; x < 8; x++ {
			img.Set(x, y, color.NRGBA{uint8(x * 32), uint8(y * 64), 200, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func reportJSON(t testing.TB) []byte {
	el := func(id, cat, text string, meta map[string]any) map[string]any {
		m := map[string]any{"element_id": id, "category": cat, "text": text, "doc_ref": "annual-report"}
		if meta != nil {
			m["ele_metadata"] = meta
		}
		return m
	}
	doc := map[string]any{
		"doc_ref": "annual-report", "uri": reportURI, "file_type": "xlsx", "title": "Annual report 2026",
		"page_count": 3, "keywords": []string{"finance", "report"}, "last_modified": "2026-01-15T08:30:00Z",
		"pages": []any{
			map[string]any{"page_index": 0, "title": "Overview", "doc_ref": "annual-report", "elements": []any{
				el("t1", "Title", "Annual report 2026", map[string]any{"category_depth": 0}),
				el("n1", "NarrativeText", "Revenue grew in every region.", map[string]any{"parent_id": "t1"}),
				el("tb1", "Table", "Region North South", map[string]any{"parent_id": "t1", "text_as_html": wideTable(),
					"coordinates": map[string]any{"points": [][]float64{{0, 0}, {100, 40}}, "system": "PixelSpace"}}),
				el("c1", "CodeSnippet", "func total(xs []int) (n int) {\n\tfor _, x := range xs {\n\t\tn += x\n\t}\n\treturn\n}", map[string]any{"language": "go", "parent_id": "t1"}),
				el("i1", "Image", "Regional revenue chart", map[string]any{"image_base64": tinyPNG(t), "image_mime_type": "image/png", "parent_id": "t1", "related_ids": []string{"tb1"}}),
				el("l1", "ListItem", "North led with 1,720 in Q4", map[string]any{"category_depth": 0}),
			}},
			map[string]any{"page_index": 1, "title": "Details", "doc_ref": "annual-report", "elements": []any{
				el("t2", "Title", "Regional details", map[string]any{"category_depth": 1}),
				el("n2", "NarrativeText", "South revenue recovered after Q1.", nil),
				map[string]any{"category": "Formula", "text": "E = mc^2"},
			}},
			map[string]any{"page_index": 2, "title": "Appendix", "doc_ref": "annual-report", "uri": "page-3.json", "element_count": 2},
		},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func page3JSON() []byte {
	return []byte(`{"page_index":2,"title":"Appendix","doc_ref":"annual-report","elements":[` +
		`{"element_id":"t3","category":"Title","text":"Appendix: revenue method","doc_ref":"annual-report","page_index":2,"ele_metadata":{"category_depth":1}},` +
		`{"element_id":"n3","category":"NarrativeText","text":"Revenue is booked on delivery.","doc_ref":"annual-report","page_index":2}]}`)
}

// wideTable has more columns than fit at 100 columns, for horizontal scroll.
func wideTable() string {
	var b strings.Builder
	b.WriteString("<table><tr><th>Region</th>")
	months := []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October"}
	for _, m := range months {
		b.WriteString("<th>" + m + "</th>")
	}
	b.WriteString("</tr>")
	for i, r := range []string{"North", "South"} {
		b.WriteString("<tr><td>" + r + "</td>")
		for j := range months {
			fmt.Fprintf(&b, "<td>%d</td>", 1000+i*100+j*37)
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

const fixedDirLen = 64

func fixedLenDir(t testing.TB) string {
	base := t.TempDir()
	pad := fixedDirLen - len(base) - 1
	if pad < 1 {
		return base // long test names: only goldens need the fixed length
	}
	dir := filepath.Join(base, strings.Repeat("d", pad))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
