package library

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Defaults of Options.
const (
	DefaultHost      = "io.github.dpetui.library"
	DefaultPageSize  = 50
	DefaultName      = "dpe-tui-library"
	defaultCacheSize = 8

	defaultMaxFileBytes = 64 << 20
)

// Options configures New. The zero value serves the embedded corpus.
type Options struct {
	// FS is the folder to serve; nil serves the embedded corpus plus the
	// generated corpus documents (large manual, hostile strings). FS is
	// trusted: whatever it opens is served. A folder on disk is served
	// through Dir instead.
	FS fs.FS
	// Dir, when set, is a directory on disk to serve instead of FS. It is
	// opened with os.OpenRoot and every read (walk, documents, images) goes
	// through that root: a symlink — or a symlinked directory on the way —
	// that resolves outside Dir is never followed and is skipped with a
	// WARN naming it. Symlinks to regular files inside Dir are followed and
	// served under the link's own path; symlinks to directories are not
	// descended (no cycles, no second copy of a subtree). FIFOs, devices
	// and sockets are skipped without being opened.
	Dir string
	// Host is the dpe:// host, reverse-domain style (dpe.md §host 命名规范).
	Host string
	// PageSize is the resources/list page size (ServerOptions.PageSize).
	PageSize int
	// Name is the MCP implementation name.
	Name string
	// FileRoot is the absolute directory FS stands for, used to build
	// _meta.file_uri; default "/corpus" for the embedded corpus, "/" else.
	FileRoot string
	// Generated adds that many small generated documents
	// (generated/note-0001 …) so listings span many cursor pages. They are
	// built only when read, so 100,000 is cheap.
	Generated int
	// GeneratedNameLen, when > 0, pads every generated note's name to that
	// many characters (hardening: very long names in listings).
	GeneratedNameLen int
	// CacheSize is how many converted documents to keep; default 8,
	// negative disables the cache.
	CacheSize int
	// MaxFileBytes skips larger files (WARN) and bounds every read of a
	// document; default 64 MiB.
	MaxFileBytes int64
	// Logger receives WARNs for files that cannot be converted; nil discards.
	Logger *slog.Logger
	// Finder, when set, adds the Finder tools (find, list_documents) over
	// a full-text index of every document served. Only Open accepts it.
	Finder *FinderOptions
}

// source is one listed resource and how to produce its content.
type source struct {
	res   *mcp.Resource
	load  func() ([]byte, error) // Document JSON (or text for non-dpe)
	mime  string
	key   string   // content key (hash of the file bytes) for Finder
	info  *docInfo // listing metadata of a dpe document
	path  string   // folder path, for files of the folder
	stamp stamp
}

// stamp is what a rescan compares to decide a file is unchanged without
// reading it.
type stamp struct {
	size int64
	mod  int64
}

// library is the state behind the resource handler.
type library struct {
	mu      sync.RWMutex // sources: a rescan replaces folder documents
	sources map[string]*source
	cache   *docCache
	files   *folder
	opt     Options
}

// New builds the MCP server. It walks the FS once, converting each document
// to learn its title and page_count (the Document JSON is dropped and rebuilt
// on read, behind a small cache), and registers one resource per document
// plus window://<host>/status.
func New(opt Options) (*mcp.Server, error) {
	if opt.Finder != nil {
		return nil, errors.New("library: Options.Finder needs Open (its index must be closed)")
	}
	l, err := Open(opt)
	if err != nil {
		return nil, err
	}
	return l.srv, nil
}

// Open is New returning the Library, which also runs Finder when
// Options.Finder is set; Close stops it.
func Open(opt Options) (*Library, error) {
	if opt.Host == "" {
		opt.Host = DefaultHost
	}
	if strings.ContainsAny(opt.Host, "/?#@: ") {
		return nil, fmt.Errorf("library: invalid host %q: must be a bare reverse-domain name", opt.Host)
	}
	if opt.PageSize <= 0 {
		opt.PageSize = DefaultPageSize
	}
	if opt.Name == "" {
		opt.Name = DefaultName
	}
	if opt.CacheSize == 0 {
		opt.CacheSize = defaultCacheSize
	}
	if opt.MaxFileBytes <= 0 {
		opt.MaxFileBytes = defaultMaxFileBytes
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Dir != "" && opt.FS != nil {
		return nil, errors.New("library: set Dir or FS, not both")
	}
	files := &folder{fsys: opt.FS, log: opt.Logger}
	builtin := opt.FS == nil && opt.Dir == ""
	switch {
	case opt.Dir != "":
		abs, err := filepath.Abs(opt.Dir)
		if err != nil {
			return nil, fmt.Errorf("library: %w", err)
		}
		// The root stays open for the server's life: resources/read
		// converts documents again on a cache miss.
		root, err := os.OpenRoot(abs)
		if err != nil {
			return nil, fmt.Errorf("library: %w", err)
		}
		files.root, files.fsys = root, root.FS()
		if opt.FileRoot == "" {
			opt.FileRoot = filepath.ToSlash(abs)
		}
	case builtin:
		files.fsys = Corpus()
		if opt.FileRoot == "" {
			opt.FileRoot = "/corpus"
		}
	}
	if opt.FileRoot == "" {
		opt.FileRoot = "/"
	}

	lib := &library{sources: make(map[string]*source, max(opt.Generated, 0)+64), cache: newDocCache(opt.CacheSize), files: files, opt: opt}
	if err := lib.walk(files, opt, nil, lib.sources); err != nil {
		return nil, err
	}
	if builtin {
		if err := lib.addGeneratedCorpus(opt); err != nil {
			return nil, err
		}
	}
	lib.addNotes(opt)
	lib.addStatus(opt)

	srv := mcp.NewServer(&mcp.Implementation{Name: opt.Name, Version: "0.2.0"},
		&mcp.ServerOptions{PageSize: opt.PageSize})
	for _, s := range lib.sources {
		srv.AddResource(s.res, lib.read)
	}
	out := &Library{srv: srv, lib: lib}
	if opt.Finder != nil {
		if err := out.startFinder(builtin); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// walk visits the folder in lexical order (fs.WalkDir), skipping hidden
// entries and files that are not documents. Symlinks are resolved through
// the folder (inside the root only) and never descended into.
//
// prev, when set, holds the sources of an earlier walk by path: a file
// whose size and modification time are unchanged is taken from it without
// being read again. Sources go into out.
func (l *library) walk(files *folder, opt Options, prev map[string]*source, out map[string]*source) error {
	return fs.WalkDir(files.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			opt.Logger.Warn("library: skip unreadable path", "path", p, "err", err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p != "." && strings.HasPrefix(path.Base(p), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if !l.followLink(files, p, opt) {
				return nil
			}
		} else if !d.Type().IsRegular() {
			if k, _ := classify(p); k != kindNone {
				opt.Logger.Warn("library: skip file", "path", p, "reason", fileKind(d.Type()))
			}
			return nil
		}
		if k, _ := classify(p); k == kindNone {
			return nil
		}
		ref := sourceRef{files: files, path: p, uri: escapeDocRef(opt.Host, p), fileURI: fileURIOf(opt.FileRoot, p)}
		if old := prev[p]; old != nil {
			if fi, err := files.stat(p); err == nil && (stamp{fi.Size(), fi.ModTime().UnixNano()}) == old.stamp {
				out[old.res.URI] = old
				return nil
			}
		}
		data, info, err := files.read(p, opt.MaxFileBytes)
		if err != nil {
			opt.Logger.Warn("library: skip file", "path", p, "reason", err.Error())
			return nil
		}
		ref.modTime = info.ModTime()
		c, err := convertSafe(ref, data)
		if err != nil {
			opt.Logger.Warn("library: skip document", "path", p, "err", err)
			return nil
		}
		load := func() ([]byte, error) {
			data, _, err := files.read(ref.path, opt.MaxFileBytes)
			if err != nil {
				opt.Logger.Warn("library: cannot read document", "path", ref.path, "reason", err.Error())
				return nil, err
			}
			c, err := convertSafe(ref, data)
			if err != nil {
				return nil, err
			}
			return c.JSON, nil
		}
		sum := sha256.Sum256(data)
		s := newSource(ref.uri, p, c.Info, ref.fileURI, int64(len(c.JSON)), load)
		s.key, s.path, s.stamp = hex.EncodeToString(sum[:]), p, stamp{info.Size(), info.ModTime().UnixNano()}
		out[ref.uri] = s
		return nil
	})
}

// followLink decides whether the walk lists the symlink p: only a link to a
// regular file inside the served root. Links that leave the root, links to
// directories and links of a caller's fs.FS (which cannot be checked) are
// skipped with a log line naming them, never their target.
func (l *library) followLink(files *folder, p string, opt Options) bool {
	if files.root == nil {
		opt.Logger.Warn("library: skip symlink", "path", p, "reason", "symlinks are followed only in a directory served with Dir")
		return false
	}
	fi, err := files.stat(p)
	switch {
	case errors.Is(err, errOutside):
		opt.Logger.Warn("library: skip symlink", "path", p, "reason", errOutside.Error())
		return false
	case err != nil:
		opt.Logger.Warn("library: skip symlink", "path", p, "reason", err.Error())
		return false
	case fi.IsDir():
		opt.Logger.Info("library: skip symlink", "path", p, "reason", "symlinked directories are not followed")
		return false
	}
	return true
}

// add registers a dpe document with the listing metadata of seed 000
// §DPE Resource 元数据.
func (l *library) add(uri, name string, info docInfo, fileURI string, size int64, load func() ([]byte, error)) *source {
	s := newSource(uri, name, info, fileURI, size, load)
	l.sources[uri] = s
	return s
}

func newSource(uri, name string, info docInfo, fileURI string, size int64, load func() ([]byte, error)) *source {
	desc := info.Summary
	if desc == "" {
		desc = fmt.Sprintf("%s document, %d page(s)", info.FileType, info.PageCount)
	}
	kws := info.Keywords
	if kws == nil {
		kws = []string{}
	}
	return &source{
		mime: protocol.MimeDPEInline,
		load: load,
		info: &info,
		res: &mcp.Resource{
			URI:         uri,
			Name:        name,
			Title:       info.Title,
			Description: desc,
			MIMEType:    protocol.MimeDPEInline,
			Size:        size,
			Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, LastModified: info.LastModified},
			Meta: mcp.Meta{
				"keywords":   kws,
				"file_type":  info.FileType,
				"page_count": max(info.PageCount, 1),
				"file_uri":   fileURI,
			},
		},
	}
}

// read answers resources/read: Document JSON as TextResourceContents with
// mimeType application/vnd.a2c.dpe-inline+json (dpe.md §DPE 文档读取的两种形态).
func (l *library) read(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	l.mu.RLock()
	s, ok := l.sources[uri]
	l.mu.RUnlock()
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	data, ok := l.cache.get(uri)
	if !ok {
		var err error
		if data, err = s.load(); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				// Removed since New walked the folder.
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return nil, fmt.Errorf("library: read %s: %w", uri, err)
		}
		l.cache.put(uri, data)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: uri, MIMEType: s.mime, Text: string(data),
	}}}, nil
}

// addStatus registers the one non-dpe resource: a plain-text status page,
// so agents see that listings mix schemes (dpe.md §文档发现 step 3).
func (l *library) addStatus(opt Options) {
	uri := "window://" + opt.Host + "/status"
	docs := len(l.sources)
	text := fmt.Sprintf("dpe-tui library %s\nhost: %s\ndocuments: %d\ngenerated notes: %d\npage size: %d\n",
		opt.Name, opt.Host, docs, opt.Generated, opt.PageSize)
	l.sources[uri] = &source{
		mime: "text/plain",
		load: func() ([]byte, error) { return []byte(text), nil },
		res: &mcp.Resource{
			URI:         uri,
			Name:        "status",
			Title:       "Library status",
			Description: "Plain-text status of this library server (not a DPE document).",
			MIMEType:    "text/plain",
			Size:        int64(len(text)),
			Annotations: &mcp.Annotations{Audience: []mcp.Role{"user", "assistant"}, LastModified: baseDate().Format("2006-01-02T15:04:05Z07:00")},
		},
	}
}
