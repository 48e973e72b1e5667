// Package localfile is the one rule for opening a local file the program
// reads: regular files only, never a FIFO, device, socket or directory,
// and nothing under a pseudo-filesystem (/proc, /sys, /dev), even through
// a symlink. Every local open uses it: get, open, convert, check and hash
// of a file, file:// access, the library's folder and the config file.
//
// Why each step: opening a FIFO blocks until a writer comes (forever, deaf
// to signals) and a device may never end, so the kind is checked before
// the open; the path may be swapped between that check and the open, so
// the open neither blocks nor follows a final symlink, and the opened
// descriptor is checked again. /proc/self/status claims to be a regular
// file of size 0 and reads as live kernel state: a symlink to it once made
// `get` print an empty page where `convert` refused it.
package localfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The causes a *Refusal wraps.
var (
	ErrNotRegular  = errors.New("not a regular file")
	ErrOutsideRoot = errors.New("outside the root")
)

// Refusal is a local file the rule does not read: it is there, but it is
// not a regular file, or it leads outside the root it must stay in.
type Refusal struct {
	Name string // the name as given
	Kind string // what it is ("a FIFO", "/proc is a pseudo-filesystem"), when not regular
	Root string // the root it leaves, when outside
}

// Reason is the refusal without the name: "not a regular file (a FIFO)",
// "outside ROOT".
func (r *Refusal) Reason() string {
	if r.Root != "" {
		return "outside " + r.Root
	}
	return fmt.Sprintf("%s (%s)", ErrNotRegular, r.Kind)
}

func (r *Refusal) Error() string { return r.Name + ": " + r.Reason() }

func (r *Refusal) Unwrap() error {
	if r.Root != "" {
		return ErrOutsideRoot
	}
	return ErrNotRegular
}

// Options are where the local opens differ, and nothing else.
type Options struct {
	// Root, when set, is a directory the file, all symlinks resolved,
	// must be inside: file:// URIs a peer sends under
	// --allow-file-uri=ROOT. A file the user names is not confined.
	Root string
}

// Open opens name read-only if it is a regular file outside the
// pseudo-filesystems (and inside opt.Root when set), following symlinks
// to their target. It returns the descriptor and its Stat; a file that is
// there but not readable by the rule is a *Refusal, other errors are the
// open's own (*fs.PathError naming name as given).
func Open(name string, opt Options) (*os.File, fs.FileInfo, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, nil, err
	}
	real := abs
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		real = r
	}
	if root := PseudoRoot(abs, real); root != "" {
		return nil, nil, &Refusal{Name: name, Kind: root + " is a pseudo-filesystem"}
	}
	if opt.Root != "" {
		root, err := filepath.Abs(opt.Root)
		if err != nil {
			return nil, nil, err
		}
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
		rel, err := filepath.Rel(root, real)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, nil, &Refusal{Name: name, Root: opt.Root}
		}
	}
	st, err := os.Lstat(real)
	if err != nil {
		return nil, nil, renamed(err, name)
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &Refusal{Name: name, Kind: Kind(st.Mode())}
	}
	f, err := openNoBlock(real)
	if err != nil {
		return nil, nil, renamed(err, name)
	}
	return checked(f, name)
}

// OpenIn opens p inside root (os.Root: no "..", absolute path or symlink
// leaves it) read-only if it is a regular file, with the same checks as
// Open. A path that leaves the root is a *Refusal wrapping ErrOutsideRoot.
func OpenIn(root *os.Root, p string) (*os.File, fs.FileInfo, error) {
	st, err := root.Stat(p)
	if err != nil {
		return nil, nil, inRoot(err, root, p)
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &Refusal{Name: p, Kind: Kind(st.Mode())}
	}
	f, err := root.OpenFile(p, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, nil, inRoot(err, root, p)
	}
	return checked(f, p)
}

// checked is f if its descriptor is a regular file: the path may have been
// swapped since the Stat.
func checked(f *os.File, name string) (*os.File, fs.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &Refusal{Name: name, Kind: Kind(st.Mode())}
	}
	return f, st, nil
}

// renamed makes a *fs.PathError name the file as given, not its resolved
// target.
func renamed(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = name
		return &namedError{pe: pe}
	}
	return err
}

// namedError is an *fs.PathError said as the user reads it: the name as
// given and the cause ("report.docx: no such file or directory"), without
// the syscall the rule happened to make ("lstat report.docx: …"). It
// unwraps to the *fs.PathError, so errors.Is and errors.As still see it.
type namedError struct{ pe *fs.PathError }

func (e *namedError) Error() string { return e.pe.Path + ": " + e.pe.Err.Error() }

func (e *namedError) Unwrap() error { return e.pe }

// inRoot turns os.Root's refusal of a path that resolves outside it into a
// *Refusal.
func inRoot(err error, root *os.Root, p string) error {
	if EscapesRoot(err) {
		return &Refusal{Name: p, Root: root.Name()}
	}
	return err
}

// EscapesRoot reports whether err is an os.Root refusing a path that
// resolves outside it (its Stat, Open or Lstat), or a *Refusal for leaving
// a root. os keeps the first unexported, so it is recognised by its text
// inside the *fs.PathError.
func EscapesRoot(err error) bool {
	if errors.Is(err, ErrOutsideRoot) {
		return true
	}
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent"
}

// PseudoRoot names the pseudo-filesystem (/proc, /sys, /dev) the first of
// paths lies in, or "" when none does. Their files claim to be regular (or
// are devices) and read as endless or live kernel state.
func PseudoRoot(paths ...string) string {
	for _, p := range paths {
		p = filepath.ToSlash(filepath.Clean(p))
		for _, root := range []string{"/proc", "/sys", "/dev"} {
			if p == root || strings.HasPrefix(p, root+"/") {
				return root
			}
		}
	}
	return ""
}

// Kind names what a file that is not regular is: "a directory", "a FIFO".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device" // character devices are named above
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file"
}

// Dir is the one rule for a folder the user names to serve (--docs DIR):
// it must be there and be a directory. The error names the folder as
// given and the cause in words ("no such directory", "not a directory (a
// regular file)"), not a syscall.
func Dir(name string) error {
	fi, err := os.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such directory", name)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", name)
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s: %w", name, err)
	case !fi.IsDir():
		k := "a regular file"
		if !fi.Mode().IsRegular() {
			k = Kind(fi.Mode())
		}
		return fmt.Errorf("%s: not a directory (%s)", name, k)
	}
	return nil
}
