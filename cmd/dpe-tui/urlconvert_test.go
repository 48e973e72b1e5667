package main

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGet_URLToAConvertibleFileConvertsLikeThePath: get of a file:// or
// http:// URL to a PDF or DOCX prints what get of the same file as a local
// path prints (it said "binary"); a signed URL's query names nothing.
func TestGet_URLToAConvertibleFileConvertsLikeThePath(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Base(r.URL.Path)
		data, err := os.ReadFile(filepath.Join(realFixtures, name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(name, ".pdf") {
			w.Header().Set("Content-Type", "application/pdf")
		} else {
			w.Header().Set("Content-Type", "application/octet-stream")
		}
		w.Write(data)
	}))
	defer hs.Close()
	for _, file := range []string{"soffice.pdf", "handbook.docx"} {
		p := filepath.Join(realFixtures, file)
		abs, _ := filepath.Abs(p)
		code, want, errOut := runCLI(t, "get", "--format", "md", p)
		if code != exitOK || errOut != "" || want == "" {
			t.Fatalf("get %s: exit %d, stderr %q", file, code, errOut)
		}
		for _, u := range []string{
			(&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(),
			hs.URL + "/docs/" + file + "?sig=SECRET",
		} {
			t.Run(u, func(t *testing.T) {
				code, out, errOut := runCLI(t, "get", "--format", "md", u)
				if code != exitOK || errOut != "" {
					t.Fatalf("exit %d, stderr %q", code, errOut)
				}
				if out != want {
					t.Errorf("differs from get of the path:\n%.1500s\nwant:\n%.1500s", out, want)
				}
				if strings.Contains(out, "SECRET") {
					t.Errorf("the URL's query is in the output:\n%.500s", out)
				}
			})
		}
	}
}

// TestGet_URLToAWebPageConvertsLikeThePath: get of an http:// URL that
// serves an HTML page, Markdown or a CSV prints what get of the same file
// as a local path prints (it printed the page's source), whether the URL's
// name says the format or only its media type does; plain text stays the
// text it is, and hash still says how to hash a text as push would.
func TestGet_URLToAWebPageConvertsLikeThePath(t *testing.T) {
	files := map[string]string{"handbook.html": "text/html; charset=utf-8", "nested-lists.md": "text/markdown", "table.csv": "text/csv"}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "table.csv"), []byte("name,count\nalpha,1\nbeta,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	local := func(name string) string {
		if name == "table.csv" {
			return filepath.Join(dir, name)
		}
		return filepath.Join(realFixtures, name)
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Base(r.URL.Path)
		if r.URL.Path == "/" || name == "export" {
			name = r.URL.Query().Get("f")
		}
		if name == "notes.txt" {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("just some notes\n"))
			return
		}
		data, err := os.ReadFile(local(name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", files[name])
		w.Write(data)
	}))
	defer hs.Close()
	for name := range files {
		code, want, errOut := runCLI(t, "get", "--format", "md", local(name))
		if code != exitOK || errOut != "" || want == "" {
			t.Fatalf("get %s: exit %d, stderr %q", name, code, errOut)
		}
		code, out, errOut := runCLI(t, "get", "--format", "md", hs.URL+"/site/"+name)
		if code != exitOK || errOut != "" {
			t.Fatalf("get URL of %s: exit %d, stderr %q", name, code, errOut)
		}
		if out != want {
			t.Errorf("get URL of %s differs from get of the path:\n%.800s\nwant:\n%.800s", name, out, want)
		}
		// Only the media type says what it is.
		code, out, errOut = runCLI(t, "get", "--format", "json", hs.URL+"/export?f="+name)
		if code != exitOK || errOut != "" || !strings.Contains(out, `"elements"`) {
			t.Errorf("get of %s by its media type alone: exit %d, stderr %q\n%.300s", name, code, errOut, out)
		}
	}
	code, out, errOut := runCLI(t, "get", hs.URL+"/notes.txt")
	if code != exitOK || out != "just some notes\n" {
		t.Errorf("plain text: exit %d %q %s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "hash", hs.URL+"/site/nested-lists.md")
	if code != exitRuntime || !strings.Contains(errOut, "save it and hash FILE") {
		t.Errorf("hash of Markdown at a URL: exit %d %s", code, errOut)
	}
}
