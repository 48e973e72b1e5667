package library

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/localfile"
	"github.com/dpe-tui/dpe-tui/internal/version"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// Defaults of Options.
const (
	DefaultHost      = "io.github.dpetui.library"
	DefaultPageSize  = 50
	DefaultName      = "dpe-tui-library"
	defaultCacheSize = 8

	defaultMaxFileBytes = 64 << 20

	// defaultListBudget is Options.ListBudget's default.
	defaultListBudget = 5 * time.Second
	// maxErrorNote bounds the error note a bad file is listed with.
	maxErrorNote = 300
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
	// Converter converts every file but *.dpe.json; nil: the library
	// makes its own (with ConvertTimeout) and Library.Close closes it. A
	// shared one stays the caller's to close, and its Options.Timeout is
	// the deadline of each conversion.
	Converter *convert.Converter
	// ConvertTimeout is the deadline of one conversion (listing a file,
	// reading it, indexing it) when the library makes its own converter;
	// 0: convert.DefaultTimeout. It is the converter's own deadline, the
	// one every conversion has, not a second one.
	ConvertTimeout time.Duration
	// Notice is the Options.Notice of the converter the library makes
	// (the PDF engine's first compile, said once); nil: none.
	Notice func(string)
	// ListBudget is how long a walk (Open, a rescan) converts files inline
	// to list them with their titles and page counts; default 5 s. Files
	// left when it is spent, or whose conversion outlasts what is left of
	// it, are listed at once by name and converted in the background
	// (their listing is refined when that ends), so a folder of slow
	// files never keeps the library from answering for the others.
	ListBudget time.Duration
	// Finder, when set, adds the Finder tools (find, list_documents) over
	// a full-text index of every document served. Only Open accepts it.
	Finder *FinderOptions
}

// source is one listed resource and how to produce its content.
//
// A library may hold 100,000 sources for the server's life, and the
// garbage collector scans all of them on every cycle: a source keeps its
// listing as a few strings, and the resource registered with go-sdk
// carries only what go-sdk reads (URI, name, MIME type). The full
// resource — description, annotations, _meta — is built only to write
// its listing JSON once (listing.go), not kept as a map and a dozen
// small objects per source.
type source struct {
	// res is the resource registered with the MCP server. For a dpe
	// document (slim) it holds only URI, Name and MIMEType; resource()
	// is what is listed.
	res   *mcp.Resource
	slim  bool
	load  func() ([]byte, error) // Document JSON (or text for non-dpe)
	mime  string
	key   string   // content key (hash of the file bytes) for Finder
	info  *docInfo // listing metadata of a dpe document; nil for a file that cannot be converted
	shown docInfo  // what the listing shows (refined after the first read)
	// fileURI and size are the listing's _meta.file_uri and size.
	fileURI string
	size    int64
	// published: this source's res is the one registered with the MCP
	// server. A re-walk replaces a changed file's source without
	// registering it; its first read does (refine).
	published bool
	path      string // folder path, for files of the folder
	stamp     stamp
	// listed is resource() as resources/list writes it (listing.go).
	listed listedJSON
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
	paged   pagedCache // splits of documents read in pages
	files   *folder
	opt     Options
	conv    *convert.Converter
	ownConv bool        // conv is closed with the library
	srv     *mcp.Server // set once New has built it; refined listings are re-added
	// byNFC maps the NFC form of each folder file's URI to the URIs that
	// have it (resolveURI); rebuilt whenever the set of sources changes.
	byNFC map[string][]string
	// skipped is what the last walk left out (Library.Skipped).
	skipped Skipped

	// Background conversions of the files a walk listed by name only
	// (Options.ListBudget); one batch at a time, stopped by close.
	bgCtx    context.Context
	bgStop   context.CancelFunc
	bgOne    chan struct{} // holds one token: batches run one after another
	bgActive sync.WaitGroup
}

// Open builds the MCP server (Library.Server). It walks the FS once,
// converting each document to learn its title and page_count (the Document
// JSON is dropped and rebuilt on read, behind a small cache), and registers
// one resource per document plus window://<host>/status. It also runs
// Finder when Options.Finder is set; Close stops it.
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
	if opt.ListBudget <= 0 {
		opt.ListBudget = defaultListBudget
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

	lib := &library{sources: make(map[string]*source, max(opt.Generated, 0)+64), cache: newDocCache(opt.CacheSize), files: files, opt: opt,
		conv: opt.Converter}
	if lib.conv == nil {
		lib.conv, lib.ownConv = convert.New(convert.Options{Timeout: opt.ConvertTimeout, Notice: opt.Notice}), true
	}
	lib.bgCtx, lib.bgStop = context.WithCancel(context.Background())
	lib.bgOne = make(chan struct{}, 1)
	skipped := newSkipList(opt.MaxFileBytes)
	later, err := lib.walk(files, opt, nil, lib.sources, skipped)
	if err != nil {
		lib.close()
		return nil, err
	}
	lib.skipped = skipped.result()
	logNewSkips(opt.Logger, Skipped{}, lib.skipped)
	if builtin {
		if err := lib.addGeneratedCorpus(opt); err != nil {
			return nil, err
		}
	}
	lib.addNotes(opt)
	lib.addStatus(opt)

	// Version is the build's, not the protocol's: a peer's logs then say
	// which dpe-tui answered.
	srv := mcp.NewServer(&mcp.Implementation{Name: opt.Name, Version: version.Read().Short()},
		&mcp.ServerOptions{PageSize: opt.PageSize, Logger: opt.Logger})
	for _, s := range lib.sources {
		s.published = true // before the server is shared: no reader yet
		srv.AddResource(s.res, lib.read)
	}
	srv.AddReceivingMiddleware(lib.normalizeMiddleware, lib.listMiddleware)
	lib.mu.Lock()
	lib.indexNFC()
	lib.srv = srv
	lib.mu.Unlock()
	lib.probeLater(later)
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
// being read again. Sources go into out; every file left out (but hidden
// ones) goes into skip with why. Files converted within opt.ListBudget
// are listed with what the conversion learnt; the others, listed by name,
// are returned for probeLater once out is what the library serves.
func (l *library) walk(files *folder, opt Options, prev map[string]*source, out map[string]*source, skip *skipList) (later []sourceRef, err error) {
	budget := time.Now().Add(opt.ListBudget)
	err = fs.WalkDir(files.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() {
				skip.add(p+"/", err)
				return fs.SkipDir
			}
			skip.add(p, err)
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
			if !l.followLink(files, p, opt, skip) {
				return nil
			}
		} else if !d.Type().IsRegular() {
			if l.supported(p) {
			}
			skip.add(p, fmt.Errorf("%w (%s)", errNotRegular, localfile.Kind(d.Type())))
			return nil
		}
		if !l.supported(p) {
			skip.add(p, errUnsupported)
			return nil
		}
		ref := sourceRef{files: files, path: p, uri: escapeDocRef(opt.Host, p), fileURI: fileURIOf(opt.FileRoot, p)}
		// What is listed, get accepts: a name the dpe:// grammar refuses
		// (a control character, a tab, invalid UTF-8) is skipped, saying
		// why, rather than listed under a URI no client may ask for.
		if _, err := dpe.ParseURI(ref.uri); err != nil {
			var ue *dpe.URIError
			if errors.As(err, &ue) {
				err = errors.New(ue.Reason)
			}
			skip.add(p, fmt.Errorf("%w: %w", errNoURI, err))
			return nil
		}
		if old := prev[p]; old != nil {
			if fi, err := files.stat(p); err == nil && (stamp{fi.Size(), fi.ModTime().UnixNano()}) == old.stamp {
				out[ref.uri] = old
				return nil
			}
		}
		data, info, err := files.read(p, opt.MaxFileBytes)
		if err != nil {
			skip.add(p, err)
			return nil
		}
		ref.modTime = info.ModTime()
		var di docInfo
		if left := time.Until(budget); left <= 0 {
			err = context.DeadlineExceeded
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), left)
			di, err = probeFile(ctx, l.conv, ref, data)
			cancel()
		}
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			// The walk's budget, not the conversion's own deadline
			// (that is a LimitError): listed by name, converted later.
			di = pendingInfo(p)
			later = append(later, ref)
		case err != nil:
			// A bad file is its own problem: listed with the cause, never
			// stopping the walk.
			opt.Logger.Warn("library: cannot convert document", "path", p, "err", err)
			di = errorInfo(p, err)
		}
		sum := sha256.Sum256(data)
		// Size is the Document JSON's: known for a .dpe.json, not listed
		// for converted files (their JSON exists only once read, and a
		// relisting per first read would flood clients with list_changed).
		var size int64
		if isDPEFile(p, data) {
			size = int64(len(data))
		}
		s := newSource(ref.uri, p, di, ref.fileURI, size, l.loader(ref))
		s.key, s.path, s.stamp = hex.EncodeToString(sum[:]), p, stamp{info.Size(), info.ModTime().UnixNano()}
		out[ref.uri] = s
		return nil
	})
	return later, err
}

// pendingInfo is the listing of a file not converted yet: its name and
// type, until probeLater refines it.
func pendingInfo(p string) docInfo {
	return docInfo{Title: path.Base(p), FileType: strings.TrimPrefix(strings.ToLower(path.Ext(p)), ".")}
}

// probeLater converts, in the background and one after another, the files
// a walk listed by name, and refines each listing with the result (its
// title and page count, or its error). Each conversion has the
// converter's own deadline; close stops the batch.
func (l *library) probeLater(refs []sourceRef) {
	if len(refs) == 0 {
		return
	}
	l.bgActive.Add(1)
	go func() {
		defer l.bgActive.Done()
		select {
		case l.bgOne <- struct{}{}:
			defer func() { <-l.bgOne }()
		case <-l.bgCtx.Done():
			return
		}
		for _, ref := range refs {
			if l.bgCtx.Err() != nil {
				return
			}
			data, fi, err := ref.files.read(ref.path, l.opt.MaxFileBytes)
			if err != nil {
				continue // gone or changed since: the next walk lists it again
			}
			ref.modTime = fi.ModTime()
			di, err := probeFile(l.bgCtx, l.conv, ref, data)
			if l.bgCtx.Err() != nil {
				return
			}
			if err != nil {
				l.opt.Logger.Warn("library: cannot convert document", "path", ref.path, "err", err)
				di = errorInfo(ref.path, err)
			}
			l.refine(ref.uri, di)
		}
	}()
}

// supported reports whether the walk lists p: hand-written DPE JSON and
// every file the converter knows by its name.
func (l *library) supported(p string) bool { return isDPE(p) || l.conv.SupportedName(p) }

// loader converts ref on a read (the cache keeps the result). A success
// refines the listing with what the conversion learnt (a PDF's page count
// and title); a failure lists the file with its error.
func (l *library) loader(ref sourceRef) func() ([]byte, error) {
	return func() ([]byte, error) {
		data, fi, err := ref.files.read(ref.path, l.opt.MaxFileBytes)
		if err != nil {
			l.opt.Logger.Warn("library: cannot read document", "path", ref.path, "reason", err.Error())
			return nil, err
		}
		// The file as read now, not as the walk saw it: a file changed
		// since is converted with its new mtime (the listing's
		// lastModified follows, as its page count does).
		now := ref
		now.modTime = fi.ModTime()
		// The converter's deadline bounds the conversion (ConvertTimeout).
		c, err := convertFile(context.Background(), l.conv, now, data)
		if err != nil {
			l.refine(ref.uri, errorInfo(ref.path, err))
			return nil, &conversionError{err: err}
		}
		l.refine(ref.uri, c.Info)
		return c.JSON, nil
	}
}

// errorInfo is the listing of a file that cannot be converted: one line,
// bounded, naming the cause.
func errorInfo(p string, err error) docInfo {
	ft := strings.TrimPrefix(strings.ToLower(path.Ext(p)), ".")
	return docInfo{Title: path.Base(p), FileType: ft, Err: errorNote(err)}
}

// errorNote is err as one bounded line.
func errorNote(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if r := []rune(msg); len(r) > maxErrorNote {
		msg = string(r[:maxErrorNote-1]) + "…"
	}
	return msg
}

// conversionError is a file read whole that could not be converted: a
// budget, its deadline, or a corrupt file. It is that document's answer,
// the same on every read of these bytes, so resources/read says so with
// its own code (protocol.MCPCodeConversionFailed) instead of a failure a
// client would retry.
type conversionError struct{ err error }

func (e *conversionError) Error() string { return e.err.Error() }
func (e *conversionError) Unwrap() error { return e.err }

// rpcError is the JSON-RPC error resources/read answers with: the reason
// in one line, and what stopped the conversion in data.
func (e *conversionError) rpcError() *jsonrpc.Error {
	kind := protocol.ConversionCorrupt
	var le *dpe.LimitError
	switch {
	case errors.As(e.err, &le) && le.What == convert.LimitConversionTime:
		kind = protocol.ConversionTimeout
	case errors.As(e.err, &le):
		kind = protocol.ConversionLimit
	}
	data, _ := json.Marshal(map[string]string{protocol.MCPConversionDataKey: kind})
	return &jsonrpc.Error{Code: protocol.MCPCodeConversionFailed, Message: errorNote(e.err), Data: data}
}

// refine replaces the listing of uri when a conversion learnt something
// the walk could not (title, page count, an error). The new source
// replaces the old one whole (sources are never changed once published)
// and the SDK tells clients with resources/list_changed.
func (l *library) refine(uri string, info docInfo) {
	l.mu.Lock()
	s := l.sources[uri]
	if s == nil || s.path == "" || (s.published && sameInfo(s.shown, info)) {
		l.mu.Unlock()
		return
	}
	n := newSource(uri, s.res.Name, info, s.fileURI, s.size, s.load)
	n.key, n.path, n.stamp, n.published = s.key, s.path, s.stamp, true
	l.sources[uri] = n
	srv := l.srv
	l.mu.Unlock()
	if srv != nil {
		srv.AddResource(n.res, l.read)
	}
}

// refineSize lists s (a generated document) with its size, learnt when
// it was first generated; like refine, a new source replaces it whole.
func (l *library) refineSize(s *source, size int64) {
	l.mu.Lock()
	if l.sources[s.res.URI] != s || s.size == size {
		l.mu.Unlock()
		return
	}
	n := newSource(s.res.URI, s.res.Name, s.shown, s.fileURI, size, s.load)
	n.key, n.published = s.key, s.published
	l.sources[s.res.URI] = n
	srv := l.srv
	l.mu.Unlock()
	if srv != nil && n.published {
		srv.AddResource(n.res, l.read)
	}
}

func sameInfo(a, b docInfo) bool {
	return a.Title == b.Title && a.Summary == b.Summary && a.FileType == b.FileType && a.LastModified == b.LastModified &&
		a.PageCount == b.PageCount && a.Err == b.Err && strings.Join(a.Keywords, "\x00") == strings.Join(b.Keywords, "\x00")
}

// stopBackground stops probeLater's conversions and waits for them.
func (l *library) stopBackground() {
	l.bgStop()
	l.bgActive.Wait()
}

// close stops the background conversions and releases the converter the
// library made.
func (l *library) close() error {
	l.stopBackground()
	if l.ownConv {
		return l.conv.Close()
	}
	return nil
}

// followLink decides whether the walk lists the symlink p: only a link to a
// regular file inside the served root. Links that leave the root, links to
// directories and links of a caller's fs.FS (which cannot be checked) are
// skipped with a log line naming them, never their target.
func (l *library) followLink(files *folder, p string, opt Options, skip *skipList) bool {
	if files.root == nil {
		skip.add(p, errLinkNotFollowed)
		return false
	}
	fi, err := files.stat(p)
	switch {
	case errors.Is(err, errOutside):
		skip.add(p, err)
		return false
	case err != nil:
		skip.add(p, linkError(err))
		return false
	case fi.IsDir():
		skip.add(p, errLinkedDir)
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
	s := &source{
		mime:    protocol.MimeDPEInline,
		load:    load,
		shown:   info,
		fileURI: fileURI,
		size:    size,
		slim:    true,
		res:     &mcp.Resource{URI: uri, Name: name, MIMEType: protocol.MimeDPEInline},
	}
	if info.Err == "" {
		s.info = &s.shown // a source is replaced whole, never edited
	}
	return s
}

// description is a dpe document's listed description: its summary, or
// what is known of it.
func (s *source) description() string {
	info := &s.shown
	switch {
	case info.Err != "":
		return "cannot be converted: " + info.Err
	case info.Summary == "" && info.PageCount == 0:
		return fmt.Sprintf("%s document (page count known once read)", info.FileType)
	case info.Summary == "":
		return fmt.Sprintf("%s document, %d page(s)", info.FileType, info.PageCount)
	}
	return info.Summary
}

// resource is s as resources/list shows it: for a dpe document, built
// from the source's listing (seed 000 §DPE Resource 元数据); made anew on
// each call, kept by no one.
func (s *source) resource() *mcp.Resource {
	if !s.slim {
		return s.res
	}
	info := s.shown
	desc := s.description()
	kws := info.Keywords
	if kws == nil {
		kws = []string{}
	}
	meta := mcp.Meta{
		"keywords":  kws,
		"file_type": info.FileType,
		"file_uri":  s.fileURI,
	}
	// page_count is recommended, and when present must be ≥ 1 (dpe.md
	// §DPE Resource 元数据): a PDF whose pages are counted only once it is
	// read is listed without one until then, not as a one-page document.
	if info.PageCount >= 1 {
		meta["page_count"] = info.PageCount
	}
	if info.Err != "" {
		meta["error"] = info.Err
	}
	return &mcp.Resource{
		URI:         s.res.URI,
		Name:        s.res.Name,
		Title:       info.Title,
		Description: desc,
		MIMEType:    s.res.MIMEType,
		Size:        s.size,
		Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, LastModified: info.LastModified},
		Meta:        meta,
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
	paged, err := parsePagedRequest(req.Params.Meta)
	if err != nil {
		return nil, fmt.Errorf("library: read %s: %w", uri, err)
	}
	// Cached by path + size + mtime: a file changed on disk (its stamp now,
	// not only as the last walk saw it) is converted again.
	st := l.currentStamp(s)
	key := fmt.Sprintf("%s\x00%d\x00%d", uri, st.size, st.mod)
	if paged != nil {
		if v := l.paged.get(key); v != nil {
			if res, done, err := l.readPaged(uri, s, key, paged, v.data); done {
				return res, err
			}
		}
	}
	data, ok := l.cache.get(key)
	if !ok {
		var err error
		if data, err = s.load(); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				// Removed since New walked the folder.
				return nil, mcp.ResourceNotFoundError(uri)
			}
			var ce *conversionError
			if errors.As(err, &ce) {
				return nil, ce.rpcError()
			}
			return nil, fmt.Errorf("library: read %s: %w", uri, err)
		}
		l.cache.put(key, data)
	}
	if paged != nil {
		if res, done, err := l.readPaged(uri, s, key, paged, data); done {
			return res, err
		}
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
