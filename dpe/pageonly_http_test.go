package dpe

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingWriter counts the body bytes a handler got written.
type countingWriter struct {
	http.ResponseWriter
	n *int
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	*c.n += n
	return n, err
}

// rangeServer serves the body version(r) returns for each request (the
// request number, from 0) with http.ServeContent: Range and If-Range as
// net/http does them. It records each request's Range header and the
// body bytes written.
type rangeServer struct {
	mu      sync.Mutex
	ranges  []string
	written int
	version func(n int) (body []byte, etag string, mod time.Time)
}

func (s *rangeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	body, etag, mod := s.version(len(s.ranges))
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	w.Header().Set("Content-Type", "application/json")
	http.ServeContent(countingWriter{w, &s.written}, r, "doc.json", mod, bytes.NewReader(body))
}

// countingConn counts the bytes the client read from the socket.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// pageOnlyHTTP opens page n of url as `get --page n` does and checks that
// it is page n of want, decoded as Decode decodes it. read is how many
// bytes the client read from its connections.
func pageOnlyHTTP(t *testing.T, url string, n int, want []byte) (op *Opened, read int64) {
	t.Helper()
	var count atomic.Int64
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{c, &count}, nil
	}}
	defer tr.CloseIdleConnections()
	o := &Opener{Fetcher: &Fetcher{HTTP: &http.Client{Transport: tr}}}
	op, err := o.OpenAccess(WithPageOnly(context.Background(), n), url)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.LoadPageInto(context.Background(), op, n-1); err != nil {
		t.Fatal(err)
	}
	d, err := Decode(want, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.EnsurePage(n-1, Limits{}); err != nil {
		t.Fatal(err)
	}
	if got, exp := elementsOf(op.Doc.Pages[n-1]), elementsOf(d.Pages[n-1]); !reflect.DeepEqual(got, exp) || len(exp) == 0 {
		t.Fatalf("page %d: %d elements, want %d (%.60q…)", n, len(got), len(exp), got)
	}
	return op, count.Load()
}

// `get --page N` of an http(s) URL asks for the first bytes with a Range
// request and for the rest, of the same version, only when page N is not
// in them; it reads no page after N.
func TestOpener_PageOnlyHTTPRangeReadsUpToThePage(t *testing.T) {
	doc := streamDoc(400)
	if len(doc) < 3*pageWatchRange {
		t.Fatalf("the document is %d bytes: too small to need a second range", len(doc))
	}
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	t.Run("page in the first range", func(t *testing.T) {
		s := &rangeServer{version: func(int) ([]byte, string, time.Time) { return doc, `"v1"`, mod }}
		srv := httptest.NewServer(s)
		defer srv.Close()
		op, _ := pageOnlyHTTP(t, srv.URL+"/doc.json", 2, doc)
		if !op.Partial || len(s.ranges) != 1 || s.ranges[0] != "bytes=0-1048575" || s.written > pageWatchRange {
			t.Fatalf("partial %v, requests %q, %d of %d bytes served", op.Partial, s.ranges, s.written, len(doc))
		}
	})
	t.Run("page past the first range", func(t *testing.T) {
		s := &rangeServer{version: func(int) ([]byte, string, time.Time) { return doc, `"v1"`, mod }}
		srv := httptest.NewServer(s)
		defer srv.Close()
		op, read := pageOnlyHTTP(t, srv.URL+"/doc.json", 150, doc)
		if !op.Partial || len(s.ranges) != 2 || s.ranges[1] != "bytes=1048576-" {
			t.Fatalf("partial %v, requests %q", op.Partial, s.ranges)
		}
		// The read goes a quarter past the page at most (and a 64 KiB
		// read, and headers).
		end := bytes.Index(doc, []byte(`{"page_index":150,`))
		if end < 0 || read > int64(end)*5/4+128<<10 {
			t.Fatalf("read %d of %d bytes for a page ending at %d", read, len(doc), end)
		}
		t.Logf("read %d of %d bytes for a page ending at %d", read, len(doc), end)
	})
	t.Run("changed between the requests", func(t *testing.T) {
		v2 := bytes.ReplaceAll(doc, []byte("paragraph"), []byte("Paragraph"))
		s := &rangeServer{version: func(n int) ([]byte, string, time.Time) {
			if n == 0 {
				return doc, `"v1"`, mod
			}
			return v2, `"v2"`, mod.Add(time.Hour)
		}}
		srv := httptest.NewServer(s)
		defer srv.Close()
		pageOnlyHTTP(t, srv.URL+"/doc.json", 150, v2) // If-Range failed: all of v2 from its start
		if len(s.ranges) != 2 {
			t.Fatalf("requests %q", s.ranges)
		}
	})
	t.Run("no validator", func(t *testing.T) {
		s := &rangeServer{version: func(int) ([]byte, string, time.Time) { return doc, "", time.Time{} }}
		srv := httptest.NewServer(s)
		defer srv.Close()
		pageOnlyHTTP(t, srv.URL+"/doc.json", 150, doc)
		if len(s.ranges) != 2 || s.ranges[1] != "" {
			t.Fatalf("without ETag or Last-Modified the rest is a plain GET: requests %q", s.ranges)
		}
	})
	t.Run("server without ranges", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(doc) // 200, whole: the client stops reading at page 2
		}))
		defer srv.Close()
		op, read := pageOnlyHTTP(t, srv.URL+"/doc.json", 2, doc)
		if !op.Partial || read >= int64(len(doc)) {
			t.Fatalf("partial %v, read %d of %d bytes", op.Partial, read, len(doc))
		}
	})
	t.Run("page past the end", func(t *testing.T) {
		s := &rangeServer{version: func(int) ([]byte, string, time.Time) { return doc, `"v1"`, mod }}
		srv := httptest.NewServer(s)
		defer srv.Close()
		op, err := (&Opener{Fetcher: &Fetcher{}}).OpenAccess(WithPageOnly(context.Background(), 999), srv.URL+"/doc.json")
		if err != nil || op.Partial || len(op.Doc.Pages) != 400 || !strings.Contains(op.Doc.Summary, "after the pages") {
			t.Fatalf("%v: partial %v", err, op != nil && op.Partial)
		}
	})
	t.Run("a 206 of another range", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes 5-10/100")
			w.WriteHeader(http.StatusPartialContent)
			_, _ = w.Write(doc[5:11])
		}))
		defer srv.Close()
		_, err := (&Opener{Fetcher: &Fetcher{}}).OpenAccess(WithPageOnly(context.Background(), 1), srv.URL+"/doc.json")
		if err == nil || !strings.Contains(err.Error(), `Content-Range "bytes 5-10/100"`) {
			t.Fatalf("a 206 that does not start at 0: %v", err)
		}
	})
}
