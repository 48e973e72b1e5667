package s3test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
)

func TestStart_ServesTheS3APIOnLoopback(t *testing.T) {
	s := Start(t)
	if !strings.HasPrefix(s.Endpoint, "http://127.0.0.1:") {
		t.Fatalf("endpoint %q is not loopback", s.Endpoint)
	}
	s.MakeBucket(t, "docs")
	s.Put(t, "docs", "a/b.json", "application/json", []byte(`{"pages":[]}`))
	if got := s.Keys(t, "docs", ""); !slices.Equal(got, []string{"a/b.json"}) {
		t.Fatalf("keys = %v, want [a/b.json]", got)
	}
	// The object is a file of the posix backend in Dir.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	obj, err := s.Client(t).GetObject(ctx, "docs", "a/b.json", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(obj)
	if err != nil || string(b) != `{"pages":[]}` {
		t.Fatalf("get = %q, %v", b, err)
	}
	// Anonymous requests are refused: the server checks signatures.
	resp, err := http.Get(s.Endpoint + "/docs/a/b.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("anonymous GET: status %d, want 403", resp.StatusCode)
	}
}

func TestCountingTransport_CountsByMethod(t *testing.T) {
	s := Start(t)
	s.MakeBucket(t, "docs")
	ct := &CountingTransport{}
	hc := &http.Client{Transport: ct, Timeout: 5 * time.Second}
	for range 2 {
		resp, err := hc.Get(s.Endpoint + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if ct.Count(http.MethodGet) != 2 || ct.Count(http.MethodPut) != 0 {
		t.Errorf("GET %d PUT %d, want 2 and 0", ct.Count(http.MethodGet), ct.Count(http.MethodPut))
	}
}
