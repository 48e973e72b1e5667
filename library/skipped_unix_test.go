//go:build unix

package library

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Every file a folder leaves out is in Skipped with a short reason, in
// walk order; hidden files are not; the summary is one line naming the
// first three and counting the rest; a rescan replaces the list.
func TestSkipped_NamesEveryFileLeftOut(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a-big.txt"), bytes.Repeat([]byte("x"), 2048))
	if err := syscall.Mkfifo(filepath.Join(dir, "b-pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, "c-loop2", filepath.Join(dir, "c-loop1"))
	symlink(t, "c-loop1", filepath.Join(dir, "c-loop2"))
	symlink(t, "nowhere.md", filepath.Join(dir, "d-broken.md"))
	symlink(t, "/etc", filepath.Join(dir, "e-out"))
	write(t, filepath.Join(dir, "f-photo.heic"), []byte("not a document"))
	write(t, filepath.Join(dir, "sub", "ok.md"), []byte("# ok\n"))
	symlink(t, "sub", filepath.Join(dir, "g-sublink"))
	write(t, filepath.Join(dir, ".hidden.md"), []byte("# hidden\n"))
	write(t, filepath.Join(dir, "good.md"), []byte("# good\n"))

	lib, err := Open(Options{Dir: dir, Host: "org.example.docs", MaxFileBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lib.Close() })
	got := lib.Skipped()
	want := []SkippedFile{
		{"a-big.txt", "over 1 KiB"},
		{"b-pipe", "FIFO, not a regular file"},
		{"c-loop1", "symlink loop"},
		{"c-loop2", "symlink loop"},
		{"d-broken.md", "broken symlink"},
		{"e-out", "symlink leaves the folder"},
		{"f-photo.heic", "unsupported file type"},
		{"g-sublink", "symlinked directory, not followed"},
	}
	if got.Total != len(want) || fmt.Sprint(got.Files) != fmt.Sprint(want) {
		t.Fatalf("skipped %d %v\nwant %d %v", got.Total, got.Files, len(want), want)
	}
	sum := got.Summary()
	if wantSum := "8 files skipped: a-big.txt (over 1 KiB), b-pipe (FIFO, not a regular file), c-loop1 (symlink loop) and 5 more (see the --log file)"; sum != wantSum {
		t.Errorf("summary %q\nwant    %q", sum, wantSum)
	}

	// Without read permission (not for root, who reads anything).
	if os.Geteuid() != 0 {
		p := filepath.Join(dir, "h-secret.md")
		write(t, p, []byte("# secret\n"))
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
	}
	// The caller's copy is its own.
	got.Files[0].Path = "changed"
	for _, name := range []string{"a-big.txt", "b-pipe", "c-loop1", "c-loop2", "d-broken.md", "e-out", "g-sublink"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	lib.rescan()
	got = lib.Skipped()
	want = []SkippedFile{{"f-photo.heic", "unsupported file type"}}
	if os.Geteuid() != 0 {
		want = append(want, SkippedFile{"h-secret.md", "permission denied"})
	}
	if fmt.Sprint(got.Files) != fmt.Sprint(want) || got.Total != len(want) {
		t.Errorf("after rescan: %v, want %v", got, want)
	}
	if len(want) == 1 && got.Summary() != "1 file skipped: f-photo.heic (unsupported file type)" {
		t.Errorf("summary %q", got.Summary())
	}
}

// The list is bounded: a folder of many unsupported files keeps
// MaxSkippedListed names and counts them all; names are clipped in the
// summary.
func TestSkipped_IsBounded(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("n", 200)
	for i := range MaxSkippedListed + 30 {
		write(t, filepath.Join(dir, fmt.Sprintf("%s-%03d.bin", long, i)), []byte{0})
	}
	lib, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lib.Close() })
	got := lib.Skipped()
	if got.Total != MaxSkippedListed+30 || len(got.Files) != MaxSkippedListed {
		t.Fatalf("total %d, listed %d", got.Total, len(got.Files))
	}
	sum := got.Summary()
	if n := len([]rune(sum)); n > 3*(maxSkippedName+40)+80 {
		t.Errorf("summary is %d runes: %q", n, sum)
	}
	if !strings.HasSuffix(sum, fmt.Sprintf(" and %d more (see the --log file)", MaxSkippedListed+27)) || !strings.Contains(sum, "…") {
		t.Errorf("summary %q", sum)
	}
}

// Each skipped file is logged once, unsupported ones too, not again on
// every rescan while it stays; a file newly skipped by a rescan is logged.
func TestSkipped_LoggedOncePerFile(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "tool.exe"), []byte("MZ"))
	write(t, filepath.Join(dir, "good.md"), []byte("# good\n"))
	var logs bytes.Buffer
	lib, err := Open(Options{Dir: dir, Host: "org.example.docs", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lib.Close() })
	lib.rescan()
	lib.rescan()
	symlink(t, "loop", filepath.Join(dir, "loop"))
	lib.rescan()
	for file, want := range map[string]int{"pipe.md": 1, "tool.exe": 1, "loop": 1, "good.md": 0} {
		if n := strings.Count(logs.String(), "path="+file+" "); n != want {
			t.Errorf("%s logged %d times, want %d:\n%s", file, n, want, logs.String())
		}
	}
}
