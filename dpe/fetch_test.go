package dpe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func newServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h) // binds 127.0.0.1:0
	t.Cleanup(srv.Close)
	return srv
}

func TestFetch_HTTPOKReturnsBodyAndMime(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/JSON; charset=utf-8")
		w.Write([]byte(`{"pages":[]}`))
	})
	got, err := (&Fetcher{}).Fetch(context.Background(), srv.URL+"/doc.json?sig=secret")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Bytes) != `{"pages":[]}` || got.Status != 200 || got.MimeType != "application/json" {
		t.Fatalf("got %+v", got)
	}
}

func TestFetch_NonOKStatusReportedWithCodeAndRedacted(t *testing.T) {
	for _, code := range []int{404, 500, 403} {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", code) })
		_, err := (&Fetcher{}).Fetch(context.Background(), srv.URL+"/d.json?X-Signature=topsecret")
		var fe *FetchError
		if !errors.As(err, &fe) || fe.Status != code || !errors.Is(err, ErrBadStatus) {
			t.Fatalf("%d: err = %v", code, err)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("HTTP status %d %s", code, http.StatusText(code))) || strings.Contains(err.Error(), "topsecret") {
			t.Errorf("%d: message %q must name the status and hide the signature", code, err)
		}
	}
}

func TestFetch_SlowBodyStallDetectedByIdleTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		w.Write(make([]byte, 1024))
		w.(http.Flusher).Flush()
		select { // stall after 1 KB
		case <-release:
		case <-r.Context().Done():
		}
	})
	f := &Fetcher{IdleTimeout: 50 * time.Millisecond, Timeout: time.Minute}
	_, err := f.Fetch(context.Background(), srv.URL)
	if !errors.Is(err, ErrStalled) || !strings.Contains(err.Error(), "after 1024 bytes") {
		t.Fatalf("err = %v, want ErrStalled after 1024 bytes", err)
	}
}

func TestFetch_WholeRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		// Trickle bytes so the idle timer never fires; the whole-request one must.
		for {
			w.Write([]byte("x"))
			w.(http.Flusher).Flush()
			select {
			case <-release:
				return
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	f := &Fetcher{IdleTimeout: time.Minute, Timeout: 100 * time.Millisecond}
	_, err := f.Fetch(context.Background(), srv.URL)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "within 100ms") {
		t.Fatalf("err = %v", err)
	}
}

func TestFetch_OversizeBodyRefusedNamingTheLimit(t *testing.T) {
	big := strings.Repeat("a", 5000)
	for _, chunked := range []bool{false, true} {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			if chunked {
				w.Write([]byte(big[:2000]))
				w.(http.Flusher).Flush()
				w.Write([]byte(big[2000:]))
				return
			}
			w.Write([]byte(big))
		})
		_, err := (&Fetcher{MaxBytes: 1000}).Fetch(context.Background(), srv.URL)
		var le *LimitError
		if !errors.As(err, &le) || le.Limit != 1000 || !strings.Contains(err.Error(), "fetch size over the limit") || !strings.Contains(err.Error(), "> 1000 bytes") {
			t.Fatalf("chunked=%v: err = %v", chunked, err)
		}
	}
}

func TestFetch_RedirectsLimitedAndNeverToFile(t *testing.T) {
	var srv *httptest.Server
	srv = newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/hop/"):
			var n int
			for _, c := range strings.TrimPrefix(r.URL.Path, "/hop/") {
				n = n*10 + int(c-'0')
			}
			if n == 0 {
				w.Write([]byte("done"))
				return
			}
			http.Redirect(w, r, srv.URL+"/hop/"+string(rune('0'+n-1)), http.StatusFound)
		}
	})
	f := &Fetcher{AllowFile: true}
	_, err := f.Fetch(context.Background(), srv.URL+"/file")
	if !errors.Is(err, ErrRedirect) || !strings.Contains(err.Error(), "file: URI") {
		t.Fatalf("redirect to file: err = %v", err)
	}
	got, err := f.Fetch(context.Background(), srv.URL+"/hop/5")
	if err != nil || string(got.Bytes) != "done" {
		t.Fatalf("5 redirects must be followed: %v", err)
	}
	if _, err := f.Fetch(context.Background(), srv.URL+"/hop/6"); !errors.Is(err, ErrRedirect) {
		t.Fatalf("6 redirects: err = %v", err)
	}
}

func TestFetch_TLSVerifiedByDefault(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	if _, err := (&Fetcher{}).Fetch(context.Background(), srv.URL); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("self-signed cert accepted by default: %v", err)
	}
	if _, err := (&Fetcher{HTTP: srv.Client()}).Fetch(context.Background(), srv.URL); err != nil {
		t.Fatalf("with the server's trusted client: %v", err)
	}
}

func TestFetch_UnsupportedScheme(t *testing.T) {
	_, err := (&Fetcher{}).Fetch(context.Background(), "s3://bucket/key")
	if !errors.Is(err, ErrUnsupportedURI) {
		t.Fatalf("err = %v", err)
	}
}

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }

func TestFetch_FilePolicy(t *testing.T) {
	root := t.TempDir()
	inside := filepath.Join(root, "doc.json")
	if err := os.WriteFile(inside, []byte(`{"pages":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("secret"), 0o600)
	link := filepath.Join(root, "link.txt")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    *Fetcher
		uri  string
		want string // "" = success
	}{
		{"refused by default", &Fetcher{}, fileURI(inside), "--allow-file-uri[=ROOT]"},
		{"allowed", &Fetcher{AllowFile: true}, fileURI(inside), ""},
		{"dotdot refused", &Fetcher{AllowFile: true}, "file://" + filepath.ToSlash(root) + "/../x", `contains ".."`},
		{"encoded dotdot refused", &Fetcher{AllowFile: true}, "file://" + filepath.ToSlash(root) + "/%2e%2e/x", `contains ".."`},
		{"root confines", &Fetcher{AllowFile: true, FileRoot: root}, fileURI(inside), ""},
		{"outside root", &Fetcher{AllowFile: true, FileRoot: root}, fileURI(outside), "outside"},
		{"symlink out of root", &Fetcher{AllowFile: true, FileRoot: root}, fileURI(link), "outside"},
		{"remote host", &Fetcher{AllowFile: true}, "file://evil.example/etc/passwd", "not local"},
		{"directory", &Fetcher{AllowFile: true}, fileURI(root), "not a regular file"},
		{"size cap", &Fetcher{AllowFile: true, MaxBytes: 3}, fileURI(inside), "fetch size over the limit"},
	}
	for _, tt := range tests {
		got, err := tt.f.Fetch(context.Background(), tt.uri)
		if tt.want == "" {
			if err != nil || got.MimeType != "application/json" {
				t.Errorf("%s: %v %+v", tt.name, err, got)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestRedactURI_DropsSecrets(t *testing.T) {
	tests := map[string]string{
		"https://u:p@oss.example.com/a/b.json?X-Signature=s&exp=1#f": "https://xxxxx@oss.example.com/a/b.json?X-Signature=xxxxx&exp=xxxxx#xxxxx",
		"file:///tmp/a.json": "file:///tmp/a.json",
		"http://h/x":         "http://h/x",
	}
	for in, want := range tests {
		if got := RedactURI(in); got != want {
			t.Errorf("RedactURI(%q) = %q, want %q", in, got, want)
		}
	}
}

// A manifest document of 50 pages, opened and read page by page, costs one
// or two TCP connections, not one per fetch.
func TestFetcher_ReusesConnections(t *testing.T) {
	const pages = 50
	var accepts atomic.Int64
	mux := http.NewServeMux()
	var doc strings.Builder
	doc.WriteString(`{"page_count":50,"pages":[`)
	for i := range pages {
		if i > 0 {
			doc.WriteByte(',')
		}
		fmt.Fprintf(&doc, `{"page_index":%d,"uri":"p/%d.json"}`, i, i)
	}
	doc.WriteString(`]}`)
	mux.HandleFunc("/doc.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, doc.String())
	})
	mux.HandleFunc("/p/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"elements":[{"element_id":"e","category":"NarrativeText","text":"t"}]}`)
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			accepts.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)

	o := &Opener{Resolver: ResolverFunc(func(context.Context, string) (Access, error) {
		return Access{URI: srv.URL + "/doc.json", Size: -1}, nil
	}), Fetcher: &Fetcher{}}
	op, err := o.Open(context.Background(), "dpe://h/doc")
	if err != nil {
		t.Fatal(err)
	}
	for i := range op.Doc.Pages {
		if err := o.LoadPageInto(context.Background(), op, i); err != nil {
			t.Fatal(err)
		}
	}
	if n := accepts.Load(); n > 2 {
		t.Errorf("%d TCP connections for %d fetches, want ≤ 2", n, pages+1)
	}
	// The parallel loader of check also stays on a few warm connections.
	accepts.Store(0)
	op, err = o.Open(context.Background(), "dpe://h/doc")
	if err != nil {
		t.Fatal(err)
	}
	if fs := o.LoadManifestPages(context.Background(), op, DefaultFetchWorkers, nil); len(fs) != 0 {
		t.Fatal(fs)
	}
	// At most two per worker, against one per page without reuse: a
	// request that finds no idle connection dials one, and when its
	// worker's previous connection is handed back first (net/http returns
	// it from its read loop, later on a loaded machine) the request takes
	// that one and the dialed connection waits idle: one worker in four
	// did so under -race at load 20.
	if n := accepts.Load(); n > 2*DefaultFetchWorkers {
		t.Errorf("%d TCP connections for %d workers and %d pages", n, DefaultFetchWorkers, pages)
	}
}
