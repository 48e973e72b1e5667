package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dpe-tui/dpe-tui/remote"
)

// wireCounter counts what a pusher sends: body bytes of uploads and
// commits, and requests by kind.
type wireCounter struct {
	h                  http.Handler
	writeBytes         atomic.Int64
	commits, uploads   atomic.Int64
	deletes, negotiate atomic.Int64
}

func (w *wireCounter) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	switch {
	case r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/staging/"):
		w.uploads.Add(1)
		w.writeBytes.Add(int64(len(b)))
	case r.Method == http.MethodPut:
		w.commits.Add(1)
		w.writeBytes.Add(int64(len(b)))
	case r.Method == http.MethodDelete:
		w.deletes.Add(1)
	case strings.HasSuffix(r.URL.Path, "/negotiate"):
		w.negotiate.Add(1)
		w.writeBytes.Add(int64(len(b)))
	}
	w.h.ServeHTTP(rw, r)
}

func (w *wireCounter) reset() {
	w.writeBytes.Store(0)
	w.commits.Store(0)
	w.uploads.Store(0)
	w.deletes.Store(0)
	w.negotiate.Store(0)
}

func TestPush_SecondPushOfAnUnchangedFolderSendsNothing(t *testing.T) {
	srv, err := remote.Open(t.TempDir(), remote.Options{ReadObjects: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	wc := &wireCounter{h: srv}
	hs := httptest.NewServer(wc)
	defer hs.Close()

	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "notes"), 0o700)
	for i := range 40 {
		writeFile(t, filepath.Join(dir, "notes", strings.Repeat("n", i%3+1)+string(rune('a'+i%26))+string(rune('0'+i/26))+".md"),
			"# Note "+string(rune('A'+i%26))+"\n\nSome text of note "+strings.Repeat("x", i)+".\n")
	}
	// A non-ASCII name in NFD, and an image (its bytes go as a blob).
	writeFile(t, filepath.Join(dir, "cafe\u0301.md"), "# Café\n\nde la crème\n")
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var pngBytes bytes.Buffer
	png.Encode(&pngBytes, img)
	writeFile(t, filepath.Join(dir, "dot.png"), pngBytes.String())

	code, out, errOut := runCLI(t, "push", dir, "--remote", hs.URL, "--prefix", "file:///notes/")
	if code != 0 || !strings.Contains(out, "push: 42 documents: 42 created") {
		t.Fatalf("first push: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "file:///notes/cafe%CC%81.md") {
		t.Errorf("the NFD name is not percent-encoded as its UTF-8 bytes:\n%s", out)
	}
	if wc.uploads.Load() == 0 {
		t.Error("the image went without a staged blob upload")
	}
	wc.reset()
	code, out, errOut = runCLI(t, "push", dir, "--remote", hs.URL, "--prefix", "file:///notes/", "--jobs", "2")
	if code != 0 || !strings.Contains(out, "42 unchanged") {
		t.Fatalf("second push: exit %d\n%s\n%s", code, out, errOut)
	}
	if n := wc.writeBytes.Load(); n != 0 || wc.commits.Load() != 0 || wc.uploads.Load() != 0 || wc.negotiate.Load() != 0 {
		t.Fatalf("the second push of an unchanged folder sent %d bytes (%d commits, %d uploads, %d negotiates)",
			n, wc.commits.Load(), wc.uploads.Load(), wc.negotiate.Load())
	}
	// One file edited: one commit, of that document only.
	edited := filepath.Join(dir, "notes", "na0.md")
	writeFile(t, edited, "# Note A\n\nSome text of note .\n\nA new paragraph.\n")
	wc.reset()
	code, out, errOut = runCLI(t, "push", dir, "--remote", hs.URL, "--prefix", "file:///notes/")
	if code != 0 || !strings.Contains(out, "1 updated") || !strings.Contains(out, "41 unchanged") || wc.commits.Load() != 1 {
		t.Fatalf("push after an edit: exit %d, %d commits\n%s\n%s", code, wc.commits.Load(), out, errOut)
	}
	if !strings.Contains(out, "updated          file:///notes/notes/na0.md  +1 -0 =2") {
		t.Errorf("the delta of the edit is not the multiset difference:\n%s", out)
	}
	// A file removed: --dry-run says so and deletes nothing; --prune deletes.
	os.Remove(edited)
	wc.reset()
	code, out, _ = runCLI(t, "push", dir, "--remote", hs.URL, "--prefix", "file:///notes/", "--prune", "--dry-run")
	if code != 0 || !strings.Contains(out, "would be deleted file:///notes/notes/na0.md") || wc.deletes.Load() != 0 {
		t.Fatalf("prune --dry-run: exit %d, %d deletes\n%s", code, wc.deletes.Load(), out)
	}
	code, out, _ = runCLI(t, "push", dir, "--remote", hs.URL, "--prefix", "file:///notes/", "--prune")
	if code != 0 || !strings.Contains(out, "deleted          file:///notes/notes/na0.md") || wc.deletes.Load() != 1 {
		t.Fatalf("prune: exit %d, %d deletes\n%s", code, wc.deletes.Load(), out)
	}
	code, out, _ = runCLI(t, "remote", "head", hs.URL, "file:///notes/notes/na0.md")
	if code != 0 || !strings.HasPrefix(out, "-  ") {
		t.Fatalf("pruned document still there: %q", out)
	}
}

// A --prefix without its trailing slash is a folder all the same: names
// are not glued onto it (file:///proja.md), and --prune never reaches a
// sibling tree (file:///proj-old/).
func TestPush_PrefixIsAFolderAndPruneStaysInIt(t *testing.T) {
	srv, err := remote.Open(t.TempDir(), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	old, cur := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(old, "keep.md"), "# Keep\n\nin the sibling tree\n")
	writeFile(t, filepath.Join(cur, "a.md"), "# A\n\nhere\n")
	if code, out, errOut := runCLI(t, "push", old, "--remote", hs.URL, "--prefix", "file:///proj-old/"); code != 0 {
		t.Fatalf("push old: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCLI(t, "push", cur, "--remote", hs.URL, "--prefix", "file:///proj", "--prune")
	if code != 0 || !strings.Contains(out, "file:///proj/a.md") || strings.Contains(out, "proja.md") || strings.Contains(out, "keep.md") {
		t.Fatalf("push --prefix file:///proj --prune: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "remote", "ls", hs.URL, "file:///proj-old/")
	if code != 0 || !strings.Contains(out, "keep.md") {
		t.Fatalf("the sibling tree lost keep.md: exit %d\n%s%s", code, out, errOut)
	}
}
