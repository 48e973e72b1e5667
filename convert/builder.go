package convert

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"strings"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// Meta is ele_metadata under construction. encoding/json writes map keys
// sorted, so output is deterministic.
type Meta = map[string]any

// elementJSON and pageJSON are the wire shape this package writes (dpe.md
// §Page 对象 mode A, §Element 对象). Field order is the order on the wire.
type elementJSON struct {
	ElementID string `json:"element_id"`
	Category  string `json:"category"`
	Text      string `json:"text"`
	DocRef    string `json:"doc_ref"`
	PageIndex int    `json:"page_index"`
	Metadata  Meta   `json:"ele_metadata"`
}

type pageJSON struct {
	PageIndex int           `json:"page_index"`
	Title     string        `json:"title,omitempty"`
	DocRef    string        `json:"doc_ref"`
	Elements  []elementJSON `json:"elements"`
	// Metadata is what a reader knows of the page itself (a PDF page
	// without a text layer says so here); Page objects allow extra keys.
	Metadata Meta `json:"metadata,omitempty"`
}

// PageBuilder collects the elements of one page. After a limit is hit it
// ignores further elements and Err reports the limit, so readers need not
// check every Add.
type PageBuilder struct {
	index  int
	docRef string
	lim    Limits
	out    *outputBudget
	els    []elementJSON
	meta   Meta
	err    error
}

func newPageBuilder(index int, docRef string, lim Limits, out *outputBudget) *PageBuilder {
	return &PageBuilder{index: index, docRef: docRef, lim: lim, out: out, els: []elementJSON{}}
}

// Charge is Env.Charge for work done while this page is read: it reserves
// cells and bytes about to be built, and past a budget records the
// LimitError as the page's error and returns it.
func (b *PageBuilder) Charge(cells, bytes int64) error {
	if b.err != nil {
		return b.err
	}
	if err := b.out.charge(cells, bytes); err != nil {
		b.err = fmt.Errorf("page %d: %w", b.index+1, err)
	}
	return b.err
}

// Index is the page being built (0-based).
func (b *PageBuilder) Index() int { return b.index }

// Len is the number of elements so far.
func (b *PageBuilder) Len() int { return len(b.els) }

// Err is the first limit hit, or nil.
func (b *PageBuilder) Err() error { return b.err }

// Fail records err (the first one wins); the page is then reported as failed.
func (b *PageBuilder) Fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// Add appends an element and returns its element_id ("p<page>-e<n>", stable
// because it derives only from position). meta may be nil.
func (b *PageBuilder) Add(category, text string, meta Meta) string {
	if b.err != nil {
		return ""
	}
	if nothingToShow(category, text, meta) {
		return ""
	}
	if len(b.els) >= b.lim.MaxElementsPerPage {
		b.err = limitErr(fmt.Sprintf("element count on page %d", b.index+1), int64(b.lim.MaxElementsPerPage), int64(len(b.els)+1))
		return ""
	}
	if err := b.out.commit(elementSize(text, meta)); err != nil {
		b.err = fmt.Errorf("page %d: %w", b.index+1, err)
		return ""
	}
	if meta == nil {
		meta = Meta{}
	}
	setFormulaOffsets(text, meta)
	id := fmt.Sprintf("p%d-e%d", b.index, len(b.els))
	b.els = append(b.els, elementJSON{ElementID: id, Category: category, Text: text, DocRef: b.docRef, PageIndex: b.index, Metadata: meta})
	return id
}

// nothingToShow reports an element the checker would refuse for having no
// content: a text category with blank text (an empty <pre>, a paragraph of
// spaces) or a table without rows (an ODT table of empty cells). Readers
// build such elements from real files; they are left out here, once.
func nothingToShow(category, text string, meta Meta) bool {
	if category == "Table" {
		rows, ok := meta["table_rows"].(int)
		return ok && rows == 0
	}
	return strings.TrimSpace(text) == "" && dpe.IsTextCategory(category)
}

// SetPageMeta records key of the page's own metadata (not an element's).
func (b *PageBuilder) SetPageMeta(key string, value any) {
	if b.meta == nil {
		b.meta = Meta{}
	}
	b.meta[key] = value
}

// AddImage appends an Image element for encoded image data. Its dimensions
// are read with image.DecodeConfig (no pixels decoded) and checked against
// MaxPixels; data over MaxImageBytes, or of a type no decoder knows, is not
// embedded — the element then says why in its text and keeps the mime type.
// meta may carry extra keys (image_path, a caption …). Register decoders
// by importing image/png etc. (this package does: image.go).
func (b *PageBuilder) AddImage(data []byte, mimeType, alt string, meta Meta) string {
	if meta == nil {
		meta = Meta{}
	}
	text := alt
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	switch {
	case err != nil:
		if text == "" {
			text = "image (unreadable: " + err.Error() + ")"
		}
	case int64(cfg.Width)*int64(cfg.Height) > b.lim.MaxPixels:
		meta["image_width"], meta["image_height"] = cfg.Width, cfg.Height
		if text == "" {
			text = limitErr("image pixels", b.lim.MaxPixels, int64(cfg.Width)*int64(cfg.Height)).Error()
		}
	case int64(len(data)) > b.lim.MaxImageBytes:
		meta["image_width"], meta["image_height"] = cfg.Width, cfg.Height
		if text == "" {
			text = limitErr("image size", b.lim.MaxImageBytes, int64(len(data))).Error()
		}
	default:
		meta["image_width"], meta["image_height"] = cfg.Width, cfg.Height
		meta["image_base64"] = base64.StdEncoding.EncodeToString(data)
		if mimeType == "" {
			mimeType = "image/" + format
		}
	}
	if mimeType != "" {
		meta["image_mime_type"] = strings.ToLower(mimeType)
	}
	return b.Add("Image", text, meta)
}

func (b *PageBuilder) page(title string) pageJSON {
	return pageJSON{PageIndex: b.index, Title: title, DocRef: b.docRef, Elements: b.els, Metadata: b.meta}
}

// Book accumulates every page of a document that is parsed in one pass
// (sections of a DOCX, an HTML file, a message). StartPage begins a page;
// Add before any StartPage starts page 0 with an empty title.
type Book struct {
	env    *Env
	docRef string // the elements' doc_ref (BookWithin); a file's comes with its head
	pages  []*PageBuilder
	titles []string
}

// NewBook starts an empty book for env's document.
func NewBook(env *Env) *Book { return &Book{env: env} }

// StartPage begins a new page and makes it current.
func (k *Book) StartPage(title string) *PageBuilder {
	b := newPageBuilder(len(k.pages), k.docRef, k.env.Limits, k.env.out)
	k.pages = append(k.pages, b)
	k.titles = append(k.titles, title)
	return b
}

// Current is the page being filled (starting page 0 when none exists).
func (k *Book) Current() *PageBuilder {
	if len(k.pages) == 0 {
		return k.StartPage("")
	}
	return k.pages[len(k.pages)-1]
}

// CurrentEmpty reports whether there is no page or the current one has no
// elements yet (so a heading can retitle it instead of starting another).
func (k *Book) CurrentEmpty() bool { return len(k.pages) == 0 || k.Current().Len() == 0 }

// SetTitle retitles the current page.
func (k *Book) SetTitle(title string) {
	k.Current()
	k.titles[len(k.titles)-1] = title
}

// Add appends to the current page.
func (k *Book) Add(category, text string, meta Meta) string {
	return k.Current().Add(category, text, meta)
}

// last is the current page's last element as markListStart reads it.
func (k *Book) last() lastElement {
	if len(k.pages) == 0 || len(k.Current().els) == 0 {
		return lastElement{}
	}
	el := k.Current().els[len(k.Current().els)-1]
	return lastOf(el.Category, el.Metadata)
}

// Len is the number of pages so far.
func (k *Book) Len() int { return len(k.pages) }

// Err is the first limit hit on any page, or a page count over the limit.
func (k *Book) Err() error {
	if len(k.pages) > k.env.Limits.MaxPages {
		return limitErr("page count", int64(k.env.Limits.MaxPages), int64(len(k.pages)))
	}
	for _, p := range k.pages {
		if p.err != nil {
			return p.err
		}
	}
	return nil
}

// Pages freezes the book into Pages (at least one page). info.PageTitles
// is filled from the book.
func (k *Book) Pages(info Info) Pages {
	if len(k.pages) == 0 {
		k.StartPage("")
	}
	info.PageTitles = k.titles
	for i, p := range k.pages {
		// A sheet's state (ODS) is known once the book is read.
		if st, _ := p.meta["sheet_state"].(string); st != "" {
			if info.SheetStates == nil {
				info.SheetStates = make([]string, len(k.pages))
			}
			info.SheetStates[i] = st
		}
	}
	return &bookPages{info: info, pages: k.pages}
}

type bookPages struct {
	info  Info
	pages []*PageBuilder
}

func (p *bookPages) Info() Info { return p.info }

func (p *bookPages) Page(ctx context.Context, i int, b *PageBuilder) error {
	src := p.pages[i]
	if src.err != nil {
		return src.err
	}
	for _, el := range src.els {
		b.Add(el.Category, el.Text, el.Metadata)
	}
	for k, v := range src.meta {
		b.SetPageMeta(k, v)
	}
	return nil
}

func (p *bookPages) Close() error { return nil }
