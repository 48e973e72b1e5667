// Package safewrite is the one rule every dpe-tui writer follows when it
// puts bytes under a name the user (or a peer) chose.
//
// The usual "write a temporary file, rename it over the name" is atomic
// only for a regular file. Renamed over a FIFO it leaves a regular file
// where the pipe was; over a symlink it replaces the link instead of the
// file it points to; and run as root with -o /dev/null it once replaced
// the machine's /dev/null with a regular file, which broke every program
// that opens it. So:
//   - a symlink is followed and the rule applies to what it points to
//     (the link stays a link);
//   - a regular file or a new name is written atomically (temporary file
//     in the same directory, then rename), and the name is checked again
//     just before the rename, so a FIFO swapped in meanwhile is not
//     replaced;
//   - a FIFO or a character device is written through, like a shell's
//     redirection; a FIFO nobody reads is refused at once instead of
//     blocking;
//   - a directory, socket or block device is refused with one line naming
//     it and what it is;
//   - nothing under /dev is ever renamed onto: a regular file there is
//     written in place.
package safewrite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/dpe-tui/dpe-tui/internal/localfile"
)

// ErrRefused is wrapped by the errors for a destination this package will
// not write (a directory, socket, block device, a FIFO without a reader,
// or, for New, anything already there).
var ErrRefused = errors.New("refused to write")

// Replace writes data to name, replacing a regular file atomically and
// writing through a FIFO or a character device. A file it creates gets
// mode perm; a file it replaces (through a symlink or not) keeps its mode
// and, where allowed, its owner, as a shell's redirection would. Errors
// name the file once.
func Replace(name string, data []byte, perm fs.FileMode) error {
	target, st, err := resolve(name)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	switch {
	case st == nil || st.Mode().IsRegular():
		if underDev(target) {
			return writeInPlace(name, target, data, perm, st == nil)
		}
		return replaceAtomic(name, target, data, perm, st)
	case st.Mode()&fs.ModeNamedPipe != 0, st.Mode()&fs.ModeCharDevice != 0:
		return writeThrough(name, target, st.Mode(), data)
	}
	return refuse(name, "it is "+localfile.Kind(st.Mode()))
}

// New writes data to name only if nothing is there yet (not even a
// dangling symlink): the file is written under a temporary name and
// hard-linked into place, so it appears whole or not at all, and a name
// that appeared meanwhile is never overwritten.
func New(name string, data []byte, perm fs.FileMode) error {
	if _, err := os.Lstat(name); err == nil {
		return fmt.Errorf("%s: %w: it already exists", name, ErrRefused)
	}
	if underDev(abs(name)) {
		return refuse(name, "it is under /dev")
	}
	tmp, err := writeTemp(name, data, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, name); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w: it already exists", name, ErrRefused)
		}
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// resolve follows symlinks in name. st is nil when the final target does
// not exist (a new file, or a dangling link whose target is then created).
func resolve(name string) (string, fs.FileInfo, error) {
	target := name
	for range 40 { // ELOOP's bound on Linux
		st, err := os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) {
			return target, nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return target, st, nil
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		target = link
	}
	return "", nil, errors.New("too many levels of symbolic links")
}

func replaceAtomic(name, target string, data []byte, perm fs.FileMode, old fs.FileInfo) error {
	if old != nil {
		perm = old.Mode().Perm()
	}
	tmp, err := writeTemp(target, data, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	keepOwner(tmp, old)
	defer os.Remove(tmp) // a no-op once renamed
	// Checked again at the last moment: what was a regular file (or
	// nothing) when the write began must still be one.
	if st, err := os.Lstat(target); err == nil && !st.Mode().IsRegular() {
		return refuse(name, localfile.Kind(st.Mode())+" appeared while writing")
	}
	if err := os.Rename(tmp, target); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// keepOwner gives the temporary file the owner and group of the file it
// replaces. Only root (or a group the user is in) may; otherwise the
// replacement belongs to the user who wrote it, as with any new file.
func keepOwner(tmp string, old fs.FileInfo) {
	if old == nil {
		return
	}
	sys, ok := old.Sys().(*syscall.Stat_t)
	if !ok || (int(sys.Uid) == os.Getuid() && int(sys.Gid) == os.Getgid()) {
		return
	}
	_ = os.Lchown(tmp, int(sys.Uid), int(sys.Gid)) // best effort, see above
}

func writeTemp(target string, data []byte, perm fs.FileMode) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*")
	if err != nil {
		return "", bare(err)
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Chmod(perm)
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", bare(werr)
	}
	return f.Name(), nil
}

// bare drops the path from a temporary file's error: the callers name the
// file the user asked for, and the temporary name means nothing to them.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writeThrough writes into an existing FIFO or character device. The open
// is non-blocking (a FIFO without a reader fails with ENXIO instead of
// waiting forever) and the descriptor is checked to be what was stat'ed.
func writeThrough(name, target string, want fs.FileMode, data []byte) error {
	f, err := os.OpenFile(target, os.O_WRONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, syscall.ENXIO) {
		return refuse(name, "a FIFO nobody is reading")
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if st.Mode().Type() != want.Type() {
		return refuse(name, localfile.Kind(st.Mode())+" appeared while writing")
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return f.Close()
}

// writeInPlace writes a regular file under /dev (a tmpfs such as /dev/shm)
// without a rename, so nothing there is ever replaced by one.
func writeInPlace(name, target string, data []byte, perm fs.FileMode, create bool) error {
	flags := os.O_WRONLY | os.O_TRUNC | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	if create {
		flags |= os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(target, flags, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		if err == nil {
			return refuse(name, localfile.Kind(st.Mode())+" appeared while writing")
		}
		return fmt.Errorf("write %s: %w", name, err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return f.Close()
}

func refuse(name, cause string) error {
	return fmt.Errorf("%s: %w: %s", name, ErrRefused, cause)
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

func underDev(p string) bool {
	p = filepath.ToSlash(filepath.Clean(abs(p)))
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		p = filepath.ToSlash(filepath.Join(r, filepath.Base(p)))
	}
	return p == "/dev" || strings.HasPrefix(p, "/dev/")
}
