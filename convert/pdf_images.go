package convert

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"regexp"
	"strings"

	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// pdfMaxObjects bounds the page objects looked at on one page (a vector
// drawing can have hundreds of thousands) and pdfMaxDocObjects those of a
// document: go-pdfium keeps a handle for every object it hands out until
// the instance is closed, some 200 bytes each. pdfMaxImages bounds the
// images read from one page, and pdfMaxStructNodes the structure-tree
// nodes walked for alt text.
const (
	pdfMaxObjects     = 4096
	pdfMaxDocObjects  = 100000
	pdfMaxImages      = 64
	pdfMaxRules       = 2048
	pdfRuleWidth      = 2.5 // the thickest path that is a ruling line, in points
	pdfMaxStructNodes = 4096
	pdfMaxStructDepth = 64
	pdfMaxAlt         = 2048
)

// pdfPreviewSide is the longest side of an image's preview, in pixels: a
// picture in the document is shown, not reproduced.
const pdfPreviewSide = 1024

// pdfImage is an image drawn on a page: its box in PDF user space, its
// alt text (from the structure tree) and a PNG preview, nil when it could
// not be rendered (note says why).
type pdfImage struct {
	left, bottom, right, top float64
	alt                      string
	marked                   bool // alt came through the image's marked content
	preview                  []byte
	note                     string
}

// pageObjects reads the images drawn on page i, in content order, with
// their alt text, and the ruling lines (thin paths: a table's borders).
// Objects inside form XObjects are found too.
func (p *pdfReader) pageObjects(i int, maxPixels int64) ([]pdfImage, []pdfBox) {
	page := requests.Page{ByIndex: &requests.PageByIndex{Document: p.doc.Document, Index: i}}
	n, err := p.inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: page})
	if err != nil {
		return nil, nil
	}
	var rules []pdfBox
	var (
		alts  map[int]string
		loose []string
		out   []pdfImage
	)
	seen := 0
	var visit func(obj references.FPDF_PAGEOBJECT, depth int)
	visit = func(obj references.FPDF_PAGEOBJECT, depth int) {
		seen++
		if seen > pdfMaxObjects || p.objects >= pdfMaxDocObjects || len(out) >= pdfMaxImages {
			return
		}
		p.objects++
		t, err := p.inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: obj})
		if err != nil {
			return
		}
		switch t.Type {
		case enums.FPDF_PAGEOBJ_PATH:
			if len(rules) >= pdfMaxRules {
				return
			}
			bd, err := p.inst.FPDFPageObj_GetBounds(&requests.FPDFPageObj_GetBounds{PageObject: obj})
			if err != nil {
				return
			}
			b := pdfBox{float64(bd.Left), float64(bd.Bottom), float64(bd.Right), float64(bd.Top)}
			if w, h := b.right-b.left, b.top-b.bottom; w <= pdfRuleWidth && h >= 4 || h <= pdfRuleWidth && w >= 4 {
				rules = append(rules, b)
			}
		case enums.FPDF_PAGEOBJ_FORM:
			if depth >= 8 {
				return
			}
			c, err := p.inst.FPDFFormObj_CountObjects(&requests.FPDFFormObj_CountObjects{PageObject: obj})
			if err != nil {
				return
			}
			for k := 0; k < c.Count && seen < pdfMaxObjects && p.objects < pdfMaxDocObjects; k++ {
				o, err := p.inst.FPDFFormObj_GetObject(&requests.FPDFFormObj_GetObject{PageObject: obj, Index: uint64(k)})
				if err == nil {
					visit(o.PageObject, depth+1)
				}
			}
		case enums.FPDF_PAGEOBJ_IMAGE:
			bd, err := p.inst.FPDFPageObj_GetBounds(&requests.FPDFPageObj_GetBounds{PageObject: obj})
			if err != nil {
				return
			}
			im := pdfImage{left: float64(bd.Left), bottom: float64(bd.Bottom), right: float64(bd.Right), top: float64(bd.Top)}
			if im.right-im.left < 1 || im.top-im.bottom < 1 {
				return // a hairline or a 1-pt mask: nothing to see
			}
			if alts == nil {
				alts, loose = p.structAlts(page)
			}
			if m, err := p.inst.FPDFPageObj_GetMarkedContentID(&requests.FPDFPageObj_GetMarkedContentID{PageObject: obj}); err == nil && m.MarkedContentID >= 0 {
				im.alt = alts[m.MarkedContentID]
			}
			im.marked = im.alt != ""
			im.preview, im.note = p.imagePreview(page, obj, im, maxPixels)
			out = append(out, im)
		}
	}
	for k := 0; k < n.Count && seen < pdfMaxObjects && p.objects < pdfMaxDocObjects && len(out) < pdfMaxImages; k++ {
		o, err := p.inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: page, Index: k})
		if err == nil {
			visit(o.PageObject, 0)
		}
	}
	// LibreOffice writes a picture's Figure with its /Alt but no content
	// (the picture itself is drawn as an Artifact): when the page has as
	// many such Figures as pictures without alt text, they pair up in
	// order, the structure tree's order being the content's.
	var bare []int
	for k := range out {
		if !out[k].marked {
			bare = append(bare, k)
		}
	}
	if len(bare) > 0 && len(bare) == len(loose) {
		for j, k := range bare {
			out[k].alt = loose[j]
		}
	}
	return out, rules
}

// structAlts maps the marked-content ids of the page's structure elements
// that carry alt text (a Figure's /Alt, most often) to that text. An
// element's alt text covers the content of its children too. loose is
// the alt text of Figures that hold no content at all, in tree order.
func (p *pdfReader) structAlts(page requests.Page) (out map[int]string, loose []string) {
	out = map[int]string{}
	tree, err := p.inst.FPDF_StructTree_GetForPage(&requests.FPDF_StructTree_GetForPage{Page: page})
	if err != nil {
		return out, nil
	}
	defer p.inst.FPDF_StructTree_Close(&requests.FPDF_StructTree_Close{StructTree: tree.StructTree})
	nodes := 0
	var walk func(el references.FPDF_STRUCTELEMENT, alt string, depth int)
	walk = func(el references.FPDF_STRUCTELEMENT, alt string, depth int) {
		nodes++
		if nodes > pdfMaxStructNodes || depth > pdfMaxStructDepth {
			return
		}
		if a, err := p.inst.FPDF_StructElement_GetAltText(&requests.FPDF_StructElement_GetAltText{StructElement: el}); err == nil {
			if s := strings.Join(strings.Fields(a.AltText), " "); s != "" && len(s) <= pdfMaxAlt {
				alt = s
			}
		}
		ids := 0
		if alt != "" {
			if c, err := p.inst.FPDF_StructElement_GetMarkedContentIdCount(&requests.FPDF_StructElement_GetMarkedContentIdCount{StructElement: el}); err == nil {
				for k := 0; k < min(c.Count, 256); k++ {
					if m, err := p.inst.FPDF_StructElement_GetMarkedContentIdAtIndex(&requests.FPDF_StructElement_GetMarkedContentIdAtIndex{StructElement: el, Index: k}); err == nil && m.MarkedContentID >= 0 {
						out[m.MarkedContentID] = alt
						ids++
					}
				}
			}
		}
		c, err := p.inst.FPDF_StructElement_CountChildren(&requests.FPDF_StructElement_CountChildren{StructElement: el})
		if err != nil || c.Count <= 0 {
			if ids == 0 && alt != "" && len(loose) < pdfMaxImages {
				if t, err := p.inst.FPDF_StructElement_GetType(&requests.FPDF_StructElement_GetType{StructElement: el}); err == nil && t.Type == "Figure" {
					loose = append(loose, alt)
				}
			}
			return
		}
		for k := 0; k < c.Count && nodes <= pdfMaxStructNodes; k++ {
			ch, err := p.inst.FPDF_StructElement_GetChildAtIndex(&requests.FPDF_StructElement_GetChildAtIndex{StructElement: el, Index: k})
			if err == nil {
				walk(ch.StructElement, alt, depth+1)
			}
		}
	}
	c, err := p.inst.FPDF_StructTree_CountChildren(&requests.FPDF_StructTree_CountChildren{StructTree: tree.StructTree})
	if err != nil {
		return out, nil
	}
	for k := 0; k < c.Count && nodes <= pdfMaxStructNodes; k++ {
		ch, err := p.inst.FPDF_StructTree_GetChildAtIndex(&requests.FPDF_StructTree_GetChildAtIndex{StructTree: tree.StructTree, Index: k})
		if err == nil {
			walk(ch.StructElement, "", 1)
		}
	}
	return out, loose
}

// imagePreview renders an image object as PDFium draws it (mask and
// matrix applied) and encodes it as a PNG no longer than pdfPreviewSide.
// PDFium renders at the image's size on the page in points, so the
// bitmap is bounded by the page; an image whose box is over maxPixels
// points is not rendered.
func (p *pdfReader) imagePreview(page requests.Page, obj references.FPDF_PAGEOBJECT, im pdfImage, maxPixels int64) ([]byte, string) {
	area := (im.right - im.left) * (im.top - im.bottom)
	if area > float64(min(maxPixels, 16<<20)) {
		return nil, limitErr("image pixels", min(maxPixels, 16<<20), int64(area)).Error()
	}
	bm, err := p.inst.FPDFImageObj_GetRenderedBitmap(&requests.FPDFImageObj_GetRenderedBitmap{Document: p.doc.Document, Page: page, ImageObject: obj})
	if err != nil {
		return nil, "image (PDFium cannot render it)"
	}
	defer p.inst.FPDFBitmap_Destroy(&requests.FPDFBitmap_Destroy{Bitmap: bm.Bitmap})
	w, err1 := p.inst.FPDFBitmap_GetWidth(&requests.FPDFBitmap_GetWidth{Bitmap: bm.Bitmap})
	h, err2 := p.inst.FPDFBitmap_GetHeight(&requests.FPDFBitmap_GetHeight{Bitmap: bm.Bitmap})
	st, err3 := p.inst.FPDFBitmap_GetStride(&requests.FPDFBitmap_GetStride{Bitmap: bm.Bitmap})
	f, err4 := p.inst.FPDFBitmap_GetFormat(&requests.FPDFBitmap_GetFormat{Bitmap: bm.Bitmap})
	buf, err5 := p.inst.FPDFBitmap_GetBuffer(&requests.FPDFBitmap_GetBuffer{Bitmap: bm.Bitmap})
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || w.Width <= 0 || h.Height <= 0 {
		return nil, "image (PDFium cannot render it)"
	}
	if int64(w.Width)*int64(h.Height) > maxPixels {
		return nil, limitErr("image pixels", maxPixels, int64(w.Width)*int64(h.Height)).Error()
	}
	img := bitmapImage(buf.Buffer, w.Width, h.Height, st.Stride, f.Format)
	if img == nil {
		return nil, "image (an unknown bitmap format)"
	}
	var out bytes.Buffer
	if err := png.Encode(&out, scaleDown(img, pdfPreviewSide)); err != nil {
		return nil, "image (cannot encode a preview)"
	}
	return out.Bytes(), ""
}

// bitmapImage copies a PDFium bitmap (a view of wasm memory, gone when
// the bitmap is destroyed) into a Go image.
func bitmapImage(buf []byte, w, h, stride int, f enums.FPDF_BITMAP_FORMAT) image.Image {
	bpp := map[enums.FPDF_BITMAP_FORMAT]int{enums.FPDF_BITMAP_FORMAT_GRAY: 1, enums.FPDF_BITMAP_FORMAT_BGR: 3,
		enums.FPDF_BITMAP_FORMAT_BGRX: 4, enums.FPDF_BITMAP_FORMAT_BGRA: 4}[f]
	if bpp == 0 || stride < w*bpp || len(buf) < stride*(h-1)+w*bpp {
		return nil
	}
	if bpp == 1 {
		g := image.NewGray(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			copy(g.Pix[y*g.Stride:y*g.Stride+w], buf[y*stride:])
		}
		return g
	}
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		row := buf[y*stride:]
		for x := 0; x < w; x++ {
			px := row[x*bpp:]
			a := uint8(255)
			if f == enums.FPDF_BITMAP_FORMAT_BGRA {
				a = px[3]
			}
			m.SetNRGBA(x, y, color.NRGBA{R: px[2], G: px[1], B: px[0], A: a})
		}
	}
	return m
}

// scaleDown shrinks img (nearest pixel) so its longer side is at most side.
func scaleDown(img image.Image, side int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if max(w, h) <= side {
		return img
	}
	f := float64(side) / float64(max(w, h))
	nw, nh := max(1, int(math.Round(float64(w)*f))), max(1, int(math.Round(float64(h)*f)))
	var out interface {
		image.Image
		Set(x, y int, c color.Color)
	}
	if _, gray := img.(*image.Gray); gray {
		out = image.NewGray(image.Rect(0, 0, nw, nh))
	} else {
		out = image.NewNRGBA(image.Rect(0, 0, nw, nh))
	}
	for y := 0; y < nh; y++ {
		for x := 0; x < nw; x++ {
			out.Set(x, y, img.At(b.Min.X+x*w/nw, b.Min.Y+y*h/nh))
		}
	}
	return out
}

// captionText is a figure caption's opening: "Figure 3", "Fig. 2:",
// "Image 1." and the like.
var captionText = regexp.MustCompile(`^(?i:fig(?:ure)?\.?|image|illustration|plate|photo)\s*[0-9IVXivx]+[.:)\s]`)

// emitPDFImage adds im as an Image element: its alt text, else its
// caption, as the text; the preview as the image data.
func emitPDFImage(im pdfImage, caption string, w, h float64, page int, b *PageBuilder) {
	alt := im.alt
	if alt == "" {
		alt = caption
	}
	meta := Meta{
		"page_number": page + 1,
		"coordinates": pdfCoordinates(im.left, im.bottom, im.right, im.top, w, h),
	}
	if im.preview == nil {
		text := alt
		if text == "" {
			text = im.note
		}
		b.Add("Image", text, meta)
		return
	}
	b.AddImage(im.preview, "image/png", alt, meta)
}
