package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/remote"
)

// A file given with --prune would prune its folder's prefix, deleting
// every other document there: push refuses it, and nothing is deleted.
func TestPush_PruneWithAFileIsRefusedAndDeletesNothing(t *testing.T) {
	wc, url, _ := remoteWithCounter(t)
	dir := t.TempDir()
	for _, n := range []string{"a.md", "b.md", "c.md"} {
		writeFile(t, filepath.Join(dir, n), "# "+n+"\n\ntext\n")
	}
	if code, out, errOut := runPush(t, "push", dir, "--remote", url, "--prefix", "file:///p/"); code != 0 {
		t.Fatalf("push: exit %d\n%s%s", code, out, errOut)
	}
	wc.reset()
	code, out, errOut := runPush(t, "push", filepath.Join(dir, "a.md"), "--remote", url, "--prefix", "file:///p/", "--prune")
	if code != exitUsage || !strings.Contains(errOut, "--prune needs a folder") {
		t.Fatalf("push FILE --prune: exit %d\n%s%s", code, out, errOut)
	}
	if wc.deletes.Load() != 0 || wc.commits.Load() != 0 {
		t.Fatalf("push FILE --prune wrote: %d deletes, %d commits", wc.deletes.Load(), wc.commits.Load())
	}
	code, out, errOut = runCLI(t, "remote", "ls", url, "file:///p/")
	if code != 0 || strings.Count(out, "file:///p/") != 3 {
		t.Fatalf("remote ls after: exit %d\n%s%s", code, out, errOut)
	}
}

// An element over the remote's max_payload_bytes cannot be sent (objects
// are not chunked): it is that document's one line before any byte goes,
// the other documents go, and the failed one adds nothing to the delta.
func TestPush_AnElementOverTheRemotesPayloadLimitIsOneLineBeforeSending(t *testing.T) {
	srv, err := remote.Open(t.TempDir(), remote.Options{Limits: wire.Limits{MaxPayloadBytes: 64 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	wc := &wireCounter{h: srv}
	hs := httptest.NewServer(wc)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "huge.txt"), strings.Repeat("a line of plain text that goes on\n", 4000))
	code, out, errOut := runPush(t, "push", dir, "--remote", hs.URL, "--prefix", "file:///big/")
	if code != exitRuntime || !strings.Contains(out, "push: 1 document: 1 failed; delta +0 -0 =0\n") {
		t.Fatalf("push: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "huge.txt: an element of ") || !strings.Contains(errOut, "over this remote's max_payload_bytes (65536)") ||
		strings.Contains(errOut, "DPE_PAYLOAD_TOO_LARGE") {
		t.Fatalf("want the limit named before sending:\n%s", errOut)
	}
	if n := wc.uploads.Load() + wc.commits.Load() + wc.negotiate.Load(); n != 0 {
		t.Fatalf("%d writes reached the remote for a document that cannot fit", n)
	}
	// A small file beside it goes; the summary's delta is its delta alone.
	writeFile(t, filepath.Join(dir, "small.md"), "# Small\n\nfits\n")
	code, out, errOut = runPush(t, "push", dir, "--remote", hs.URL, "--prefix", "file:///big/")
	if code != exitRuntime || !strings.Contains(out, "created          file:///big/small.md  +2 -0 =0\n") ||
		!strings.Contains(out, "push: 2 documents: 1 created, 1 failed; delta +2 -0 =0\n") {
		t.Fatalf("push with a small file: exit %d\n%s%s", code, out, errOut)
	}
}

// A folder push names and counts what it does not send: a symlink and a
// FIFO as well as a file it does not convert. An empty folder has
// nothing to send, and says so.
func TestPush_SymlinksAndFIFOsAreNamedAndCounted(t *testing.T) {
	_, url, _ := remoteWithCounter(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src.md"), "# Src\n\ntext\n")
	writeFile(t, filepath.Join(dir, "tool.exe"), "MZ")
	if err := os.Symlink("src.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runPush(t, "push", dir, "--remote", url, "--prefix", "file:///s/", "--dry-run")
	if code != 0 || !strings.Contains(out, "push: 1 document: 1 would be created, 3 skipped; delta +2 -0 =0\n") {
		t.Fatalf("push: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"dpe-tui: push: skipped " + filepath.Join(dir, "link.md") + ": a symlink (not followed)\n",
		"dpe-tui: push: skipped " + filepath.Join(dir, "fifo.md") + ": a FIFO\n",
		"dpe-tui: push: skipped " + filepath.Join(dir, "tool.exe") + ": not a format dpe-tui converts\n",
	} {
		if strings.Count(errOut, want) != 1 {
			t.Errorf("want one %q in:\n%s", want, errOut)
		}
	}
	empty := t.TempDir()
	code, out, errOut = runPush(t, "push", empty, "--remote", url, "--prefix", "file:///e/")
	if code != 0 || out != "push: nothing to send: "+empty+" has no file dpe-tui converts\n" || errOut != "" {
		t.Fatalf("push of an empty folder: exit %d\n%q%s", code, out, errOut)
	}
}

// A push with nothing to send exits 0 with one line that says so: a
// folder of files dpe-tui does not convert needs no remote (it failed
// with exit 1 when the remote was down, and printed
// "push: 0 documents; delta +0 -0 =0" when it was up), and a folder the
// remote already holds says in words that nothing went.
func TestPush_NothingToSendSaysSoAndExitsZero(t *testing.T) {
	cleanEnv(t) // no profile gives a remote
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "tool.exe"), "MZ")
	writeFile(t, filepath.Join(dir, "data.bin"), "\x00\x01")
	for _, remote := range []string{"http://127.0.0.1:1", ""} {
		args := []string{"push", dir, "--prefix", "file:///n/"}
		if remote != "" {
			args = append(args, "--remote", remote)
		}
		code, out, errOut := runPush(t, args...)
		want := "push: nothing to send: " + dir + " has no file dpe-tui converts (2 skipped, named above)\n"
		if code != 0 || out != want {
			t.Fatalf("remote %q: exit %d\n%q\nwant %q\n%s", remote, code, out, want, errOut)
		}
		if n := strings.Count(errOut, "skipped "); n != 2 || strings.Contains(errOut, "capabilities") {
			t.Errorf("remote %q: stderr should name the 2 skipped files only:\n%s", remote, errOut)
		}
	}
	_, url, _ := remoteWithCounter(t)
	writeFile(t, filepath.Join(dir, "note.md"), "# Note\n\ntext\n")
	if code, out, errOut := runPush(t, "push", dir, "--remote", url, "--prefix", "file:///n/"); code != 0 || !strings.Contains(out, "1 created") {
		t.Fatalf("first push: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runPush(t, "push", dir, "--remote", url, "--prefix", "file:///n/")
	if want := "push: 1 document: 1 unchanged, 2 skipped; delta +0 -0 =2 (nothing to send: the remote has every document as it is here)\n"; code != 0 || out != want {
		t.Fatalf("second push: exit %d\n%q\nwant %q\n%s", code, out, want, errOut)
	}
}
