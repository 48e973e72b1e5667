package dpe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// gatedReader serves data up to cut, then blocks until gate is closed
// (or ctx ends) before serving the rest: "the rest has not arrived".
type gatedReader struct {
	ctx   context.Context
	data  []byte
	cut   int
	off   int
	gate  chan struct{}
	gated bool // the reader is waiting at the gate (set before blocking)
	wait  chan struct{}
}

func (r *gatedReader) Read(p []byte) (int, error) {
	if r.off == r.cut && !r.gated {
		r.gated = true
		close(r.wait)
		select {
		case <-r.gate:
		case <-r.ctx.Done():
			return 0, r.ctx.Err()
		}
	}
	if r.off >= len(r.data) {
		return 0, io.EOF
	}
	end := len(r.data)
	if r.off < r.cut {
		end = r.cut
	}
	n := copy(p, r.data[r.off:end])
	r.off += n
	return n, nil
}

// streamDoc is a document whose first page ends well before its last, and
// whose later pages carry what only the whole file shows: a duplicate
// element_id (DPE-E013) and a page_count that is wrong (DPE-E002).
func streamDoc(pages int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"doc_ref":"s","title":"Stream","page_count":%d,"pages":[`, pages+1)
	for i := 0; i < pages; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"page_index":%d,"elements":[`, i)
		for j := 0; j < 40; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			id := fmt.Sprintf("e-%d-%d", i, j)
			if i == pages-1 && j == 0 {
				id = "e-0-0" // a duplicate only the last page reveals
			}
			fmt.Fprintf(&b, `{"element_id":%q,"category":"NarrativeText","text":"page %d paragraph %d %s"}`, id, i, j, strings.Repeat("lorem ipsum ", 20))
		}
		b.WriteString("]}")
	}
	b.WriteString(`],"summary":"after the pages"}`)
	return []byte(b.String())
}

// firstPageEnd is the offset just after page 0's closing brace.
func firstPageEnd(t *testing.T, data []byte) int {
	t.Helper()
	d, err := Decode(data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, d.Pages[0].Raw)
	if i < 0 {
		t.Fatal("page 0 not found")
	}
	return i + len(d.Pages[0].Raw)
}

func elementsOf(p *Page) []string {
	var out []string
	for _, el := range p.Elements {
		out = append(out, el.ID+"|"+el.Category+"|"+el.Text)
	}
	return out
}

// wait receives from ch, failing the test if nothing comes: a bound for a
// broken build, not a timing assertion.
func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testbudget.Left(t, 30*time.Second)):
		t.Fatalf("no %s", what)
	}
	var zero T
	return zero
}

func TestDecodeReader_FirstPageBeforeTheRestIsRead(t *testing.T) {
	data := streamDoc(30)
	cut := firstPageEnd(t, data)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &gatedReader{ctx: ctx, data: data, cut: cut, gate: make(chan struct{}), wait: make(chan struct{})}
	firsts := make(chan *Document, 2)
	served := make(chan int, 2)
	type result struct {
		d   *Document
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, _, err := DecodeReader(ctx, r, int64(len(data)), Limits{}, func(d *Document) {
			served <- r.off // read here, on the reading goroutine
			firsts <- d
		})
		done <- result{d, err}
	}()
	first := wait(t, firsts, "first page while the reader holds the rest back")
	if off := <-served; off > cut {
		t.Fatalf("first page handed over after %d bytes, page 1 ends at %d", off, cut)
	}
	// The decoder goes on and waits at the gate: the rest is not there.
	wait(t, r.wait, "the decoder to ask for the rest")
	select {
	case res := <-done:
		t.Fatalf("DecodeReader returned before the rest was read: %v", res.err)
	default:
	}
	if len(first.Pages) != 1 || !first.Pages[0].Decoded || len(first.Pages[0].Elements) != 40 {
		t.Fatalf("provisional document: %d pages, page 0 decoded %v with %d elements", len(first.Pages), first.Pages[0].Decoded, len(first.Pages[0].Elements))
	}
	if first.Title != "Stream" || first.Summary != "" {
		t.Errorf("provisional fields: title %q (before pages), summary %q (after pages: not known yet)", first.Title, first.Summary)
	}
	close(r.gate)
	res := wait(t, done, "final document")
	if res.err != nil {
		t.Fatal(res.err)
	}
	want, _ := Decode(data, Limits{})
	if len(res.d.Pages) != 30 || res.d.Summary != "after the pages" {
		t.Fatalf("final: %d pages, summary %q", len(res.d.Pages), res.d.Summary)
	}
	if err := want.EnsurePage(0, Limits{}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(elementsOf(first.Pages[0]), elementsOf(want.Pages[0])) {
		t.Error("provisional page 0 differs from Decode's page 0")
	}
	select {
	case <-firsts:
		t.Error("first called twice")
	default:
	}
}

func TestDecodeReader_LateFindingsComeWithTheFinalDocument(t *testing.T) {
	data := streamDoc(30)
	var first *Document
	d, _, err := DecodeReader(context.Background(), iotest.HalfReader(bytes.NewReader(data)), -1, Limits{}, func(p *Document) { first = p })
	if err != nil {
		t.Fatal(err)
	}
	if first == nil {
		t.Fatal("no first page from a body that arrived in pieces")
	}
	got := Validate(d)
	ref, _ := Decode(data, Limits{})
	if want := Validate(ref); !reflect.DeepEqual(got, want) {
		t.Fatalf("findings differ from Decode's:\n got %v\nwant %v", got, want)
	}
	rules := map[string]bool{}
	for _, f := range got {
		rules[f.ID] = true
	}
	for _, r := range []string{"DPE-E002", "DPE-E013"} {
		if !rules[r] {
			t.Errorf("final findings lack %s (needs the whole file): %v", r, got)
		}
	}
}

// Every input: DecodeReader in one-byte reads gives Decode's result (the
// same error, or the same pages and findings), and a first page it handed
// over is Decode's first page.
func checkDecodeReaderLikeDecode(t *testing.T, data []byte, lim Limits) {
	t.Helper()
	want, werr := Decode(data, lim)
	var first *Document
	got, body, gerr := DecodeReader(context.Background(), iotest.OneByteReader(bytes.NewReader(data)), -1, lim, func(d *Document) { first = d })
	if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
		t.Fatalf("DecodeReader error %v, Decode %v", gerr, werr)
	}
	if werr != nil {
		return
	}
	if !bytes.Equal(body, data) {
		t.Fatal("body differs from the input")
	}
	if !reflect.DeepEqual(Validate(got), Validate(want)) {
		t.Fatalf("findings differ:\n got %v\nwant %v", Validate(got), Validate(want))
	}
	if len(got.Pages) != len(want.Pages) {
		t.Fatalf("%d pages, want %d", len(got.Pages), len(want.Pages))
	}
	if first == nil {
		return
	}
	// The first page in the file: Decode may have sorted it elsewhere.
	var w0 *Page
	for i, p := range want.Pages {
		if p.pos == 0 {
			if err := want.EnsurePage(i, lim); err != nil {
				t.Fatalf("provisional page 0 decoded, Decode's fails: %v", err)
			}
			w0 = p
		}
	}
	if w0 == nil || !reflect.DeepEqual(elementsOf(first.Pages[0]), elementsOf(w0)) || first.Pages[0].Index != w0.Index {
		t.Fatal("provisional page 0 differs from Decode's")
	}
}

func TestDecodeReader_SameAsDecodeOnEveryTestdataFile(t *testing.T) {
	var files []string
	_ = filepath.Walk("testdata", func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && fi.Size() < 4<<20 {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 10 {
		t.Fatalf("only %d testdata files", len(files))
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(p, func(t *testing.T) { checkDecodeReaderLikeDecode(t, data, Limits{}) })
	}
	t.Run("stream", func(t *testing.T) { checkDecodeReaderLikeDecode(t, streamDoc(5), Limits{}) })
	t.Run("spec", func(t *testing.T) { checkDecodeReaderLikeDecode(t, []byte(specDoc), Limits{}) })
}

func TestDecodeReader_LimitsAsDecode(t *testing.T) {
	data := streamDoc(4)
	for _, lim := range []Limits{{MaxBytes: 1000}, {MaxPages: 2}, {MaxElementsPerPage: 10}, {MaxDepth: 3}} {
		_, werr := Decode(data, lim)
		_, _, gerr := DecodeReader(context.Background(), bytes.NewReader(data), int64(len(data)), lim, func(*Document) {})
		var le *LimitError
		if !errors.As(gerr, &le) || werr == nil || gerr.Error() != werr.Error() {
			t.Errorf("%+v: DecodeReader %v, Decode %v", lim, gerr, werr)
		}
	}
	// A stated size over the limit is refused before anything is read.
	_, _, err := DecodeReader(context.Background(), iotest.ErrReader(errors.New("read")), 2000, Limits{MaxBytes: 1000}, nil)
	var le *LimitError
	if !errors.As(err, &le) || le.What != "document size" {
		t.Errorf("stated size over the limit: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := DecodeReader(ctx, bytes.NewReader(data), -1, Limits{}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// The shipped path: Opener.OpenAccess over http, the server holding back
// everything after page 1. OnFirstPage sees page 1 while the body is
// still arriving; Open returns the whole document, with the findings that
// need it.
func TestOpener_OnFirstPageOverHTTPBeforeTheBodyEnds(t *testing.T) {
	data := streamDoc(30)
	cut := firstPageEnd(t, data)
	gate := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		_, _ = w.Write(data[:cut])
		w.(http.Flusher).Flush()
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		_, _ = w.Write(data[cut:])
	})) // binds 127.0.0.1:0
	defer srv.Close()
	defer func() {
		select {
		case <-gate:
		default:
			close(gate)
		}
	}()

	firsts := make(chan *Opened, 2)
	o := &Opener{Fetcher: &Fetcher{}, OnFirstPage: func(op *Opened) { firsts <- op }}
	type result struct {
		op  *Opened
		err error
	}
	done := make(chan result, 1)
	go func() {
		op, err := o.OpenAccess(context.Background(), srv.URL+"/doc.json")
		done <- result{op, err}
	}()
	first := wait(t, firsts, "first page while the server holds the rest back")
	if !first.Partial || first.Kind != KindDocument || len(first.Doc.Pages) != 1 || len(first.Doc.Pages[0].Elements) != 40 {
		t.Fatalf("provisional: partial %v kind %v pages %d", first.Partial, first.Kind, len(first.Doc.Pages))
	}
	select {
	case res := <-done:
		t.Fatalf("Open returned while the server held the body: %v", res.err)
	default:
	}
	close(gate)
	res := wait(t, done, "final Opened")
	if res.err != nil {
		t.Fatal(res.err)
	}
	if res.op.Partial || len(res.op.Doc.Pages) != 30 || !bytes.Equal(res.op.Body, data) {
		t.Fatalf("final: partial %v, %d pages", res.op.Partial, len(res.op.Doc.Pages))
	}
	fs := o.Validate(res.op)
	var late bool
	for _, f := range fs {
		late = late || f.ID == "DPE-E013"
	}
	if !late {
		t.Errorf("the duplicate id on the last page is not reported: %v", fs)
	}
}

// A body that arrives in one read has no provisional page: there is
// nothing to show early.
func TestOpener_OnFirstPageNotForAWholeFileOrAManifest(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte(specDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := 0
	o := &Opener{Fetcher: &Fetcher{AllowFile: true}, OnFirstPage: func(*Opened) { calls++ }}
	op, err := o.OpenAccess(context.Background(), "file://"+filepath.ToSlash(small))
	if err != nil {
		t.Fatal(err)
	}
	if calls != 0 || op.Partial {
		t.Errorf("whole small file: %d first-page calls", calls)
	}
	// A large local file arrives in several reads: page 1 first, once.
	big := filepath.Join(dir, "big.json")
	data := streamDoc(800)
	if len(data) < 2*readChunk {
		t.Fatalf("test document only %d bytes", len(data))
	}
	if err := os.WriteFile(big, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var got []*Opened
	o.OnFirstPage = func(op *Opened) { got = append(got, op) }
	op, err = o.OpenAccess(context.Background(), "file://"+filepath.ToSlash(big))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].Partial || len(got[0].Doc.Pages[0].Elements) != 40 || len(op.Doc.Pages) != 800 {
		t.Fatalf("big file: %d first-page calls", len(got))
	}
}

func FuzzDecodeReader(f *testing.F) {
	for _, s := range []string{
		specDoc, `{"pages":[]}`, `{"pages":[{"number":1,"elements":[{"text":"\u00e9"}]}]}`,
		`{"pages":[{"elements":[]},{"elements":[{"element_id":1}]}]}`, `{"pages":[{"uri":"x"}],"doc_metadata":{"title":"t"}}`,
		`{"title":1,"pages":[{"elements":[{}]}],"pages":[]}`, `{"pages":[{"elements":[{"x":[[[[]]]]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodeReaderLikeDecode(t, data, Limits{MaxDepth: 20})
	})
}
