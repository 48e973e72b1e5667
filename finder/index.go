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
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
	"golang.org/x/text/unicode/norm"

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
	// Err, when set, is why the source cannot give the document (its
	// listing's conversion error, one line): it is not loaded, and is
	// counted and named as skipped.
	Err string

	// Set by Documents, ignored from a Source: Partial says only the
	// first IndexedPages pages of the document's text are indexed (its
	// text is over the per-document budget, maxDocText); its title and
	// metadata are indexed either way.
	Partial      bool
	IndexedPages int
}

// Source lists the documents to index, now. It is called at start-up and
// after each Finder.Rescan.
type Source func(ctx context.Context) ([]Doc, error)

// Options configures New.
type Options struct {
	// Source lists the documents; required.
	Source Source
	// Dir holds the index on disk; empty keeps it in memory. An index
	// that another process holds open, or that cannot be opened, is
	// replaced by an in-memory one with a WARN.
	Dir string
	// Logger receives WARNs for documents that cannot be indexed.
	Logger *slog.Logger
	// Start, when set, holds the first build until it is closed: a
	// server indexes once it is up, not while it is starting.
	Start <-chan struct{}
	// Background makes the build yield to the rest of the process:
	// batches of backgroundBatch elements, a yield between documents, and
	// after each batch a pause as long as the batch took (at most
	// maxPause). Indexing then takes about half the CPU it could, in
	// short bursts, and requests served beside it keep their latency.
	Background bool
	// Limits bound each query (querybudget.go); the zero value picks the
	// defaults.
	Limits QueryLimits

	batch   int // elements per batch when > 0 (tests)
	docText int // per-document text budget in bytes when > 0 (tests)
}

// schemaVersion names the mapping below; an index on disk built with
// another is rebuilt. 3: text, titles and keywords are indexed in NFC.
const schemaVersion = "dpe-finder-3"

// Bounds on what one document contributes, and on a batch in flight.
//
// The heap a build takes is about proportional to the text in the batch
// being analysed (bleve keeps every token's frequencies and positions of
// the batch until its segment is built) plus the index built so far: one
// 50 MB document of 100k elements in one batch peaked at about 2.5 GB.
// So a batch is flushed once it holds batchText bytes of text, within a
// document too, and a document's text is indexed up to maxDocText bytes
// or maxDocElements elements: its first pages; the rest is not indexed,
// and Status and Documents say so. Its title and metadata are fields of
// every record, so they are found whatever the budget cut.
//
// Measured on the 2,000-page preset (TestBuild_HugeDocumentIsBoundedAndSaysSo,
// HeapInuse sampled every 10 ms, the test holding the 51 MB document):
// with 1 MiB batches, 4 MiB of text (296 pages) peaks at 210-260 MiB and
// keeps 40 MiB of index; 8 MiB (592 pages) at 250-360 MiB; the whole
// document at 460 MiB, keeping 170 MiB. Batches of 1 MiB cost the
// benchmark corpus no build time against 4 MiB ones.
const (
	maxElementText = 64 << 10 // bytes of one element's text that are indexed
	// maxIndexedTitle bounds the title indexed with each record: it is a
	// field of every one, so a 50 MB title was analysed once per element.
	maxIndexedTitle = 4 << 10
	maxDocText      = 4 << 20 // bytes of one document's text that are indexed
	maxDocElements  = 25000   // elements of one document that are indexed
	batchText       = 1 << 20 // bytes of text in one batch
	batchElements   = 10000
	backgroundBatch = 1000
	maxPause        = 250 * time.Millisecond
	// progressEvery is the longest a finished document waits to be
	// written (and counted) behind slower ones.
	progressEvery = 2 * time.Second
	// maxErrRunes bounds the reason a skipped document is kept with.
	maxErrRunes = 300
)

// Status is how much of the source is indexed.
type Status struct {
	Indexed  int  `json:"documents_indexed"`
	Total    int  `json:"documents_total"`
	Complete bool `json:"complete"`
	// Partial counts the indexed documents whose text is indexed only
	// in part (over maxDocText); Note names one and how much, in one
	// line: "partly indexed: big.json, the first 330 of 2,000 pages".
	Partial int `json:"documents_partial,omitempty"`
	// Skipped counts the documents that could not be read (the source's
	// error or the Finder's own); Note names them and why, the first few.
	Skipped int    `json:"documents_skipped,omitempty"`
	Note    string `json:"note,omitempty"`
}

// String is the line find shows: "indexed: 812/1000 documents", and the
// note when a document is indexed only in part.
func (s Status) String() string {
	out := fmt.Sprintf("indexed: %d/%d documents", s.Indexed, s.Total)
	if s.Note != "" {
		out += "; " + s.Note
	}
	return out
}

// maxSkipNames is how many skipped documents Status.Note names.
const maxSkipNames = 3

// skippedNote is Status.Note's part for the skipped documents: their
// count, then the first few names, each with its reason.
func skippedNote(n int, names, reasons []string) string {
	parts := make([]string, len(names))
	for i := range names {
		// The source's reason often starts with the name: said once.
		why := strings.TrimPrefix(oneLine(reasons[i]), names[i]+": ")
		parts[i] = fmt.Sprintf("%s (%s)", clipRunes(oneLine(names[i]), maxTitleRunes), clipRunes(why, 120))
	}
	out := fmt.Sprintf("skipped %d that cannot be read: %s", n, strings.Join(parts, ", "))
	if n > len(names) {
		out += fmt.Sprintf(" and %d more", n-len(names))
	}
	return out
}

// partialNote is Status.Note for n partly indexed documents, d the first.
func partialNote(n int, name string, e entry) string {
	what := fmt.Sprintf("%s, the first %s of %s pages", clipRunes(oneLine(name), maxTitleRunes), thousands(e.IP), thousands(e.Pages))
	if n == 1 {
		return "partly indexed: " + what
	}
	return fmt.Sprintf("%d documents partly indexed, e.g. %s", n, what)
}

// thousands is n with comma separators: 2,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

type entry struct {
	Key   string `json:"k"`
	N     int    `json:"n"` // element records written, ids uri#0 … uri#n-1
	Title string `json:"t,omitempty"`
	// Pages is the page count the document had when it was indexed:
	// listings of converted files (PDF) claim 1 until they are read.
	Pages int `json:"p,omitempty"`
	// Part: the text is indexed only up to the budget, the first IP
	// pages whole (and perhaps the start of the next).
	Part bool `json:"part,omitempty"`
	IP   int  `json:"ip,omitempty"`
	// Err: the document could not be loaded or decoded (one line); it
	// holds no records, is skipped, and is tried again when its key
	// changes.
	Err string `json:"err,omitempty"`
}

// Finder owns the index and the goroutine that builds it.
type Finder struct {
	idx bleve.Index
	an  analyzers
	opt Options
	log *slog.Logger

	mu       sync.Mutex
	docs     []Doc            // the last listing, in source order
	manifest map[string]entry // what the index holds, by URI
	complete bool
	done     chan struct{} // closed when the first build ends

	rescan    chan struct{}
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error

	queries  clients      // running queries per client
	inflight atomic.Int64 // queries in Find, so tests see them end
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

// Field indexing options. Term vectors (positions) are kept only on the
// analyzed text fields, where phrase queries need them; snippets compute
// their match ranges from the stored text of the returned hits instead of
// asking the search for locations. No field has doc values: nothing sorts
// or facets on a field.
const (
	optText    = index.IndexField | index.IncludeTermVectors
	optKeyword = index.IndexField
	optStored  = index.StoreField
)

func newMapping() (*mapping.IndexMappingImpl, error) {
	text := func(analyzer string, store bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store = store
		f.IncludeInAll = false
		f.IncludeTermVectors = true
		f.DocValues = false
		return f
	}
	kw := func(store bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = store
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = false
		return f
	}
	// The mapping describes the records add writes (with IndexAdvanced,
	// bypassing it), so that queries analyze each field as it was indexed.
	dm := bleve.NewDocumentStaticMapping()
	title := text(standard.Name, false)
	title.IncludeTermVectors = false // a title phrase is matched without positions
	dm.AddFieldMappingsAt("std", text(textAnalyzer, true))
	dm.AddFieldMappingsAt("cjk", text(cjk.AnalyzerName, false))
	dm.AddFieldMappingsAt("title", title)
	dm.AddFieldMappingsAt("element_id", kw(false))
	dm.AddFieldMappingsAt("category", kw(false))
	dm.AddFieldMappingsAt("file_type", kw(false))
	dm.AddFieldMappingsAt("keywords", kw(false))
	// modified is a keyword of fixed width (modifiedTerm), so a range is
	// a term range over a few distinct values, not the 16 terms a
	// numeric field indexes per element.
	dm.AddFieldMappingsAt("modified", kw(false))
	ref := bleve.NewTextFieldMapping()
	ref.Index, ref.Store, ref.IncludeInAll, ref.IncludeTermVectors, ref.DocValues = false, true, false, false, false
	dm.AddFieldMappingsAt("ref", ref)

	m := bleve.NewIndexMapping()
	if err := addAnalyzers(m); err != nil {
		return nil, fmt.Errorf("finder: mapping: %w", err)
	}
	m.DefaultMapping = dm
	m.DefaultAnalyzer = textAnalyzer
	// Query terms a rewrite does not reach (ranges, regexps) search the
	// standard field.
	m.DefaultField = "std"
	m.StoreDynamic = false
	m.IndexDynamic = false
	return m, nil
}

// analyzers are the mapping's analyzers add indexes with.
type analyzers struct {
	text, cjk, title analysis.Analyzer
}

func analyzersOf(m mapping.IndexMapping) (analyzers, error) {
	a := analyzers{text: m.AnalyzerNamed(textAnalyzer), cjk: m.AnalyzerNamed(cjk.AnalyzerName), title: m.AnalyzerNamed(standard.Name)}
	if a.text == nil || a.cjk == nil || a.title == nil {
		return a, errors.New("finder: mapping lacks an analyzer")
	}
	return a, nil
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
	an, err := analyzersOf(idx.Mapping())
	if err != nil {
		_ = idx.Close()
		return nil, err
	}
	f := &Finder{idx: idx, an: an, opt: opt, log: log, manifest: map[string]entry{}, done: make(chan struct{}), rescan: make(chan struct{}, 1)}
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
	m, err := newMapping()
	if err != nil {
		return nil, err
	}
	return bleve.NewUsing("", m, scorch.Name, scorch.Name, scorchConfig(nil))
}

// scorchConfig is the configuration of every index: segments of zap
// version 15, which build about 15% faster than the default (17) and
// lack nothing Finder uses (17 adds vector and synonym sections).
func scorchConfig(extra map[string]any) map[string]any {
	c := map[string]any{"forceSegmentType": "zap", "forceSegmentVersion": 15}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

func openIndex(dir string, log *slog.Logger) (bleve.Index, error) {
	if dir == "" {
		return memIndex()
	}
	idx, err := bleve.OpenUsing(dir, scorchConfig(map[string]any{"bolt_timeout": "1s"}))
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
	m, err := newMapping()
	if err != nil {
		return nil, err
	}
	// Not unsafe_batch: scorch's Close does not wait for unpersisted
	// batches, and a restart would index everything again.
	idx, err = bleve.NewUsing(dir, m, scorch.Name, scorch.Name, scorchConfig(nil))
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

// Rescan asks for the source to be listed again and what changed to be
// indexed (coalesced: requests during a build make one more build). The
// owner of the source calls it when it changes: the library when its
// folder poll finds a file added, changed or removed.
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
	// Counted from the manifest, which is written in the same batch as
	// the records: Indexed is what a query searches of this listing,
	// whatever is still in progress (a document whose content changed
	// keeps its old records until its new ones are written), so a find
	// never says 0 documents beside hits.
	st := Status{Total: len(f.docs), Complete: f.complete}
	first := -1
	var skipNames, skipWhy []string
	for i, d := range f.docs {
		e, ok := f.manifest[d.URI]
		known := ok && e.Key == d.Key
		why := d.Err
		if why == "" && known {
			why = e.Err
		}
		if why == "" && ok && e.Err == "" {
			st.Indexed++
		}
		if why != "" {
			st.Skipped++
			if len(skipNames) < maxSkipNames {
				skipNames, skipWhy = append(skipNames, docName(d)), append(skipWhy, why)
			}
			continue
		}
		if known && e.Part {
			st.Partial++
			if first < 0 {
				first = i
			}
		}
	}
	var notes []string
	if first >= 0 {
		d := f.docs[first]
		notes = append(notes, partialNote(st.Partial, docName(d), f.manifest[d.URI]))
	}
	if st.Skipped > 0 {
		notes = append(notes, skippedNote(st.Skipped, skipNames, skipWhy))
	}
	st.Note = strings.Join(notes, "; ")
	return st
}

// docName is how a note names d: its name, else its URI.
func docName(d Doc) string {
	if d.Name != "" {
		return d.Name
	}
	return d.URI
}

// title is the title of an indexed document: hits carry it from the
// manifest rather than from a field stored with every element.
func (f *Finder) title(uri string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.manifest[uri].Title
}

// Documents returns the last listing, with the page count of each
// document the index has read in place of the listed one (a converted
// file is listed with 1 page until it is read).
func (f *Finder) Documents() []Doc {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Doc, 0, len(f.docs))
	for _, d := range f.docs {
		if d.Err == "" { // the source cannot give it: not a document to list
			out = append(out, d)
		}
	}
	for i := range out {
		out[i].Partial, out[i].IndexedPages = false, 0
		e, ok := f.manifest[out[i].URI]
		if !ok || e.Key != out[i].Key {
			continue
		}
		if e.Pages > 0 {
			out[i].PageCount = e.Pages
		}
		out[i].Partial, out[i].IndexedPages = e.Part, e.IP
		if !e.Part {
			out[i].IndexedPages = e.Pages
		}
	}
	return out
}

func (f *Finder) loop(ctx context.Context) {
	defer f.wg.Done()
	if f.opt.Start != nil {
		select {
		case <-f.opt.Start:
		case <-ctx.Done():
			return
		}
	}
	first := true
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
	f.docs, f.complete = docs, false
	want := make(map[string]bool, len(docs))
	var todo []Doc
	var gone []string
	for _, d := range docs {
		want[d.URI] = true
		switch e, ok := f.manifest[d.URI]; {
		case d.Err != "":
			// Skipped (Status names it); records of an earlier,
			// readable version are removed.
			if ok {
				gone = append(gone, d.URI)
			}
		case ok && e.Key == d.Key && d.Key != "":
		default:
			todo = append(todo, d)
		}
	}
	for uri := range f.manifest {
		if !want[uri] {
			gone = append(gone, uri)
		}
	}
	f.mu.Unlock()

	w := &writer{f: f, b: f.idx.NewBatch(), budget: maxDocText}
	if f.opt.docText > 0 {
		w.budget = f.opt.docText
	}
	for _, uri := range gone {
		w.remove(uri)
	}
	size := batchElements
	switch {
	case f.opt.batch > 0:
		size = f.opt.batch
	case f.opt.Background:
		size = backgroundBatch
	}
	t0 := time.Now()
	w.size = size
	w.flushed = func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if f.opt.Background {
			if err := pause(ctx, min(time.Since(t0), maxPause)); err != nil {
				return err
			}
			t0 = time.Now()
		}
		return nil
	}
	lastFlush := time.Now()
	for _, d := range todo {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := w.add(d); err != nil {
			return err
		}
		// A batch is written when full, and at least every
		// progressEvery: behind documents that take their whole
		// conversion deadline to fail, find still sees what is done.
		if !w.full() && (len(w.pending) == 0 || time.Since(lastFlush) < progressEvery) {
			if f.opt.Background {
				runtime.Gosched()
			}
			continue
		}
		if err := w.flush(); err != nil {
			return err
		}
		lastFlush = time.Now()
		if err := w.flushed(); err != nil {
			return err
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

func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// writer groups documents into batches; the manifest is written in the
// same batch as the elements, so the index never claims a document it
// does not hold.
type writer struct {
	f        *Finder
	b        *bleve.Batch
	pending  map[string]*entry // nil entry: removed
	elements int               // records in the batch
	text     int               // bytes of text in the batch
	budget   int               // bytes of one document's text that are indexed
	size     int               // elements in a batch
	// flushed runs after each flush: the pause of a background build,
	// and cancellation.
	flushed func() error
}

// full says the batch is to be written: it holds size elements or
// batchText bytes of text.
func (w *writer) full() bool { return w.elements >= w.size || w.text >= batchText }

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
	w.set(uri, nil)
}

// set is what the next flush writes to the manifest for uri (nil: no entry).
func (w *writer) set(uri string, e *entry) {
	if w.pending == nil {
		w.pending = map[string]*entry{}
	}
	w.pending[uri] = e
}

// add indexes d, flushing the batch whenever it is full, also within
// the document: a long document is written in several batches.
func (w *writer) add(d Doc) error {
	w.remove(d.URI)
	n := 0
	part, ip := false, 0
	data, err := d.Load()
	var doc *dpe.Document
	if err == nil {
		doc, err = dpe.Decode(data, dpe.DefaultLimits())
	}
	if err != nil {
		w.f.log.Warn("finder: skip document", "uri", d.URI, "err", err)
		// Recorded with its reason and no records: skipped, and not
		// loaded again until its content key changes.
		w.set(d.URI, &entry{Key: d.Key, Title: d.Title, Err: clipRunes(oneLine(err.Error()), maxErrRunes)})
		return nil
	}
	{
		var modified []byte
		if t, err := time.Parse(time.RFC3339, d.LastModified); err == nil {
			modified = []byte(modifiedTerm(t))
		}
		kws := make([]string, 0, len(d.Keywords))
		for _, k := range d.Keywords {
			kws = append(kws, lower(norm.NFC.String(k)))
		}
		base := docFields{title: norm.NFC.String(clip(d.Title, maxIndexedTitle)), fileType: []byte(lower(d.FileType)), keywords: kws, modified: modified}
		text := 0
	pages:
		for pi, p := range doc.Pages {
			if !p.Decoded {
				if err := doc.EnsurePage(pi, dpe.DefaultLimits()); err != nil {
					w.f.log.Warn("finder: skip page", "uri", d.URI, "page", pi+1, "err", err)
					continue
				}
				p = doc.Pages[pi]
			}
			for _, e := range p.Elements {
				// NFC, as queries are: "é" typed or converted either
				// way is one term, and snippets' offsets are into this.
				s := clip(norm.NFC.String(searchText(e)), maxElementText)
				if s == "" {
					continue
				}
				if (text+len(s) > w.budget || n >= maxDocElements) && n > 0 {
					// Over the budget: the rest is not indexed. The
					// first element always is, so the title and
					// metadata (fields of every record) are found.
					part, ip = true, pi
					break pages
				}
				if w.full() {
					// The records so far are written with an entry no
					// content key matches: a build that stops here
					// (a crash, Close) deletes them and starts over.
					if n > 0 {
						w.set(d.URI, &entry{N: n, Title: d.Title})
					}
					if err := w.flush(); err != nil {
						return err
					}
					if err := w.flushed(); err != nil {
						return err
					}
				}
				rec := w.f.record(d.URI+"#"+strconv.Itoa(n), &base, pi+1, e.ID, e.Category, s)
				if err := w.b.IndexAdvanced(rec); err == nil {
					n++
					w.elements++
					w.text += len(s)
					text += len(s)
				}
			}
			// A decoded page is not needed again: drop it, so that a
			// long document is not held decoded whole.
			doc.Pages[pi].Elements = nil
		}
	}
	pages := 0
	if doc != nil {
		pages = len(doc.Pages)
	}
	if part {
		w.f.log.Info("finder: document indexed in part", "uri", d.URI, "pages", ip, "of", pages)
	}
	w.set(d.URI, &entry{Key: d.Key, N: n, Title: d.Title, Pages: pages, Part: part, IP: ip})
	return nil
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
	w.f.mu.Unlock()
	// A new batch, not Reset: scorch's Batch returns once every document
	// is analysed, while its goroutine that queued them may still be
	// ranging over the batch's map (a data race under -race).
	w.b = w.f.idx.NewBatch()
	w.pending, w.elements, w.text = nil, 0, 0
	return nil
}

// docFields are the fields every element of one document repeats.
// The keyword fields have no analyzer and are only read, so their bytes
// are shared; title is analyzed, and analysis lower-cases in place on
// bleve's workers, so each record gets its own copy.
type docFields struct {
	title              string
	fileType, modified []byte
	keywords           []string
}

// modifiedTerm is the keyword of a modification time: fixed width, so
// that byte order is time order.
func modifiedTerm(t time.Time) string {
	return t.UTC().Format("20060102T150405Z")
}

// The stored "ref" of an element is its page, element id and category,
// one stored value instead of three; the document URI is its record id
// without the "#n" suffix.
const refSep = "\x1f"

func encodeRef(page int, elementID, category string) string {
	return strconv.Itoa(page) + refSep + elementID + refSep + category
}

func decodeRef(s string) (page int, elementID, category string) {
	p, rest, _ := strings.Cut(s, refSep)
	elementID, category, _ = strings.Cut(rest, refSep)
	page, _ = strconv.Atoi(p)
	return page, elementID, category
}

// uriOf is the document URI of a record id (uri#n).
func uriOf(id string) string {
	if i := strings.LastIndexByte(id, '#'); i >= 0 {
		return id[:i]
	}
	return id
}

// record is the bleve document of one element, built directly rather
// than through the mapping (which would reflect over a map per element).
// Its fields and options match newMapping.
func (f *Finder) record(id string, d *docFields, page int, elementID, category, text string) *document.Document {
	rec := document.NewDocument(id)
	rec.AddField(document.NewTextFieldCustom("std", nil, []byte(text), optText|index.StoreField, f.an.text))
	if hasCJK(text) {
		rec.AddField(document.NewTextFieldCustom("cjk", nil, []byte(text), optText, f.an.cjk))
	}
	rec.AddField(document.NewTextFieldCustom("title", nil, []byte(d.title), optKeyword, f.an.title))
	rec.AddField(document.NewTextFieldCustom("element_id", nil, []byte(elementID), optKeyword, nil))
	rec.AddField(document.NewTextFieldCustom("category", nil, []byte(category), optKeyword, nil))
	rec.AddField(document.NewTextFieldCustom("file_type", nil, d.fileType, optKeyword, nil))
	for _, k := range d.keywords {
		rec.AddField(document.NewTextFieldCustom("keywords", nil, []byte(k), optKeyword, nil))
	}
	if d.modified != nil {
		rec.AddField(document.NewTextFieldCustom("modified", nil, d.modified, optKeyword, nil))
	}
	rec.AddField(document.NewTextFieldCustom("ref", nil, []byte(encodeRef(page, elementID, category)), optStored, nil))
	return rec
}

// searchText is what an element is found by, and its snippet: its text,
// but a mail's header fields as the message shows them, so that a
// sender's name, the header's name or the subject finds them: an
// EmailAddress as "From: Duty Officer <duty@example.org>" (its text is
// the address alone, the name in metadata), the subject Title as
// "Subject: …".
func searchText(e *dpe.Element) string {
	switch e.Category {
	case "EmailAddress":
		return e.EmailLine()
	case "Title":
		if e.MetaString("subject") != "" && e.Text != "" {
			return "Subject: " + e.Text
		}
	}
	return e.Text
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
