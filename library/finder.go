package library

import (
	"context"
	"errors"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/finder"
)

// FinderOptions configures the Finder a library runs.
type FinderOptions struct {
	// IndexDir is where the index is kept. Empty: a folder served with Dir
	// keeps it under the XDG cache dir, keyed by the folder's absolute
	// path and the host (finder.CacheDir), so a restart does not rebuild
	// it; the embedded corpus and a caller's fs.FS are indexed in memory.
	IndexDir string
	// Memory keeps the index in memory whatever IndexDir says.
	Memory bool
	// Rescan is how often a folder served with Dir is walked again for
	// added, changed and removed files (default 10s; negative: never).
	Rescan time.Duration
	// Start, when set, holds indexing until it is closed (the embedded
	// demo closes it once its computers have joined the office).
	Start <-chan struct{}
	// Background indexes at low priority (finder.Options.Background), for
	// a Finder that shares the process with servers whose latency counts.
	Background bool
	// Limits bound each query (finder.QueryLimits); zero: its defaults.
	Limits finder.QueryLimits
}

// DefaultRescan is FinderOptions.Rescan's default.
const DefaultRescan = 10 * time.Second

// Library is a running library server, with its Finder when enabled.
type Library struct {
	srv    *mcp.Server
	lib    *library
	finder *finder.Finder

	stopPoll context.CancelFunc // nil: the folder is not polled
	polling  sync.WaitGroup
}

// Server is the MCP server to connect to a transport or a computer.
func (l *Library) Server() *mcp.Server { return l.srv }

// Finder is the Finder, nil unless Options.Finder was set.
func (l *Library) Finder() *finder.Finder { return l.finder }

// Close stops the Finder and closes the folder.
func (l *Library) Close() error {
	l.lib.stopBackground()
	if l.stopPoll != nil {
		l.stopPoll()
		l.polling.Wait()
	}
	var err error
	if l.finder != nil {
		err = l.finder.Close()
	}
	if l.lib.files.root != nil {
		_ = l.lib.files.root.Close()
	}
	return errors.Join(err, l.lib.close())
}

// IndexKey is the key of a folder's stored index (finder.CacheDir): the
// folder alone, absolute and with symlinks resolved, so every command that
// serves the same folder (mcp --docs, the CLI's --docs, serve --docs) finds
// the same index whatever dpe:// host it gives the documents. Documents
// are re-indexed by content key, so a different host costs a re-index of
// the URIs that changed, never a wrong hit.
func IndexKey(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return "dir:" + abs
}

func (l *Library) startFinder(builtin bool) error {
	fo := *l.lib.opt.Finder
	dir := fo.IndexDir
	if dir == "" && l.lib.opt.Dir != "" {
		d, err := finder.CacheDir(IndexKey(l.lib.opt.Dir))
		if err != nil {
			l.lib.opt.Logger.Warn("library: Finder index kept in memory", "err", err)
		} else {
			dir = d
		}
	}
	if fo.Memory || (builtin && fo.IndexDir == "") {
		dir = ""
	}
	rescan := fo.Rescan
	switch {
	case l.lib.opt.Dir == "" || rescan < 0:
		rescan = 0 // an embedded or caller's FS does not change
	case rescan == 0:
		rescan = DefaultRescan
	}
	f, err := finder.New(finder.Options{
		Dir: dir, Logger: l.lib.opt.Logger.With("component", "finder"),
		Start: fo.Start, Background: fo.Background, Limits: fo.Limits,
		Source: func(context.Context) ([]finder.Doc, error) { return l.lib.finderDocs(), nil },
	})
	if err != nil {
		return err
	}
	l.finder = f
	f.AddTools(l.srv)
	if rescan > 0 {
		ctx, cancel := context.WithCancel(context.Background())
		l.stopPoll = cancel
		l.polling.Add(1)
		go l.poll(ctx, rescan)
	}
	return nil
}

// poll walks the folder every interval and, when a file was added,
// changed or removed, asks the Finder to index again (Finder.Rescan). A
// walk that finds nothing new costs one stat per file and leaves the
// index, and find's "complete", alone.
func (l *Library) poll(ctx context.Context, every time.Duration) {
	defer l.polling.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if l.rescan() {
			l.finder.Rescan()
		}
	}
}

// rescan walks the folder again and brings the listed resources in line:
// new files are added, removed files are removed (the SDK notifies
// clients with resources/list_changed), changed files are replaced. It
// reports whether anything changed.
func (l *Library) rescan() bool {
	lib := l.lib
	lib.mu.RLock()
	prev := make(map[string]*source, len(lib.sources))
	for _, s := range lib.sources {
		if s.path != "" {
			prev[s.path] = s
		}
	}
	lib.mu.RUnlock()
	next := map[string]*source{}
	skipped := newSkipList(lib.opt.MaxFileBytes)
	later, err := lib.walk(lib.files, lib.opt, prev, next, skipped)
	if err != nil {
		lib.opt.Logger.Warn("library: rescan", "err", err)
		return false
	}
	defer lib.probeLater(later) // once next is what the library serves
	var gone []string
	changed := false
	lib.mu.Lock()
	for uri, s := range lib.sources {
		if s.path == "" {
			continue
		}
		if n, ok := next[uri]; !ok {
			delete(lib.sources, uri)
			gone = append(gone, uri)
		} else if n != s {
			lib.cache.drop(uri)
			changed = true
		}
	}
	var added []*source
	for uri, s := range next {
		if old, ok := lib.sources[uri]; !ok || old != s {
			lib.sources[uri] = s
			if !ok {
				added = append(added, s)
			}
		}
	}
	if len(gone) > 0 || len(added) > 0 {
		lib.indexNFC()
	}
	prevSkipped := lib.skipped
	lib.skipped = skipped.result()
	lib.mu.Unlock()
	logNewSkips(lib.opt.Logger, prevSkipped, lib.skipped)
	if len(gone) > 0 {
		l.srv.RemoveResources(gone...)
	}
	for _, s := range added {
		l.srv.AddResource(s.res, lib.read)
	}
	return changed || len(gone) > 0 || len(added) > 0
}

// finderDocs lists the dpe documents served, sorted by URI.
func (l *library) finderDocs() []finder.Doc {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]finder.Doc, 0, len(l.sources))
	for uri, s := range l.sources {
		if s.info == nil {
			if s.path != "" && s.shown.Err != "" {
				// A file that could not be converted: the Finder
				// counts it as skipped and names it, without
				// converting it again.
				out = append(out, finder.Doc{URI: uri, Name: s.res.Name, Title: s.shown.Title, FileType: s.shown.FileType,
					Key: s.key, Err: s.shown.Err})
			}
			continue
		}
		key := s.key
		if key == "" {
			// Generated members are fixed by this program's version.
			key = "generated:" + uri
		}
		load := s.load
		out = append(out, finder.Doc{
			URI: uri, Name: s.res.Name, Title: s.info.Title, FileType: s.info.FileType,
			Keywords: s.info.Keywords, LastModified: s.info.LastModified, PageCount: max(s.info.PageCount, 1),
			Key: key, Load: load,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out
}
