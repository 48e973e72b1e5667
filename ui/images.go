package ui

import (
	"context"
	"fmt"
	"image"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
)

// Image previews are decoded off the loop: a command probes a page's image
// headers (image.DecodeConfig), Update charges each image's declared
// width×height against a page and a document pixel budget, and only images
// on screen or just below it are decoded, a few at a time. Results come
// back as messages keyed by document generation, page and element, so a
// result for a closed document or another element is dropped. Nothing here
// makes rendering or a key press wait for a decode.

const (
	defaultImagePagePixels = 64_000_000
	defaultImageDocPixels  = 256_000_000
	defaultImageDecoders   = 3
	// imageLookBehind/imageLookAhead are how many blocks around the visible
	// ones are decoded too, so a short scroll finds its previews ready.
	imageLookBehind = 2
	imageLookAhead  = 6
)

type imgKey struct{ page, el int }

type imageLoader struct {
	gen    int
	ctx    context.Context
	cancel context.CancelFunc
	// stopped is set on quit: nothing new starts.
	stopped bool
	probing map[int]bool
	// probed holds each page's probe results by element index; an image
	// appears in started once it was charged to a budget or refused.
	probed   map[int]map[int]render.Preview
	started  map[imgKey]bool
	pageUsed map[int]int64
	docUsed  int64
	inflight int
	// decodes counts decodes started for this document (tests read it).
	decodes int
	// kittyNext is the last kitty image id used (ids are never reused
	// while the program runs); kittyIDs are this document's transmitted
	// images, kittyDrop those of closed documents still to delete.
	kittyNext uint32
	kittyIDs  []uint32
	kittyDrop []uint32
}

type imagesProbedMsg struct {
	gen, page int
	els       []*dpe.Element
	idx       []int
	previews  []render.Preview
}

type imageDecodedMsg struct {
	gen, page, el int
	ptr           *dpe.Element
	img           image.Image
	err           error
}

// reset starts over for a new document (or none): in-flight work for the
// old one is cancelled and its results will not match.
func (l *imageLoader) reset(r *render.Renderer) {
	if l.cancel != nil {
		l.cancel()
	}
	gen, next, drop := l.gen+1, l.kittyNext, append(l.kittyDrop, l.kittyIDs...)
	*l = imageLoader{gen: gen, probing: map[int]bool{}, probed: map[int]map[int]render.Preview{},
		started: map[imgKey]bool{}, pageUsed: map[int]int64{}, kittyNext: next, kittyDrop: drop}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	r.DropPreviews()
}

func (l *imageLoader) stop() {
	l.stopped = true
	if l.cancel != nil {
		l.cancel()
	}
}

func imageBudgets(opt Options) (page, doc int64, decoders int) {
	page, doc, decoders = opt.ImagePagePixels, opt.ImageDocPixels, opt.ImageDecoders
	if page <= 0 {
		page = defaultImagePagePixels
	}
	if doc <= 0 {
		doc = defaultImageDocPixels
	}
	if decoders <= 0 {
		decoders = defaultImageDecoders
	}
	return page, doc, decoders
}

// schedule is run after every message the document screen handles: it
// starts the probe of the page on screen, then decodes for the images in
// view, within the budgets and the concurrency bound. It only starts
// commands.
func (d *documentScreen) schedule() tea.Cmd {
	e := d.e
	l := &d.images
	if l.stopped || l.ctx == nil {
		return nil
	}
	p := d.curPage()
	if p == nil {
		return nil
	}
	page := d.page
	if !l.probing[page] {
		l.probing[page] = true
		return l.probe(e, page, p)
	}
	probed := l.probed[page]
	// With previews off the probe still runs (the description line
	// names size and dimensions) but nothing is decoded.
	if len(probed) == 0 || !e.renderer.Theme().Color || e.renderer.ImageMode() == render.ImagesOff {
		return nil
	}
	pageBudget, docBudget, decoders := imageBudgets(e.opt)
	if l.inflight >= decoders {
		return nil
	}
	_, cw := d.layout(e.width)
	d.ensureBlocks(cw)
	h := d.h
	if h <= 0 {
		h = e.bodyHeight() - 1
	}
	blocks := d.cache.blocks
	if len(blocks) == 0 {
		return nil
	}
	b0 := max(0, d.blockAt(d.yoff)-imageLookBehind)
	b1 := min(len(blocks)-1, d.blockAt(d.yoff+max(h, 1)-1)+imageLookAhead)
	var cmds []tea.Cmd
	changed := false
	for b := b0; b <= b1 && l.inflight < decoders; b++ {
		idx := blocks[b].ElementIndex
		pr, ok := probed[idx]
		k := imgKey{page, idx}
		if !ok || l.started[k] || !pr.Pending {
			continue
		}
		l.started[k] = true
		el := p.Elements[idx]
		problem := l.charge(page, int64(pr.Width)*int64(pr.Height), pageBudget, docBudget)
		if problem == "" {
			cmds = append(cmds, l.decode(e, page, idx, el))
			continue
		}
		pr.Pending, pr.Problem = false, problem
		e.renderer.SetPreview(el, pr)
		changed = true
	}
	if changed {
		d.invalidate()
	}
	return tea.Batch(cmds...)
}

func megapixels(n int64) string {
	if n < 1_000_000 {
		return counted(int(n), "pixel", "pixels")
	}
	if n%1_000_000 == 0 {
		return fmt.Sprintf("%d MP", n/1_000_000)
	}
	return fmt.Sprintf("%.1f MP", float64(n)/1e6)
}

// charge takes px pixels of page's and the document's budgets for a
// decode, or says which budget it would exceed ("": charged, one more
// decode in flight).
func (l *imageLoader) charge(page int, px, pageBudget, docBudget int64) (problem string) {
	switch {
	case l.pageUsed[page]+px > pageBudget:
		return "image not previewed: page pixel budget " + megapixels(pageBudget) + " reached"
	case l.docUsed+px > docBudget:
		return "image not previewed: document pixel budget " + megapixels(docBudget) + " reached"
	}
	l.pageUsed[page] += px
	l.docUsed += px
	l.inflight++
	l.decodes++
	return ""
}

// probe reads the headers of every image on a page in one command.
func (l *imageLoader) probe(e *env, page int, p *dpe.Page) tea.Cmd {
	ctx, gen := l.ctx, l.gen
	lim := e.renderer.Limits()
	els := p.Elements
	return e.safe(0, func() tea.Msg {
		msg := imagesProbedMsg{gen: gen, page: page}
		for i, el := range els {
			if ctx.Err() != nil {
				return nil
			}
			if el == nil || dpe.NormalizeCategory(el.Category) != dpe.CategoryImage {
				continue
			}
			pr := render.ProbeImage(el, lim)
			pr.Pending = pr.Problem == "" && pr.Bytes > 0
			msg.els = append(msg.els, el)
			msg.idx = append(msg.idx, i)
			msg.previews = append(msg.previews, pr)
		}
		return msg
	})
}

func (d *documentScreen) onImagesProbed(msg imagesProbedMsg) {
	if msg.page >= len(d.pages) || d.pages[msg.page].p == nil {
		return
	}
	if d.images.probedPage(msg, d.pages[msg.page].p, d.e.renderer) && msg.page == d.page {
		d.invalidate()
	}
}

// probedPage keeps a probe's results for page p (still the page probed:
// an element that changed under the probe is left out); false for the
// probe of an earlier document.
func (l *imageLoader) probedPage(msg imagesProbedMsg, p *dpe.Page, r *render.Renderer) bool {
	if msg.gen != l.gen {
		return false
	}
	byIdx := map[int]render.Preview{}
	for i, el := range msg.els {
		idx := msg.idx[i]
		if idx >= len(p.Elements) || p.Elements[idx] != el {
			continue // the page changed under the probe
		}
		pr := msg.previews[i]
		if !r.Theme().Color {
			pr.Pending = false
		}
		byIdx[idx] = pr
		r.SetPreview(el, pr)
	}
	l.probed[msg.page] = byIdx
	return true
}

// decode decodes element idx's preview off the loop.
func (l *imageLoader) decode(e *env, page, idx int, el *dpe.Element) tea.Cmd {
	ctx, gen := l.ctx, l.gen
	lim := e.renderer.Limits()
	return e.safe(0, func() tea.Msg {
		img, err := render.DecodePreview(ctx, el, lim)
		return imageDecodedMsg{gen: gen, page: page, el: idx, ptr: el, img: img, err: err}
	})
}

func (d *documentScreen) onImageDecoded(msg imageDecodedMsg) tea.Cmd {
	var p *dpe.Page
	if msg.page < len(d.pages) {
		p = d.pages[msg.page].p
	}
	pr, ok := d.images.decoded(msg, p)
	if !ok {
		return nil
	}
	d.e.renderer.SetPreview(msg.ptr, pr)
	if msg.page == d.page {
		d.invalidate()
	}
	if pr.Thumb != nil && d.e.renderer.ImageMode() == render.ImagesKitty {
		return d.kittyEncode(msg.page, msg.el, msg.ptr, pr)
	}
	return nil
}

// decoded keeps a decode's result for page p: the preview to show, or
// false for a decode of an earlier document, of an element no longer
// there, or one cancelled.
func (l *imageLoader) decoded(msg imageDecodedMsg, p *dpe.Page) (render.Preview, bool) {
	if msg.gen != l.gen {
		return render.Preview{}, false
	}
	l.inflight = max(0, l.inflight-1)
	if p == nil || msg.el >= len(p.Elements) || p.Elements[msg.el] != msg.ptr {
		return render.Preview{}, false
	}
	pr := l.probed[msg.page][msg.el]
	pr.Pending = false
	if msg.err != nil {
		if l.ctx.Err() != nil {
			return render.Preview{}, false
		}
		pr.Problem = msg.err.Error()
	} else {
		pr.Thumb = msg.img
	}
	l.probed[msg.page][msg.el] = pr
	return pr, true
}
