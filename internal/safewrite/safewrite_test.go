package safewrite

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReplace_RegularFileIsReplacedAtomically(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := os.WriteFile(p, []byte("old contents, longer"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o640); err != nil { // whatever the umask
		t.Fatal(err)
	}
	if err := Replace(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(got) != "new" || st.Mode().Perm() != 0o640 {
		t.Fatalf("got %q mode %v", got, st.Mode())
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}

func TestReplace_NewPathIsCreated(t *testing.T) {
	p := filepath.Join(t.TempDir(), "new.json")
	if err := Replace(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(got) != "x" || st.Mode().Perm() != 0o600 {
		t.Fatalf("got %q mode %v", got, st.Mode().Perm())
	}
}

func TestReplace_SymlinkStaysALinkAndItsTargetIsWritten(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "link.json")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}
	if err := Replace(link, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(link)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", st.Mode(), err)
	}
	if got, _ := os.ReadFile(target); string(got) != "new" {
		t.Fatalf("target holds %q", got)
	}
	// The target keeps its mode: a shared 0644 file does not become 0600.
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o644 {
		t.Fatalf("target mode %v, want 0644", st.Mode().Perm())
	}
}

func TestReplace_KeepsTheOwnerOfAReplacedFile(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root can give a file to another user")
	}
	p := filepath.Join(t.TempDir(), "theirs.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, 12345, 23456); err != nil {
		t.Fatal(err)
	}
	if err := Replace(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	sys := st.Sys().(*syscall.Stat_t)
	if sys.Uid != 12345 || sys.Gid != 23456 || st.Mode().Perm() != 0o644 {
		t.Fatalf("owner %d:%d mode %v, want 12345:23456 0644", sys.Uid, sys.Gid, st.Mode().Perm())
	}
}

func TestReplace_FIFOIsWrittenThroughNotReplaced(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// The reader opens non-blocking so it is there before the write.
	r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := make(chan string, 1)
	werr := Replace(p, []byte("through the pipe"), 0o644)
	go func() { b, _ := io.ReadAll(r); got <- string(b) }()
	if werr != nil {
		t.Fatal(werr)
	}
	if s := <-got; s != "through the pipe" {
		t.Fatalf("reader got %q", s)
	}
	if st, _ := os.Lstat(p); st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced by %v", st.Mode())
	}
}

func TestReplace_FIFOWithoutReaderIsRefusedAtOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	err := Replace(p, []byte("x"), 0o644)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "FIFO nobody is reading") || !strings.HasPrefix(err.Error(), p+":") {
		t.Fatalf("err = %v", err)
	}
	if st, _ := os.Lstat(p); st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced by %v", st.Mode())
	}
}

func TestReplace_CharacterDeviceIsWrittenThroughNotReplaced(t *testing.T) {
	p := filepath.Join(t.TempDir(), "null")
	// A copy of /dev/null (major 1, minor 3) in a temporary directory.
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod needs root: %v", err)
	}
	if err := Replace(p, []byte("discarded"), 0o644); err != nil {
		t.Skipf("the file system refuses devices (nodev?): %v", err)
	}
	if st, _ := os.Lstat(p); st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("the device was replaced by %v", st.Mode())
	}
}

func TestReplace_DevNullStaysADevice(t *testing.T) {
	before, err := os.Lstat("/dev/null")
	if err != nil || before.Mode()&fs.ModeCharDevice == 0 {
		t.Skip("no /dev/null device here")
	}
	if err := Replace("/dev/null", []byte("discarded"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Lstat("/dev/null")
	if after.Mode()&fs.ModeCharDevice == 0 || !os.SameFile(before, after) {
		t.Fatalf("/dev/null was replaced: %v", after.Mode())
	}
}

func TestReplace_DirectoryIsRefused(t *testing.T) {
	d := t.TempDir()
	err := Replace(d, []byte("x"), 0o644)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("err = %v", err)
	}
}

func TestNew_NeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	if err := New(p, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := New(p, []byte("second"), 0o600); !errors.Is(err, ErrRefused) {
		t.Fatalf("second write: %v", err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := New(dangling, []byte("x"), 0o600); !errors.Is(err, ErrRefused) {
		t.Fatalf("write onto a dangling link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); err == nil {
		t.Fatal("New followed a dangling link")
	}
	if got, _ := os.ReadFile(p); string(got) != "first" {
		t.Fatalf("got %q", got)
	}
}
