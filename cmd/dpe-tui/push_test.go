package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/dpev1"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/remote"
)

// wireCounter counts what a pusher sends: body bytes of uploads and
// commits, and requests by kind.
type wireCounter struct {
	h                  http.Handler
	writeBytes         atomic.Int64
	commits, uploads   atomic.Int64
	deletes, negotiate atomic.Int64
	mu                 sync.Mutex
	commitBodies       [][]byte
	// beforeCommit, when set, runs before a commit reaches the remote.
	beforeCommit func(r *http.Request)
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
		w.mu.Lock()
		w.commitBodies = append(w.commitBodies, b)
		hook := w.beforeCommit
		w.mu.Unlock()
		if hook != nil {
			hook(r)
		}
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
	w.mu.Lock()
	w.commitBodies = nil
	w.mu.Unlock()
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

	code, out, errOut := runPush(t, "push", dir, "--remote", hs.URL, "--prefix", "file:///notes/")
	if code != 0 || !strings.Contains(out, "push: 42 documents: 42 created;") {
		t.Fatalf("first push: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "file:///notes/cafe%CC%81.md") {
		t.Errorf("the NFD name is not percent-encoded as its UTF-8 bytes:\n%s", out)
	}
	if wc.uploads.Load() == 0 {
		t.Error("the image went without a staged blob upload")
	}
	wc.reset()
	code, out, errOut = runPush(t, "push", dir, "--remote", hs.URL, "--prefix", "file:///notes/", "--jobs", "2")
	if code != 0 || !strings.Contains(out, "42 unchanged") {
		t.Fatalf("second push: exit %d\n%s\n%s", code, out, errOut)
	}
	// Not on a terminal: the summary alone, no line per unchanged document
	// unless -v.
	if n := strings.Count(out, "\n"); n != 1 {
		t.Errorf("second push printed %d lines, want the summary only:\n%s", n, out)
	}
	if code, vout, _ := runPush(t, "push", dir, "--remote", hs.URL, "--prefix", "file:///notes/", "--verbose"); code != 0 || strings.Count(vout, "\n") != 43 {
		t.Errorf("push -v: exit %d, want 42 document lines and the summary:\n%s", code, vout)
	}
	wc.reset()
	if n := wc.writeBytes.Load(); n != 0 || wc.commits.Load() != 0 || wc.uploads.Load() != 0 || wc.negotiate.Load() != 0 {
		t.Fatalf("the second push of an unchanged folder sent %d bytes (%d commits, %d uploads, %d negotiates)",
			n, wc.commits.Load(), wc.uploads.Load(), wc.negotiate.Load())
	}
	// One file edited: one commit, of that document only.
	edited := filepath.Join(dir, "notes", "na0.md")
	writeFile(t, edited, "# Note A\n\nSome text of note .\n\nA new paragraph.\n")
	wc.reset()
	code, out, errOut = runPush(t, "push", dir, "--remote", hs.URL, "--prefix", "file:///notes/")
	if code != 0 || !strings.Contains(out, "1 updated") || !strings.Contains(out, "41 unchanged") || wc.commits.Load() != 1 {
		t.Fatalf("push after an edit: exit %d, %d commits\n%s\n%s", code, wc.commits.Load(), out, errOut)
	}
	if !strings.Contains(out, "updated          file:///notes/notes/na0.md  +1 -0 =2") {
		t.Errorf("the delta of the edit is not the multiset difference:\n%s", out)
	}
	// A file removed: --dry-run says so and deletes nothing; --prune deletes.
	os.Remove(edited)
	wc.reset()
	code, out, _ = runPush(t, "push", dir, "--remote", hs.URL, "--prefix", "file:///notes/", "--prune", "--dry-run")
	if code != 0 || !strings.Contains(out, "would be deleted file:///notes/notes/na0.md") || wc.deletes.Load() != 0 {
		t.Fatalf("prune --dry-run: exit %d, %d deletes\n%s", code, wc.deletes.Load(), out)
	}
	code, out, _ = runPush(t, "push", dir, "--remote", hs.URL, "--prefix", "file:///notes/", "--prune")
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
	if code, out, errOut := runPush(t, "push", old, "--remote", hs.URL, "--prefix", "file:///proj-old/"); code != 0 {
		t.Fatalf("push old: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runPush(t, "push", cur, "--remote", hs.URL, "--prefix", "file:///proj", "--prune")
	if code != 0 || !strings.Contains(out, "file:///proj/a.md") || strings.Contains(out, "proja.md") || strings.Contains(out, "keep.md") {
		t.Fatalf("push --prefix file:///proj --prune: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "remote", "ls", hs.URL, "file:///proj-old/")
	if code != 0 || !strings.Contains(out, "keep.md") {
		t.Fatalf("the sibling tree lost keep.md: exit %d\n%s%s", code, out, errOut)
	}
}

// remoteWithCounter is our remote behind a wireCounter, and a client of it.
func remoteWithCounter(t *testing.T) (*wireCounter, string, *dpev1.Client) {
	t.Helper()
	srv, err := remote.Open(t.TempDir(), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wc := &wireCounter{h: srv}
	hs := httptest.NewServer(wc)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	c, err := dpev1.New(hs.URL, dpev1.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return wc, hs.URL, c
}

// skeletonOf is the remote's skeleton of uri, and its content hashes in
// reading order.
func skeletonOf(t *testing.T, c *dpev1.Client, uri string) (*dpev1.Skeleton, []string) {
	t.Helper()
	res, err := c.GetSkeleton(t.Context(), uri, "")
	if err != nil || res.Skeleton == nil {
		t.Fatalf("skeleton %s: %v", uri, err)
	}
	var elems []string
	for _, p := range res.Skeleton.Pages {
		elems = append(elems, p.Elements...)
	}
	return res.Skeleton, elems
}

// A 200-file folder pushed, one file edited, pushed again: the second
// push's only write is one commit, and what it carries (counted at the
// server) is exactly the changed document's new objects: its document
// object, the pages and element objects the remote's previous version
// did not hold, each hashing to what the new skeleton lists. The printed
// delta is core §3.3's multiset difference of the two versions.
func TestPush_200FilesOneEditedSendsOnlyItsNewObjects(t *testing.T) {
	wc, url, c := remoteWithCounter(t)
	dir := t.TempDir()
	for i := range 200 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("doc%03d.md", i)),
			fmt.Sprintf("# Document %d\n\nFirst paragraph of %d.\n\nSecond paragraph, shared by all.\n\n- item %d\n", i, i, i))
	}
	code, out, errOut := runPush(t, "push", dir, "--remote", url, "--prefix", "file:///big/")
	if code != 0 || !strings.Contains(out, "push: 200 documents: 200 created;") {
		t.Fatalf("first push: exit %d\n%s\n%s", code, out, errOut)
	}
	uri := "file:///big/doc117.md"
	oldSk, oldElems := skeletonOf(t, c, uri)
	held := map[string]bool{}
	for i, p := range oldSk.Pages {
		held[oldSk.Document.Pages[i]] = true
		for _, e := range p.Elements {
			held[e] = true
		}
	}
	// Edit: one paragraph changed, one added; the shared one stays.
	writeFile(t, filepath.Join(dir, "doc117.md"),
		"# Document 117\n\nFirst paragraph, rewritten.\n\nSecond paragraph, shared by all.\n\n- item 117\n\nA new closing line.\n")
	wc.reset()
	code, out, errOut = runPush(t, "push", dir, "--remote", url, "--prefix", "file:///big/")
	if code != 0 || !strings.Contains(out, "199 unchanged, 1 updated;") {
		t.Fatalf("second push: exit %d\n%s\n%s", code, out, errOut)
	}
	if wc.commits.Load() != 1 || wc.uploads.Load() != 0 || wc.negotiate.Load() != 0 || wc.deletes.Load() != 0 {
		t.Fatalf("second push: %d commits, %d uploads, %d negotiates, %d deletes; want one commit",
			wc.commits.Load(), wc.uploads.Load(), wc.negotiate.Load(), wc.deletes.Load())
	}
	newSk, newElems := skeletonOf(t, c, uri)
	var body wire.CommitRequest
	if err := json.Unmarshal(wc.commitBodies[0], &body); err != nil {
		t.Fatal(err)
	}
	if _, h, v := wire.ParseDocument(body.Document); v != nil || h != newSk.DocHash {
		t.Fatalf("the commit's document hashes to %s (%v), the remote holds %s", h, v, newSk.DocHash)
	}
	wantNew := map[string]bool{}
	for i, p := range newSk.Pages {
		if ph := newSk.Document.Pages[i]; !held[ph] {
			wantNew[ph] = true
		}
		for _, e := range p.Elements {
			if !held[e] {
				wantNew[e] = true
			}
		}
	}
	sent := map[string]bool{}
	for _, raw := range body.Pages {
		_, h, v := wire.ParsePage(raw)
		if v != nil || !wantNew[h] || sent[h] {
			t.Errorf("the commit carries page %s (%v), which is not one of the new version's new pages", h, v)
		}
		sent[h] = true
	}
	for _, raw := range body.Objects {
		_, h, v := wire.ParseElement(raw)
		if v != nil || !wantNew[h] || sent[h] {
			t.Errorf("the commit carries element %s (%v), which the remote already held or is not in the document", h, v)
		}
		sent[h] = true
	}
	if len(sent) != len(wantNew) || len(wantNew) < 3 {
		t.Errorf("the commit carries %d new objects, the new version has %d the old one lacked", len(sent), len(wantNew))
	}
	// Bytes: the one commit, and it is this small document's size, not
	// the folder's.
	if n := wc.writeBytes.Load(); n != int64(len(wc.commitBodies[0])) || n > 2048 {
		t.Errorf("the second push wrote %d bytes (its commit body is %d)", n, len(wc.commitBodies[0]))
	}
	d := wire.DeltaOf(oldElems, newElems)
	want := fmt.Sprintf("updated          %s  +%d -%d =%d", uri, d.Added, d.Removed, d.Retained)
	if !strings.Contains(out, want) || d.Retained == 0 || d.Added == 0 {
		t.Errorf("want the multiset delta %q in:\n%s", want, out)
	}
}

// Two pushers of one folder race: the second one's commit lands between
// the first one's head and its commit. The first is refused with
// DPE_PRECONDITION_FAILED, says so, exits 3 and does not force: the
// remote keeps the second pusher's version.
func TestPush_ConcurrentPushersTheLoserIsRefusedNotOverwritten(t *testing.T) {
	wc, url, c := remoteWithCounter(t)
	mine, theirs := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(mine, "shared.md"), "# Shared\n\nversion zero\n")
	if code, out, errOut := runPush(t, "push", mine, "--remote", url, "--prefix", "file:///team/"); code != 0 {
		t.Fatalf("seed: exit %d\n%s%s", code, out, errOut)
	}
	writeFile(t, filepath.Join(mine, "shared.md"), "# Shared\n\nmy version\n")
	writeFile(t, filepath.Join(theirs, "shared.md"), "# Shared\n\ntheir version\n")
	var fired atomic.Bool
	var theirHash string
	wc.mu.Lock()
	wc.beforeCommit = func(*http.Request) {
		// Only the first commit waits (the other pusher's own commit
		// passes through here too).
		if fired.Swap(true) {
			return
		}
		func() {
			// The other pusher, to its end, while this commit waits.
			code, out, errOut := runPush(t, "push", theirs, "--remote", url, "--prefix", "file:///team/")
			if code != 0 || !strings.Contains(out, "1 updated") {
				t.Errorf("the other pusher: exit %d\n%s%s", code, out, errOut)
			}
			h, err := c.Head(t.Context(), "file:///team/shared.md")
			if err != nil || h == nil {
				t.Errorf("head after the other pusher: %v", err)
				return
			}
			theirHash = h.DocHash
		}()
	}
	wc.mu.Unlock()
	code, out, errOut := runPush(t, "push", mine, "--remote", url, "--prefix", "file:///team/")
	// Said once: the code, no detail repeating it.
	if code != exitProtocol || strings.Count(errOut, "DPE_PRECONDITION_FAILED") != 1 || !strings.Contains(errOut, "(DPE_PRECONDITION_FAILED: its version moved), not overwritten") ||
		!strings.Contains(out, "1 failed") {
		t.Fatalf("the loser: exit %d\n%s\n%s", code, out, errOut)
	}
	h, err := c.Head(t.Context(), "file:///team/shared.md")
	if err != nil || h == nil || theirHash == "" || h.DocHash != theirHash {
		t.Fatalf("the remote holds %v (%v), want the other pusher's %s", h, err, theirHash)
	}
	for _, b := range wc.commitBodies {
		if strings.Contains(string(b), `"force"`) {
			t.Fatalf("a commit forced: %s", b)
		}
	}
}

// Files that are not documents, and documents of every format we
// convert: a file we do not convert is one line and a count; a 0-byte PDF
// is that file's error; ODS and ODP go (as file_type unk); a touch alone
// (a new mod time) makes no new version.
func TestPush_EveryFormatWeConvertGoesAndEachRefusalIsOneLine(t *testing.T) {
	_, url, _ := remoteWithCounter(t)
	dir := t.TempDir()
	for _, name := range []string{"soffice.ods", "soffice.odp", "pandoc.odt", "openpyxl.xlsx"} {
		b, err := os.ReadFile(filepath.Join("../../convert/testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, name), string(b))
	}
	writeFile(t, filepath.Join(dir, "empty.pdf"), "")
	writeFile(t, filepath.Join(dir, "notes.md"), "# Notes\n\ntext\n")
	writeFile(t, filepath.Join(dir, "tool.exe"), "MZ")
	code, out, errOut := runPush(t, "push", dir, "--remote", url, "--prefix", "file:///mix/")
	if code != exitRuntime || !strings.Contains(out, "push: 6 documents: 5 created, 1 failed, 1 skipped;") {
		t.Fatalf("push: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"skipped " + filepath.Join(dir, "tool.exe") + ": not a format", "empty.pdf: the file is empty (0 bytes)"} {
		if strings.Count(errOut, want) != 1 {
			t.Errorf("want one %q in:\n%s", want, errOut)
		}
	}
	if strings.Count(errOut, "empty.pdf") != 1 {
		t.Errorf("the empty PDF is named more than once on its line:\n%s", errOut)
	}
	future := time.Now().Add(time.Hour)
	for _, name := range []string{"notes.md", "soffice.ods"} {
		if err := os.Chtimes(filepath.Join(dir, name), future, future); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut = runPush(t, "push", dir, "--remote", url, "--prefix", "file:///mix/")
	if !strings.Contains(out, "5 unchanged") {
		t.Fatalf("after a touch: exit %d\n%s\n%s", code, out, errOut)
	}
}

// --dry-run says what would change, with the delta it would make, and
// writes nothing.
func TestPush_DryRunPrintsTheDeltaItWouldMake(t *testing.T) {
	wc, url, _ := remoteWithCounter(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n\none\n\ntwo\n")
	if code, out, errOut := runPush(t, "push", dir, "--remote", url); code != 0 {
		t.Fatalf("push: exit %d\n%s%s", code, out, errOut)
	}
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n\none\n\nthree\n")
	writeFile(t, filepath.Join(dir, "b.md"), "# B\n\nnew\n")
	wc.reset()
	code, out, errOut := runPush(t, "push", dir, "--remote", url, "--dry-run")
	if code != 0 || !regexp.MustCompile(`would be updated file://\S+/a\.md  \+1 -1 =2`).MatchString(out) ||
		!regexp.MustCompile(`would be created file://\S+/b\.md  \+2 -0 =0`).MatchString(out) {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errOut)
	}
	if wc.writeBytes.Load() != 0 || wc.commits.Load() != 0 {
		t.Fatalf("--dry-run wrote %d bytes in %d commits", wc.writeBytes.Load(), wc.commits.Load())
	}
}

// A remote that dies mid-push: the push stops after the documents in
// flight with one line saying so, instead of trying every other document.
func TestPush_StopsWhenTheRemoteStopsAnswering(t *testing.T) {
	srv, err := remote.Open(t.TempDir(), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var hs *httptest.Server
	var commits atomic.Int64
	hs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && commits.Add(1) == 3 {
			// The third commit: the remote goes away.
			go hs.CloseClientConnections()
			hj, _ := w.(http.Hijacker)
			conn, _, _ := hj.Hijack()
			conn.Close()
			return
		}
		if commits.Load() >= 3 {
			hj, _ := w.(http.Hijacker)
			conn, _, _ := hj.Hijack()
			conn.Close()
			return
		}
		srv.ServeHTTP(w, r)
	}))
	defer hs.Close()
	dir := t.TempDir()
	for i := range 30 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("n%02d.md", i)), fmt.Sprintf("# N%d\n\nbody %d\n", i, i))
	}
	code, out, errOut := runPush(t, "push", dir, "--remote", hs.URL, "--jobs", "1")
	if code != exitRuntime || !strings.Contains(errOut, "push stopped: the remote stopped answering") || !strings.Contains(out, "27 not sent") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if n := strings.Count(errOut, "dpe-tui: push file://"); n != 1 {
		t.Errorf("%d per-document errors, want the one in flight:\n%s", n, errOut)
	}
}

// runPush runs the command with the test's own cache directory: push
// writes pushed.json and the content cache there, never under the
// user's. Compiled PDFium (wazero) is the user's, linked in, as the
// other tests share it.
func runPush(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	if !strings.HasPrefix(os.Getenv("XDG_CACHE_HOME"), os.TempDir()) {
		isolatedCache(t)
	}
	return runCLI(t, args...)
}

// isolatedCache points XDG_CACHE_HOME at a temp dir for this test.
func isolatedCache(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if base, err := os.UserCacheDir(); err == nil {
		shared := filepath.Join(base, "dpe-tui", "wazero")
		if os.MkdirAll(shared, 0o700) == nil && os.Mkdir(filepath.Join(home, "dpe-tui"), 0o700) == nil {
			if err := os.Symlink(shared, filepath.Join(home, "dpe-tui", "wazero")); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Setenv("XDG_CACHE_HOME", home)
	return home
}

// A remote that dies mid-push: the summary names the document by its
// file_uri, as its line does, and the endpoint without the query, never
// a redacted uri=xxxxx.
func TestPush_RemoteGoneNamesTheDocumentNotARedactedQuery(t *testing.T) {
	srv, err := remote.Open(t.TempDir(), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.URL.Path == "/documents" {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close() // as a kill -9 of the remote does
			}
			return
		}
		srv.ServeHTTP(w, r)
	}))
	defer hs.Close()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n\nhere\n")
	code, out, errOut := runPush(t, "push", dir, "--remote", hs.URL, "--prefix", "file:///gone/", "--jobs", "1")
	if code != exitRuntime || strings.Contains(out+errOut, "xxxxx") || !strings.Contains(errOut, "commit file:///gone/a.md: ") ||
		!strings.Contains(errOut, `"`+hs.URL+`/documents"`) {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}
