package library

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"

	"github.com/dpe-tui/dpe-tui/internal/localfile"
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

// stat is Stat through the folder: for a root, a symlink is resolved inside
// the root and one that leaves it is errOutside.
func (f *folder) stat(p string) (fs.FileInfo, error) {
	if f.root == nil {
		return fs.Stat(f.fsys, p)
	}
	fi, err := f.root.Stat(p)
	if err != nil && localfile.EscapesRoot(err) {
		return nil, errOutside
	}
	return fi, err
}

// read returns the content of the regular file p, at most limit bytes,
// under the one local-file rule (localfile.OpenIn for a directory: no
// FIFO, device, socket or directory is opened, and none swapped in is
// read), and never reads past limit+1 bytes, whatever the file claims.
func (f *folder) read(p string, limit int64) ([]byte, fs.FileInfo, error) {
	var file fs.File
	var fi fs.FileInfo
	var err error
	if f.root != nil {
		var refused *localfile.Refusal
		file, fi, err = localfile.OpenIn(f.root, p)
		switch {
		case errors.As(err, &refused) && refused.Root != "":
			return nil, nil, errOutside
		case refused != nil:
			return nil, nil, fmt.Errorf("%w (%s)", errNotRegular, refused.Kind)
		case err != nil:
			return nil, nil, err
		}
	} else {
		// A caller's fs.FS (os.DirFS) may hold a FIFO: its kind is checked
		// before the open too.
		if fi, err = fs.Stat(f.fsys, p); err != nil {
			return nil, nil, err
		}
		if err := checkRegular(fi, limit); err != nil {
			return nil, fi, err
		}
		if file, err = f.fsys.Open(p); err != nil {
			return nil, nil, err
		}
		if fi, err = file.Stat(); err != nil {
			file.Close()
			return nil, nil, err
		}
	}
	defer file.Close()
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
		return fmt.Errorf("%w (%s)", errNotRegular, localfile.Kind(fi.Mode()))
	}
	if fi.Size() > limit {
		return fmt.Errorf("%w: %d bytes, limit %d", errTooLarge, fi.Size(), limit)
	}
	return nil
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
