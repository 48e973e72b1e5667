package finder

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// Doc is one document a Finder indexes.
type Doc struct {
	URI          string // dpe://host/path
	Name         string
	Title        string
	FileType     string
	Keywords     []string
	LastModified string // RFC 3339, or empty
	PageCount    int
	// Key changes whenever the content changes (a hash of the file bytes):
	// a document whose key the index already holds is not indexed again.
	Key string
	// Load returns the DPE Document JSON.
	Load func() ([]byte, error)
}

// Source lists the documents to index, now. It is called at start-up and
// on every rescan.
type Source func(ctx context.Context) ([]Doc, error)

// Options configures New.
type Options struct {
	// Source lists the documents; required.
	Source Source
	// Dir holds the index on disk; empty keeps it in memory. An index
	// that another process holds open, or that cannot be opened, is
	// replaced by an in-memory one with a WARN.
	Dir string
	// Rescan, when > 0, lists the source again at that interval and
	// indexes what changed.
	Rescan time.Duration
	// Logger receives WARNs for documents that cannot be indexed.
	Logger *slog.Logger
}

// schemaVersion names the mapping below; an index on disk built with
// another is rebuilt.
const schemaVersion = "dpe-finder-1"

// Bounds on what one document contributes.
const (
	maxElementText = 64 << 10 // bytes of one element's text that are indexed
	batchElements  = 4000
)

// Status is how much of the source is indexed.
type Status struct {
	Indexed  int  `json:"documents_indexed"`
	Total    int  `json:"documents_total"`
	Complete bool `json:"complete"`
}

// String is the line find shows: "indexed: 812/1000 documents".
func (s Status) String() string {
	return fmt.Sprintf("indexed: %d/%d documents", s.Indexed, s.Total)
}

type entry struct {
	Key string `json:"k"`
	N   int    `json:"n"` // element records written, ids uri#0 … uri#n-1
}

// Finder owns the index and the goroutine that builds it.
type Finder struct {
	idx bleve.Index
	opt Options
	log *slog.Logger

	mu       sync.Mutex
	docs     []Doc            // the last listing, in source order
	manifest map[string]entry // what the index holds, by URI
	indexed  int
	complete bool
	done     chan struct{} // closed when the first build ends

	rescan    chan struct{}
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// CacheDir is where the index of the folder named by key lives:
// $XDG_CACHE_HOME/dpe-tui/finder/<hash of key>.
func CacheDir(key string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finder: cache dir: %w", err)
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(base, "dpe-tui", "finder", hex.EncodeToString(sum[:12])), nil
}

func newMapping() mapping.IndexMapping {
	text := func(analyzer string, store bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store = store
		f.IncludeInAll = false
		f.IncludeTermVectors = true // locations for snippets
		return f
	}
	kw := func(store bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = store
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		return f
	}
	num := func() *mapping.FieldMapping {
		f := bleve.NewNumericFieldMapping()
		f.IncludeInAll = false
		return f
	}
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("en", text(en.AnalyzerName, false))
	dm.AddFieldMappingsAt("cjk", text(cjk.AnalyzerName, false))
	dm.AddFieldMappingsAt("std", text(standard.Name, true))
	dm.AddFieldMappingsAt("title", text(standard.Name, true))
	dm.AddFieldMappingsAt("uri", kw(true))
	dm.AddFieldMappingsAt("element_id", kw(true))
	dm.AddFieldMappingsAt("category", kw(true))
	dm.AddFieldMappingsAt("file_type", kw(false))
	dm.AddFieldMappingsAt("keywords", kw(false))
	dm.AddFieldMappingsAt("page", num())
	dm.AddFieldMappingsAt("modified", num())
	pf := bleve.NewNumericFieldMapping()
	pf.Store = true
	pf.Index = false
	dm.AddFieldMappingsAt("page_no", pf)

	m := bleve.NewIndexMapping()
	m.DefaultMapping = dm
	m.DefaultAnalyzer = standard.Name
	// Query terms a rewrite does not reach (ranges, regexps) search the
	// standard field.
	m.DefaultField = "std"
	m.StoreDynamic = false
	m.IndexDynamic = false
	return m
}

// New opens (or creates) the index and starts building it in the
// background. Close stops it.
func New(opt Options) (*Finder, error) {
	if opt.Source == nil {
		return nil, errors.New("finder: Options.Source is required")
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	idx, err := openIndex(opt.Dir, log)
	if err != nil {
		return nil, err
	}
	f := &Finder{idx: idx, opt: opt, log: log, manifest: map[string]entry{}, done: make(chan struct{}), rescan: make(chan struct{}, 1)}
	if b, err := idx.GetInternal([]byte("manifest")); err == nil && len(b) > 0 {
		_ = json.Unmarshal(b, &f.manifest) // unreadable: everything is indexed again
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	f.wg.Add(1)
	go f.loop(ctx)
	return f, nil
}

// memIndex is a scorch index that is never persisted: bleve's
// NewMemOnly (upsidedown over a treap) is two orders of magnitude slower
// to build.
func memIndex() (bleve.Index, error) {
	return bleve.NewUsing("", newMapping(), scorch.Name, scorch.Name, nil)
}

func openIndex(dir string, log *slog.Logger) (bleve.Index, error) {
	if dir == "" {
		return memIndex()
	}
	idx, err := bleve.OpenUsing(dir, map[string]any{"bolt_timeout": "1s"})
	switch {
	case err == nil:
		if v, _ := idx.GetInternal([]byte("schema")); string(v) == schemaVersion {
			return idx, nil
		}
		_ = idx.Close()
		log.Info("finder: index schema changed, rebuilding", "dir", dir)
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("finder: %w", err)
		}
	case errors.Is(err, bleve.ErrorIndexPathDoesNotExist):
	default:
		log.Warn("finder: cannot open the index on disk, using memory", "dir", dir, "err", err)
		return memIndex()
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, fmt.Errorf("finder: %w", err)
	}
	idx, err = bleve.New(dir, newMapping())
	if err != nil {
		log.Warn("finder: cannot create the index on disk, using memory", "dir", dir, "err", err)
		return memIndex()
	}
	if err := idx.SetInternal([]byte("schema"), []byte(schemaVersion)); err != nil {
		_ = idx.Close()
		return nil, fmt.Errorf("finder: %w", err)
	}
	return idx, nil
}

// Close stops the builder and closes the index. It may be called more
// than once (bleve panics on a second Close of a scorch index).
func (f *Finder) Close() error {
	f.closeOnce.Do(func() {
		f.cancel()
		f.wg.Wait()
		f.closeErr = f.idx.Close()
	})
	return f.closeErr
}

// Wait blocks until the first build is complete or ctx ends.
func (f *Finder) Wait(ctx context.Context) error {
	select {
	case <-f.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Rescan asks for the source to be listed again now (coalesced).
func (f *Finder) Rescan() {
	select {
	case f.rescan <- struct{}{}:
	default:
	}
}

// Status reports how much of the last listing is indexed.
func (f *Finder) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return Status{Indexed: f.indexed, Total: len(f.docs), Complete: f.complete}
}

// Documents returns the last listing.
func (f *Finder) Documents() []Doc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Doc(nil), f.docs...)
}

func (f *Finder) loop(ctx context.Context) {
	defer f.wg.Done()
	first := true
	var tick <-chan time.Time
	if f.opt.Rescan > 0 {
		t := time.NewTicker(f.opt.Rescan)
		defer t.Stop()
		tick = t.C
	}
	for {
		if err := f.build(ctx); err != nil && ctx.Err() == nil {
			f.log.Warn("finder: index build", "err", err)
		}
		if first {
			first = false
			close(f.done)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick:
		case <-f.rescan:
		}
	}
}

// build lists the source and brings the index in line with it.
func (f *Finder) build(ctx context.Context) error {
	docs, err := f.opt.Source(ctx)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.docs, f.complete, f.indexed = docs, false, 0
	want := make(map[string]bool, len(docs))
	var todo []Doc
	for _, d := range docs {
		want[d.URI] = true
		if e, ok := f.manifest[d.URI]; ok && e.Key == d.Key && d.Key != "" {
			f.indexed++
		} else {
			todo = append(todo, d)
		}
	}
	var gone []string
	for uri := range f.manifest {
		if !want[uri] {
			gone = append(gone, uri)
		}
	}
	f.mu.Unlock()

	w := &writer{f: f, b: f.idx.NewBatch()}
	for _, uri := range gone {
		w.remove(uri)
	}
	for _, d := range todo {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		w.add(d)
		if w.b.Size() >= batchElements {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	if err := w.flush(); err != nil {
		return err
	}
	f.mu.Lock()
	f.complete = true
	f.mu.Unlock()
	return nil
}

// writer groups documents into batches; the manifest is written in the
// same batch as the elements, so the index never claims a document it
// does not hold.
type writer struct {
	f       *Finder
	b       *bleve.Batch
	pending map[string]*entry // nil entry: removed
	added   int
}

func (w *writer) remove(uri string) {
	w.f.mu.Lock()
	old, ok := w.f.manifest[uri]
	w.f.mu.Unlock()
	if pe, seen := w.pending[uri]; seen && pe != nil {
		old, ok = *pe, true
	}
	if ok {
		for i := range old.N {
			w.b.Delete(uri + "#" + strconv.Itoa(i))
		}
	}
	if w.pending == nil {
		w.pending = map[string]*entry{}
	}
	w.pending[uri] = nil
}

func (w *writer) add(d Doc) {
	w.remove(d.URI)
	n := 0
	data, err := d.Load()
	var doc *dpe.Document
	if err == nil {
		doc, err = dpe.Decode(data, dpe.DefaultLimits())
	}
	if err != nil {
		w.f.log.Warn("finder: skip document", "uri", d.URI, "err", err)
	} else {
		var modified float64
		if t, err := time.Parse(time.RFC3339, d.LastModified); err == nil {
			modified = float64(t.Unix())
		}
		kws := make([]string, 0, len(d.Keywords))
		for _, k := range d.Keywords {
			kws = append(kws, lower(k))
		}
		for pi, p := range doc.Pages {
			if !p.Decoded {
				if err := doc.EnsurePage(pi, dpe.DefaultLimits()); err != nil {
					w.f.log.Warn("finder: skip page", "uri", d.URI, "page", pi+1, "err", err)
					continue
				}
				p = doc.Pages[pi]
			}
			for _, e := range p.Elements {
				text := clip(e.Text, maxElementText)
				if text == "" {
					continue
				}
				rec := map[string]any{
					"en": text, "cjk": text, "std": text,
					"title": d.Title, "uri": d.URI, "element_id": e.ID, "category": e.Category,
					"file_type": lower(d.FileType), "keywords": kws,
					"page": float64(pi + 1), "page_no": float64(pi + 1),
				}
				if modified != 0 {
					rec["modified"] = modified
				}
				if err := w.b.Index(d.URI+"#"+strconv.Itoa(n), rec); err == nil {
					n++
				}
			}
		}
	}
	// A document that cannot be read is recorded too (with no elements):
	// it counts as indexed and is retried when its content key changes.
	w.pending[d.URI] = &entry{Key: d.Key, N: n}
	w.added++
}

func (w *writer) flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	w.f.mu.Lock()
	next := make(map[string]entry, len(w.f.manifest)+len(w.pending))
	for k, v := range w.f.manifest {
		next[k] = v
	}
	for k, v := range w.pending {
		if v == nil {
			delete(next, k)
		} else {
			next[k] = *v
		}
	}
	w.f.mu.Unlock()
	b, err := json.Marshal(next)
	if err != nil {
		return err
	}
	w.b.SetInternal([]byte("manifest"), b)
	if err := w.f.idx.Batch(w.b); err != nil {
		return fmt.Errorf("finder: write index: %w", err)
	}
	w.f.mu.Lock()
	w.f.manifest = next
	w.f.indexed += w.added
	w.f.mu.Unlock()
	w.b.Reset()
	w.pending, w.added = nil, 0
	return nil
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
