package convert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/jsonfast"
	"github.com/dpe-tui/dpe-tui/internal/localfile"
)

// Source is one file to convert.
type Source struct {
	// Name is the file's name or path: its extension is the sniffer's
	// second opinion, its base name the fallback title, and it starts every
	// error message.
	Name     string
	ReaderAt io.ReaderAt
	Size     int64

	ModTime time.Time // last_modified when the file has no date of its own
	FileURI string    // file_uri; empty: none
	DocRef  string    // doc_ref; empty: Name
	URI     string    // the document's dpe:// URI; empty: dpe://local/<doc_ref>

	data []byte // Bytes() cache
	lim  int64
}

// BytesSource is a Source over data in memory.
func BytesSource(name string, data []byte) Source {
	return Source{Name: name, ReaderAt: bytes.NewReader(data), Size: int64(len(data)), data: data}
}

// Bytes returns the whole file, read once (within the file size limit).
func (s *Source) Bytes() ([]byte, error) {
	if s.data != nil {
		return s.data, nil
	}
	if s.lim > 0 && s.Size > s.lim {
		return nil, limitErr("file size", s.lim, s.Size)
	}
	buf := make([]byte, s.Size)
	n, err := s.ReaderAt.ReadAt(buf, 0)
	if n < len(buf) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("read: %w", err)
	}
	s.data = buf
	return buf, nil
}

// Info is what a reader knows about a document before its pages are read.
type Info struct {
	Title        string // from document properties; empty: first Title element, else the file name
	Summary      string
	Keywords     []string
	LastModified string   // RFC 3339 from document properties; empty: the file's mod time
	PageTitles   []string // one per page: len is the page count (≥ 1)
	FileType     string   // file_type when not the Kind's (source code: its extension)
	// SheetStates is each page's sheet state when the file says it before
	// the page is read ("hidden", "veryHidden"; "" for a visible sheet);
	// nil for none. The skeleton's manifest pages carry it as page
	// metadata sheet_state, as the converted page does, so a sheet list
	// can say which sheets are hidden before reading them.
	SheetStates []string
}

// Pages is an opened document of one format, read page by page.
type Pages interface {
	Info() Info
	// Page appends the elements of page i (0 ≤ i < len(Info().PageTitles)).
	Page(ctx context.Context, i int, b *PageBuilder) error
	Close() error
}

// OpenFunc opens a sniffed file of one format.
type OpenFunc func(ctx context.Context, src *Source, env *Env) (Pages, error)

// Options configure a Converter.
type Options struct {
	Limits Limits
	// CacheDir holds the compiled PDF engine (wazero's compilation cache),
	// so starting it takes ~0.1 s instead of ~3 s. Empty:
	// $XDG_CACHE_HOME/dpe-tui/wazero (os.UserCacheDir). "-": no cache.
	CacheDir string
	// Notice, when set, is told one line before work the user would
	// otherwise wait through in silence: the first compile of the PDF
	// engine on this machine (PDFEngineNotice, ~3 s and ~370 MB). It is
	// called on the converting goroutine, at most once per Converter.
	Notice func(string)
	// Timeout is the deadline of one conversion: opening a document (which
	// parses one-pass formats whole), reading one page, or JSON of the
	// whole document. Past it the work is abandoned mid-parse where the
	// parser checks its context (sheets, PDF pages, DOCX bodies, CSV) and
	// the conversion fails with a "conversion time" LimitError. Zero:
	// DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout is Options.Timeout's default.
const DefaultTimeout = 2 * time.Minute

// withDeadline bounds ctx by timeout. expired tells, after the work, the
// error to return in place of ctx's own when the deadline (not the
// caller) ended it: a "conversion time" LimitError with both numbers.
func withDeadline(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc, func(error) error) {
	start := time.Now()
	inner, cancel := context.WithTimeout(ctx, timeout)
	expired := func(err error) error {
		if err != nil && ctx.Err() == nil && errors.Is(inner.Err(), context.DeadlineExceeded) {
			return limitErr(LimitConversionTime, timeout.Milliseconds(), time.Since(start).Milliseconds())
		}
		return err
	}
	return inner, cancel, expired
}

// Converter converts files. It owns the PDF engine, started on first use;
// one per process is enough and Close releases it. Safe for concurrent use.
type Converter struct {
	opt     Options
	formats map[Kind]OpenFunc
	pdf     *pdfEngine
}

// New returns a Converter with every built-in format.
func New(opt Options) *Converter {
	opt.Limits = opt.Limits.withDefaults()
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	c := &Converter{opt: opt, formats: map[Kind]OpenFunc{}}
	c.pdf = &pdfEngine{cacheDir: opt.CacheDir, notice: opt.Notice}
	for _, f := range builtinFormats(c) {
		c.formats[f.kind] = f.open
	}
	return c
}

// PrepareEngine starts the PDF engine now rather than on the first PDF,
// compiling PDFium into the compilation cache when it is not there yet
// (compiled says whether it was); dir is the cache. It fails when there
// is no cache to fill (CacheDir "-", or no cache directory).
func (c *Converter) PrepareEngine() (compiled bool, dir string, err error) {
	if dir = c.pdf.cachePath(); dir == "" {
		return false, "", errors.New("no cache directory for the PDF engine (set XDG_CACHE_HOME)")
	}
	if _, err := c.pdf.start(); err != nil {
		return false, dir, err
	}
	c.pdf.mu.Lock()
	defer c.pdf.mu.Unlock()
	if c.pdf.cache == nil {
		return false, dir, fmt.Errorf("the PDF engine's cache %s could not be opened", dir)
	}
	return c.pdf.compiled, dir, nil
}

// Close stops the PDF engine if it was started. Documents still open
// fail afterwards.
func (c *Converter) Close() error { return c.pdf.close() }

// SupportedName reports, by extension only (for listing a folder cheaply),
// whether name looks like a file this Converter converts.
func (c *Converter) SupportedName(name string) bool {
	k := kindByExt(name)
	return k != KindUnknown && c.formats[k] != nil
}

// Document is an opened file: metadata and page count now, pages on demand.
// Its methods are safe for concurrent use (page reads are serialised).
type Document struct {
	name   string
	kind   Kind
	head   documentHead
	titles []string
	states []string // Info.SheetStates

	mu      sync.Mutex
	pages   Pages
	env     *Env
	timeout time.Duration
	closed  bool
}

// documentHead is the Document layer as written (field order = wire order).
type documentHead struct {
	DocRef       string     `json:"doc_ref"`
	URI          string     `json:"uri"`
	FileURI      string     `json:"file_uri,omitempty"`
	FileType     string     `json:"file_type"`
	Title        string     `json:"title"`
	Summary      string     `json:"summary,omitempty"`
	PageCount    int        `json:"page_count"`
	Keywords     []string   `json:"keywords"`
	LastModified string     `json:"last_modified,omitempty"`
	Pages        []pageJSON `json:"pages"`
}

// fileDocRef is the doc_ref of a file on disk: its absolute path, cleaned,
// as the segments of its dpe://local URI (dpe.md §dpe:// URI: doc_ref is
// the URI's doc-ref; DPE-E045 holds the two to agree). The name as typed
// ("report.md", "../x/report.md") depends on the folder it was typed in,
// so an export of it named no file anywhere else. Empty without a
// file:// URI.
func fileDocRef(fileURI string) string {
	u, err := url.Parse(fileURI)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return ""
	}
	return strings.TrimPrefix(path.Clean(u.Path), "/")
}

// OpenFile opens a file from disk (file_uri and mod time from the file).
func (c *Converter) OpenFile(ctx context.Context, name string) (*Document, error) {
	f, st, err := OpenRegular(name)
	if err != nil {
		return nil, err // names the file once
	}
	abs, _ := filepath.Abs(name)
	src := Source{Name: name, ReaderAt: f, Size: st.Size(), ModTime: st.ModTime(),
		FileURI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()}
	d, err := c.Open(ctx, src)
	if err != nil {
		f.Close()
		return nil, err
	}
	d.onClose(f.Close)
	return d, nil
}

// Open sniffs src and opens it with its format's reader. Errors start with
// src.Name.
func (c *Converter) Open(ctx context.Context, src Source) (d *Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, fmt.Errorf("%s: internal error in the converter: %v", src.Name, r)
		}
	}()
	env := newEnv(c.opt.Limits)
	src.lim = env.Limits.MaxFileSize
	if src.Size > env.Limits.MaxFileSize {
		return nil, fmt.Errorf("%s: %w", src.Name, limitErr("file size", env.Limits.MaxFileSize, src.Size))
	}
	kind, err := Sniff(src.Name, src.ReaderAt, src.Size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name, err)
	}
	open := c.formats[kind]
	if open == nil {
		return nil, fmt.Errorf("%s: %w: %s (no converter for it yet)", src.Name, ErrUnsupported, kind)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	octx, cancel, expired := withDeadline(ctx, c.opt.Timeout)
	defer cancel()
	pages, err := open(octx, &src, env)
	if err = expired(err); err != nil {
		if pages != nil {
			pages.Close()
		}
		return nil, fmt.Errorf("%s: %w", src.Name, err)
	}
	info := pages.Info().bounded()
	if len(info.PageTitles) == 0 {
		info.PageTitles = []string{""}
	}
	if len(info.PageTitles) > env.Limits.MaxPages {
		pages.Close()
		return nil, fmt.Errorf("%s: %w", src.Name, limitErr("page count", int64(env.Limits.MaxPages), int64(len(info.PageTitles))))
	}
	docRef := src.DocRef
	if docRef == "" {
		docRef = fileDocRef(src.FileURI)
	}
	if docRef == "" {
		docRef = filepath.ToSlash(src.Name)
	}
	uri := src.URI
	if uri == "" {
		// Empty, "." and ".." segments are not allowed in a dpe:// URI
		// (a relative "../x.pdf" is common on a command line): they are
		// left out; doc_ref keeps the name as given.
		var segs []string
		for _, s := range strings.Split(docRef, "/") {
			if s != "" && s != "." && s != ".." {
				segs = append(segs, url.PathEscape(s))
			}
		}
		if len(segs) == 0 {
			segs = []string{"document"}
		}
		uri = "dpe://local/" + strings.Join(segs, "/")
	}
	lm := info.LastModified
	if t, err := time.Parse(time.RFC3339, lm); err == nil {
		lm = t.UTC().Format(time.RFC3339)
	} else if !src.ModTime.IsZero() {
		lm = src.ModTime.UTC().Truncate(time.Second).Format(time.RFC3339)
	} else {
		lm = ""
	}
	kw := info.Keywords
	if kw == nil {
		kw = []string{}
	}
	fileType := kind.FileType()
	if info.FileType != "" {
		fileType = info.FileType
	}
	d = &Document{
		name: src.Name, kind: kind, titles: info.PageTitles, states: info.SheetStates, pages: pages, env: env, timeout: c.opt.Timeout,
		head: documentHead{DocRef: docRef, URI: uri, FileURI: src.FileURI, FileType: fileType,
			Title: info.Title, Summary: info.Summary, PageCount: len(info.PageTitles), Keywords: kw, LastModified: lm},
	}
	if d.head.Title == "" {
		d.head.Title = path.Base(filepath.ToSlash(src.Name))
	}
	return d, nil
}

// ErrUnsupported is wrapped by errors for files no converter handles.
var ErrUnsupported = errors.New("unsupported format")

// Kind is the sniffed format.
func (d *Document) Kind() Kind { return d.kind }

// PageCount is the number of pages.
func (d *Document) PageCount() int { return len(d.titles) }

// Title is the document title (properties, else the file name; the full
// conversion may refine it to the first Title element).
func (d *Document) Title() string { return d.head.Title }

// FileType is the lowercase file_type.
func (d *Document) FileType() string { return d.head.FileType }

// Keywords are the document's keywords (never nil).
func (d *Document) Keywords() []string { return d.head.Keywords }

// LastModified is RFC 3339 or empty.
func (d *Document) LastModified() string { return d.head.LastModified }

// manifestPage is a page in manifest mode (dpe.md §Page 对象 mode B) as
// the skeleton and JSONPageOnly write it.
type manifestPage struct {
	PageIndex int    `json:"page_index"`
	Title     string `json:"title,omitempty"`
	DocRef    string `json:"doc_ref"`
	URI       string `json:"uri"`
	Metadata  Meta   `json:"metadata,omitempty"`
}

func (d *Document) manifestPage(i int) manifestPage {
	m := manifestPage{PageIndex: i, Title: d.titles[i], DocRef: d.head.DocRef, URI: fmt.Sprintf("convert:page/%d", i)}
	if i < len(d.states) && d.states[i] != "" {
		m.Metadata = Meta{"sheet_state": d.states[i]}
	}
	return m
}

// Skeleton is the document with every page in manifest mode: Title and
// Index set, uri "convert:page/<i>", no elements. Page(ctx, i) gives the
// decoded page to put in Pages[i]. The skeleton validates as DPE.
func (d *Document) Skeleton() *dpe.Document {
	type skeleton struct {
		documentHead
		Pages []manifestPage `json:"pages"`
	}
	s := skeleton{documentHead: d.head}
	for i := range d.titles {
		s.Pages = append(s.Pages, d.manifestPage(i))
	}
	data, err := jsonfast.Marshal(s)
	if err != nil {
		panic(err) // plain strings and ints always marshal
	}
	doc, err := dpe.Decode(data, dpe.Limits{MaxPages: d.env.Limits.MaxPages})
	if err != nil {
		panic(fmt.Sprintf("skeleton does not decode: %v", err))
	}
	return doc
}

// Page converts page i and returns it decoded (Raw, Elements, Decoded set).
func (d *Document) Page(ctx context.Context, i int) (*dpe.Page, error) {
	data, err := d.PageJSON(ctx, i)
	if err != nil {
		return nil, err
	}
	p, err := dpe.DecodePage(data, dpe.Limits{MaxElementsPerPage: d.env.Limits.MaxElementsPerPage, MaxDepth: 64})
	if err != nil {
		return nil, fmt.Errorf("%s: page %d: %w", d.name, i+1, err)
	}
	return p, nil
}

// PageJSON converts page i to its page object JSON.
func (d *Document) PageJSON(ctx context.Context, i int) ([]byte, error) {
	pj, err := d.page(ctx, i, newOutputBudget(d.env.Limits))
	if err != nil {
		return nil, err
	}
	return jsonfast.Marshal(pj)
}

// page reads page i within out: a page read on its own has the whole
// document's output budget, and JSON shares one budget across the pages.
func (d *Document) page(ctx context.Context, i int, out *outputBudget) (pj pageJSON, err error) {
	if i < 0 || i >= len(d.titles) {
		return pj, fmt.Errorf("%s: page %d out of range (document has %d pages)", d.name, i+1, len(d.titles))
	}
	if err := ctx.Err(); err != nil {
		return pj, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return pj, fmt.Errorf("%s: document is closed", d.name)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: page %d: internal error in the converter: %v", d.name, i+1, r)
		}
	}()
	b := newPageBuilder(i, d.head.DocRef, d.env.Limits, out)
	pctx, cancel, expired := withDeadline(ctx, d.timeout)
	defer cancel()
	if err := expired(d.pages.Page(pctx, i, b)); err != nil {
		if ctx.Err() != nil {
			return pj, ctx.Err()
		}
		return pj, fmt.Errorf("%s: page %d: %w", d.name, i+1, err)
	}
	if b.err != nil {
		return pj, fmt.Errorf("%s: %w", d.name, b.err)
	}
	return b.page(d.titles[i]), nil
}

// JSON converts every page and returns the whole DPE Document JSON (what
// `convert` writes). When the document properties had no title, the first
// Title element becomes the title.
func (d *Document) JSON(ctx context.Context) ([]byte, error) {
	head := d.head
	head.Pages = make([]pageJSON, 0, len(d.titles))
	firstTitle := ""
	out := newOutputBudget(d.env.Limits)
	jctx, cancel, expired := withDeadline(ctx, d.timeout)
	defer cancel()
	d.mu.Lock()
	readAllAhead(d.pages) // every page is read: a PDF reads ahead
	d.mu.Unlock()
	for i := range d.titles {
		pj, err := d.page(jctx, i, out)
		if err != nil {
			if lerr := expired(err); lerr != err {
				return nil, fmt.Errorf("%s: %w", d.name, lerr)
			}
			return nil, err
		}
		if firstTitle == "" {
			for _, el := range pj.Elements {
				if el.Category == "Title" && strings.TrimSpace(el.Text) != "" {
					firstTitle = strings.TrimSpace(el.Text)
					break
				}
			}
		}
		head.Pages = append(head.Pages, pj)
	}
	d.mu.Lock()
	fromProps := d.titleFromProps()
	d.mu.Unlock()
	if !fromProps && firstTitle != "" {
		head.Title = displayLine(firstTitle, maxTitleBytes)
	}
	return jsonfast.Marshal(head)
}

// JSONPageOnly is the document with only page i (0-based) converted and
// inline; every other page is in manifest mode as in Skeleton, not read.
// It is what `get --page N` of a local file needs: one page of a 200-page
// PDF, not all of them.
func (d *Document) JSONPageOnly(ctx context.Context, i int) ([]byte, error) {
	type pageOnly struct {
		documentHead
		Pages []any `json:"pages"`
	}
	if i < 0 || i >= len(d.titles) {
		return nil, fmt.Errorf("%s: page %d of %d", d.name, i+1, len(d.titles))
	}
	jctx, cancel, expired := withDeadline(ctx, d.timeout)
	defer cancel()
	pj, err := d.page(jctx, i, newOutputBudget(d.env.Limits))
	if err != nil {
		if lerr := expired(err); lerr != err {
			return nil, fmt.Errorf("%s: %w", d.name, lerr)
		}
		return nil, err
	}
	s := pageOnly{documentHead: d.head, Pages: make([]any, len(d.titles))}
	for k := range d.titles {
		s.Pages[k] = d.manifestPage(k)
	}
	s.Pages[i] = pj
	return jsonfast.Marshal(s)
}

func (d *Document) titleFromProps() bool { return d.pages != nil && d.pages.Info().Title != "" }

// onClose runs f after the reader is closed (the file under an OpenFile).
func (d *Document) onClose(f func() error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pages = &closeAfter{Pages: d.pages, after: f}
}

type closeAfter struct {
	Pages
	after func() error
}

func (c *closeAfter) Close() error { return errors.Join(c.Pages.Close(), c.after()) }

// Close releases the reader (and the file, for OpenFile).
func (d *Document) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	return d.pages.Close()
}

// ConvertJSON converts a whole file to DPE Document JSON.
func (c *Converter) ConvertJSON(ctx context.Context, src Source) ([]byte, error) {
	d, err := c.Open(ctx, src)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.JSON(ctx)
}

// ConvertFile is ConvertJSON for a file on disk.
func (c *Converter) ConvertFile(ctx context.Context, name string) ([]byte, error) {
	d, err := c.OpenFile(ctx, name)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.JSON(ctx)
}

// ErrNotRegular is wrapped by OpenRegular's refusals.
var ErrNotRegular = localfile.ErrNotRegular

// OpenRegular opens a local file for reading under the one local-file rule
// (internal/localfile: regular files only, nothing under /proc, /sys or
// /dev even through a symlink, no blocking open). A refusal is one line
// naming the file and the cause ("x.md: not a regular file (a FIFO)") and
// wraps ErrNotRegular; other errors are the *PathError, which names the
// file too.
func OpenRegular(name string) (*os.File, os.FileInfo, error) {
	return localfile.Open(name, localfile.Options{})
}
