package library

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"syscall"

	"github.com/dpe-tui/dpe-tui/internal/bytesize"
)

// MaxSkippedListed bounds Skipped.Files: a folder of a million
// unsupported files keeps fifty names and a count, not a million.
const MaxSkippedListed = 50

// maxSkippedName bounds one name in Skipped.Summary, in runes.
const maxSkippedName = 60

// summaryNames is how many names Skipped.Summary spells out.
const summaryNames = 3

// SkippedFile is one file of a folder the library does not serve, and why.
// Path is the file's path inside the folder as it is on disk: the user's
// (or anyone's) bytes, so sanitize it where it is shown.
type SkippedFile struct {
	Path   string
	Reason string // short and fixed by this package: "over 64 MiB", "symlink loop", …
}

// Skipped is what the last walk of a folder left out: hidden files are not
// counted (they are left out on purpose), everything else is — files too
// large, FIFOs, devices and sockets, symlinks that loop, dangle, leave the
// folder or point at a directory, unreadable entries and files of a type
// the converter does not know.
type Skipped struct {
	// Files are the first MaxSkippedListed, in walk (lexical) order.
	Files []SkippedFile
	// Total counts every skipped file, listed or not.
	Total int
}

// Skipped is what the folder's last walk (New, or the latest rescan) left
// out. It is a copy: the caller may keep it.
func (l *Library) Skipped() Skipped {
	l.lib.mu.RLock()
	defer l.lib.mu.RUnlock()
	s := l.lib.skipped
	s.Files = append([]SkippedFile(nil), s.Files...)
	return s
}

// Summary is the skipped files as one line ("3 files skipped: big.pdf
// (over 64 MiB), pipe (FIFO, not a regular file), loop (symlink loop)"),
// or "" when nothing was skipped. It names at most three files, each
// clipped, and counts the rest. Names are as on disk: sanitize the line
// where it is shown.
func (s Skipped) Summary() string {
	if s.Total == 0 {
		return ""
	}
	var b strings.Builder
	if s.Total == 1 {
		b.WriteString("1 file skipped: ")
	} else {
		fmt.Fprintf(&b, "%d files skipped: ", s.Total)
	}
	n := min(len(s.Files), summaryNames)
	for i, f := range s.Files[:n] {
		if i > 0 {
			b.WriteString(", ")
		}
		name := f.Path
		if r := []rune(name); len(r) > maxSkippedName {
			name = string(r[:maxSkippedName-1]) + "…"
		}
		fmt.Fprintf(&b, "%s (%s)", name, f.Reason)
	}
	if rest := s.Total - n; rest > 0 {
		fmt.Fprintf(&b, " and %d more (see the --log file)", rest)
	}
	return b.String()
}

// Reasons a file is skipped that are not errors of a read.
var (
	errUnsupported     = errors.New("unsupported file type")
	errLinkedDir       = errors.New("symlinked directory, not followed")
	errLinkNotFollowed = errors.New("symlink, not followed here")
	errLinkLoop        = errors.New("symlink loop")
	errLinkBroken      = errors.New("broken symlink")
)

// linkError names why a symlink could not be resolved.
func linkError(err error) error {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return errLinkLoop
	case errors.Is(err, fs.ErrNotExist):
		return errLinkBroken
	}
	return err
}

// skipList collects one walk's skipped files.
type skipList struct {
	limit int64 // MaxFileBytes, for "over N MiB"
	out   Skipped
}

func newSkipList(limit int64) *skipList { return &skipList{limit: limit} }

// add records p, skipped because of err. A nil list records nothing.
func (s *skipList) add(p string, err error) {
	if s == nil {
		return
	}
	s.out.Total++
	if len(s.out.Files) < MaxSkippedListed {
		s.out.Files = append(s.out.Files, SkippedFile{Path: p, Reason: s.reason(err)})
	}
}

func (s *skipList) result() Skipped {
	if s == nil {
		return Skipped{}
	}
	return s.out
}

// reason is err as a few words for a listing: the cause, never a path (the
// entry names the file already) and never more than one line.
func (s *skipList) reason(err error) string {
	switch {
	case errors.Is(err, errTooLarge):
		return "over " + bytesize.Format(s.limit)
	case errors.Is(err, errNotRegular):
		var kind string
		if _, after, ok := strings.Cut(err.Error(), "("); ok {
			// "a FIFO" (localfile.Kind) reads as "FIFO, not a regular file".
			kind = strings.TrimPrefix(strings.TrimSuffix(after, ")"), "a ")
		}
		if kind == "" {
			return errNotRegular.Error()
		}
		return kind + ", not a regular file"
	case errors.Is(err, errOutside):
		return "symlink leaves the folder"
	case errors.Is(err, syscall.ELOOP):
		return errLinkLoop.Error()
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, fs.ErrNotExist):
		return "gone while read"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err != nil {
		err = pe.Err
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if r := []rune(msg); len(r) > 80 {
		msg = string(r[:79]) + "…"
	}
	return msg
}

// logNewSkips logs, once, each file a walk skipped that the walk before it
// (prev) did not: a rescan every few seconds would otherwise repeat the
// same lines for as long as the files stay. Past the listed files, one
// line says how many more.
func logNewSkips(log *slog.Logger, prev, now Skipped) {
	seen := make(map[SkippedFile]bool, len(prev.Files))
	for _, f := range prev.Files {
		seen[f] = true
	}
	for _, f := range now.Files {
		if !seen[f] {
			log.Warn("library: skip file", "path", f.Path, "reason", f.Reason)
		}
	}
	if more := now.Total - len(now.Files); more > 0 && now.Total != prev.Total {
		log.Warn("library: more files skipped", "count", more)
	}
}
