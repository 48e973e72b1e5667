package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/dpev1"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/internal/contentcache"
	"github.com/dpe-tui/dpe-tui/remote"
)

// v1Doc is a DPE v0.2 document of one page with these elements
// (category, text pairs), mapped to DPE v1 by identity as push maps it.
func v1Doc(title, pageTitle string, els ...string) []byte {
	var b strings.Builder
	js := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	fmt.Fprintf(&b, `{"doc_ref":"x","file_type":"md","title":%s,"pages":[{"page_index":0,"title":%s,"elements":[`, js(title), js(pageTitle))
	for i := 0; i+1 < len(els); i += 2 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"element_id":"e%d","category":%s,"text":%s}`, i, js(els[i]), js(els[i+1]))
	}
	b.WriteString(`]}]}`)
	return []byte(b.String())
}

// v1Objects maps a v0.2 document to its DPE v1 objects.
func v1Objects(tb testing.TB, body []byte) *identity.Result {
	tb.Helper()
	doc, err := dpe.Decode(body, dpe.Limits{})
	if err != nil {
		tb.Fatal(err)
	}
	for i := range doc.Pages {
		if err := doc.EnsurePage(i, dpe.Limits{}); err != nil {
			tb.Fatal(err)
		}
	}
	r := identity.Compute(identity.Map(body, doc))
	if len(r.Problems) > 0 {
		tb.Fatalf("%s: %s", r.Problems[0].Path, r.Problems[0].Message)
	}
	return r
}

// commitV1 commits body at uri on c (create) and returns its doc_hash.
func commitV1(tb testing.TB, c *dpev1.Client, uri string, body []byte) string {
	tb.Helper()
	r := v1Objects(tb, body)
	req := &wire.CommitRequest{Document: r.Object}
	for _, p := range r.Pages {
		req.Pages = append(req.Pages, p.Object)
		for _, e := range p.Elements {
			req.Objects = append(req.Objects, e.Object)
		}
	}
	if _, err := c.Commit(context.Background(), uri, req, dpev1.Precondition{IfAbsent: true}); err != nil {
		tb.Fatal(err)
	}
	return string(r.DocHash)
}

// testRemote is our own remote on 127.0.0.1, with or without the read
// extension, holding the documents of remoteFixture.
type testRemote struct {
	c     *dpev1.Client
	caps  *wire.Capabilities
	local *LocalDocs
	cache *contentcache.Cache
}

func newTestRemote(tb testing.TB, readObjects bool) *testRemote {
	tb.Helper()
	return newTestRemoteWith(tb, remote.Options{ReadObjects: readObjects})
}

func newTestRemoteWith(tb testing.TB, opt remote.Options) *testRemote {
	tb.Helper()
	srv, err := remote.Open(tb.TempDir(), opt)
	if err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	tb.Cleanup(func() { hs.Close(); srv.Close() })
	c, err := dpev1.New(hs.URL, dpev1.Options{Timeout: 20 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	caps, err := c.Capabilities(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return &testRemote{c: c, caps: caps}
}

// remoteFixture fills tr: under file:///proj/, notes/a.md is the same as
// the local file, notes/b.md differs (stale), c.md is only remote and
// d.md only local. The cache holds one element of a.md ("Alpha").
func remoteFixture(t *testing.T, tr *testRemote) {
	a := v1Doc("Report A \x1b]0;pwned\x07", "Intro", "Title", "Alpha", "NarrativeText", "first line\nsecond line")
	hashA := commitV1(t, tr.c, "file:///proj/notes/a.md", a)
	commitV1(t, tr.c, "file:///proj/notes/b.md", v1Doc("B", "One", "NarrativeText", "old text"))
	commitV1(t, tr.c, "file:///proj/c.md", v1Doc("C", "One", "NarrativeText", "only here"))
	localB := string(v1Objects(t, v1Doc("B", "One", "NarrativeText", "new text")).DocHash)
	localD := string(v1Objects(t, v1Doc("D", "One", "NarrativeText", "not pushed")).DocHash)
	tr.local = &LocalDocs{From: "--docs /home/me/proj", Docs: []LocalDoc{
		{URI: "file:///proj/notes/a.md", Hash: hashA, Path: "/home/me/proj/notes/a.md"},
		{URI: "file:///proj/notes/b.md", Hash: localB, Path: "/home/me/proj/notes/b.md"},
		{URI: "file:///proj/d.md", Hash: localD, Path: "/home/me/proj/d.md"},
	}}
	cache, err := contentcache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := cache.Put(v1Objects(t, a).Pages[0].Elements[0].Object); err != nil {
		t.Fatal(err)
	}
	tr.cache = cache
}

func remoteOptions(tr *testRemote, w, h int) Options {
	opt := testOptions(nil)
	opt.Width, opt.Height = w, h
	opt.RemoteOnly = true
	opt.Remote = &Remote{Label: "http://127.0.0.1:PORT",
		Connect: func(context.Context) (*dpev1.Client, *wire.Capabilities, error) { return tr.c, tr.caps, nil },
		Local:   func(context.Context) (*LocalDocs, error) { return tr.local, nil },
		Cache:   tr.cache}
	return opt
}

// TestGoldenRemote is the remote browser on our own remote at the golden
// sizes: a folder with its stale marks, and a skeleton with the read
// extension on (every element's content) and off (the cached element
// only, and the screen says so).
func TestGoldenRemote(t *testing.T) {
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			for _, tt := range []struct {
				name string
				ext  bool
				keys []string
				want string
			}{
				{"folder", true, []string{"enter"}, "notes/"},
				{"skeleton_extension_on", true, []string{"enter", "enter", "enter"}, "first line"},
				{"skeleton_extension_off", false, []string{"enter", "enter", "enter"}, "no content on this machine"},
			} {
				t.Run(tt.name, func(t *testing.T) {
					tr := newTestRemote(t, tt.ext)
					remoteFixture(t, tr)
					s := start(t, remoteOptions(tr, size[0], size[1]))
					s.waitFor("file:///proj/")
					for _, k := range tt.keys {
						s.idle()
						s.keys(k)
					}
					s.waitFor(tt.want)
					out := s.final()
					if strings.ContainsRune(out, '\x1b') || strings.Contains(out, "pwned\a") {
						t.Fatalf("escape sequence reached the screen:\n%q", out)
					}
					golden.RequireEqual(t, out)
				})
			}
		})
	}
}

// TestRemote_StaleMarksFoldersAndEscBack drives the real model: folders
// in and out, each document's mark against the local files, the
// skeleton, the document view of a page and esc back at every step.
func TestRemote_StaleMarksFoldersAndEscBack(t *testing.T) {
	tr := newTestRemote(t, false)
	remoteFixture(t, tr)
	s := start(t, remoteOptions(tr, 100, 30))
	s.waitFor("file:///proj/")
	s.waitFor("4 docs · 1 stale 1 local 1 remote")
	s.keys("enter")
	s.waitFor("notes/")
	frame := s.frame()
	for _, want := range []string{"c.md", "only remote", "d.md", "only local"} {
		if !strings.Contains(frame, want) {
			t.Errorf("file:///proj/ lacks %q:\n%s", want, frame)
		}
	}
	s.keys("enter") // notes/ (folders first)
	s.waitFor("a.md")
	frame = s.frame()
	if !strings.Contains(frame, "same") || !strings.Contains(frame, "stale") {
		t.Fatalf("notes/ lacks the same and stale marks:\n%s", frame)
	}
	s.keys("esc")
	s.waitUntil("back in file:///proj/ on notes/", func(f string) bool {
		return strings.Contains(f, "only local") && strings.Contains(f, "▌ notes/")
	})
	s.keys("enter")
	s.waitFor("a.md")
	s.keys("enter") // a.md's skeleton
	s.waitFor("content extension off: showing skeleton and locally cached content")
	s.waitFor("Alpha")
	frame = s.frame()
	if !strings.Contains(frame, "no content on this machine") || strings.Contains(frame, "first line") {
		t.Fatalf("without the extension only the cached element shows its text:\n%s", frame)
	}
	s.keys("enter") // the page in the document view
	s.waitFor("page 1/1")
	s.waitFor("Alpha")
	if f := s.frame(); strings.Contains(f, "second line") {
		t.Fatalf("the document view shows content this machine does not have:\n%s", f)
	}
	s.keys("esc") // the document
	s.waitFor("PAGE 1 ELEMENTS")
	s.keys("esc")
	s.waitFor("same")
	// esc while a listing runs cancels it; once idle it goes up a folder.
	for _, want := range []string{"only local", "4 docs", "press q to quit"} {
		s.idle()
		s.keys("esc")
		s.waitFor(want)
	}
}

// BenchmarkV1TUI_OpenSkeleton10000Pages opens a 10,000-page document's
// skeleton in the browser: get_skeleton from our remote on loopback (the
// body verified, every page rehashed), the screen installed by Update and
// drawn. Reported as skeleton-ms/op (docs/performance.md: goal < 300 ms).
func BenchmarkV1TUI_OpenSkeleton10000Pages(b *testing.B) {
	const pages = 10000
	tr := newTestRemoteWith(b, remote.Options{Limits: wire.Limits{MaxPayloadBytes: 64 << 20}})
	var body strings.Builder
	body.WriteString(`{"doc_ref":"big","file_type":"md","title":"Big","pages":[`)
	for i := range pages {
		if i > 0 {
			body.WriteString(",")
		}
		fmt.Fprintf(&body, `{"page_index":%d,"title":"Page %d","elements":[{"element_id":"e","category":"NarrativeText","text":"line %d"}]}`, i, i+1, i)
	}
	body.WriteString(`]}`)
	r := v1Objects(b, []byte(body.String()))
	// One inline commit (the fast path): the remote's payload bound is
	// raised for it.
	req := &wire.CommitRequest{Document: r.Object}
	for _, p := range r.Pages {
		req.Pages = append(req.Pages, p.Object)
		for _, e := range p.Elements {
			req.Objects = append(req.Objects, e.Object)
		}
	}
	if _, err := tr.c.Commit(context.Background(), "file:///big.md", req, dpev1.Precondition{IfAbsent: true}); err != nil {
		b.Fatal(err)
	}
	m := New(remoteOptions(tr, 120, 40)).m
	conn := &remoteConn{label: "bench", c: tr.c, caps: tr.caps}
	row := remoteRow{name: "big.md", uri: "file:///big.md", remote: string(r.DocHash)}
	b.ResetTimer()
	t0 := time.Now()
	for b.Loop() {
		d := newRemoteDocScreen(m.e, conn, row)
		m.stack = []screen{d}
		msg := runFor[remoteSkelMsg](b, d.load(""))
		m.update(msg)
		if d.sk == nil || len(d.sk.Pages) != pages {
			b.Fatalf("skeleton not installed: %s", d.err)
		}
		_ = m.view()
		m.e.ops.cancelAll()
	}
	b.ReportMetric(float64(time.Since(t0).Milliseconds())/float64(b.N), "skeleton-ms/op")
}

// runFor runs cmd (and the commands it batches) until one answers a T.
func runFor[T tea.Msg](tb testing.TB, cmd tea.Cmd) T {
	tb.Helper()
	var zero T
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case T:
			return msg
		case tea.BatchMsg:
			queue = append(queue, msg...)
		}
	}
	tb.Fatalf("no %T answered", zero)
	return zero
}
