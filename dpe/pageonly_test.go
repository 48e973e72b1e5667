package dpe

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.ToSlash(p)
}

// The shipped path of `get --page N` on a local file: the file is read up
// to page N and not after it, one page is kept, and nothing of the file
// stays.
func TestOpener_PageOnlyReadsALocalFileUpToThePage(t *testing.T) {
	data := streamDoc(50)
	want, err := Decode(data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	// The bytes after page 5 are cut, so the file is no longer JSON: an
	// open that read past page 3 would fail.
	cut := bytes.Clone(data[:bytes.Index(data, []byte(`,{"page_index":5,`))])
	uri := writeTemp(t, "doc.json", append(cut, `,{"page_index":`...))
	if _, err := (&Opener{Fetcher: &Fetcher{AllowFile: true}}).OpenAccess(context.Background(), uri); err == nil {
		t.Fatal("a full open of the cut file succeeded: the test proves nothing")
	}
	o := &Opener{Fetcher: &Fetcher{AllowFile: true}}
	var traces []TraceEvent
	o.OnTrace = func(e TraceEvent) { traces = append(traces, e) }
	op, err := o.OpenAccess(WithPageOnly(context.Background(), 3), uri)
	if err != nil {
		t.Fatal(err)
	}
	if op.Body != nil || op.Kind != KindDocument || !op.Partial || len(op.Doc.Pages) != 3 || op.Doc.Title != want.Title || op.Doc.Summary != "" {
		t.Fatalf("page-only open: body %d bytes, kind %v, partial %v, %d pages, title %q summary %q", len(op.Body), op.Kind, op.Partial, len(op.Doc.Pages), op.Doc.Title, op.Doc.Summary)
	}
	if err := o.LoadPageInto(context.Background(), op, 2); err != nil {
		t.Fatal(err)
	}
	if err := want.EnsurePage(2, Limits{}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(elementsOf(op.Doc.Pages[2]), elementsOf(want.Pages[2])) {
		t.Error("kept page differs from Decode's")
	}
	if err := op.Doc.EnsurePage(0, Limits{}); err == nil || !strings.Contains(err.Error(), "not kept") {
		t.Errorf("a page not kept: %v", err)
	}
	if _, err := op.PageJSON(2); err != nil {
		t.Errorf("PageJSON of the kept page: %v", err)
	}
	var mapped, upTo bool
	for _, e := range traces {
		mapped = mapped || strings.Contains(e.Detail, "(mapped)")
		upTo = upTo || strings.Contains(e.Detail, "read up to page 3, not the pages after it")
	}
	if !mapped || !upTo {
		t.Errorf("the file was not mapped and read up to page 3: %+v", traces)
	}
	// --page past the end: every page indexed, none kept, no error here
	// (get says how many pages there are).
	uri = writeTemp(t, "whole.json", data)
	op, err = o.OpenAccess(WithPageOnly(context.Background(), 99), uri)
	if err != nil || len(op.Doc.Pages) != 50 || op.Partial || op.Doc.Summary != want.Summary {
		t.Fatalf("page past the end: %v", err)
	}
}

// Errors and limits met up to page N are Decode's, word for word,
// whichever way the file is read; a page past the end reads the whole
// file, so its errors are Decode's too.
func TestOpener_PageOnlySameErrorsAsAFullOpen(t *testing.T) {
	data := streamDoc(20)
	cases := map[string]struct {
		data []byte
		lim  Limits
		page int
	}{
		"truncated, page past the end": {data[:len(data)-40], Limits{}, 99},
		"pages limit before the page":  {data, Limits{MaxPages: 5}, 6},
		"elements":                     {data, Limits{MaxElementsPerPage: 3}, 1},
		"depth":                        {[]byte(`{"pages":[{"elements":[{"x":[[[[[[[[1]]]]]]]]}]}]}`), Limits{MaxDepth: 6}, 1},
		"not document":                 {[]byte(`{"title":"x"}`), Limits{}, 1},
		"bytes":                        {data, Limits{MaxBytes: 1000}, 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			uri := writeTemp(t, "doc.json", c.data)
			fch := &Fetcher{AllowFile: true, MaxBytes: c.lim.MaxBytes}
			full, ferr := (&Opener{Fetcher: fch, Limits: c.lim}).OpenAccess(context.Background(), uri)
			one, oerr := (&Opener{Fetcher: fch, Limits: c.lim}).OpenAccess(WithPageOnly(context.Background(), c.page), uri)
			if ferr == nil || oerr == nil || ferr.Error() != oerr.Error() {
				t.Fatalf("full open: %v (%v)\npage-only: %v (%v)", ferr, full, oerr, one)
			}
		})
	}
}

// Pages out of page_index order before the page asked for are read whole
// and sorted, as a full open shows them.
func TestOpener_PageOnlyPagesOutOfOrderReadWhole(t *testing.T) {
	doc := []byte(`{"pages":[{"page_index":2,"elements":[{"text":"two"}]},{"page_index":0,"elements":[{"text":"zero"}]},{"page_index":1,"elements":[{"text":"one"}]}]}`)
	uri := writeTemp(t, "doc.json", doc)
	op, err := (&Opener{Fetcher: &Fetcher{AllowFile: true}}).OpenAccess(WithPageOnly(context.Background(), 2), uri)
	if err != nil {
		t.Fatal(err)
	}
	if op.Partial || len(op.Doc.Pages) != 3 || op.Doc.Pages[1].Index != 1 {
		t.Fatalf("partial %v, %d pages", op.Partial, len(op.Doc.Pages))
	}
}

// What is not a document is shown whole, as before.
func TestOpener_PageOnlyTextFileIsItsBody(t *testing.T) {
	uri := writeTemp(t, "notes.txt", []byte("plain notes\n"))
	op, err := (&Opener{Fetcher: &Fetcher{AllowFile: true}}).OpenAccess(WithPageOnly(context.Background(), 1), uri)
	if err != nil || op.Kind != KindText || string(op.Body) != "plain notes\n" {
		t.Fatalf("%v %+v", err, op)
	}
}

// Allocations of a page-only open are a small fraction of the file; a
// full open allocates at least the file.
func TestOpener_PageOnlyAllocatesAFractionOfTheFile(t *testing.T) {
	data := streamDoc(800)
	uri := writeTemp(t, "big.json", data)
	alloc := func(ctx context.Context) uint64 {
		o := &Opener{Fetcher: &Fetcher{AllowFile: true}}
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		op, err := o.OpenAccess(ctx, uri)
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&b)
		runtime.KeepAlive(op)
		return b.TotalAlloc - a.TotalAlloc
	}
	full := alloc(context.Background())
	one := alloc(WithPageOnly(context.Background(), 1))
	if full < uint64(len(data)) {
		t.Errorf("full open allocated %d bytes for a %d-byte file: the comparison means nothing", full, len(data))
	}
	if one > uint64(len(data))/4 {
		t.Errorf("page-only open allocated %d bytes for a %d-byte file (full open: %d)", one, len(data), full)
	}
	t.Logf("file %d bytes: full open allocates %d, page-only %d", len(data), full, one)
}

// A mapped file that shrinks under the scan is an error, not a crash.
// Cut at a page boundary, so that the scan reads a page wholly past the
// end (a fault) rather than the zeros after the end in a partial page.
func TestDecodeMapped_FileShrunkIsAnError(t *testing.T) {
	data := streamDoc(200)
	uri := writeTemp(t, "doc.json", data)
	m, ok, err := (&Fetcher{AllowFile: true}).mapFile(context.Background(), uri, false)
	if !ok || err != nil {
		t.Skipf("cannot map here: %v", err)
	}
	defer m.close()
	if err := os.Truncate(strings.TrimPrefix(uri, "file://"), int64(2*os.Getpagesize())); err != nil {
		t.Fatal(err)
	}
	_, _, err = decodeMapped(m.data, Limits{}, 0)
	if !errors.Is(err, errFileChanged) {
		t.Fatalf("decodeMapped of a shrunk file: %v", err)
	}
}
