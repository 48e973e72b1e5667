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
