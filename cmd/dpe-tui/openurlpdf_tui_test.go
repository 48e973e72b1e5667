package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestOpenTUI_PDFAtAURLIsConverted: `dpe-tui open http://…/file.pdf`
// shows the PDF's pages as `open file.pdf` does (get, check and hash of
// the URL converted it already; the TUI showed it as binary), a web page
// its converted pages (not its source), and bytes no converter reads are
// still shown as binary content.
func TestOpenTUI_PDFAtAURLIsConverted(t *testing.T) {
	pdf, err := os.ReadFile("../../convert/testdata/pdf/numbered.pdf")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("../../convert/testdata/handbook.html")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/handbook":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(page)
		case "/ledger.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(pdf)
		default:
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte{0, 1, 2, 3, 0xff, 0xfe, 0, 0, 9})
		}
	}))
	defer srv.Close()

	l, _, done := startOpenTUI(t, srv.URL+"/ledger.pdf", 100, 30)
	defer done()
	f := l.waitFor("Ledger listing")
	if !strings.Contains(f, "page 1/") || strings.Contains(f, "binary") {
		t.Fatalf("the PDF at a URL is not shown converted:\n%s", f)
	}
	l.quit()

	h, _, doneH := startOpenTUI(t, srv.URL+"/handbook", 100, 30)
	defer doneH()
	if f := h.waitFor("Duty Handbook"); !strings.Contains(f, "page 1/") || strings.Contains(f, "<!DOCTYPE") {
		t.Fatalf("the web page is not shown converted:\n%s", f)
	}
	h.quit()

	b, _, done2 := startOpenTUI(t, srv.URL+"/blob", 100, 30)
	defer done2()
	b.waitFor("binary")
	b.quit()
}
