//go:build unix

package localfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpen_RegularFilesOnly: a regular file (also through a symlink) is
// opened; a FIFO, a directory, /proc/self/status and a symlink to it are
// refused by name and kind, without blocking.
func TestOpen_RegularFilesOnly(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.txt")
	if err := os.WriteFile(doc, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	toDoc, toProc, toFIFO := link("to-doc", doc), link("status", "/proc/self/status"), link("to-pipe", fifo)

	for _, ok := range []string{doc, toDoc} {
		f, st, err := Open(ok, Options{})
		if err != nil {
			t.Fatalf("%s: %v", ok, err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if string(b) != "hello" || st.Size() != 5 {
			t.Errorf("%s: read %q, size %d", ok, b, st.Size())
		}
	}
	for _, tt := range []struct{ name, want string }{
		{fifo, fifo + ": not a regular file (a FIFO)"},
		{toFIFO, toFIFO + ": not a regular file (a FIFO)"},
		{dir, dir + ": not a regular file (a directory)"},
		{"/proc/self/status", "/proc/self/status: not a regular file (/proc is a pseudo-filesystem)"},
		{toProc, toProc + ": not a regular file (/proc is a pseudo-filesystem)"},
	} {
		f, _, err := Open(tt.name, Options{})
		var r *Refusal
		if f != nil || !errors.As(err, &r) || !errors.Is(err, ErrNotRegular) || err.Error() != tt.want {
			t.Errorf("%s: %v, want the refusal %q", tt.name, err, tt.want)
		}
	}
	if _, _, err := Open(filepath.Join(dir, "missing"), Options{}); !errors.Is(err, os.ErrNotExist) || errors.As(err, new(*Refusal)) {
		t.Errorf("a missing file: %v, want the open's own not-exist error", err)
	}
}

// TestOpen_RootConfines: with a Root, a file whose real path (symlinks
// resolved) leaves it is refused as outside; one inside is opened.
func TestOpen_RootConfines(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	secret := filepath.Join(out, "secret.json")
	inside := filepath.Join(root, "in.json")
	for _, p := range []string{secret, inside} {
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	escape := filepath.Join(root, "escape.json")
	if err := os.Symlink(secret, escape); err != nil {
		t.Fatal(err)
	}
	if f, _, err := Open(inside, Options{Root: root}); err != nil {
		t.Fatalf("inside: %v", err)
	} else {
		f.Close()
	}
	for _, p := range []string{secret, escape} {
		_, _, err := Open(p, Options{Root: root})
		if !errors.Is(err, ErrOutsideRoot) || err.Error() != p+": outside "+root {
			t.Errorf("%s: %v, want outside %s", p, err, root)
		}
	}
	if f, _, err := Open(escape, Options{}); err != nil {
		t.Errorf("without a root a symlink the user names is followed: %v", err)
	} else {
		f.Close()
	}
}

// TestOpenIn_StaysInTheRootAndRefusesTheKind: inside an os.Root a symlink
// out of it is outside, a FIFO is refused without blocking, a regular file
// is opened.
func TestOpenIn_StaysInTheRootAndRefusesTheKind(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# a"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "b.md"), []byte("# b"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "b.md"), filepath.Join(dir, "b.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "p"), 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	f, st, err := OpenIn(root, "a.md")
	if err != nil || st.Size() != 3 {
		t.Fatalf("a.md: %v", err)
	}
	f.Close()
	if _, _, err := OpenIn(root, "b.md"); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("b.md (a symlink out): %v, want outside", err)
	}
	if _, _, err := OpenIn(root, "p"); !errors.Is(err, ErrNotRegular) || err.Error() != "p: not a regular file (a FIFO)" {
		t.Errorf("p: %v, want a FIFO refused", err)
	}
}
