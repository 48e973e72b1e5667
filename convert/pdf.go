package convert

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	pdferrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// pdfEngine is the PDFium WebAssembly pool (PDFium on wazero, no cgo),
// started on first use and stopped by Converter.Close.
//
// Two things make it safe and fast: the module gets an EMPTY filesystem
// (go-pdfium mounts all of "/" unless told otherwise; documents are passed
// as bytes, never as paths), and wazero's compiled code is cached on disk,
// so a start costs ~0.1 s instead of ~3 s of compiling PDFium.
type pdfEngine struct {
	cacheDir string
	notice   func(string)

	mu     sync.Mutex
	pool   pdfium.Pool
	cache  wazero.CompilationCache
	closed bool
	// compiled is set when start found the cache cold, so PDFium was
	// compiled (and written to the cache) rather than loaded.
	compiled bool
	// spare is the instance start made to unwatch calls on
	// (pdfUnwatchCalls), for the first document to use.
	spare pdfium.Pdfium
	// slots holds a token for each instance in use, pdfMaxInstances at
	// most: a document waits for one, a read-ahead takes one only when
	// it is free and nobody waits (waiting counts the documents that do).
	slots   chan struct{}
	waiting atomic.Int32
}

// PDFEngineNotice is the line Options.Notice gets before PDFium is
// compiled on a machine for the first time.
const PDFEngineNotice = "preparing the PDF engine (first use only)"

// pdfMaxInstances bounds concurrent PDF documents; more wait (with their
// context) for a free instance. With pdfMemoryLimit each, PDFium holds
// at most 512 MiB however hostile the files: each memory grows in place
// and is copied at most once (pdfMemory).
const pdfMaxInstances = 2

// pdfMemoryLimit is the linear memory one PDFium instance may grow to.
// Reading a page's text (nothing is rendered to pixels) needs a few MiB; a
// form XObject that draws itself, or a flate bomb in a content stream,
// would otherwise take gigabytes.
const pdfMemoryLimit = 256 << 20

// pdfPageTimeout bounds the work on one page (or on opening the file); the
// conversion's own deadline applies as well. At either, the instance is
// killed mid-call (wazero's CloseOnContextDone) and the page fails.
const pdfPageTimeout = 30 * time.Second

// pdfMaxChars bounds the characters of one page read into words: a page
// of five columns of 8-point text has ~40,000.
const pdfMaxChars = 1 << 19

// pdfInstanceWait bounds the wait for a free PDFium instance.
const pdfInstanceWait = 30 * time.Second

func (e *pdfEngine) start() (pdfium.Pool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, errors.New("the converter is closed")
	}
	if e.pool != nil {
		return e.pool, nil
	}
	rc := wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithMemoryLimitPages(pdfMemoryLimit / 65536).
		WithCloseOnContextDone(true)
	if dir := e.cachePath(); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err == nil {
			if c, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
				e.cache = c
				rc = rc.WithCompilationCache(c)
				e.compiled = pdfCacheCold(dir)
				if e.compiled && e.notice != nil {
					e.notice(PDFEngineNotice)
				}
			}
		}
	}
	pool, err := webassembly.Init(webassembly.Config{
		Context:       pdfMemoryContext(),
		MinIdle:       0,
		MaxIdle:       1,
		MaxTotal:      pdfMaxInstances,
		FSConfig:      wazero.NewFSConfig(),
		RuntimeConfig: rc,
		Stdout:        io.Discard,
		Stderr:        io.Discard,
	})
	if err != nil {
		return nil, fmt.Errorf("start the PDF engine: %w", err)
	}
	// Calls are unwatched before any document can call: the switch is
	// shared by every instance of the runtime.
	inst, err := pool.GetInstance(pdfInstanceWait)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("start the PDF engine: %w", err)
	}
	pdfUnwatchCalls(inst)
	e.pool, e.spare = pool, inst
	e.slots = make(chan struct{}, pdfMaxInstances)
	e.slots <- struct{}{} // the spare's
	return pool, nil
}

// instance is a PDFium instance for one document: the spare, else one
// from the pool within pdfInstanceWait. release gives its slot back once
// the instance is closed or killed.
func (e *pdfEngine) instance(ctx context.Context) (inst pdfium.Pdfium, release func(), err error) {
	if _, err := e.start(); err != nil {
		return nil, nil, err
	}
	e.mu.Lock()
	inst, e.spare = e.spare, nil
	slots := e.slots
	e.mu.Unlock()
	release = sync.OnceFunc(func() { <-slots })
	if inst != nil {
		return inst, release, nil
	}
	wctx, cancel := context.WithTimeout(ctx, pdfInstanceWait)
	defer cancel()
	e.waiting.Add(1)
	select {
	case slots <- struct{}{}:
		e.waiting.Add(-1)
	case <-wctx.Done():
		e.waiting.Add(-1)
		return nil, nil, fmt.Errorf("no PDF engine instance free: %w", wctx.Err())
	}
	if inst, err = e.get(wctx); err != nil {
		release()
		return nil, nil, fmt.Errorf("no PDF engine instance free: %w", err)
	}
	return inst, release, nil
}

// slot takes an instance's slot for reading ahead, only when one is
// free at once and no document waits for one; the caller gets the
// instance (get) and calls release when it is closed.
func (e *pdfEngine) slot() (release func(), ok bool) {
	e.mu.Lock()
	slots, closed := e.slots, e.closed
	e.mu.Unlock()
	if slots == nil || closed || e.waiting.Load() > 0 {
		return nil, false
	}
	select {
	case slots <- struct{}{}:
	default:
		return nil, false
	}
	return sync.OnceFunc(func() { <-slots }), true
}

// get takes an instance from the pool, which has room: the caller holds
// a slot.
func (e *pdfEngine) get(ctx context.Context) (pdfium.Pdfium, error) {
	e.mu.Lock()
	pool := e.pool
	e.mu.Unlock()
	if pool == nil {
		return nil, errors.New("the converter is closed")
	}
	return pool.GetInstanceWithContext(ctx)
}

// cachePath is where compiled PDFium lives: Options.CacheDir, else
// $XDG_CACHE_HOME/dpe-tui/wazero (os.UserCacheDir reads XDG_CACHE_HOME).
func (e *pdfEngine) cachePath() string {
	switch e.cacheDir {
	case "-":
		return ""
	case "":
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			var err error
			if base, err = os.UserCacheDir(); err != nil {
				return ""
			}
		}
		return filepath.Join(base, "dpe-tui", "wazero")
	}
	return e.cacheDir
}

// pdfCacheCold reports whether the compilation cache in dir holds no
// compiled module for this build's wazero: wazero keeps them in
// dir/wazero-VERSION-GOARCH-GOOS/, one file per module named by its hash
// (".tmp" while being written). A module compiled by another go-pdfium
// build of the same wazero also counts as warm: the notice is a hint, and
// a wrong "no" costs one silent compile.
func pdfCacheCold(dir string) bool {
	sub := "wazero-" + wazeroVersion() + "-" + runtime.GOARCH + "-" + runtime.GOOS
	entries, err := os.ReadDir(filepath.Join(dir, sub))
	if err != nil {
		return true
	}
	for _, en := range entries {
		if en.Type().IsRegular() && !strings.HasSuffix(en.Name(), ".tmp") {
			return false
		}
	}
	return true
}

// wazeroVersion is the version wazero names its cache directory after,
// read as wazero reads it (its internal/version): the module's version in
// the build information, else the main module's, else "dev".
func wazeroVersion() string {
	v := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if strings.Contains(dep.Path, "github.com/tetratelabs/wazero") {
				v = dep.Version
			}
		}
		if v == "" || v == "(devel)" {
			v = info.Main.Version
		}
	}
	if v == "" || v == "(devel)" {
		return "dev"
	}
	return v
}

func (e *pdfEngine) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	e.spare = nil // closed with the pool
	var err error
	if e.pool != nil {
		err = e.pool.Close()
		e.pool = nil
	}
	if e.cache != nil {
		err = errors.Join(err, e.cache.Close(context.Background()))
		e.cache = nil
	}
	return err
}

// pdfReader is one PDFium instance with the document open in it: what
// reads pages. A PDF has one for its life, and a second one while it is
// read ahead (pdfAhead).
type pdfReader struct {
	inst    pdfium.Pdfium
	release func() // the instance's slot
	doc     *responses.OpenDocument
	// objects counts the page objects read so far (pdfMaxDocObjects):
	// go-pdfium keeps a handle for each, per instance.
	objects int
	// killed is set when the instance was killed (a deadline, or a trap
	// that leaves it unusable): the document is gone with it.
	killed atomic.Bool
	// direct reads characters with one call each (pdfChars); noDirect
	// once it could not be made.
	direct   *pdfChars
	noDirect bool
}

// openReader opens data in inst; on failure inst is closed.
func openReader(ctx context.Context, inst pdfium.Pdfium, release func(), data []byte) (*pdfReader, error) {
	r := &pdfReader{inst: inst, release: release}
	err := guard(ctx, inst, &r.killed, "opening", func() (err error) {
		r.doc, err = inst.OpenDocument(&requests.OpenDocument{File: &data})
		return err
	})
	if err != nil {
		if !r.killed.Load() {
			inst.Close()
		}
		release()
		var le *dpe.LimitError
		if errors.As(err, &le) || ctx.Err() != nil {
			return nil, err
		}
		return nil, pdfOpenError(err)
	}
	return r, nil
}

func (r *pdfReader) close() error {
	if r.inst == nil {
		return nil
	}
	defer r.release()
	if r.killed.Load() {
		r.inst = nil // Kill gave the worker back already
		return nil
	}
	_, err := r.inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: r.doc.Document})
	err = errors.Join(err, r.inst.Close())
	r.inst = nil
	return err
}

// pdfPages is an open PDF.
type pdfPages struct {
	*pdfReader
	headings pdfHeadingDepth // the last Title's depth, for the next page
	engine   *pdfEngine
	info     Info
	data     []byte // kept alive: PDFium reads from it lazily
	// levels are the outline's titles on each page with their level.
	levels map[int]map[string]int
	// bands are the lines in each read page's top and bottom bands, for
	// telling running headers and footers (runningLines).
	bands map[int][]pdfCandidate
	// tails are the tables that end each read page, for the next.
	tails map[int]*pdfTableTail
	// ahead reads every other page on a second instance when the whole
	// document is converted (readAhead, wantAhead); nil otherwise.
	ahead     *pdfAhead
	wantAhead bool
}

// guard runs f (calls into inst) under the page time budget and ctx: at
// either deadline the instance is killed, which ends the call in flight.
// A trap (PDFium aborting, most often because an allocation failed at
// pdfMemoryLimit) kills the instance too, and becomes one readable line
// instead of a wasm stack trace. where is "page 3" or "opening".
func guard(ctx context.Context, inst pdfium.Pdfium, killed *atomic.Bool, where string, f func() error) error {
	start := time.Now()
	pctx, cancel := context.WithTimeout(ctx, pdfPageTimeout)
	defer cancel()
	stop := context.AfterFunc(pctx, func() {
		killed.Store(true)
		inst.Kill()
	})
	err := f()
	if !stop() {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return limitErr("PDF engine time on "+where+" in milliseconds", pdfPageTimeout.Milliseconds(), time.Since(start).Milliseconds())
	}
	if err == nil || !strings.Contains(err.Error(), "wasm error") {
		return err
	}
	mem := wasmMemory(inst)
	killed.Store(true)
	inst.Kill()
	if mem > pdfMemoryLimit/2 {
		return &pdfMemoryError{where: where, limit: &dpe.LimitError{What: "PDF engine memory size", Limit: pdfMemoryLimit, Got: pdfMemoryLimit + 65536}}
	}
	return fmt.Errorf("PDFium failed on %s (an internal error in the PDF engine)", where)
}

// pdfMemoryError is a page PDFium could not render within pdfMemoryLimit.
// Got is a lower bound: the limit plus the 64 KiB page the failed grow
// asked for.
type pdfMemoryError struct {
	where string
	limit *dpe.LimitError
}

func (e *pdfMemoryError) Error() string {
	return fmt.Sprintf("this PDF needs more than %d MiB to render %s (%v)", e.limit.Limit>>20, e.where, e.limit)
}

func (e *pdfMemoryError) Unwrap() error { return e.limit }

// wasmMemory is the size of inst's linear memory, 0 when unknown. go-pdfium
// keeps the module in an internal type, so it is reached by reflection.
func wasmMemory(inst pdfium.Pdfium) (size uint64) {
	defer func() {
		if recover() != nil {
			size = 0
		}
	}()
	v := reflect.ValueOf(inst.GetImplementation())
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	m := v.FieldByName("Module")
	if !m.IsValid() || m.IsNil() {
		return 0
	}
	mem := m.MethodByName("Memory").Call(nil)[0]
	return mem.MethodByName("Size").Call(nil)[0].Uint()
}

func (e *pdfEngine) open(ctx context.Context, src *Source, env *Env) (Pages, error) {
	data, err := src.Bytes()
	if err != nil {
		return nil, err
	}
	inst, release, err := e.instance(ctx)
	if err != nil {
		return nil, err
	}
	r, err := openReader(ctx, inst, release, data)
	if err != nil {
		return nil, err
	}
	p := &pdfPages{pdfReader: r, engine: e, data: data}
	doc := r.doc
	n, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("damaged PDF: %w", err)
	}
	if n.PageCount <= 0 {
		p.Close()
		return nil, errors.New("damaged or truncated PDF: no pages")
	}
	if n.PageCount > env.Limits.MaxPages {
		p.Close()
		return nil, limitErr("page count", int64(env.Limits.MaxPages), int64(n.PageCount))
	}
	meta := func(tag string) string {
		r, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc.Document, Tag: tag})
		if err != nil {
			return ""
		}
		return strings.TrimSpace(r.Value)
	}
	p.info.Title = meta("Title")
	p.info.Summary = meta("Subject")
	p.info.Keywords = pdfKeywords(meta("Keywords"))
	p.info.LastModified = pdfDate(meta("ModDate"))
	if p.info.LastModified == "" {
		p.info.LastModified = pdfDate(meta("CreationDate"))
	}
	p.info.PageTitles = make([]string, n.PageCount)
	if err := guard(ctx, inst, &p.killed, "the outline", func() error {
		p.levels = applyOutline(p.readOutline(), p.info.PageTitles)
		return nil
	}); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// pdfOpenError turns PDFium's error codes into one readable cause.
func pdfOpenError(err error) error {
	switch {
	case errors.Is(err, pdferrors.ErrPassword):
		return errors.New("encrypted PDF (a password is required)")
	case errors.Is(err, pdferrors.ErrSecurity):
		return errors.New("encrypted PDF (unsupported security handler)")
	case errors.Is(err, pdferrors.ErrFormat), errors.Is(err, pdferrors.ErrFile):
		return errors.New("damaged or truncated PDF (PDFium cannot parse it)")
	}
	return fmt.Errorf("PDF cannot be opened: %w", err)
}

func (p *pdfPages) Info() Info { return p.info }

func (p *pdfPages) Close() error {
	return errors.Join(p.stopAhead(), p.close())
}

// pdfRun is a PDFium text rect: text on one line in one font, in PDF user
// space (origin bottom left, y up).
type pdfRun struct {
	text                     string
	left, bottom, right, top float64
	size                     float64
	mono                     bool // a fixed-pitch font
	// glued: the word before it ends where it starts, with no space
	// between, and only a change of size or baseline made it a word of
	// its own (a footnote mark "salt¹", a code span in a smaller font
	// before its comma): its line's text puts no space before it.
	glued bool
}

func (p *pdfPages) Page(ctx context.Context, i int, b *PageBuilder) error {
	if p.killed.Load() {
		return errors.New("the PDF engine was stopped on an earlier page of this document")
	}
	if p.tails == nil {
		p.tails = map[int]*pdfTableTail{}
	}
	// A table continued from the page before is linked to its first part
	// even when this page is read alone (get --page N): that page is laid
	// out aside, for its last table. Its tail does not depend on the page
	// before it (a tail's head is its own first row, repeated or not), and
	// element ids derive from position, so the link is the one a whole
	// conversion makes.
	if _, known := p.tails[i-1]; i > 0 && !known {
		aside := newPageBuilder(i-1, b.docRef, b.lim, newOutputBudget(b.lim))
		d, err := p.read(ctx, i-1, b.lim.MaxPixels)
		if err == nil {
			err = p.layoutPage(ctx, i-1, d, aside)
		}
		if err != nil {
			if p.killed.Load() || ctx.Err() != nil {
				return err
			}
			p.tails[i-1] = nil // unreadable: this page's table stands alone
		}
	}
	d, ok, err := p.takeAhead(ctx, i)
	if !ok {
		p.readNext(i+1, b.lim.MaxPixels)
		d, err = p.read(ctx, i, b.lim.MaxPixels)
	}
	if err == nil {
		err = p.layoutPage(ctx, i, d, b)
	}
	if err != nil {
		p.tails[i] = nil // a failed page is not read again for the next
		return err
	}
	return nil
}

// layoutPage lays out page i, read as d, into b and records the table
// that ends it.
func (p *pdfPages) layoutPage(ctx context.Context, i int, d pdfPageData, b *PageBuilder) error {
	var running []pdfBox
	err := guard(ctx, p.inst, &p.killed, fmt.Sprintf("page %d", i+1), func() error {
		// Reading the neighbours' text loads their pages.
		running = p.runningLines(i, bandCandidates(d.runs, d.h))
		return nil
	})
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p.tails[i] = layoutPDFPage(d.runs, d.w, d.h, i, pdfPageExtras{outline: p.levels[i], links: d.links, images: d.images,
		running: running, rules: d.rules, prevTable: p.tails[i-1], headings: &p.headings}, b)
	return nil
}

// pdfPageData is what PDFium tells of one page.
type pdfPageData struct {
	runs   []pdfRun
	links  []pdfLink
	images []pdfImage
	rules  []pdfBox
	w, h   float64
}

// read reads page i under the page's time budget.
func (r *pdfReader) read(ctx context.Context, i int, maxPixels int64) (d pdfPageData, err error) {
	err = guard(ctx, r.inst, &r.killed, fmt.Sprintf("page %d", i+1), func() (err error) {
		if d.runs, d.w, d.h, err = r.pageRuns(ctx, i); err != nil {
			return err
		}
		d.links = r.pageLinks(i)
		d.images, d.rules = r.pageObjects(i, maxPixels)
		return nil
	})
	return d, err
}

// pageRuns reads page i's text as words (the runs) and the page size.
//
// Words are built from PDFium's characters the way poppler's pdftotext
// builds them, so both tools agree on what a word is: each character's
// LOOSE box (origin to advance width, font ascent to descent — not the
// glyph's ink, whose side bearings make "<!DOCTYPE" in a monospaced font
// look like two words), and a new word at a space (PDFium's generated ones
// included), at a horizontal gap over 0.1 em, at an overlap back over
// 0.2 em, at a baseline change over 0.5 pt and at a change of font size.
func (p *pdfReader) pageRuns(ctx context.Context, i int) (runs []pdfRun, w, h float64, err error) {
	if p.inst == nil {
		return nil, 0, 0, errors.New("document is closed")
	}
	sz, err := p.inst.FPDF_GetPageSizeByIndexF(&requests.FPDF_GetPageSizeByIndexF{Document: p.doc.Document, Index: i})
	if err != nil {
		return nil, 0, 0, fmt.Errorf("page size: %w", err)
	}
	w, h = float64(sz.Size.Width), float64(sz.Size.Height)
	tp, err := p.inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{
		Page: requests.Page{ByIndex: &requests.PageByIndex{Document: p.doc.Document, Index: i}},
	})
	if err != nil {
		return nil, 0, 0, fmt.Errorf("text: %w", err)
	}
	defer p.inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	n, err := p.inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return nil, 0, 0, fmt.Errorf("text: %w", err)
	}
	if n.Count > pdfMaxChars {
		return nil, 0, 0, limitErr(fmt.Sprintf("character count on page %d", i+1), pdfMaxChars, int64(n.Count))
	}
	// Characters are read with one call each where pdfChars can, else
	// through go-pdfium's requests: the same values either way.
	ch := p.chars()
	var raw uint64
	direct := false
	if ch != nil {
		raw, direct = pdfTextPageHandle(p.inst, tp.TextPage)
	}
	unicodeAt := func(c int) (rune, error) {
		if direct {
			return ch.unicodeAt(raw, c)
		}
		u, err := p.inst.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp.TextPage, Index: c})
		if err != nil {
			return 0, err
		}
		return rune(u.Unicode), nil
	}
	looseBox := func(c int) (l, t, r, b float64, ok bool, err error) {
		if direct {
			return ch.looseBox(raw, c)
		}
		bx, err := p.inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp.TextPage, Index: c})
		if err != nil {
			return 0, 0, 0, 0, false, nil
		}
		return float64(bx.Rect.Left), float64(bx.Rect.Top), float64(bx.Rect.Right), float64(bx.Rect.Bottom), true, nil
	}
	charOriginY := func(c int) (float64, bool) {
		if direct {
			return ch.originY(raw, c)
		}
		o, err := p.inst.FPDFText_GetCharOrigin(&requests.FPDFText_GetCharOrigin{TextPage: tp.TextPage, Index: c})
		if err != nil {
			return 0, false
		}
		return o.Y, true
	}
	// A word's font is asked at its start: the loose box's height does not
	// tell a font change, as two fonts of one family and size (DejaVu Sans
	// and DejaVu Sans Mono share their ascent and descent) give words
	// boxes of one height, and code after prose was read as prose.
	monoAt := func(c int) (bool, error) {
		if direct {
			return ch.monospace(raw, c)
		}
		return p.monospace(tp.TextPage, c), nil
	}
	var (
		cur     *pdfRun
		sb      strings.Builder
		base    float64 // the current word's baseline
		lastR   float64 // the previous character's right edge
		lastL   float64
		lastH   float64 // the previous character's loose-box height
		lastB   float64 // and its bottom
		lastU   rune    // the previous character
		glued   bool    // the next word is glued to the one that just ended
		wordEnd = func() {
			if cur != nil {
				cur.text = sb.String()
				if strings.TrimSpace(cur.text) != "" {
					runs = append(runs, *cur)
				}
			}
			cur = nil
			sb.Reset()
		}
	)
	for c := 0; c < n.Count; c++ {
		if c%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, 0, 0, err
			}
		}
		u, err := unicodeAt(c)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("text: %w", err)
		}
		r := pdfCleanRune(u)
		if r < 0 {
			continue
		}
		if r == 0 || unicode.IsSpace(r) {
			wordEnd()
			glued = false
			continue
		}
		bl, bt, br, bb, ok, err := looseBox(c)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("text: %w", err)
		}
		if !ok {
			// No box: a zero-width mark (a variation selector, a combining
			// accent) belongs to the word it follows; alone it cannot be
			// placed.
			if cur != nil {
				sb.WriteRune(r)
			}
			continue
		}
		left, right := min(bl, br), max(bl, br)
		bottom, top := min(bt, bb), max(bt, bb)
		// The baseline (the character's origin) costs a call; a character
		// whose loose box has the previous one's bottom and height sits
		// on the previous one's baseline, so it is asked only otherwise
		// and at a word's start.
		originY, haveY := 0.0, false
		baseline := func() float64 {
			if !haveY {
				haveY = true
				originY = bottom
				if y, ok := charOriginY(c); ok {
					originY = y
				}
			}
			return originY
		}
		sameBase := math.Abs(bottom-lastB) < 0.01 && math.Abs((top-bottom)-lastH) < 0.01
		ligature := cur != nil && math.Abs(left-lastL) < 0.01 && math.Abs(right-lastR) < 0.01
		if cur != nil && !ligature {
			// Chinese and Japanese put no spaces between words, and
			// glyphs set loosely (a fallback font narrower than its em)
			// leave gaps a Latin word break would be: between two such
			// characters only a word-size gap is one (Korean's spaces).
			sp, word := left-lastR, 0.1*cur.size
			if spaceless(lastU) && spaceless(r) {
				word = 0.25 * cur.size
			}
			apart := sp > word || sp < -0.2*cur.size || left < lastL-0.2*cur.size
			if apart || !sameBase && math.Abs(baseline()-base) > 0.5 {
				wordEnd()
				glued = !apart
			}
		}
		if cur == nil {
			mono, err := monoAt(c)
			if err != nil {
				return nil, 0, 0, fmt.Errorf("text: %w", err)
			}
			cur = &pdfRun{left: left, right: right, bottom: bottom, top: top, size: p.renderedSize(tp.TextPage, c, top-bottom), mono: mono, glued: glued}
			base = baseline()
		} else if math.Abs((top-bottom)-lastH) > 0.01 {
			// A size change is a new word too. The loose box's height is
			// the font's ascent to descent at its size, so PDFium is asked
			// for the size only when that height changes: two calls fewer
			// per character.
			if s := p.renderedSize(tp.TextPage, c, top-bottom); math.Abs(s-cur.size) > 0.01 {
				wordEnd()
				mono, err := monoAt(c)
				if err != nil {
					return nil, 0, 0, fmt.Errorf("text: %w", err)
				}
				cur = &pdfRun{left: left, right: right, bottom: bottom, top: top, size: s, mono: mono, glued: true}
				base = baseline()
			}
		}
		lastB = bottom
		lastH = top - bottom
		cur.left, cur.right = math.Min(cur.left, left), math.Max(cur.right, right)
		cur.bottom, cur.top = math.Min(cur.bottom, bottom), math.Max(cur.top, top)
		sb.WriteRune(r)
		lastL, lastR, lastU = left, right, r
	}
	wordEnd()
	return runs, w, h, nil
}

// renderedSize is a character's font size as drawn (the size times the
// text matrix's vertical scale); fallback when PDFium has none.
func (p *pdfReader) renderedSize(tp references.FPDF_TEXTPAGE, c int, fallback float64) float64 {
	fs, err := p.inst.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: tp, Index: c})
	if err != nil || fs.FontSize <= 0 {
		return fallback
	}
	size := fs.FontSize
	if m, err := p.inst.FPDFText_GetMatrix(&requests.FPDFText_GetMatrix{TextPage: tp, Index: c}); err == nil {
		if sc := math.Hypot(float64(m.Matrix.C), float64(m.Matrix.D)); sc > 0 {
			size *= sc
		}
	}
	if size > 4*fallback+1 {
		return fallback
	}
	return size
}

// monospace reports whether character c is in a fixed-pitch font (see
// pdfMonospace).
func (p *pdfReader) monospace(tp references.FPDF_TEXTPAGE, c int) bool {
	fi, err := p.inst.FPDFText_GetFontInfo(&requests.FPDFText_GetFontInfo{TextPage: tp, Index: c})
	if err != nil {
		return false
	}
	return pdfMonospace(fi.Flags, fi.FontName)
}

// pdfMonospace is whether a font is fixed-pitch: its descriptor's
// FixedPitch flag, or a name that says so (subset fonts often lose the
// flag; Nimbus Mono, the URW Courier of Ghostscript and TeX, has it
// unset).
func pdfMonospace(flags int, name string) bool {
	return flags&1 != 0 || monoFontName.MatchString(name)
}

var monoFontName = regexp.MustCompile(`(?i)mono|courier|consol|typewriter|cmtt|sfmono|menlo|inconsolata|fixed|nimbusmon|lettergothic|sourcecode`)

// pdfCleanRune drops control characters PDFium emits for generated line
// ends and keeps everything printable.
func pdfCleanRune(r rune) rune {
	switch {
	case r == '\r' || r == '\n' || r == '\t':
		return ' '
	case r == 0x02:
		// PDFium's mark for a hyphen at the end of a line: the hyphen
		// printed there, kept as printed (poppler keeps it too).
		return '-'
	case r == 0xFFFE:
		return -1
	case r >= 0xF000 && r <= 0xF0FF:
		// Symbol and Wingdings bullets Word and LibreOffice write as the
		// font's private-use code: the bullet they draw.
		if b, ok := symbolBullets[r]; ok {
			return b
		}
	case unicode.IsControl(r):
		return -1
	}
	return r
}

var symbolBullets = map[rune]rune{0xF0B7: '•', 0xF09F: '•', 0xF0A7: '▪', 0xF076: '❖', 0xF0D8: '➢', 0xF0FC: '✓', 0xF06C: '●', 0xF06E: '■', 0xF0A8: '□', 0xF0E0: '➔'}

// spaceless reports whether r is of a script written without spaces
// between its characters (Han, Hiragana, Katakana, Hangul syllables) or
// full-width punctuation: text in them is not split, nor lines joined,
// with a space.
func spaceless(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF
}

// pdfLine is runs sharing a baseline, left to right.
type pdfLine struct {
	runs                     []pdfRun
	left, bottom, right, top float64
	size                     float64 // the largest run's size
	col                      int     // the pdfRegion's column
	// wordGoesOn: its first word is the rest of the line before's last
	// word, broken there at a hyphen (see joinBrokenWords): no space
	// between them.
	wordGoesOn bool
}

// mono reports whether every run of the line is in a fixed-pitch font.
func (l *pdfLine) mono() bool {
	for _, r := range l.runs {
		if !r.mono {
			return false
		}
	}
	return len(l.runs) > 0
}

func (l *pdfLine) text() string {
	// Runs are words (see pageRuns), so one space between each, except
	// before a word glued to the one it touches.
	var sb strings.Builder
	for i, r := range l.runs {
		if i > 0 && !glue(l.runs[i-1], r) {
			sb.WriteByte(' ')
		}
		sb.WriteString(r.text)
	}
	return sb.String()
}

// glue reports whether r follows p in a line with no space between: it
// starts within a tenth of the smaller em of p's end (or over it), and it was cut
// from p by a change of size or baseline only, or the two differ in size
// or baseline (a script: TeX stacks v′₁'s prime over its subscript).
func glue(p, r pdfRun) bool {
	sz := math.Max(r.size, p.size)
	if r.left-p.right >= 0.1*math.Min(r.size, p.size) || r.left < p.left-0.05*sz || r.bottom >= p.top || r.top <= p.bottom {
		return false // apart, or a wrapped cell's next line
	}
	return r.glued || math.Min(r.size, p.size) < 0.85*sz || math.Abs(r.bottom-p.bottom) > 0.15*sz
}

// layoutPDFPage cuts the page into regions along its whitespace (see
// xyCut), reads each region's runs as lines, takes its tables out, groups
// the rest into blocks and classifies each block, in reading order.
//
// ex.outline is the bookmark titles that open this page, with their
// levels: a block with such a text is a Title of that level.
func layoutPDFPage(runs []pdfRun, w, h float64, page int, ex pdfPageExtras, b *PageBuilder) *pdfTableTail {
	if len(runs) == 0 {
		// A page of pictures and no text is a scan (or a drawing saved
		// as one): it says so, and shows the pictures.
		if len(ex.images) > 0 {
			b.SetPageMeta("no_text_layer", true)
		}
		for _, im := range ex.images {
			emitPDFImage(im, "", w, h, page, b)
		}
		return nil
	}
	// Tables drawn with ruling lines are read from their grid first; the
	// runs in them are theirs alone.
	ruled, runs := ruledTables(ex.rules, runs)
	body := bodySize(runs)
	type part struct {
		blocks []*pdfBlock
		tables []*pdfTable
	}
	var parts []part
	var all []*pdfBlock
	vocab := pageWords(runs)
	for _, g := range xyCut(runs, body) {
		lines := groupLines(g.runs)
		tables, lines := findTables(lines, w)
		for _, l := range lines {
			l.col = g.col
		}
		lines = readingRows(lines)
		blocks := groupBlocks(lines, body, ex.running)
		for _, bl := range blocks {
			joinBrokenWords(bl, vocab)
		}
		parts = append(parts, part{blocks, tables})
		all = append(all, blocks...)
	}
	headingSizes := distinctHeadingSizes(all, body)
	// List depth is the rank of an item's indent among the distinct list
	// indents of its column (4 pt tolerance): producers indent levels by
	// different steps.
	indents := map[int][]float64{}
	for _, bl := range all {
		if !listMarker.MatchString(blockText(bl)) {
			continue
		}
		c := bl.lines[0].col
		dup := false
		for _, x := range indents[c] {
			if math.Abs(x-bl.left) < 4 {
				dup = true
			}
		}
		if !dup {
			indents[c] = append(indents[c], bl.left)
		}
	}
	// An image without alt text takes its caption's ("Figure 2: …"), the
	// block just below it (else just above it) that says so.
	captions := map[*pdfBlock]bool{}
	imgCaption := make([]string, len(ex.images))
	for k, im := range ex.images {
		if bl := captionOf(im, all, body); bl != nil {
			captions[bl] = true
			if im.alt == "" {
				imgCaption[k] = blockText(bl)
			}
		}
	}
	ex.captions = captions
	// A table at the top of the page's body with the columns of the one
	// that ended the page before continues it; the page's last table, if
	// nothing but furniture follows it, is the tail for the next page.
	first := true
	var tail *pdfTableTail
	table := func(t *pdfTable) {
		meta := Meta{}
		if first && ex.prevTable.continues(t) {
			meta["continued_from"] = ex.prevTable.id
			if rowText(t) == ex.prevTable.head {
				meta["repeated_header_rows"] = 1
			}
		}
		id := emitPDFTable(t, meta, w, h, page, b)
		first = false
		// Its own first row, which is the header it repeated, if any.
		tail = &pdfTableTail{id: id, anchors: t.anchors, head: rowText(t)}
	}
	// Images and ruled tables are placed, top to bottom, before the first
	// block below their top in the part under their centre.
	type floater struct {
		top, cx float64
		emit    func()
	}
	var pending []floater
	for k, im := range ex.images {
		pending = append(pending, floater{im.top, (im.left + im.right) / 2, func() {
			emitPDFImage(im, imgCaption[k], w, h, page, b)
			first, tail = false, nil
		}})
	}
	for _, t := range ruled {
		pending = append(pending, floater{t.top, (t.left + t.right) / 2, func() { table(t) }})
	}
	sort.SliceStable(pending, func(a, c int) bool { return pending[a].top > pending[c].top })
	placeImages := func(pl, pr, top float64) {
		rest := pending[:0]
		for _, f := range pending {
			if f.top > top && f.cx >= pl-1 && f.cx <= pr+1 {
				f.emit()
				continue
			}
			rest = append(rest, f)
		}
		pending = rest
	}
	lastItem := map[int]int{}
	for _, pt := range parts {
		pl, pr := math.Inf(1), math.Inf(-1)
		for _, bl := range pt.blocks {
			pl, pr = math.Min(pl, bl.left), math.Max(pr, bl.right)
		}
		for _, t := range pt.tables {
			pl, pr = math.Min(pl, t.left), math.Max(pr, t.right)
		}
		next := 0 // the next table to place: before the first block below its top
		for _, bl := range pt.blocks {
			placeImages(pl, pr, bl.top)
			for next < len(pt.tables) && bl.top < pt.tables[next].top-1 {
				table(pt.tables[next])
				next++
			}
			depth := 0
			for _, x := range indents[bl.lines[0].col] {
				if x < bl.left-4 {
					depth++
				}
			}
			switch emitPDFBlock(bl, body, headingSizes, depth, lastItem, ex, w, h, page, b) {
			case "Header", "Footer", "PageNumber":
			default:
				first, tail = false, nil
			}
		}
		for ; next < len(pt.tables); next++ {
			table(pt.tables[next])
		}
	}
	for _, f := range pending {
		f.emit()
	}
	return tail
}

// captionOf is the block captioning im: the nearest block starting with
// a caption's opening ("Figure 2") within two body sizes below the image,
// else above it, overlapping it horizontally.
func captionOf(im pdfImage, blocks []*pdfBlock, body float64) *pdfBlock {
	gap := 2 * math.Max(body, 4)
	var below, above *pdfBlock
	for _, bl := range blocks {
		if bl.right < im.left || bl.left > im.right || !captionText.MatchString(blockText(bl)) {
			continue
		}
		if d := im.bottom - bl.top; d >= -1 && d <= gap && (below == nil || bl.top > below.top) {
			below = bl
		}
		if d := bl.bottom - im.top; d >= -1 && d <= gap && (above == nil || bl.bottom < above.bottom) {
			above = bl
		}
	}
	if below != nil {
		return below
	}
	return above
}

// pdfPageExtras is what a page has besides its text.
type pdfPageExtras struct {
	outline  map[string]int // bookmark titles opening the page, by level
	links    []pdfLink
	images   []pdfImage
	captions map[*pdfBlock]bool // blocks that caption an image
	running  []pdfBox           // lines repeated on a neighbouring page
	rules    []pdfBox           // ruling lines (thin paths)
	// prevTable is the table that ended the page before, if it was read.
	prevTable *pdfTableTail
	// headings is the depth of the last Title emitted, across pages.
	headings *pdfHeadingDepth
}

// pdfHeadingDepth is the depth of the last Title emitted. A Title may go
// at most one level deeper than the one before it: a heading told by its
// size alone (an author line set between the title's size and a
// section's) would otherwise skip levels, which a strict check rejects.
type pdfHeadingDepth struct {
	seen bool
	last int
}

// clamp is depth held to one below the last Title's, and remembered.
func (h *pdfHeadingDepth) clamp(depth int) int {
	if h == nil {
		return depth
	}
	if h.seen && depth > h.last+1 {
		depth = h.last + 1
	}
	h.seen, h.last = true, depth
	return depth
}

// pdfRegion is runs that read as one flow: col numbers the column the
// region lies in (0 for the page's full width), so lines of different
// columns never join one paragraph.
type pdfRegion struct {
	col  int
	runs []pdfRun
}

// pdfMaxCutDepth bounds the nesting of columns within columns.
const pdfMaxCutDepth = 6

// xyCut orders a page's runs by recursive XY-cut: a region is cut into
// bands at horizontal strips of whitespace, and a band into columns at
// vertical strips no word crosses, when every column it would make looks
// like running text (see columnsOf); each part is cut again. Consecutive
// bands with the same gutters are one band (two columns whose paragraph
// breaks happen to line up are still two columns). Consecutive regions of
// one column come back as one region, so a table whose rows are bands
// stays one grid for findTables.
func xyCut(runs []pdfRun, body float64) []pdfRegion {
	var out []pdfRegion
	nextCol := 1
	emit := func(col int, rs []pdfRun) {
		if n := len(out); n > 0 && out[n-1].col == col {
			out[n-1].runs = append(out[n-1].runs, rs...)
			return
		}
		out = append(out, pdfRegion{col: col, runs: append([]pdfRun(nil), rs...)})
	}
	var cut func(rs []pdfRun, col, depth int)
	cut = func(rs []pdfRun, col, depth int) {
		type band struct {
			runs []pdfRun
			cuts []float64
		}
		var bands []band
		for _, br := range horizontalBands(rs, max(1, 0.25*body)) {
			var cs []float64
			if depth < pdfMaxCutDepth {
				cs = columnsOf(br, body)
			}
			if n := len(bands); n > 0 && len(cs) > 0 && sameCuts(bands[n-1].cuts, cs, 4) {
				bands[n-1].runs = append(bands[n-1].runs, br...)
				continue
			}
			bands = append(bands, band{runs: br, cuts: cs})
		}
		// A row of column headings sits in a band of its own over its
		// columns: it joins them when each column gets part of it and no
		// run crosses a gutter.
		for k := len(bands) - 2; k >= 0; k-- {
			if len(bands[k].cuts) == 0 && len(bands[k+1].cuts) > 0 && straddles(bands[k].runs, bands[k+1].cuts) {
				bands[k+1].runs = append(bands[k].runs, bands[k+1].runs...)
				bands = append(bands[:k], bands[k+1:]...)
			}
		}
		for _, bd := range bands {
			if len(bd.cuts) == 0 {
				emit(col, bd.runs)
				continue
			}
			// The merged band's gutters are found again: merging can
			// only narrow them.
			cs := columnsOf(bd.runs, body)
			if len(cs) == 0 {
				emit(col, bd.runs)
				continue
			}
			for _, p := range splitRuns(bd.runs, cs) {
				id := nextCol
				nextCol++
				cut(p, id, depth+1)
			}
		}
	}
	cut(runs, 0, 0)
	return out
}

// horizontalBands splits runs, top to bottom, where a strip at least gap
// high holds no run.
func horizontalBands(rs []pdfRun, gap float64) [][]pdfRun {
	sorted := append([]pdfRun(nil), rs...)
	sort.SliceStable(sorted, func(a, c int) bool { return sorted[a].top > sorted[c].top })
	var out [][]pdfRun
	bottom := math.Inf(1)
	for _, r := range sorted {
		if len(out) == 0 || r.top < bottom-gap {
			out = append(out, nil)
			bottom = r.bottom
		}
		out[len(out)-1] = append(out[len(out)-1], r)
		bottom = math.Min(bottom, r.bottom)
	}
	return out
}

// columnsOf finds the gutters of a band: vertical strips at least one
// body size wide (8 pt at least) that no run crosses. They are columns
// only when the evidence says running text: every part holds two lines
// or more, is eight body sizes wide or more, and its lines fill it (the
// median line at least half its width). A table's columns are narrower or
// hold one line per row, so a table is never cut apart here.
func columnsOf(rs []pdfRun, body float64) []float64 {
	if len(rs) < 4 {
		return nil
	}
	left, right := math.Inf(1), math.Inf(-1)
	for _, r := range rs {
		left, right = math.Min(left, r.left), math.Max(right, r.right)
	}
	span := int(right-left) + 2
	if span < 2 || span > 1<<16 {
		return nil
	}
	cover := make([]bool, span)
	for _, r := range rs {
		for x := max(0, int(r.left-left)); x <= min(span-1, int(r.right-left)); x++ {
			cover[x] = true
		}
	}
	minGap := max(8, body)
	var cuts, gutters []float64
	for x := 0; x < span; {
		if cover[x] {
			x++
			continue
		}
		s := x
		for x < span && !cover[x] {
			x++
		}
		if float64(x-s) >= minGap && s > 0 && x < span {
			cuts = append(cuts, left+float64(s+x)/2)
			gutters = append(gutters, float64(x-s))
		}
	}
	if len(cuts) == 0 {
		return nil
	}
	for k, p := range splitRuns(rs, cuts) {
		l, r := math.Inf(1), math.Inf(-1)
		for _, x := range p {
			l, r = math.Min(l, x.left), math.Max(r, x.right)
		}
		width := r - l
		if width < 8*body {
			return nil
		}
		// A gutter is narrower than the columns beside it: a gap wider
		// than the text on one side is a label set apart on its row
		// (Texinfo's "[Function]" flush right of its definitions), read
		// row by row.
		if k > 0 && gutters[k-1] >= width || k < len(gutters) && gutters[k] >= width {
			return nil
		}
		lines := groupLines(append([]pdfRun(nil), p...))
		if len(lines) < 2 {
			return nil
		}
		ws := make([]float64, len(lines))
		for k, ln := range lines {
			ws[k] = ln.right - ln.left
		}
		if median(ws) < 0.5*width {
			return nil
		}
	}
	return cuts
}

// straddles reports whether runs fall in two parts or more of cuts
// without any run crossing one.
func straddles(rs []pdfRun, cuts []float64) bool {
	parts := map[int]bool{}
	for _, r := range rs {
		k := sort.SearchFloat64s(cuts, r.left)
		if k < len(cuts) && cuts[k] < r.right {
			return false
		}
		parts[k] = true
	}
	return len(parts) >= 2
}

// splitRuns parts runs at the x positions cuts (ascending).
func splitRuns(rs []pdfRun, cuts []float64) [][]pdfRun {
	out := make([][]pdfRun, len(cuts)+1)
	for _, r := range rs {
		k := sort.SearchFloat64s(cuts, (r.left+r.right)/2)
		out[k] = append(out[k], r)
	}
	return out
}

// sameCuts reports whether a and b are the same gutters within tol.
func sameCuts(a, b []float64, tol float64) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for k := range a {
		if math.Abs(a[k]-b[k]) > tol {
			return false
		}
	}
	return true
}

// groupLines clusters runs whose vertical extents overlap by more than half
// of the smaller height into lines, top to bottom.
func groupLines(runs []pdfRun) []*pdfLine {
	sort.SliceStable(runs, func(a, c int) bool {
		return (runs[a].top + runs[a].bottom) > (runs[c].top + runs[c].bottom)
	})
	var lines []*pdfLine
	for _, r := range runs {
		var best *pdfLine
		for j := len(lines) - 1; j >= 0 && j >= len(lines)-4; j-- {
			l := lines[j]
			ov := math.Min(l.top, r.top) - math.Max(l.bottom, r.bottom)
			hmin := math.Min(l.top-l.bottom, r.top-r.bottom)
			if hmin > 0 && ov > 0.5*hmin && (!overlapsX(l, r) || stackedScript(l, r)) {
				best = l
				break
			}
		}
		if best == nil {
			best = &pdfLine{left: r.left, right: r.right, top: r.top, bottom: r.bottom}
			lines = append(lines, best)
		}
		best.runs = append(best.runs, r)
		best.left, best.right = math.Min(best.left, r.left), math.Max(best.right, r.right)
		best.top, best.bottom = math.Max(best.top, r.top), math.Min(best.bottom, r.bottom)
		best.size = math.Max(best.size, r.size)
	}
	// Split lines at wide horizontal gaps: two columns side by side are
	// two lines, not one.
	var out []*pdfLine
	for _, l := range lines {
		sort.SliceStable(l.runs, func(a, c int) bool { return l.runs[a].left < l.runs[c].left })
		cur := &pdfLine{}
		for k, r := range l.runs {
			if k > 0 && r.left-l.runs[k-1].right > 2.5*math.Max(l.size, 4) {
				out = append(out, cur)
				cur = &pdfLine{}
			}
			if len(cur.runs) == 0 {
				cur.left, cur.right, cur.top, cur.bottom = r.left, r.right, r.top, r.bottom
			}
			cur.runs = append(cur.runs, r)
			cur.left, cur.right = math.Min(cur.left, r.left), math.Max(cur.right, r.right)
			cur.top, cur.bottom = math.Max(cur.top, r.top), math.Min(cur.bottom, r.bottom)
			cur.size = math.Max(cur.size, r.size)
		}
		out = append(out, cur)
	}
	return out
}

// stackedScript reports whether r is a sub- or superscript of l's text stacked
// on another one (TeX sets v′₁ as a prime over a subscript at one x):
// smaller than the line's text, its middle within the line's height.
func stackedScript(l *pdfLine, r pdfRun) bool {
	c := (r.top + r.bottom) / 2
	return r.size < 0.85*l.size && c > l.bottom && c < l.top
}

// overlapsX reports whether r sits on top of text already in l (a
// superscript or overprint stays; a second run at the same x is another
// line only when it really overlaps).
func overlapsX(l *pdfLine, r pdfRun) bool {
	for _, x := range l.runs {
		if r.left < x.right-1 && r.right > x.left+1 {
			return true
		}
	}
	return false
}

// bodySize is the font size carrying the most characters.
func bodySize(runs []pdfRun) float64 {
	weight := map[float64]int{}
	for _, r := range runs {
		weight[math.Round(r.size*2)/2] += len(r.text)
	}
	best, bw := 0.0, -1
	for s, n := range weight {
		if n > bw || n == bw && s < best {
			best, bw = s, n
		}
	}
	return best
}

type pdfBlock struct {
	lines                    []*pdfLine
	left, bottom, right, top float64
	size                     float64
}

var listMarker = regexp.MustCompile(`^(?:[•◦▪▫‣⁃●○■□❖➢✓➔\-–—*]|\(?[0-9]{1,3}[.)]|\(?[a-zA-Z][.)]|\(?(?:[ivxlc]{1,6}|[IVXLC]{1,6})[.)])\s`)

// orderedMarker is an ordered item's marker: a number, a letter or a
// roman numeral, with "." or ")" or in parentheses.
var orderedMarker = regexp.MustCompile(`^\(?([0-9]{1,3}|[a-zA-Z]|[ivxlc]{1,6}|[IVXLC]{1,6})[.)]\s`)

// itemNumber is the number an ordered marker stands for; prev is the
// previous item's in the same column (0 when none), which tells the
// letter "i" (after "h") from the roman one.
func itemNumber(text string, prev int) (int, bool) {
	m := orderedMarker.FindStringSubmatch(text)
	if m == nil {
		return 0, false
	}
	v := m[1]
	if n, err := strconv.Atoi(v); err == nil {
		return n, true
	}
	r := romanValue(v)
	if len(v) == 1 && !(r == 1 && prev == 0 || r > 0 && r == prev+1) {
		return int(unicode.ToLower(rune(v[0]))-'a') + 1, true
	}
	return r, r > 0
}

// romanValue is a lower- or upper-case roman numeral's value, 0 when it
// is not one.
func romanValue(s string) int {
	val := map[byte]int{'i': 1, 'v': 5, 'x': 10, 'l': 50, 'c': 100}
	s = strings.ToLower(s)
	n := 0
	for k := 0; k < len(s); k++ {
		v, ok := val[s[k]]
		if !ok {
			return 0
		}
		if k+1 < len(s) && val[s[k+1]] > v {
			n -= v
		} else {
			n += v
		}
	}
	return n
}

// readingRows orders lines top to bottom, and the lines of one row (a
// line cut at a wide gap: a definition and its kind set flush right, a
// label and its value) left to right. Their tops alone do not order them:
// on one baseline a taller font's top is higher ("[Constant]" beside a
// smaller fixed-pitch "BLOCK_SIZE" would read first).
func readingRows(lines []*pdfLine) []*pdfLine {
	sort.SliceStable(lines, func(a, c int) bool { return lines[a].top > lines[c].top })
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && sameRow(lines[i], lines[j]) {
			j++
		}
		row := lines[i:j]
		sort.SliceStable(row, func(a, c int) bool { return row[a].left < row[c].left })
		i = j
	}
	return lines
}

// sameRow reports whether two lines share a row: their heights overlap by
// more than half the smaller (as groupLines joins runs) and they sit side
// by side.
func sameRow(a, b *pdfLine) bool {
	return overlapHalf(a, b) && (a.right <= b.left || b.right <= a.left)
}

// overlapHalf reports whether two lines' heights overlap by more than
// half the smaller.
func overlapHalf(a, b *pdfLine) bool {
	ov := math.Min(a.top, b.top) - math.Max(a.bottom, b.bottom)
	return ov > 0.5*math.Min(a.top-a.bottom, b.top-b.bottom)
}

// groupBlocks joins consecutive lines of one column into a paragraph when
// the vertical gap is small and the size the same; a list marker or a
// size change starts a new block. A line on the row of the block's last
// line, right of it, continues that line (groupLines cut it at a wide
// gap), except in the page's running lines, where a header's title and
// its page number are two elements.
//
// Paragraphs are told apart as a reader tells them (paraBreak): by a gap
// wider than the column's line spacing, or by a first line indented
// where the lines around it are not. A line that starts like a list
// item ("2. The miller …") but carries on the line before it, a full
// line at the same left, is that paragraph's wrap, not an item.
func groupBlocks(lines []*pdfLine, body float64, running []pdfBox) []*pdfBlock {
	var blocks []*pdfBlock
	var cur *pdfBlock
	lead := lineLead(lines)
	ones := oneLineParagraphs(lines)
	left, right := math.Inf(1), 0.0
	for _, l := range lines {
		left, right = math.Min(left, l.left), math.Max(right, l.right)
	}
	for i, l := range lines {
		if cur != nil {
			prev := cur.lines[len(cur.lines)-1]
			gap := prev.bottom - l.top
			lh := math.Max(prev.top-prev.bottom, l.top-l.bottom)
			same := math.Abs(l.size-cur.size) <= 0.1*math.Max(cur.size, 1)
			if prev.col == l.col && l.mono() == prev.mono() && l.left >= prev.right && sameRow(prev, l) &&
				!runningBox(pdfBox{prev.left, prev.bottom, prev.right, prev.top}, running) && !runningBox(pdfBox{l.left, l.bottom, l.right, l.top}, running) {
				prev.runs = append(prev.runs, l.runs...)
				prev.right, prev.size = l.right, math.Max(prev.size, l.size)
				prev.top, prev.bottom = math.Max(prev.top, l.top), math.Min(prev.bottom, l.bottom)
				cur.right, cur.size = math.Max(cur.right, l.right), math.Max(cur.size, l.size)
				cur.top, cur.bottom = math.Max(cur.top, l.top), math.Min(cur.bottom, l.bottom)
				continue
			}
			var next *pdfLine
			if i+1 < len(lines) && lines[i+1].col == l.col {
				next = lines[i+1]
			}
			// A listing's blank line (one, in its font) is inside it:
			// code is one block from its first line to its last, and its
			// lines are its own, whatever they start with.
			code := l.mono() && prev.mono()
			if prev.col == l.col && same && l.mono() == prev.mono() && (gap < 0.8*lh || code && gap < 1.8*lh) && gap > -lh &&
				(code || !listMarker.MatchString(l.text()) || wrappedMarker(cur, prev, l, right)) && (l.mono() || !paraBreak(prev, l, next, gap, lead, lh, cur.size, left, right, ones)) {
				cur.lines = append(cur.lines, l)
				cur.left, cur.right = math.Min(cur.left, l.left), math.Max(cur.right, l.right)
				cur.bottom = math.Min(cur.bottom, l.bottom)
				continue
			}
		}
		cur = &pdfBlock{lines: []*pdfLine{l}, left: l.left, right: l.right, top: l.top, bottom: l.bottom, size: l.size}
		blocks = append(blocks, cur)
	}
	return blocks
}

// lineLead is the gap between the lines of a paragraph in this column:
// the lower quartile of the gaps between consecutive lines of one size
// (most consecutive lines are a paragraph's; its gaps are the smallest).
// Negative gaps (lines set tighter than their fonts' boxes) count as 0.
func lineLead(lines []*pdfLine) float64 {
	var gaps []float64
	for i := 1; i < len(lines); i++ {
		a, b := lines[i-1], lines[i]
		lh := math.Max(a.top-a.bottom, b.top-b.bottom)
		g := a.bottom - b.top
		if a.col != b.col || math.Abs(a.size-b.size) > 0.1*math.Max(a.size, 1) || g >= 0.8*lh || g <= -lh || sameRow(a, b) {
			continue
		}
		gaps = append(gaps, math.Max(g, 0))
	}
	if len(gaps) == 0 {
		return 0
	}
	sort.Float64s(gaps)
	return gaps[len(gaps)/4]
}

// paraBreak reports whether l starts a new paragraph after prev: the gap
// between them is wider than the column's lead by a quarter of a line;
// or there is some space between them and prev reads as a paragraph's
// last line (a column of one-line paragraphs has no lead to compare
// with): it ends before three quarters of the column's width, or, in a
// column of one-line paragraphs (ones), a third of a line above l, it
// ends a sentence and l starts one; or l is indented by an em or more
// (less than six) from prev while the line after it comes back to
// prev's left (a first-line indent, not a hanging one, nor a centred
// line).
func paraBreak(prev, l, next *pdfLine, gap, lead, lh, size, left, right float64, ones bool) bool {
	if gap > lead+0.25*lh || gap > 0.2*lh && prev.right < left+0.75*(right-left) {
		return true
	}
	if ones && gap > 0.3*lh && sentenceSeam(prev, l) {
		return true
	}
	em := math.Max(size, 4)
	in := l.left - prev.left
	return next != nil && in >= 0.9*em && in < 6*em && math.Abs(next.left-prev.left) < 0.5*em && next.left < l.left-0.9*em
}

// sentenceSeam reports whether prev ends a sentence and l starts one
// with a capital.
func sentenceSeam(prev, l *pdfLine) bool {
	if len(prev.runs) == 0 || len(l.runs) == 0 {
		return false
	}
	end, _ := utf8.DecodeLastRuneInString(prev.runs[len(prev.runs)-1].text)
	start, _ := utf8.DecodeRuneInString(l.runs[0].text)
	return strings.ContainsRune(".!?:", end) && unicode.IsUpper(start)
}

// oneLineParagraphs reports whether the column's lines spaced a third of
// a line apart or more are mostly one-line paragraphs: at most of their
// seams a sentence ends and the next begins. Prose set at one and a half
// lines has the same spacing, but a sentence ends at few of its lines'
// ends.
func oneLineParagraphs(lines []*pdfLine) bool {
	seams, spaced := 0, 0
	for i := 1; i < len(lines); i++ {
		a, b := lines[i-1], lines[i]
		lh := math.Max(a.top-a.bottom, b.top-b.bottom)
		g := a.bottom - b.top
		if a.col != b.col || sameRow(a, b) || g <= 0.3*lh || g >= 0.8*lh {
			continue
		}
		spaced++
		if sentenceSeam(a, b) {
			seams++
		}
	}
	return spaced > 0 && 2*seams > spaced
}

// wrappedMarker reports whether l, which starts like a list item, is
// the wrap of the paragraph before it: prev runs to the column's right
// edge (within three ems), l starts at prev's left (a list's next item
// starts at its label, left of its first item's wrapped text), and the
// paragraph is not itself a list item with its label at l's left.
func wrappedMarker(cur *pdfBlock, prev, l *pdfLine, right float64) bool {
	em := math.Max(cur.size, 4)
	if prev.right < right-3*em || math.Abs(l.left-prev.left) > 0.5*em {
		return false
	}
	first := cur.lines[0]
	return !(listMarker.MatchString(first.text()) && math.Abs(first.left-l.left) < 0.5*em)
}

func blockMono(bl *pdfBlock) bool {
	for _, l := range bl.lines {
		if !l.mono() {
			return false
		}
	}
	return true
}

func isHeadingBlock(bl *pdfBlock, body float64) bool {
	return body > 0 && bl.size >= 1.15*body && len(bl.lines) <= 3 && len(blockText(bl)) <= 200
}

// distinctHeadingSizes lists heading sizes largest first; the index is the
// heading's category_depth.
func distinctHeadingSizes(blocks []*pdfBlock, body float64) []float64 {
	var sizes []float64
	for _, bl := range blocks {
		if !isHeadingBlock(bl, body) {
			continue
		}
		s := math.Round(bl.size*2) / 2
		dup := false
		for _, x := range sizes {
			if math.Abs(x-s) < 0.6 {
				dup = true
			}
		}
		if !dup {
			sizes = append(sizes, s)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(sizes)))
	return sizes
}

func blockText(bl *pdfBlock) string {
	var sb strings.Builder
	prev := ' '
	for i, l := range bl.lines {
		t := l.text()
		first, _ := utf8.DecodeRuneInString(t)
		if i > 0 && !l.wordGoesOn && !(spaceless(prev) && spaceless(first)) {
			sb.WriteByte(' ')
		}
		sb.WriteString(t)
		prev, _ = utf8.DecodeLastRuneInString(t)
	}
	return sb.String()
}

var pageNumberText = regexp.MustCompile(`^(?i:(?:page\s+)?\d{1,5}(?:\s*(?:/|of)\s*\d{1,5})?|[ivxlc]{1,6})$`)

// emitPDFBlock adds bl as an element; lastItem is the number of the
// previous ordered item in each column.
func emitPDFBlock(bl *pdfBlock, body float64, headingSizes []float64, listDepth int, lastItem map[int]int, ex pdfPageExtras, w, h float64, page int, b *PageBuilder) string {
	outline := ex.outline
	text := blockText(bl)
	meta := Meta{
		"page_number": page + 1,
		"coordinates": pdfCoordinates(bl.left, bl.bottom, bl.right, bl.top, w, h),
	}
	cat := "NarrativeText"
	short := len(text) < 120 && len(bl.lines) <= 2
	switch {
	case short && runningBlock(bl, ex.running) && pageNumberText.MatchString(text):
		cat = "PageNumber"
	case short && runningBlock(bl, ex.running) && bl.bottom > h/2:
		cat = "Header"
	case short && runningBlock(bl, ex.running):
		cat = "Footer"
	case ex.captions[bl]:
		cat = "FigureCaption"
	case outline[text] > 0 && len(bl.lines) <= 3:
		cat = "Title"
		meta["category_depth"] = ex.headings.clamp(min(outline[text]-1, 5))
	case isHeadingBlock(bl, body):
		cat = "Title"
		depth := 0
		for k, s := range headingSizes {
			if math.Abs(s-math.Round(bl.size*2)/2) < 0.6 {
				depth = k
			}
		}
		meta["category_depth"] = ex.headings.clamp(min(depth, 5))
	case listMarker.MatchString(text):
		cat = "ListItem"
		meta["category_depth"] = min(listDepth, 8)
		col := bl.lines[0].col
		if n, ok := itemNumber(text, lastItem[col]); ok {
			meta["ordered"] = true
			meta["item_number"] = n
			lastItem[col] = n
		} else {
			// A bullet is the list's mark, not the item's text (each
			// producer draws its own glyph per level: "•", "–", "◦"); the
			// item's depth says which level it is.
			text = strings.TrimLeft(strings.TrimPrefix(text, listMarker.FindString(text)), " ")
			delete(lastItem, col)
		}
	case blockMono(bl):
		// A block in a fixed-pitch font is code: its lines stay lines,
		// indented as printed.
		cat = "CodeSnippet"
		cw := charWidth(bl)
		parts := make([]string, len(bl.lines))
		for i, l := range bl.lines {
			parts[i] = codeLine(l, bl.left, cw)
		}
		text = strings.Join(parts, "\n")
	}
	linkMeta(ex.links, bl.lines, meta)
	b.Add(cat, text, meta)
	return cat
}

// charWidth is a fixed-pitch block's character width: the median of its
// words' widths per character.
func charWidth(bl *pdfBlock) float64 {
	var ws []float64
	for _, l := range bl.lines {
		for _, r := range l.runs {
			if n := utf8.RuneCountInString(r.text); n > 0 && r.right > r.left {
				ws = append(ws, (r.right-r.left)/float64(n))
			}
		}
	}
	if len(ws) == 0 {
		return 0
	}
	return median(ws)
}

// median is the middle of xs (the upper one of an even count), which it
// sorts; xs is not empty.
func median(xs []float64) float64 {
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

// codeLine is a line of code with its spaces rebuilt from where its words
// are: a PDF draws no space characters, so the indent is the distance
// from the block's left edge, and each gap between words, in character
// widths (one space at least between two words).
func codeLine(l *pdfLine, left, cw float64) string {
	if cw <= 0 {
		return l.text()
	}
	var sb strings.Builder
	x := left
	for k, r := range l.runs {
		n := int(math.Round((r.left - x) / cw))
		if k > 0 {
			n = max(n, 1)
		}
		sb.WriteString(strings.Repeat(" ", max(n, 0)))
		sb.WriteString(r.text)
		x = r.right
	}
	return sb.String()
}

func r2(f float64) float64 { return math.Round(f*100) / 100 }

func pdfKeywords(s string) []string {
	var out []string
	for _, k := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// pdfDate parses a PDF date ("D:20240102030405+01'00'", parts optional)
// into RFC 3339; "" when it is not one.
func pdfDate(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "D:")
	if len(s) < 4 {
		return ""
	}
	digits := 0
	for digits < len(s) && digits < 14 && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	num := s[:digits] + "0101000000"[max(0, digits-4):]
	if len(num) < 14 {
		return ""
	}
	num = num[:14]
	loc := time.UTC
	rest := s[digits:]
	if len(rest) >= 3 && (rest[0] == '+' || rest[0] == '-') {
		var hh, mm int
		fmt.Sscanf(strings.ReplaceAll(rest[1:], "'", " "), "%d %d", &hh, &mm)
		off := hh*3600 + mm*60
		if rest[0] == '-' {
			off = -off
		}
		loc = time.FixedZone("", off)
	}
	t, err := time.ParseInLocation("20060102150405", num, loc)
	if err != nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// pdfTable is a grid of text found on a page: rows of cells whose left
// edges line up in columns. It reads row by row (a Table element), where
// poppler's flow analysis reads such a grid column by column.
type pdfTable struct {
	rows                     [][]pdfCell
	anchors                  []float64 // column left edges, left to right
	left, bottom, right, top float64
}

type pdfCell struct {
	text               string
	col, span, rowspan int // rowspan 0 is 1
}

// pdfRow is the segments (lines split at wide gaps) sharing a baseline.
type pdfRow struct {
	segs        []*pdfLine
	top, bottom float64
}

// findTables takes the grids out of lines and returns them with the lines
// left over. A grid is three or more consecutive rows (two when every row
// has three cells or more) of two or more segments each whose left edges
// fall on shared column positions. Two columns of running text line up
// too; they are told apart by width: in a grid at least one column is
// narrow (its typical segment under a fifth of the page).
func findTables(lines []*pdfLine, w float64) ([]*pdfTable, []*pdfLine) {
	if len(lines) < 4 || w <= 0 {
		return nil, lines
	}
	sorted := append([]*pdfLine(nil), lines...)
	sort.SliceStable(sorted, func(a, c int) bool { return sorted[a].top > sorted[c].top })
	var rows []*pdfRow
	for _, l := range sorted {
		if n := len(rows); n > 0 {
			r := rows[n-1]
			ov := math.Min(r.top, l.top) - math.Max(r.bottom, l.bottom)
			if ov > 0.5*math.Min(r.top-r.bottom, l.top-l.bottom) {
				r.segs = append(r.segs, l)
				r.top, r.bottom = math.Max(r.top, l.top), math.Min(r.bottom, l.bottom)
				continue
			}
		}
		rows = append(rows, &pdfRow{segs: []*pdfLine{l}, top: l.top, bottom: l.bottom})
	}
	for _, r := range rows {
		sort.SliceStable(r.segs, func(a, c int) bool { return r.segs[a].left < r.segs[c].left })
	}
	var tables []*pdfTable
	taken := map[*pdfLine]bool{}
	for i := 0; i < len(rows); {
		if len(rows[i].segs) < 2 {
			i++
			continue
		}
		// The grid works on copies of the rows: a wrapped cell's lines
		// join the cell they continue, and gridOf replaces each row's
		// segments with the cells it splits them into, so the lines to
		// take out are recorded as they are met.
		orig := append([]*pdfLine(nil), rows[i].segs...)
		grid := []*pdfRow{copyRow(rows[i])}
		// The gap above the grid's last row: a wrapped cell's lines are
		// closer than the rows (the cells' padding), which tells them from
		// a listing's lines, all as close as each other. The first row
		// has none: its wrapped cell (a long header) is told by the gap
		// below its lines, above the next row.
		above := math.Inf(-1)
		j := i + 1
		for ; j < len(rows); j++ {
			prev, r := rows[j-1], rows[j]
			lh := prev.top - prev.bottom
			gap := prev.bottom - r.top
			if gap > 1.5*lh {
				break // a wide vertical gap ends the grid
			}
			last := grid[len(grid)-1]
			ref := above
			if len(grid) == 1 && math.IsInf(above, -1) {
				ref = gapBelowWrap(rows, j, len(last.segs))
			}
			if gap < 0.5*lh && gap < ref-0.2*lh && continueCells(last, r) {
				orig = append(orig, r.segs...)
				continue
			}
			if len(r.segs) < 2 {
				break
			}
			orig = append(orig, r.segs...)
			grid = append(grid, copyRow(r))
			above = gap
		}
		if t := gridOf(grid, w); t != nil && !textAbove(rows, i, j) {
			tables = append(tables, t)
			for _, sg := range orig {
				taken[sg] = true
			}
		}
		i = j
	}
	if len(tables) == 0 {
		return nil, lines
	}
	rest := lines[:0:0]
	for _, l := range lines {
		if !taken[l] {
			rest = append(rest, l)
		}
	}
	return tables, rest
}

// textAbove reports whether the rows i to j (a grid) carry on the plain
// line above them: a line of one segment in the size of the grid's
// first row, starting where that row starts, as close above it as the
// grid's rows are to each other. Aligned lines that a paragraph runs into without a break (test
// output in a manual set in a proportional font: "== 84 tests …" and
// the failures under it, their "(stdout)" lined up) are the block's
// lines, not a table: a table is set off from the text above it.
func textAbove(rows []*pdfRow, i, j int) bool {
	if i == 0 || j-i < 2 {
		return false
	}
	up, first := rows[i-1], rows[i]
	if len(up.segs) != 1 {
		return false
	}
	lh := up.top - up.bottom
	a, b := up.segs[0], first.segs[0]
	if math.Abs(a.left-b.left) > 0.5*math.Max(a.size, 4) || math.Abs(a.size-b.size) > 0.1*math.Max(b.size, 1) {
		return false // a heading or caption in its own size sits right on its table
	}
	least := math.Inf(1)
	for k := i + 1; k < j; k++ {
		least = math.Min(least, rows[k-1].bottom-rows[k].top)
	}
	return up.bottom-first.top <= least+0.15*lh
}

// gapBelowWrap is the gap above the first row from j on with as many
// segments as a full row (cells, of the row above j's wrapped lines),
// -Inf when none follows within a line height of the lines before it.
func gapBelowWrap(rows []*pdfRow, j, cells int) float64 {
	for k := j; k < len(rows); k++ {
		prev, r := rows[k-1], rows[k]
		gap := prev.bottom - r.top
		if gap > 1.5*(prev.top-prev.bottom) {
			break
		}
		if len(r.segs) >= cells {
			return gap
		}
	}
	return math.Inf(-1)
}

func copyRow(r *pdfRow) *pdfRow {
	return &pdfRow{segs: append([]*pdfLine(nil), r.segs...), top: r.top, bottom: r.bottom}
}

// continueCells joins r to the row above it when r is the wrapped lines
// of that row's cells: fewer segments than the row, each starting at one
// of its cells' left edge and ending before the next cell, no two in one
// cell (a definition's description, indented under it, is no wrapped
// cell). It reports whether it did. A table row set at line
// spacing under a full row is told by the caller from the gap, which
// within a wrapped cell is the paragraph's line spacing and between rows
// has the cells' padding too.
func continueCells(last, r *pdfRow) bool {
	if len(r.segs) >= len(last.segs) {
		return false
	}
	into := make([]int, len(r.segs))
	used := map[int]bool{}
	for n, sg := range r.segs {
		k := -1
		for c, cell := range last.segs {
			if sg.left >= cell.left-4 {
				k = c
			}
		}
		if k < 0 || used[k] || math.Abs(sg.left-last.segs[k].left) > 4 || k+1 < len(last.segs) && sg.right > last.segs[k+1].left-1 {
			return false
		}
		used[k], into[n] = true, k
	}
	for n, sg := range r.segs {
		cell := last.segs[into[n]]
		last.segs[into[n]] = &pdfLine{
			runs: append(append([]pdfRun(nil), cell.runs...), sg.runs...),
			left: math.Min(cell.left, sg.left), right: math.Max(cell.right, sg.right),
			top: math.Max(cell.top, sg.top), bottom: math.Min(cell.bottom, sg.bottom),
			size: math.Max(cell.size, sg.size), col: cell.col,
		}
	}
	last.bottom = math.Min(last.bottom, r.bottom)
	return true
}

// gridOf makes a table of rows whose segments align, or nil.
func gridOf(rows []*pdfRow, w float64) *pdfTable {
	if len(rows) < 2 {
		return nil
	}
	anchors := columnAnchors(rows)
	if len(anchors) < 2 {
		return nil
	}
	col := func(x float64) int {
		c := -1
		for k, a := range anchors {
			if x >= a-4 {
				c = k
			}
		}
		return c
	}
	widths := make([][]float64, len(anchors))
	t := &pdfTable{anchors: anchors, left: math.Inf(1), bottom: math.Inf(1), right: math.Inf(-1), top: math.Inf(-1)}
	maxCells := 0
	for _, r := range rows {
		var cells []pdfCell
		for k, sg := range r.segs {
			c := col(sg.left)
			if c < 0 || len(cells) > 0 && cells[len(cells)-1].col >= c {
				return nil // left of the grid, or two segments in one column
			}
			// A cell spans the columns up to the next cell (a merged
			// cell); the last one covers its own column.
			span := 1
			if k+1 < len(r.segs) {
				span = max(1, col(r.segs[k+1].left)-c)
			}
			cells = append(cells, pdfCell{text: sg.text(), col: c, span: span})
			widths[c] = append(widths[c], sg.right-sg.left)
			t.left, t.right = math.Min(t.left, sg.left), math.Max(t.right, sg.right)
			t.bottom, t.top = math.Min(t.bottom, sg.bottom), math.Max(t.top, sg.top)
		}
		maxCells = max(maxCells, len(cells))
		t.rows = append(t.rows, cells)
	}
	if len(rows) < 3 && maxCells < 3 {
		return nil
	}
	// Code and usage text in a fixed-pitch font lines up in columns too:
	// a grid mostly in such a font is not a table.
	mono, all := 0, 0
	for _, r := range rows {
		for _, sg := range r.segs {
			for _, x := range sg.runs {
				all += len(x.text)
				if x.mono {
					mono += len(x.text)
				}
			}
		}
	}
	if 2*mono > all {
		return nil
	}
	if numberedLines(t) || definitionLines(t) || contentsLines(t) {
		return nil
	}
	narrow := false
	for _, ws := range widths {
		if len(ws) == 0 {
			continue
		}
		if median(ws) < 0.2*w {
			narrow = true
		}
	}
	if !narrow {
		return nil
	}
	return t
}

// columnAnchors is where a grid's columns start, left to right, and
// splits the rows' segments into cells at them. Left edges within 4 pt are
// one column when two rows use them: a segment's, or a word's after a gap
// of twice a word space in every row (two cells closer than a segment
// break). A
// column of right-aligned or centred cells (pandoc aligns numbers right)
// shares no left edge, so the rows with the most cells also give each
// column's extent, the union of their cells there: each extent starts a
// column, and a shared left edge strictly inside one (two numbers of one
// width in a right-aligned column) is not a column of its own.
func columnAnchors(rows []*pdfRow) []float64 {
	type edge struct {
		x   float64
		row int
		gap bool // a word's after a wide gap, not a segment's
	}
	var lefts []edge
	for i, r := range rows {
		for _, sg := range r.segs {
			lefts = append(lefts, edge{sg.left, i, false})
			for k := 1; k < len(sg.runs); k++ {
				if sg.runs[k].left-sg.runs[k-1].right > 0.6*math.Max(sg.runs[k].size, 1) {
					lefts = append(lefts, edge{sg.runs[k].left, i, true})
				}
			}
		}
	}
	sort.Slice(lefts, func(a, c int) bool { return lefts[a].x < lefts[c].x })
	// Justified prose and wide cells have wide word gaps too, which line
	// up by chance in a few rows: a word's left edge makes a column only
	// when every row of three or more has one there.
	var anchors []float64
	for k := 0; k < len(lefts); {
		e := k
		segs, rowsAt := 0, map[int]bool{}
		for ; e < len(lefts) && lefts[e].x-lefts[k].x < 4; e++ {
			rowsAt[lefts[e].row] = true
			if !lefts[e].gap {
				segs++
			}
		}
		if segs >= 2 || len(rows) >= 3 && len(rowsAt) == len(rows) {
			anchors = append(anchors, lefts[k].x)
		}
		k = e
	}
	// A cell whose gap to the next was too narrow to split the line
	// still starts at a column: split segments where a word starts on an
	// anchor after a gap.
	full := 0
	for _, r := range rows {
		var segs []*pdfLine
		for _, sg := range r.segs {
			segs = append(segs, splitAtAnchors(sg, anchors)...)
		}
		r.segs = segs
		full = max(full, len(segs))
	}
	type extent struct{ left, right float64 }
	var segs []extent
	for _, r := range rows {
		if len(r.segs) == full {
			for _, sg := range r.segs {
				segs = append(segs, extent{sg.left, sg.right})
			}
		}
	}
	sort.Slice(segs, func(a, c int) bool { return segs[a].left < segs[c].left })
	var cols []extent
	for _, sg := range segs {
		if n := len(cols); n > 0 && sg.left < cols[n-1].right {
			cols[n-1].right = math.Max(cols[n-1].right, sg.right)
			continue
		}
		cols = append(cols, sg)
	}
	// Extents that merged two of a full row's cells are no columns. Two
	// cells a row are as often a definition and its kind set flush right
	// (Texinfo's "[Function]"), so extents make columns from three on.
	if full < 3 || len(cols) != full {
		return anchors
	}
	out := anchors[:0:0]
	for _, a := range anchors {
		inside := false
		for _, c := range cols {
			inside = inside || a > c.left+4 && a < c.right
		}
		if !inside {
			out = append(out, a)
		}
	}
	for _, c := range cols {
		dup := false
		for _, a := range out {
			dup = dup || math.Abs(a-c.left) < 4
		}
		if !dup {
			out = append(out, c.left)
		}
	}
	sort.Float64s(out)
	return out
}

// numberedLines reports whether a grid is a numbered listing: every row
// starts with a line number, one more than the row above's, and most
// rows have one cell of text after it. A code listing with line numbers
// in the margin lines up like a table (its indents and gaps make more
// columns), and reads as lines.
func numberedLines(t *pdfTable) bool {
	prev, two := -1, 0
	for _, r := range t.rows {
		// The number starts the row, in the first column or, set flush
		// right ("9" over "10"), in the next.
		if len(r) < 2 || r[0].col > 1 {
			return false
		}
		n, err := strconv.Atoi(strings.TrimSpace(r[0].text))
		if err != nil || prev >= 0 && n != prev+1 {
			return false
		}
		prev = n
		if len(r) == 2 {
			two++
		}
	}
	return 2*two > len(t.rows)
}

// definitionLines reports whether a grid is a reference manual's
// definition lines: Texinfo sets each definition's kind flush right of
// it ("void sha384_init (...)  [Function]", "[Macro]"), so definitions
// in a row line up as two columns, the last one a bracketed kind in
// every row. They read as lines.
func definitionLines(t *pdfTable) bool {
	for _, r := range t.rows {
		if len(r) != 2 || !definitionKind.MatchString(r[1].text) {
			return false
		}
	}
	return true
}

// contentsLines reports whether a grid is a table of contents set
// without leader dots, the way LaTeX sets its chapters: each row a
// chapter's number, one more than the row above's, its title and its page
// flush right, the pages in order ("1  Definition of CRC  2"). They read
// as lines.
func contentsLines(t *pdfTable) bool {
	prevNum, prevPage := -1, -1
	for _, r := range t.rows {
		if len(r) != 3 {
			return false
		}
		n, err1 := strconv.Atoi(strings.TrimSpace(r[0].text))
		pg, err2 := strconv.Atoi(strings.TrimSpace(r[2].text))
		if err1 != nil || err2 != nil || prevNum >= 0 && (n != prevNum+1 || pg < prevPage) ||
			!strings.ContainsFunc(r[1].text, unicode.IsLetter) {
			return false
		}
		prevNum, prevPage = n, pg
	}
	return true
}

var definitionKind = regexp.MustCompile(`^\[[^\[\]]{1,40}\]$`)

// splitAtAnchors splits a segment before each word (after the first)
// that starts within 2 pt of a column anchor after a gap of 0.3 em.
func splitAtAnchors(sg *pdfLine, anchors []float64) []*pdfLine {
	var out []*pdfLine
	cur := &pdfLine{}
	for k, r := range sg.runs {
		if k > 0 && r.left-sg.runs[k-1].right > 0.3*math.Max(r.size, 1) {
			for _, a := range anchors {
				if math.Abs(r.left-a) < 2 {
					out = append(out, cur)
					cur = &pdfLine{}
					break
				}
			}
		}
		if len(cur.runs) == 0 {
			cur.left, cur.right, cur.top, cur.bottom = r.left, r.right, r.top, r.bottom
		}
		cur.runs = append(cur.runs, r)
		cur.left, cur.right = math.Min(cur.left, r.left), math.Max(cur.right, r.right)
		cur.top, cur.bottom = math.Max(cur.top, r.top), math.Min(cur.bottom, r.bottom)
		cur.size = math.Max(cur.size, r.size)
		cur.col = sg.col
	}
	return append(out, cur)
}

// emitPDFTable adds a Table element: text row by row (cells separated by
// tabs), text_as_html with a cell spanning the columns it covers.
func emitPDFTable(t *pdfTable, meta Meta, w, h float64, page int, b *PageBuilder) string {
	var hb, tb strings.Builder
	hb.WriteString("<table>")
	covered := map[int]int{} // columns a cell above still spans: rows left
	for i, r := range t.rows {
		hb.WriteString("<tr>")
		at := 0
		for k, c := range r {
			for ; at < c.col; at++ {
				if covered[at] == 0 {
					hb.WriteString("<td></td>")
				}
			}
			hb.WriteString("<td")
			if c.span > 1 {
				fmt.Fprintf(&hb, ` colspan="%d"`, c.span)
			}
			if c.rowspan > 1 {
				fmt.Fprintf(&hb, ` rowspan="%d"`, c.rowspan)
			}
			hb.WriteString(">")
			hb.WriteString(html.EscapeString(c.text))
			hb.WriteString("</td>")
			at = c.col + max(c.span, 1)
			if k > 0 {
				tb.WriteByte('\t')
			}
			tb.WriteString(c.text)
		}
		for col, n := range covered {
			if n > 1 {
				covered[col] = n - 1
			} else {
				delete(covered, col)
			}
		}
		for _, c := range r {
			if c.rowspan > 1 {
				for col := c.col; col < c.col+max(c.span, 1); col++ {
					covered[col] = c.rowspan - 1
				}
			}
		}
		hb.WriteString("</tr>")
		if i < len(t.rows)-1 {
			tb.WriteByte('\n')
		}
	}
	hb.WriteString("</table>")
	if meta == nil {
		meta = Meta{}
	}
	meta["page_number"] = page + 1
	meta["text_as_html"] = hb.String()
	meta["coordinates"] = pdfCoordinates(t.left, t.bottom, t.right, t.top, w, h)
	return b.Add("Table", tb.String(), meta)
}

// pdfTableTail is a table that ends a page's body (nothing but furniture
// below it): the table at the top of the next page with the same columns
// continues it.
type pdfTableTail struct {
	id      string
	anchors []float64
	head    string // its first row's text
}

// continues reports whether t has tail's columns (their left edges within
// 4 pt).
func (tail *pdfTableTail) continues(t *pdfTable) bool {
	if tail == nil || len(tail.anchors) != len(t.anchors) {
		return false
	}
	for k, a := range tail.anchors {
		if math.Abs(a-t.anchors[k]) > 4 {
			return false
		}
	}
	return true
}

// rowText is a table row's text, cells separated by tabs.
func rowText(t *pdfTable) string {
	if len(t.rows) == 0 {
		return ""
	}
	parts := make([]string, len(t.rows[0]))
	for k, c := range t.rows[0] {
		parts[k] = c.text
	}
	return strings.Join(parts, "\t")
}

// pdfCoordinates is ele_metadata.coordinates for a box in PDF user space:
// corners clockwise from top left, clamped to the page. Text can run past
// the page's edge (a long code line in a pdfTeX manual does, and poppler
// reports it there too) while the page boxes start at the origin; a point
// outside the PointSpace's width × height is a DPE violation, so the box
// keeps only the part on the page.
func pdfCoordinates(left, bottom, right, top, w, h float64) Meta {
	clamp := func(v, hi float64) float64 { return max(0, min(v, hi)) }
	left, right = clamp(left, w), clamp(right, w)
	bottom, top = clamp(bottom, h), clamp(top, h)
	return Meta{
		"points": [][2]float64{{r2(left), r2(top)}, {r2(left), r2(bottom)}, {r2(right), r2(bottom)}, {r2(right), r2(top)}},
		"system": Meta{"type": "PointSpace", "width": r2(w), "height": r2(h), "orientation": "CARTESIAN"},
	}
}
