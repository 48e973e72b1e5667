package library

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/dpe"
)

func findResource(t *testing.T, all []*mcp.Resource, uri string) *mcp.Resource {
	t.Helper()
	for _, r := range all {
		if r.URI == uri {
			return r
		}
	}
	t.Fatalf("%s not listed", uri)
	return nil
}

func TestCorpus_LargeManualIsOver2MBWith300Pages(t *testing.T) {
	srv, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	all, _ := listAll(t, cs)
	uri := escapeDocRef(DefaultHost, LargeDocRef)
	r := findResource(t, all, uri)
	// Generated on read only: no size until then, the rest as read.
	if r.Size != 0 {
		t.Errorf("size %d listed before the manual was generated", r.Size)
	}
	if r.Meta["page_count"] != float64(largeManualPages) {
		t.Errorf("page_count %v", r.Meta["page_count"])
	}
	c := read(t, cs, uri)
	d := decodeAll(t, c.Text)
	if r.Title != d.Title || r.Description != d.Summary || r.Meta["file_type"] != d.FileType || r.Annotations.LastModified != d.LastModified ||
		fmt.Sprint(r.Meta["keywords"]) != fmt.Sprint(d.Keywords) || d.PageCount != largeManualPages {
		t.Errorf("listed %q %q %v %q %v, read %q %q %q %q %v", r.Title, r.Description, r.Meta["file_type"], r.Annotations.LastModified, r.Meta["keywords"],
			d.Title, d.Summary, d.FileType, d.LastModified, d.Keywords)
	}
	all, _ = listAll(t, cs)
	r = findResource(t, all, uri)
	if r.Size < 2<<20 {
		t.Errorf("size %d < 2 MiB: the http resolver would not use manifest mode", r.Size)
	}
	if int64(len(c.Text)) != r.Size {
		t.Errorf("read %d bytes, listed %d after the read", len(c.Text), r.Size)
	}
	if len(d.Pages) != largeManualPages || d.DocRef != LargeDocRef || d.URI != uri {
		t.Errorf("pages %d doc_ref %q uri %q", len(d.Pages), d.DocRef, d.URI)
	}
}

// Opening the embedded corpus does not generate the large manual (the
// embedded demo's start-up pays for what Open allocates): Open allocates
// less than generating the manual does.
func TestCorpus_OpenDoesNotGenerateTheLargeManual(t *testing.T) {
	allocs := func(fn func() error) uint64 {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		if err := fn(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&b)
		return b.TotalAlloc - a.TotalAlloc
	}
	gen := allocs(func() error {
		_, err := LargeDocument(escapeDocRef(DefaultHost, LargeDocRef), LargeDocRef, largeManualPages)
		return err
	})
	open := allocs(func() error {
		srv, err := New(Options{})
		runtime.KeepAlive(srv)
		return err
	})
	if open >= gen {
		t.Errorf("New allocated %d bytes, generating the manual %d", open, gen)
	}
	t.Logf("New allocated %d bytes, generating the manual %d", open, gen)
}

func TestLargeDocument_IsDeterministic(t *testing.T) {
	a, err := LargeDocument("dpe://h.example.x/d", "d", 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := LargeDocument("dpe://h.example.x/d", "d", 7)
	if !bytes.Equal(a, b) {
		t.Error("two generations differ")
	}
}

func TestCorpus_HostileDocumentCarriesEveryAttack(t *testing.T) {
	srv, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	all, _ := listAll(t, cs)
	uri := escapeDocRef(DefaultHost, HostileDocRef)
	r := findResource(t, all, uri)
	if n := utf8.RuneCountInString(r.Name); n < 10000 {
		t.Errorf("name has %d characters, want ≥ 10,000", n)
	}
	for _, field := range []string{r.Name, r.Title, r.Description} {
		if !strings.Contains(field, "\x1b") {
			t.Errorf("listing field without ESC: %.60q", field)
		}
	}
	c := read(t, cs, uri)
	// encoding/json escapes C0 controls as \u00XX and leaves C1 and bidi
	// characters raw; the lone surrogates are spliced in as escapes.
	for _, needle := range []string{
		`\u001b[2J`, `\u001b]0;`, `\u001b]52;c;`, `\u001bP1$q`, "\u009b", "\u0085", "\u202e",
		`\ud800`, `\u0000`, `\u0007`, `<script>alert(1)</script>`,
	} {
		if !strings.Contains(c.Text, needle) {
			t.Errorf("hostile document lacks %q", needle)
		}
	}
	if !json.Valid([]byte(c.Text)) {
		t.Fatal("hostile document must still be valid JSON")
	}
	d := decodeAll(t, c.Text)
	cats := map[string]bool{}
	for _, p := range d.Pages {
		for _, e := range p.Elements {
			cats[e.Category] = true
		}
	}
	for _, want := range []string{dpe.CategoryTitle, dpe.CategoryTable, dpe.CategoryCodeSnippet, dpe.CategoryImage} {
		if !cats[want] {
			t.Errorf("no hostile %s", want)
		}
	}
}

func TestGenerated_NotesArePagedAndReadable(t *testing.T) {
	tests := []struct {
		name            string
		n, pageSize     int
		nameLen         int
		wantCursorPages int
	}{
		{"250 at default page size", 250, 0, 0, 6}, // 251 resources incl. status
		{"long names", 30, 10, 10000, 4},           // 31 resources
		{"exactly one page", 49, 50, 0, 1},         // 50 resources
		{"one over a page", 50, 50, 0, 2},          // 51 resources
	}
	fsys := emptyFS()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := New(Options{FS: fsys, Generated: tt.n, PageSize: tt.pageSize, GeneratedNameLen: tt.nameLen})
			if err != nil {
				t.Fatal(err)
			}
			cs := connect(t, srv)
			all, pages := listAll(t, cs)
			if len(all) != tt.n+1 || pages != tt.wantCursorPages {
				t.Fatalf("%d resources in %d pages, want %d in %d", len(all), pages, tt.n+1, tt.wantCursorPages)
			}
			first := all[0]
			if tt.nameLen > 0 && len(first.Name) != tt.nameLen {
				t.Errorf("name length %d, want %d", len(first.Name), tt.nameLen)
			}
			checkResourceShape(t, first)
			c := read(t, cs, first.URI)
			if d := decodeAll(t, c.Text); len(d.Pages) != 1 || d.URI != first.URI {
				t.Errorf("note: %d pages, uri %q", len(d.Pages), d.URI)
			}
		})
	}
}

func TestList_IsDeterministicAcrossServers(t *testing.T) {
	dump := func() []byte {
		// The embedded files plus notes; the generated manual has its own
		// determinism test (TestLargeDocument_IsDeterministic).
		srv, err := New(Options{FS: Corpus(), Generated: 3})
		if err != nil {
			t.Fatal(err)
		}
		cs := connect(t, srv)
		all, _ := listAll(t, cs)
		b, err := json.Marshal(all)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if a, b := dump(), dump(); !bytes.Equal(a, b) {
		t.Error("two servers list different metadata")
	}
}

func TestRead_ConvertsLazilyAndCaches(t *testing.T) {
	srv, err := New(Options{FS: Corpus(), CacheSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	a := "dpe://" + DefaultHost + "/guides/field-guide.md"
	b := "dpe://" + DefaultHost + "/notes/cjk-notes.md"
	first := read(t, cs, a).Text
	_ = read(t, cs, b).Text // evicts a
	if again := read(t, cs, a).Text; again != first {
		t.Error("re-conversion after eviction differs")
	}
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: a})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDocCache_EvictsLeastRecentlyUsed(t *testing.T) {
	c := newDocCache(2)
	c.put("a", []byte("1"))
	c.put("b", []byte("2"))
	c.get("a")
	c.put("c", []byte("3"))
	if _, ok := c.get("b"); ok {
		t.Error("b should be evicted")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := c.get(k); !ok {
			t.Errorf("%s evicted", k)
		}
	}
	off := newDocCache(-1)
	off.put("a", nil)
	if _, ok := off.get("a"); ok {
		t.Error("disabled cache stored")
	}
}

func emptyFS() fstest.MapFS { return fstest.MapFS{} }

func TestDocCache_RespectsByteLimit(t *testing.T) {
	c := newDocCache(10)
	c.limit = 10
	c.put("big", make([]byte, 6)) // over limit/2: not kept
	if _, ok := c.get("big"); ok {
		t.Error("oversized document cached")
	}
	c.put("a", make([]byte, 4))
	c.put("b", make([]byte, 4))
	c.put("c", make([]byte, 4)) // 12 > 10: a goes
	if _, ok := c.get("a"); ok || c.bytes != 8 {
		t.Errorf("a kept or bytes = %d, want 8", c.bytes)
	}
}

func TestNew_SkipsFilesOverMaxFileBytes(t *testing.T) {
	fsys := fstest.MapFS{"big.txt": {Data: make([]byte, 100)}, "small.txt": {Data: []byte("x")}}
	srv, err := New(Options{FS: fsys, MaxFileBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := listAll(t, connect(t, srv))
	if len(all) != 2 || !strings.HasSuffix(all[0].URI, "/small.txt") {
		t.Errorf("listed %d resources, first %s", len(all), all[0].URI)
	}
}

// TestRead_ConcurrentReadsAreSafe runs reads in parallel on one session so
// the race detector sees the cache and the handler under contention.
func TestRead_ConcurrentReadsAreSafe(t *testing.T) {
	srv, err := New(Options{FS: Corpus(), CacheSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	all, _ := listAll(t, cs)
	var wg sync.WaitGroup
	errs := make(chan error, len(all)*2)
	for i := 0; i < 2; i++ {
		for _, r := range all {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI}); err != nil {
					errs <- err
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestNoteNames_LongNamesStartWithTheirOwnLabel(t *testing.T) {
	nn := newNoteNames(12, 4, 50)
	for _, i := range []int{1, 7, 12} {
		name := nn.name(i)
		if len(name) != 50 || !strings.HasPrefix(name, fmt.Sprintf("note-%04d ", i)) {
			t.Errorf("name(%d) = %q", i, name)
		}
	}
	if got := newNoteNames(3, 4, 0).name(2); got != "note-0002" {
		t.Errorf("short name = %q", got)
	}
}
