package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/dpegen"
)

// `get --page N` prints page N without reading the pages after it: a
// document cut (no longer JSON) after page 3 still prints page 2, from a
// local path, a file:// URI and an http URL (Range), while the whole
// document is refused as malformed.
func TestGet_PageReadsUpToThePage(t *testing.T) {
	doc := dpegen.Document(dpegen.Options{Pages: 40, ElementsPerPage: 20, TextBytes: 200, Seed: 7})
	cut := bytes.Index(doc, []byte(`{"page_index":3,`))
	if cut < 0 {
		t.Fatalf("no page_index 3 in %.200q", doc)
	}
	broken := append(bytes.Clone(doc[:cut]), `{"page_index":3,"elements":[{`...)
	path := filepath.Join(t.TempDir(), "cut.json")
	if err := os.WriteFile(path, broken, 0o644); err != nil {
		t.Fatal(err)
	}
	whole := filepath.Join(t.TempDir(), "whole.json")
	if err := os.WriteFile(whole, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		http.ServeContent(w, r, "cut.json", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), bytes.NewReader(broken))
	}))
	defer srv.Close()

	code, want, errOut := runCLI(t, "get", whole, "--page", "2", "--format", "text")
	if code != 0 || want == "" {
		t.Fatalf("page 2 of the whole document: exit %d, %s", code, errOut)
	}
	for _, in := range []string{path, "file://" + filepath.ToSlash(path), srv.URL + "/cut.json"} {
		code, out, errOut := runCLI(t, "get", in, "--page", "2", "--format", "text")
		if code != 0 || out != want {
			t.Errorf("get %s --page 2: exit %d, stderr %q, page 2 printed: %v", in, code, errOut, out == want)
		}
		if code, _, errOut := runCLI(t, "get", in, "--format", "text"); code == 0 || !strings.Contains(errOut, "JSON") {
			t.Errorf("get %s whole: exit %d, %q: the cut should be found", in, code, errOut)
		}
	}
}
