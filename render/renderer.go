// Package render turns DPE elements into terminal text: one small renderer
// per category group, chosen by a factory, with the text renderer as the
// fallback for categories it does not know (crush's internal/ui design).
// Output is sanitized at this boundary, every line fits the width, and each
// element's output is cached by width so scrolling is cheap.
package render

import (
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// Limits bound what the renderer spends on one element, so a hostile one cannot stall a frame.
// Zero fields take the defaults.
type Limits struct {
	MaxChars       int // characters of one string shown (default 10,000)
	MaxImagePixels int // decoded image width×height (default 4096×4096)
	MaxImageBytes  int // encoded image bytes (default 32 MiB)
	MaxTableCells  int // cells parsed from one table (default 2,000,000)
	MaxTableCols   int // columns of one table (default 1,000)
	MaxJSONLines   int // lines of the raw JSON view (default 200,000)
	MaxJSONDepth   int // nesting depth of the raw JSON view (default 128)
	MaxCacheLines  int // cached lines before the cache is dropped (default 2,000,000)
}

// DefaultLimits returns the limits used when a field is zero.
func DefaultLimits() Limits {
	return Limits{
		MaxChars:       10_000,
		MaxImagePixels: 4096 * 4096,
		MaxImageBytes:  32 << 20,
		MaxTableCells:  2_000_000,
		MaxTableCols:   1_000,
		MaxJSONLines:   200_000,
		MaxJSONDepth:   128,
		MaxCacheLines:  2_000_000,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&l.MaxChars, d.MaxChars)
	set(&l.MaxImagePixels, d.MaxImagePixels)
	set(&l.MaxImageBytes, d.MaxImageBytes)
	set(&l.MaxTableCells, d.MaxTableCells)
	set(&l.MaxTableCols, d.MaxTableCols)
	set(&l.MaxJSONLines, d.MaxJSONLines)
	set(&l.MaxJSONDepth, d.MaxJSONDepth)
	set(&l.MaxCacheLines, d.MaxCacheLines)
	return l
}

// TableView is the horizontal scroll state for a Table element: XOffset is
// how many columns after the first (which stays fixed) are scrolled away;
// ColWidthBonus widens every column's cap by that many cells.
type TableView struct {
	XOffset       int
	ColWidthBonus int
	// Scroll lays the table out at natural widths with a fixed first
	// column, scrolling by XOffset, even where squeezing would fit it: a
	// squeezed column hides part of its cells.
	Scroll bool
	// WideCol (1-based; 0: every column) is the column ColWidthBonus
	// widens.
	WideCol int
	// Cursor marks cell (Row, Col) of the body (Row counts header rows
	// too), so the UI can show which cell enter opens.
	Cursor   bool
	Row, Col int
}

// Block is one element's rendered lines within a page.
type Block struct {
	ElementIndex int // index into Page.Elements; -1 for a page-level notice
	Lines        []string
}

// Renderer renders elements with one theme. It is safe for concurrent use.
type Renderer struct {
	theme Theme
	lim   Limits

	mu         sync.Mutex
	cache      map[cacheKey]cacheEntry
	cacheLines int
	grids      map[*dpe.Element]gridEntry
	// previews are the deferred images' previews (DeferImages); pvGen
	// versions them so a cached element drawn before its preview arrived
	// is drawn again.
	deferImages bool
	// imageMode is how transmitted previews are drawn (SetImageMode).
	imageMode string
	previews  map[*dpe.Element]previewEntry
	pvGen     uint64

	glamMu sync.Mutex
	glam   map[int]*glamour.TermRenderer
}

// New returns a renderer with default limits.
func New(theme Theme) *Renderer { return NewWithLimits(theme, Limits{}) }

// NewWithLimits returns a renderer with the given limits (zero → default).
func NewWithLimits(theme Theme, lim Limits) *Renderer {
	return &Renderer{
		theme:    theme,
		lim:      lim.withDefaults(),
		cache:    map[cacheKey]cacheEntry{},
		grids:    map[*dpe.Element]gridEntry{},
		previews: map[*dpe.Element]previewEntry{},
		glam:     map[int]*glamour.TermRenderer{},
	}
}

// Theme returns the renderer's theme.
func (r *Renderer) Theme() Theme { return r.theme }

// Limits returns the renderer's effective limits.
func (r *Renderer) Limits() Limits { return r.lim }

type cacheKey struct {
	el    *dpe.Element
	width int
	view  TableView
	image imageContext
}

// imageContext is what an Image is drawn with from its page: the caption
// that names it elsewhere on the page, and whether its alternative text
// is the caption right after it (drawn there, so not here too).
type imageContext struct {
	caption   string
	altRepeat bool
}

type cacheEntry struct {
	fp    fingerprint
	pv    uint64 // version of the element's preview when drawn
	lines []string
}

// fingerprint detects an element changed in place under the same pointer:
// comparing strings that share their data is a pointer compare, and the
// metadata map is compared by identity plus its values' backing arrays.
type fingerprint struct {
	category, text string
	raw            uintptr
	rawLen         int
	meta           uintptr
	metaLen        int
	metaSum        uintptr
}

func fingerprintOf(el *dpe.Element) fingerprint {
	fp := fingerprint{
		category: el.Category, text: el.Text,
		raw: uintptr(unsafe.Pointer(unsafe.SliceData(el.Raw))), rawLen: len(el.Raw),
		metaLen: len(el.Metadata),
	}
	if el.Metadata != nil {
		fp.meta = reflect.ValueOf(el.Metadata).Pointer()
		for k, v := range el.Metadata {
			fp.metaSum += uintptr(unsafe.Pointer(unsafe.SliceData(v)))*31 + uintptr(len(v)) + uintptr(len(k))
		}
	}
	return fp
}

// Invalidate drops everything cached for el (call after editing it).
func (r *Renderer) Invalidate(el *dpe.Element) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, e := range r.cache {
		if k.el == el {
			r.cacheLines -= len(e.lines)
			delete(r.cache, k)
		}
	}
	delete(r.grids, el)
}

// Reset drops the whole cache (e.g. when a document is closed).
func (r *Renderer) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cache = map[cacheKey]cacheEntry{}
	r.grids = map[*dpe.Element]gridEntry{}
	r.cacheLines = 0
}

func (r *Renderer) cached(k cacheKey, build func() []string) []string {
	fp := fingerprintOf(k.el)
	r.mu.Lock()
	pv := r.previews[k.el].ver
	if e, ok := r.cache[k]; ok && e.fp == fp && e.pv == pv {
		r.mu.Unlock()
		return e.lines
	}
	r.mu.Unlock()
	lines := build()
	r.mu.Lock()
	if old, ok := r.cache[k]; ok {
		r.cacheLines -= len(old.lines)
	}
	if r.cacheLines+len(lines) > r.lim.MaxCacheLines {
		// Simple and bounded: start over rather than track recency.
		r.cache = map[cacheKey]cacheEntry{}
		r.cacheLines = 0
	}
	r.cache[k] = cacheEntry{fp: fp, pv: pv, lines: lines}
	r.cacheLines += len(lines)
	r.mu.Unlock()
	return lines
}

// Element renders one element: multi-line, styled, sanitized, every line at
// most width cells.
func (r *Renderer) Element(el *dpe.Element, width int) string {
	return strings.Join(r.ElementLines(el, width), "\n")
}

// CodeLines is a CodeSnippet's lines at width, scrolled sideways by xoff
// cells (CodeMaxXOffset bounds it).
func (r *Renderer) CodeLines(el *dpe.Element, width, xoff int) []string {
	return r.elementLines(el, width, TableView{XOffset: max(0, xoff)}, imageContext{})
}

// CodeMaxXOffset is how far a CodeSnippet's lines scroll sideways at
// width: its longest line's width past its frame (0: every line fits).
func (r *Renderer) CodeMaxXOffset(el *dpe.Element, width int) int {
	src, _ := r.text(el.Text)
	inner := width - 2*quoteDepth(el) - 4
	longest := 0
	for _, l := range strings.Split(strings.TrimRight(src, "\n"), "\n") {
		longest = max(longest, ansi.StringWidth(l))
	}
	return max(0, longest-inner)
}

// ElementLines is Element split into lines (shared with the cache; do not
// modify the slice).
func (r *Renderer) ElementLines(el *dpe.Element, width int) []string {
	return r.elementLines(el, width, TableView{}, imageContext{})
}

func (r *Renderer) elementLines(el *dpe.Element, width int, v TableView, ic imageContext) []string {
	if el == nil {
		return []string{}
	}
	width = max(width, 1)
	return r.cached(cacheKey{el: el, width: width, view: v, image: ic}, func() []string {
		return fit(r.build(el, width, v, ic), width)
	})
}

// build draws el, with the comments recorded on it below, behind a bar
// per level when it sits in a block quote.
func (r *Renderer) build(el *dpe.Element, width int, v TableView, ic imageContext) []string {
	q := quoteDepth(el)
	if q == 0 {
		return append(r.buildBody(el, width, v, ic), r.annotationLines(el, width)...)
	}
	bar := r.theme.Dim.Render(strings.Repeat("│ ", q))
	inner := max(width-2*q, 1)
	lines := append(r.buildBody(el, inner, v, ic), r.annotationLines(el, inner)...)
	for i, l := range lines {
		lines[i] = bar + l
	}
	return lines
}

// buildBody is the factory: one renderer per category group, text for the rest.
func (r *Renderer) buildBody(el *dpe.Element, width int, v TableView, ic imageContext) []string {
	switch normalizeCategory(el.Category) {
	case catTitle:
		return r.title(el, width)
	case catNarrative:
		return r.narrative(el, width)
	case catListItem:
		return r.listItem(el, width)
	case catCode:
		return r.code(el, width, v.XOffset)
	case catTable, catTableChunk:
		return r.tableLines(el, width, v)
	case catImage:
		return r.image(el, width, ic)
	case catFormula:
		return r.formula(el, width)
	case catCheckBox:
		return r.checkBox(el, width)
	case catHeader, catFooter, catPageNumber:
		return r.dimmed(el, width)
	case catPageBreak:
		return r.pageBreak(el, width)
	case catFigureCaption:
		return r.caption(el, width)
	case catFormKeysValues:
		return r.formKeysValues(el, width)
	case catLink:
		return r.link(el, width)
	case catMedia:
		return r.media(el, width)
	case catEmail:
		return r.email(el, width)
	case catText, catAddress, catComposite:
		return r.plain(el, width)
	case catWidget:
		return r.tagged(el, width)
	}
	return r.tagged(el, width)
}

// Page renders every element of a decoded page as blocks, so the UI can
// draw only the visible lines (and put its own gap between blocks).
func (r *Renderer) Page(p *dpe.Page, width int) []Block {
	return r.PageView(p, width, nil)
}

// PageView is Page with the horizontal scroll state of some tables, keyed
// by element index.
func (r *Renderer) PageView(p *dpe.Page, width int, views map[int]TableView) []Block {
	width = max(width, 1)
	if p == nil {
		return nil
	}
	if !p.Decoded && len(p.Elements) == 0 {
		msg := "page not loaded yet"
		if p.URI != "" {
			msg = "page not loaded yet: " + sanitize.Line(p.URI)
		}
		return []Block{{ElementIndex: -1, Lines: fit([]string{r.theme.Dim.Render(sanitize.Truncate(msg, width))}, width)}}
	}
	if len(p.Elements) == 0 {
		return []Block{{ElementIndex: -1, Lines: []string{r.theme.Dim.Render(sanitize.Truncate("(empty page)", width))}}}
	}
	r.shareChunkWidths(p)
	blocks := make([]Block, 0, len(p.Elements))
	captions := newCaptionIndex(p)
	for i, el := range p.Elements {
		if el == nil {
			continue
		}
		var ic imageContext
		if normalizeCategory(el.Category) == catImage {
			ic.altRepeat = altIsNextCaption(p, i)
			if imageCaptionFromMeta(el) == "" {
				ic.caption = captions.caption(p, i)
			}
		}
		blocks = append(blocks, Block{ElementIndex: i, Lines: r.elementLines(el, width, views[i], ic)})
	}
	return blocks
}
