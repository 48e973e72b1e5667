package convert

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/klippa-app/go-pdfium"
	pdferrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
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

	mu     sync.Mutex
	pool   pdfium.Pool
	cache  wazero.CompilationCache
	closed bool
}

// pdfMaxInstances bounds concurrent PDF documents; more wait (with their
// context) for a free instance.
const pdfMaxInstances = 4

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
	rc := wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling)
	if dir := e.cachePath(); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err == nil {
			if c, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
				e.cache = c
				rc = rc.WithCompilationCache(c)
			}
		}
	}
	pool, err := webassembly.Init(webassembly.Config{
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
	e.pool = pool
	return pool, nil
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

func (e *pdfEngine) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
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

// pdfPages is an open PDF: one PDFium instance and document for its life.
type pdfPages struct {
	inst  pdfium.Pdfium
	doc   *responses.OpenDocument
	info  Info
	data  []byte // kept alive: PDFium reads from it lazily
	sizes [][2]float64
}

func (e *pdfEngine) open(ctx context.Context, src *Source, env *Env) (Pages, error) {
	data, err := src.Bytes()
	if err != nil {
		return nil, err
	}
	pool, err := e.start()
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, pdfInstanceWait)
	defer cancel()
	inst, err := pool.GetInstanceWithContext(wctx)
	if err != nil {
		return nil, fmt.Errorf("no PDF engine instance free: %w", err)
	}
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		inst.Close()
		return nil, pdfOpenError(err)
	}
	p := &pdfPages{inst: inst, doc: doc, data: data}
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
	if p.inst == nil {
		return nil
	}
	_, err := p.inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: p.doc.Document})
	err = errors.Join(err, p.inst.Close())
	p.inst = nil
	return err
}

// pdfRun is a PDFium text rect: text on one line in one font, in PDF user
// space (origin bottom left, y up).
type pdfRun struct {
	text                     string
	left, bottom, right, top float64
	size                     float64
}

func (p *pdfPages) Page(ctx context.Context, i int, b *PageBuilder) error {
	if p.inst == nil {
		return errors.New("document is closed")
	}
	sz, err := p.inst.FPDF_GetPageSizeByIndexF(&requests.FPDF_GetPageSizeByIndexF{Document: p.doc.Document, Index: i})
	if err != nil {
		return fmt.Errorf("page size: %w", err)
	}
	w, h := float64(sz.Size.Width), float64(sz.Size.Height)
	st, err := p.inst.GetPageTextStructured(&requests.GetPageTextStructured{
		Page:                   requests.Page{ByIndex: &requests.PageByIndex{Document: p.doc.Document, Index: i}},
		Mode:                   requests.GetPageTextStructuredModeRects,
		CollectFontInformation: true,
	})
	if err != nil {
		return fmt.Errorf("text: %w", err)
	}
	runs := make([]pdfRun, 0, len(st.Rects))
	for _, r := range st.Rects {
		t := strings.TrimSpace(strings.Map(pdfCleanRune, r.Text))
		if t == "" {
			continue
		}
		run := pdfRun{text: t, left: r.PointPosition.Left, right: r.PointPosition.Right,
			top: math.Max(r.PointPosition.Top, r.PointPosition.Bottom), bottom: math.Min(r.PointPosition.Top, r.PointPosition.Bottom)}
		if fi := r.FontInformation; fi != nil {
			run.size = fi.RenderedSize
			if run.size <= 0 {
				run.size = fi.Size
			}
		}
		if run.size <= 0 || run.size > 4*(run.top-run.bottom)+1 {
			run.size = run.top - run.bottom
		}
		runs = append(runs, run)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	layoutPDFPage(runs, w, h, i, b)
	return nil
}

// pdfCleanRune drops control characters PDFium emits for generated line
// ends and keeps everything printable.
func pdfCleanRune(r rune) rune {
	switch {
	case r == '\r' || r == '\n' || r == '\t':
		return ' '
	case r == 0xFFFE:
		return -1
	case unicode.IsControl(r):
		return -1
	}
	return r
}

// pdfLine is runs sharing a baseline, left to right.
type pdfLine struct {
	runs                     []pdfRun
	left, bottom, right, top float64
	size                     float64 // the largest run's size
	col                      int     // 0: left or only column, 1: right, -1: spans the gutter
}

func (l *pdfLine) text() string {
	var sb strings.Builder
	for i, r := range l.runs {
		if i > 0 {
			gap := r.left - l.runs[i-1].right
			if gap > 0.15*math.Max(r.size, 1) || !strings.HasSuffix(sb.String(), " ") && gap > 0.05*r.size {
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(r.text)
	}
	return sb.String()
}

// layoutPDFPage groups runs into lines, finds columns, groups lines into
// blocks in reading order and classifies each block.
func layoutPDFPage(runs []pdfRun, w, h float64, page int, b *PageBuilder) {
	if len(runs) == 0 {
		return
	}
	lines := groupLines(runs)
	gutter, ok := findGutter(lines, w)
	for _, l := range lines {
		switch {
		case !ok:
			l.col = 0
		case l.right <= gutter:
			l.col = 0
		case l.left >= gutter:
			l.col = 1
		default:
			l.col = -1
		}
	}
	ordered := readingOrder(lines)
	body := bodySize(lines)
	blocks := groupBlocks(ordered, body)
	headingSizes := distinctHeadingSizes(blocks, body)
	// List depth is the rank of an item's indent among the distinct list
	// indents of its column (4 pt tolerance): producers indent levels by
	// different steps.
	indents := map[int][]float64{}
	for _, bl := range blocks {
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
	for _, bl := range blocks {
		depth := 0
		for _, x := range indents[bl.lines[0].col] {
			if x < bl.left-4 {
				depth++
			}
		}
		emitPDFBlock(bl, body, headingSizes, depth, w, h, page, b)
	}
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
			if hmin > 0 && ov > 0.5*hmin && !overlapsX(l, r) {
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

// findGutter looks for a vertical strip in the middle half of the page that
// no line crosses while both sides hold a fair share of the text: the page
// then has two clear columns. Lines spanning the strip (a title over both
// columns) are allowed when they are few.
func findGutter(lines []*pdfLine, w float64) (float64, bool) {
	if w <= 0 || len(lines) < 6 {
		return 0, false
	}
	bins := int(w) + 1
	cover := make([]int, bins)
	for _, l := range lines {
		for x := max(0, int(l.left)); x < min(bins, int(l.right)+1); x++ {
			cover[x]++
		}
	}
	lo, hi := int(0.3*w), int(0.7*w)
	allowed := max(1, len(lines)/20)
	bestStart, bestLen := -1, 0
	for x := lo; x < hi; {
		if cover[x] > allowed {
			x++
			continue
		}
		s := x
		for x < hi && cover[x] <= allowed {
			x++
		}
		if x-s > bestLen {
			bestStart, bestLen = s, x-s
		}
	}
	if bestLen < 8 {
		return 0, false
	}
	g := float64(bestStart) + float64(bestLen)/2
	left, right := 0, 0
	for _, l := range lines {
		switch {
		case l.right <= g:
			left++
		case l.left >= g:
			right++
		}
	}
	if left < 3 || right < 3 {
		return 0, false
	}
	return g, true
}

// readingOrder: top to bottom; within a band between spanning lines, the
// left column before the right one.
func readingOrder(lines []*pdfLine) []*pdfLine {
	sort.SliceStable(lines, func(a, c int) bool { return lines[a].top > lines[c].top })
	out := make([]*pdfLine, 0, len(lines))
	var band []*pdfLine
	flush := func() {
		sort.SliceStable(band, func(a, c int) bool { return band[a].col < band[c].col })
		out = append(out, band...)
		band = band[:0]
	}
	for _, l := range lines {
		if l.col < 0 {
			flush()
			out = append(out, l)
			continue
		}
		band = append(band, l)
	}
	flush()
	return out
}

// bodySize is the font size carrying the most characters.
func bodySize(lines []*pdfLine) float64 {
	weight := map[float64]int{}
	for _, l := range lines {
		for _, r := range l.runs {
			weight[math.Round(r.size*2)/2] += len(r.text)
		}
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

var listMarker = regexp.MustCompile(`^(?:[•◦▪▫‣⁃●○■□\-–—*]|\(?[0-9]{1,3}[.)]|\(?[a-zA-Z][.)])\s`)

// groupBlocks joins consecutive lines of one column into a paragraph when
// the vertical gap is small and the size the same; a list marker or a
// size change starts a new block.
func groupBlocks(lines []*pdfLine, body float64) []*pdfBlock {
	var blocks []*pdfBlock
	var cur *pdfBlock
	for _, l := range lines {
		if cur != nil {
			prev := cur.lines[len(cur.lines)-1]
			gap := prev.bottom - l.top
			lh := math.Max(prev.top-prev.bottom, l.top-l.bottom)
			same := math.Abs(l.size-cur.size) <= 0.1*math.Max(cur.size, 1)
			if prev.col == l.col && same && gap < 0.8*lh && gap > -lh && !listMarker.MatchString(l.text()) {
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
	parts := make([]string, len(bl.lines))
	for i, l := range bl.lines {
		parts[i] = l.text()
	}
	return strings.Join(parts, " ")
}

var pageNumberText = regexp.MustCompile(`^(?i:(?:page\s+)?\d{1,5}(?:\s*(?:/|of)\s*\d{1,5})?|[ivxlc]{1,6})$`)

func emitPDFBlock(bl *pdfBlock, body float64, headingSizes []float64, listDepth int, w, h float64, page int, b *PageBuilder) {
	text := blockText(bl)
	meta := Meta{
		"page_number": page + 1,
		"coordinates": Meta{
			// Corners clockwise from top left, in PDF user space.
			"points": [][2]float64{{r2(bl.left), r2(bl.top)}, {r2(bl.left), r2(bl.bottom)}, {r2(bl.right), r2(bl.bottom)}, {r2(bl.right), r2(bl.top)}},
			"system": Meta{"type": "PointSpace", "width": r2(w), "height": r2(h), "orientation": "CARTESIAN"},
		},
	}
	cat := "NarrativeText"
	short := len(text) < 120 && len(bl.lines) <= 2
	switch {
	case short && h > 0 && bl.bottom > 0.94*h:
		cat = "Header"
	case short && h > 0 && bl.top < 0.06*h:
		cat = "Footer"
		if pageNumberText.MatchString(text) {
			cat = "PageNumber"
		}
	case isHeadingBlock(bl, body):
		cat = "Title"
		depth := 0
		for k, s := range headingSizes {
			if math.Abs(s-math.Round(bl.size*2)/2) < 0.6 {
				depth = k
			}
		}
		meta["category_depth"] = min(depth, 5)
	case listMarker.MatchString(text):
		cat = "ListItem"
		meta["category_depth"] = min(listDepth, 8)
	}
	b.Add(cat, text, meta)
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
