package library

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"syscall"
)

// folder is where a library reads documents and the images they embed:
// the embedded corpus or a caller's fs.FS, or (Options.Dir) a directory
// opened with os.OpenRoot, so that no read — by path, through a symlink or
// a symlinked parent directory — can leave it.
type folder struct {
	fsys fs.FS    // root.FS() when root is set
	root *os.Root // nil unless serving a directory
	log  *slog.Logger
}

// Why a file is not read; the caller logs them with the file's path.
var (
	errOutside    = errors.New("symlink leaves the served folder")
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = errors.New("file too large")
	errNoURI      = errors.New("its name cannot be a dpe:// URI")
)

// escapes reports whether err is os.Root refusing a path that resolves
// outside the root. os keeps that error unexported, so it is recognised by
// its text inside the *fs.PathError.
func escapes(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent"
}

// stat is Stat through the folder: for a root, a symlink is resolved inside
// the root and one that leaves it is errOutside.
func (f *folder) stat(p string) (fs.FileInfo, error) {
	if f.root == nil {
		return fs.Stat(f.fsys, p)
	}
	fi, err := f.root.Stat(p)
	if err != nil && escapes(err) {
		return nil, errOutside
	}
	return fi, err
}

// read returns the content of the regular file p, at most limit bytes. It
// refuses FIFOs, devices, sockets and directories before opening them (a
// FIFO would block the open or the read forever), opens with O_NONBLOCK
// and checks the opened file again (the path may have been swapped between
// the two), and never reads past limit+1 bytes, whatever the file claims.
func (f *folder) read(p string, limit int64) ([]byte, fs.FileInfo, error) {
	fi, err := f.stat(p)
	if err != nil {
		return nil, nil, err
	}
	if err := checkRegular(fi, limit); err != nil {
		return nil, fi, err
	}
	var file fs.File
	if f.root != nil {
		file, err = f.root.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil && escapes(err) {
			return nil, fi, errOutside
		}
	} else {
		file, err = f.fsys.Open(p)
	}
	if err != nil {
		return nil, fi, err
	}
	defer file.Close()
	if fi, err = file.Stat(); err != nil {
		return nil, nil, err
	}
	if err := checkRegular(fi, limit); err != nil {
		return nil, fi, err
	}
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil {
		return nil, fi, err
	}
	if int64(len(data)) > limit {
		return nil, fi, fmt.Errorf("%w: grew past %d bytes while read", errTooLarge, limit)
	}
	return data, fi, nil
}

// warn logs through the folder's logger, if any.
func (f *folder) warn(msg string, args ...any) {
	if f.log != nil {
		f.log.Warn(msg, args...)
	}
}

func checkRegular(fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w (%s)", errNotRegular, fileKind(fi.Mode()))
	}
	if fi.Size() > limit {
		return fmt.Errorf("%w: %d bytes, limit %d", errTooLarge, fi.Size(), limit)
	}
	return nil
}

// fileKind names a non-regular file type for a log line.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "irregular file"
}

// currentStamp is the size and mtime of s's file now, for the read cache
// key: a read notices a file changed since the last walk (one stat) and
// converts it again instead of serving the old content until the next
// rescan. Sources that are not files of a served directory (embedded,
// generated, a caller's fs.FS) and files that cannot be stat'ed keep the
// walk's stamp; the load itself then reports what is wrong.
func (l *library) currentStamp(s *source) stamp {
	if s.path == "" || l.files.root == nil {
		return s.stamp
	}
	fi, err := l.files.stat(s.path)
	if err != nil || !fi.Mode().IsRegular() {
		return s.stamp
	}
	return stamp{fi.Size(), fi.ModTime().UnixNano()}
}
