package dpe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fileServer serves path → body (or a status) and counts hits.
type fileServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies map[string]string
	status map[string]int
	hits   map[string]int
}

func newFileServer(t *testing.T) *fileServer {
	fs := &fileServer{bodies: map[string]string{}, status: map[string]int{}, hits: map[string]int{}}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs.mu.Lock()
		fs.hits[r.URL.Path]++
		body, ok := fs.bodies[r.URL.Path]
		st := fs.status[r.URL.Path]
		fs.mu.Unlock()
		if st != 0 {
			http.Error(w, "fail", st)
			return
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".md") {
			w.Header().Set("Content-Type", "text/markdown")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fileServer) set(path, body string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.bodies[path] = body
	delete(fs.status, path)
}

func (fs *fileServer) fail(path string, status int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.status[path] = status
}

func (fs *fileServer) hitCount(path string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.hits[path]
}

// scripted returns the accesses in order (the last one repeats) and counts calls.
type scripted struct {
	mu    sync.Mutex
	calls int
	steps []func() (Access, error)
}

func (s *scripted) Resolve(ctx context.Context, uri string) (Access, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.calls
	s.calls++
	if i >= len(s.steps) {
		i = len(s.steps) - 1
	}
	return s.steps[i]()
}

func ok(uri string) func() (Access, error) {
	return func() (Access, error) { return Access{URI: uri, Size: -1}, nil }
}

var testNow = time.Date(2026, 4, 27, 12, 0, 0, 0, time.UTC)

func newOpener(r Resolver, events *[]TraceEvent) *Opener {
	var mu sync.Mutex
	return &Opener{
		Resolver: r,
		Fetcher:  &Fetcher{},
		Now:      func() time.Time { return testNow },
		OnTrace: func(ev TraceEvent) {
			mu.Lock()
			*events = append(*events, ev)
			mu.Unlock()
		},
	}
}

func kinds(evs []TraceEvent) string {
	var k []string
	for _, e := range evs {
		k = append(k, e.Kind)
	}
	return strings.Join(k, ",")
}

const smallDoc = `{"uri":"dpe://h/doc","page_count":1,"pages":[{"page_index":0,"elements":[{"element_id":"a","category":"Title","text":"hi"}]}]}`

func TestOpen_ResolvesFetchesDecodesAndTraces(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/doc.json", smallDoc)
	res := &scripted{steps: []func() (Access, error){ok(fs.URL + "/doc.json?sig=SECRET")}}
	var evs []TraceEvent
	op, err := newOpener(res, &evs).Open(context.Background(), "dpe://h/doc")
	if err != nil {
		t.Fatal(err)
	}
	if op.Kind != KindDocument || op.Doc == nil || len(op.Doc.Pages) != 1 || op.MimeType != "application/json" || len(op.Body) == 0 {
		t.Fatalf("opened %+v", op)
	}
	if got := kinds(evs); got != "get_dpe,fetch,decode" {
		t.Fatalf("trace = %s", got)
	}
	for _, e := range evs {
		if strings.Contains(fmt.Sprintf("%+v", e), "SECRET") {
			t.Fatalf("trace leaks the signature: %+v", e)
		}
	}
	if evs[1].Status != 200 || evs[1].Bytes != int64(len(smallDoc)) {
		t.Fatalf("fetch event %+v", evs[1])
	}
	if evs[2].Detail != "indexed 1 page" { // a count of one is singular
		t.Fatalf("decode event detail %q", evs[2].Detail)
	}
}

func TestGetDPE_ExpiredURIRefetchesOnce(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/new.json", smallDoc)
	fs.set("/old.json", smallDoc)
	expired := func() (Access, error) {
		return Access{URI: fs.URL + "/old.json", ExpiresAt: testNow.Add(-ClockSkew - time.Second)}, nil
	}
	res := &scripted{steps: []func() (Access, error){expired, ok(fs.URL + "/new.json")}}
	var evs []TraceEvent
	op, err := newOpener(res, &evs).Open(context.Background(), "dpe://h/doc")
	if err != nil {
		t.Fatal(err)
	}
	if res.calls != 2 || fs.hitCount("/old.json") != 0 || op.Access.URI != fs.URL+"/new.json" {
		t.Fatalf("calls=%d old hits=%d access=%s", res.calls, fs.hitCount("/old.json"), op.Access.URI)
	}
	if got := kinds(evs); got != "get_dpe,refetch,get_dpe,fetch,decode" {
		t.Fatalf("trace = %s", got)
	}
	// Expiry exactly ClockSkew ago counts as expired.
	atNow := func() (Access, error) {
		return Access{URI: fs.URL + "/old.json", ExpiresAt: testNow.Add(-ClockSkew)}, nil
	}
	res = &scripted{steps: []func() (Access, error){atNow, ok(fs.URL + "/new.json")}}
	if _, err := newOpener(res, &evs).Open(context.Background(), "dpe://h/doc"); err != nil || res.calls != 2 {
		t.Fatalf("expires_at == now: calls=%d err=%v", res.calls, err)
	}
}

func TestOpen_FetchFailureRefetchesOnce(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/good.json", smallDoc)
	res := &scripted{steps: []func() (Access, error){ok(fs.URL + "/gone.json"), ok(fs.URL + "/good.json")}}
	var evs []TraceEvent
	if _, err := newOpener(res, &evs).Open(context.Background(), "dpe://h/doc"); err != nil {
		t.Fatal(err)
	}
	if res.calls != 2 {
		t.Fatalf("resolver calls = %d, want 2", res.calls)
	}
	if evs[1].Kind != TraceFetch || evs[1].Status != 404 || evs[1].Err == "" {
		t.Fatalf("failed fetch event %+v", evs[1])
	}
}

func TestOpen_SecondFailureReportsBothAndStops(t *testing.T) {
	fs := newFileServer(t)
	fs.fail("/a.json", 500)
	fs.fail("/b.json", 403)
	tests := []struct {
		name  string
		steps []func() (Access, error)
		want  []string
	}{
		{"fetch then fetch", []func() (Access, error){ok(fs.URL + "/a.json"), ok(fs.URL + "/b.json")},
			[]string{"HTTP status 500", "HTTP status 403", "re-resolved once"}},
		{"fetch then get_dpe", []func() (Access, error){ok(fs.URL + "/a.json"), func() (Access, error) { return Access{}, errors.New("4013 upstream unavailable") }},
			[]string{"HTTP status 500", "4013 upstream unavailable"}},
		{"expired twice", []func() (Access, error){func() (Access, error) { return Access{URI: fs.URL + "/x", ExpiresAt: testNow.Add(-time.Hour)}, nil }},
			[]string{"expired at 2026-04-27T11:00:00Z", "re-resolved once"}},
	}
	for _, tt := range tests {
		res := &scripted{steps: tt.steps}
		var evs []TraceEvent
		_, err := newOpener(res, &evs).Open(context.Background(), "dpe://h/doc")
		var re *RefetchError
		if !errors.As(err, &re) {
			t.Errorf("%s: err = %v, want *RefetchError", tt.name, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", tt.name, err, w)
			}
		}
		if res.calls != 2 {
			t.Errorf("%s: resolver calls = %d, want exactly 2", tt.name, res.calls)
		}
	}
}

func TestOpen_ContentErrorsAreNotRetried(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/bad.json", `{"pages":[`)
	fs.set("/notdoc.json", `[1,2,3]`)
	for _, p := range []string{"/bad.json", "/notdoc.json"} {
		res := &scripted{steps: []func() (Access, error){ok(fs.URL + p)}}
		var evs []TraceEvent
		_, err := newOpener(res, &evs).Open(context.Background(), "dpe://h/doc")
		if err == nil || res.calls != 1 {
			t.Errorf("%s: calls=%d err=%v", p, res.calls, err)
		}
	}
}

func TestOpen_NonDocumentIsTypedResult(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/notes.md", "# Notes\n\n- a\n")
	res := &scripted{steps: []func() (Access, error){ok(fs.URL + "/notes.md")}}
	var evs []TraceEvent
	op, err := newOpener(res, &evs).Open(context.Background(), "dpe://h/notes")
	if err != nil {
		t.Fatal(err)
	}
	if op.Kind != KindMarkdown || op.Doc != nil || string(op.Body) != "# Notes\n\n- a\n" {
		t.Fatalf("opened %+v", op)
	}
}

func TestOpen_InvalidURIRejectedBeforeResolving(t *testing.T) {
	res := &scripted{steps: []func() (Access, error){ok("http://x")}}
	var evs []TraceEvent
	_, err := newOpener(res, &evs).Open(context.Background(), "dpe://h/a//b")
	var ue *URIError
	if !errors.As(err, &ue) || res.calls != 0 {
		t.Fatalf("err=%v calls=%d", err, res.calls)
	}
}

func TestOpenAccess_LocalFileNeedsAllowFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d.json")
	os.WriteFile(p, []byte(smallDoc), 0o600)
	var evs []TraceEvent
	o := newOpener(nil, &evs)
	if _, err := o.OpenAccess(context.Background(), fileURI(p)); !errors.Is(err, ErrFileRefused) || !strings.Contains(err.Error(), "--allow-file-uri") {
		t.Fatalf("err = %v", err)
	}
	o.Fetcher = &Fetcher{AllowFile: true}
	op, err := o.OpenAccess(context.Background(), fileURI(p))
	if err != nil || op.Kind != KindDocument || op.Doc.Pages[0].Decoded {
		t.Fatalf("op=%+v err=%v", op, err)
	}
	if err := o.LoadPageInto(context.Background(), op, 0); err != nil || op.Doc.Pages[0].Elements[0].Text != "hi" {
		t.Fatalf("LoadPage inline: %v", err)
	}
}

func manifestDoc(prefix string) string {
	return `{"page_count":2,"pages":[` +
		`{"page_index":0,"uri":"` + prefix + `p0.json","element_count":1},` +
		`{"page_index":1,"uri":"` + prefix + `p1.json","element_count":1}]}`
}

func TestLoadPage_ManifestFetchedOnceAndCachedForSession(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/v1/doc.json", manifestDoc("")) // relative page URIs
	fs.set("/v1/p1.json", `{"elements":[{"element_id":"x","category":"Table","text":"cell"}]}`)
	res := &scripted{steps: []func() (Access, error){ok(fs.URL + "/v1/doc.json")}}
	var evs []TraceEvent
	o := newOpener(res, &evs)
	op, err := o.Open(context.Background(), "dpe://h/doc")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := o.LoadPageInto(context.Background(), op, 1); err != nil {
			t.Fatal(err)
		}
	}
	p := op.Doc.Pages[1]
	if !p.Decoded || len(p.Elements) != 1 || p.Elements[0].PageIndex != 1 || p.Elements[0].Text != "cell" {
		t.Fatalf("page %+v", p)
	}
	if n := fs.hitCount("/v1/p1.json"); n != 1 {
		t.Fatalf("page fetched %d times, want 1 (session cache)", n)
	}
	if !strings.Contains(kinds(evs), "fetch_page,decode") {
		t.Fatalf("trace = %s", kinds(evs))
	}
}

func TestLoadPage_FailedPageReResolvesAndTakesNewPageURIs(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/v1/doc.json", manifestDoc(""))
	fs.set("/v2/doc.json", manifestDoc(""))
	fs.set("/v2/p0.json", `{"page_index":0,"elements":[{"element_id":"x","text":"fresh"}]}`)
	res := &scripted{steps: []func() (Access, error){ok(fs.URL + "/v1/doc.json"), ok(fs.URL + "/v2/doc.json")}}
	var evs []TraceEvent
	o := newOpener(res, &evs)
	op, err := o.Open(context.Background(), "dpe://h/doc")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.LoadPageInto(context.Background(), op, 0); err != nil {
		t.Fatal(err)
	}
	if res.calls != 2 || op.Doc.Pages[0].Elements[0].Text != "fresh" || op.Access.URI != fs.URL+"/v2/doc.json" {
		t.Fatalf("calls=%d access=%s", res.calls, op.Access.URI)
	}
	if op.Doc.Pages[1].URI != "p1.json" || fs.hitCount("/v1/p0.json") != 1 {
		t.Fatalf("page URIs after refresh: %q; old page hits %d", op.Doc.Pages[1].URI, fs.hitCount("/v1/p0.json"))
	}
}

func TestLoadPage_ExpiredAccessReResolvesBeforeFetching(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/v1/doc.json", manifestDoc(""))
	fs.set("/v2/doc.json", manifestDoc(""))
	fs.set("/v1/p0.json", `{"elements":[]}`)
	fs.set("/v2/p0.json", `{"elements":[]}`)
	now := testNow
	res := &scripted{steps: []func() (Access, error){
		func() (Access, error) {
			return Access{URI: fs.URL + "/v1/doc.json", ExpiresAt: testNow.Add(time.Minute)}, nil
		},
		ok(fs.URL + "/v2/doc.json"),
	}}
	var evs []TraceEvent
	o := newOpener(res, &evs)
	o.Now = func() time.Time { return now }
	op, err := o.Open(context.Background(), "dpe://h/doc")
	if err != nil {
		t.Fatal(err)
	}
	now = testNow.Add(2 * time.Minute)
	if err := o.LoadPageInto(context.Background(), op, 0); err != nil {
		t.Fatal(err)
	}
	if res.calls != 2 || fs.hitCount("/v1/p0.json") != 0 || fs.hitCount("/v2/p0.json") != 1 {
		t.Fatalf("calls=%d v1=%d v2=%d", res.calls, fs.hitCount("/v1/p0.json"), fs.hitCount("/v2/p0.json"))
	}
}

func TestLoadPage_SecondFailureReportsBoth(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/v1/doc.json", manifestDoc(""))
	fs.set("/v2/doc.json", manifestDoc(""))
	fs.fail("/v2/p0.json", 500)
	res := &scripted{steps: []func() (Access, error){ok(fs.URL + "/v1/doc.json"), ok(fs.URL + "/v2/doc.json")}}
	var evs []TraceEvent
	o := newOpener(res, &evs)
	op, err := o.Open(context.Background(), "dpe://h/doc")
	if err != nil {
		t.Fatal(err)
	}
	err = o.LoadPageInto(context.Background(), op, 0)
	var re *RefetchError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "HTTP status 404") || !strings.Contains(err.Error(), "HTTP status 500") {
		t.Fatalf("err = %v", err)
	}
	if res.calls != 2 || op.Doc.Pages[0].Decoded {
		t.Fatalf("calls=%d", res.calls)
	}
}

func TestOpen_ServerURIWithQueryIsResolvedWithoutIt(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/doc.json", smallDoc)
	var got []string
	res := ResolverFunc(func(ctx context.Context, uri string) (Access, error) {
		got = append(got, uri)
		return Access{URI: fs.URL + "/doc.json"}, nil
	})
	var evs []TraceEvent
	op, err := newOpener(res, &evs).Open(context.Background(), "dpe://h/a%2Fb?page=3")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "dpe://h/a%2Fb" || op.DPE.Segments[0] != "a/b" {
		t.Fatalf("resolver got %q", got)
	}
	if evs[0].Kind != TraceGetDPE || !strings.Contains(evs[0].Detail, "query") {
		t.Fatalf("the dropped query must be traced: %+v", evs[0])
	}
}

// LoadPage writes nothing a holder reads: concurrent loads of one Opened
// each get their own decoded copy, and op's document stays as it was
// (-race checks the rest).
func TestLoadPage_ConcurrentLoadsWriteNothingShared(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/v1/doc.json", manifestDoc(""))
	fs.set("/v1/p0.json", `{"elements":[{"text":"zero"}]}`)
	fs.set("/v1/p1.json", `{"elements":[{"text":"one"}]}`)
	res := &scripted{steps: []func() (Access, error){ok(fs.URL + "/v1/doc.json")}}
	var evs []TraceEvent
	o := newOpener(res, &evs)
	op, err := o.Open(context.Background(), "dpe://h/doc")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	got := make([]*Page, 4)
	for k := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pl, err := o.LoadPage(context.Background(), op, k%2)
			errs[k], got[k] = err, pl.Page
			_ = op.Access.URI // what a screen's View reads meanwhile
			_ = len(op.Doc.Pages[k%2].Elements)
		}()
	}
	wg.Wait()
	want := []string{"zero", "one"}
	for k, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
		if p := got[k]; p == nil || !p.Decoded || len(p.Elements) != 1 || p.Elements[0].Text != want[k%2] {
			t.Fatalf("load %d: %+v", k, p)
		}
	}
	if op.Doc.Pages[0].Decoded || op.Doc.Pages[1].Decoded {
		t.Fatal("LoadPage wrote the shared document")
	}
	if fs := o.Validate(op.WithPages(got[:2])); len(fs) == 0 || evs[len(evs)-1].Kind != TraceValidate {
		t.Fatalf("validate: %d findings (elements lack ids), trace %v", len(fs), kinds(evs))
	}
}

func TestFetch_CancelledByCallerPromptly(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := (&Fetcher{IdleTimeout: time.Hour, Timeout: time.Hour}).Fetch(ctx, srv.URL)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestAccess_MissingExpiresAtNeverExpires(t *testing.T) {
	if (Access{}).Expired(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatal("no expires_at means no expiry (dpe.md: 缺省视为不过期)")
	}
	a := Access{ExpiresAt: testNow}
	if a.Expired(testNow.Add(ClockSkew-time.Nanosecond)) || !a.Expired(testNow.Add(ClockSkew)) {
		t.Fatal("expired exactly from expires_at + ClockSkew on")
	}
}

func TestLoadPage_InlineElementsPreferredOverURI(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/doc.json", `{"pages":[{"page_index":0,"uri":"p0.json","elements":[{"text":"inline"}]}]}`)
	fs.set("/p0.json", `{"elements":[{"text":"remote"}]}`)
	res := &scripted{steps: []func() (Access, error){ok(fs.URL + "/doc.json")}}
	var evs []TraceEvent
	o := newOpener(res, &evs)
	op, err := o.Open(context.Background(), "dpe://h/doc")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.LoadPageInto(context.Background(), op, 0); err != nil {
		t.Fatal(err)
	}
	if op.Doc.Pages[0].Elements[0].Text != "inline" || fs.hitCount("/p0.json") != 0 {
		t.Fatal("dpe.md: with both, the agent uses the inline elements and does not fetch uri")
	}
}

// A re-resolve that returns another version (another _meta.etag) replaces
// the page index: no page of the old version is used with the new one.
func TestLoadPage_NewETagReloadsThePageIndex(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/v1/doc.json", manifestDoc(""))
	fs.set("/v1/p0.json", `{"elements":[{"element_id":"a","category":"Title","text":"old zero"}]}`)
	fs.set("/v2/doc.json", `{"page_count":3,"pages":[{"page_index":0,"uri":"q0.json"},{"page_index":1,"uri":"q1.json"},{"page_index":2,"uri":"q2.json"}]}`)
	fs.set("/v2/q1.json", `{"elements":[{"element_id":"b","category":"Title","text":"new one"}]}`)
	now := testNow
	res := &scripted{steps: []func() (Access, error){
		func() (Access, error) {
			return Access{URI: fs.URL + "/v1/doc.json", ETag: "v1", ExpiresAt: testNow.Add(time.Minute)}, nil
		},
		func() (Access, error) {
			return Access{URI: fs.URL + "/v2/doc.json", ETag: "v2", ExpiresAt: testNow.Add(time.Hour)}, nil
		},
	}}
	var evs []TraceEvent
	o := newOpener(res, &evs)
	o.Now = func() time.Time { return now }
	op, err := o.Open(context.Background(), "dpe://h/doc")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.LoadPageInto(context.Background(), op, 0); err != nil {
		t.Fatal(err)
	}
	now = testNow.Add(2 * time.Minute)
	if err := o.LoadPageInto(context.Background(), op, 1); err != nil {
		t.Fatal(err)
	}
	if op.Version != 1 || len(op.Doc.Pages) != 3 || op.Access.ETag != "v2" {
		t.Fatalf("version %d, %d pages, etag %q", op.Version, len(op.Doc.Pages), op.Access.ETag)
	}
	if op.Doc.Pages[0].Decoded {
		t.Error("page 1 of the old version is still shown as loaded in the new one")
	}
	if p := op.Doc.Pages[1]; !p.Decoded || len(p.Elements) != 1 || p.Elements[0].Text != "new one" {
		t.Errorf("page 2: %+v", p)
	}
	if fs.hitCount("/v1/p1.json") != 0 || len(op.Notes) != 1 || !strings.Contains(op.Notes[0], "changed while open") {
		t.Errorf("old page fetched %d times; notes %q", fs.hitCount("/v1/p1.json"), op.Notes)
	}
}

// The values LoadPage returns after a re-resolve that found another
// version are that version's: its page, decoded, and the Opened that
// replaces op; op itself (what a screen shows meanwhile) is untouched.
func TestLoadPage_ReResolveReturnsTheNewVersionAndWritesNothing(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/v1/doc.json", manifestDoc(""))
	fs.set("/v2/doc.json", `{"page_count":2,"pages":[{"page_index":0,"uri":"q0.json"},{"page_index":1,"uri":"q1.json"}]}`)
	fs.set("/v2/q1.json", `{"elements":[{"element_id":"b","category":"Title","text":"new one"}]}`)
	now := testNow
	res := &scripted{steps: []func() (Access, error){
		func() (Access, error) {
			return Access{URI: fs.URL + "/v1/doc.json", ETag: "v1", ExpiresAt: testNow.Add(time.Minute)}, nil
		},
		func() (Access, error) {
			return Access{URI: fs.URL + "/v2/doc.json", ETag: "v2", ExpiresAt: testNow.Add(time.Hour)}, nil
		},
	}}
	var evs []TraceEvent
	o := newOpener(res, &evs)
	o.Now = func() time.Time { return now }
	op, err := o.Open(context.Background(), "dpe://h/doc")
	if err != nil {
		t.Fatal(err)
	}
	before, doc := op.Access, op.Doc
	now = testNow.Add(2 * time.Minute)
	pl, err := o.LoadPage(context.Background(), op, 1)
	if err != nil {
		t.Fatal(err)
	}
	if op.Access.URI != before.URI || op.Access.ETag != before.ETag || op.Doc != doc || op.Version != 0 || len(op.Notes) != 0 || doc.Pages[1].Decoded {
		t.Fatalf("op was written: access %+v, version %d, notes %q", op.Access, op.Version, op.Notes)
	}
	re := pl.Reopened
	if re == nil || re.Access.ETag != "v2" || re.Doc == doc || re.Version != 1 {
		t.Fatalf("reopened: %+v", re)
	}
	if p := pl.Page; p == nil || len(p.Elements) != 1 || p.Elements[0].Text != "new one" {
		t.Fatalf("page 2 of the new version: %+v", pl.Page)
	}
}

// A re-resolve that names the same version keeps the document (the pages
// a holder loaded stay valid) and brings the new page URIs in the Opened
// it returns.
func TestLoadPage_SameVersionReResolveKeepsTheDocument(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/v1/doc.json", manifestDoc(""))
	fs.set("/v1/p1.json", `{"elements":[{"text":"one"}]}`)
	now := testNow
	acc := func() (Access, error) {
		return Access{URI: fs.URL + "/v1/doc.json", ETag: "v1", ExpiresAt: now.Add(time.Minute)}, nil
	}
	var evs []TraceEvent
	o := newOpener(&scripted{steps: []func() (Access, error){acc, acc}}, &evs)
	o.Now = func() time.Time { return now }
	op, err := o.Open(context.Background(), "dpe://h/doc")
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	pl, err := o.LoadPage(context.Background(), op, 1)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Reopened == nil || pl.Reopened.Doc != op.Doc || pl.Reopened.Version != 0 || !pl.Reopened.Access.ExpiresAt.After(op.Access.ExpiresAt) {
		t.Fatalf("reopened: %+v", pl.Reopened)
	}
	if len(pl.Page.Elements) != 1 || pl.Page.Elements[0].Text != "one" {
		t.Fatalf("page 2: %+v", pl.Page)
	}
}

// Both answers expired: the second URL is fetched anyway, and said.
func TestOpen_BothAnswersExpiredFetchesTheSecond(t *testing.T) {
	fs := newFileServer(t)
	fs.set("/b.json", smallDoc)
	old := testNow.Add(-time.Hour)
	res := &scripted{steps: []func() (Access, error){
		func() (Access, error) { return Access{URI: fs.URL + "/a.json", ExpiresAt: old}, nil },
		func() (Access, error) { return Access{URI: fs.URL + "/b.json", ExpiresAt: old}, nil },
	}}
	var evs []TraceEvent
	op, err := newOpener(res, &evs).Open(context.Background(), "dpe://h/doc")
	if err != nil {
		t.Fatal(err)
	}
	if fs.hitCount("/a.json") != 0 || fs.hitCount("/b.json") != 1 || len(op.Notes) != 1 || !strings.Contains(op.Notes[0], "also looks expired") {
		t.Fatalf("a=%d b=%d notes=%q", fs.hitCount("/a.json"), fs.hitCount("/b.json"), op.Notes)
	}
}

func TestParseTimestamp(t *testing.T) {
	want := time.Date(2026, 4, 27, 12, 0, 0, 0, time.UTC)
	for _, s := range []string{"2026-04-27T12:00:00Z", "2026-04-27T14:00:00+02:00", "2026-04-27T12:00:00.000Z",
		"2026-04-27T12:00:00", "2026-04-27 12:00:00Z", "2026-04-27T12:00:00+0000", "2026-04-27t12:00:00z", "2026-04-27T12:00Z"} {
		got, err := ParseTimestamp(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("%q: %v %v", s, got, err)
		}
	}
	for _, s := range []string{"", "soon", "27/04/2026", "2026-13-01T00:00:00Z", strings.Repeat("9", 100)} {
		if _, err := ParseTimestamp(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}
