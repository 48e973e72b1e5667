package render

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"net/http"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// Preview is what the renderer shows for an Image element when images are
// deferred (see DeferImages): the header facts a cheap probe found, and the
// preview once a command has decoded it. The UI builds it in its commands
// and installs it in Update; the renderer never decodes a deferred image.
type Preview struct {
	Mime          string
	Bytes         int
	Width, Height int // declared by the image header; 0 when unknown
	// Problem is shown as a warning line: undecodable data, a size over the
	// limit, or why the preview was not drawn (a pixel budget).
	Problem string
	// Pending is true while a decode is wanted or running.
	Pending bool
	// Thumb is the decoded image, scaled down to at most thumbMax pixels
	// on a side; nil when there is none (yet).
	Thumb image.Image
	// Kitty is Thumb as transmitted to the terminal (ImagesKitty); a zero
	// ID means it was not, and half-blocks are drawn.
	Kitty KittyImage
}

// thumbMax bounds the side of a stored preview: enough for the largest
// half-block preview (previewMaxCols×2·previewMaxRows) with samples to
// average, small enough that thousands of previews stay cheap.
const thumbMax = 256

// DeferImages makes the renderer draw Image elements only from previews set
// with SetPreview, so that rendering a page never decodes an image (the UI
// decodes in commands). Call it before first use.
func (r *Renderer) DeferImages() *Renderer {
	r.deferImages = true
	return r
}

// SetPreview installs (or replaces) el's preview; the element is re-rendered
// on its next use.
func (r *Renderer) SetPreview(el *dpe.Element, p Preview) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pvGen++
	r.previews[el] = previewEntry{p: p, ver: r.pvGen}
}

// PreviewOf returns el's installed preview.
func (r *Renderer) PreviewOf(el *dpe.Element) (Preview, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.previews[el]
	return e.p, ok
}

// AdoptPreviews copies another renderer's previews (a theme change makes a
// new renderer; decoded previews do not depend on the theme).
func (r *Renderer) AdoptPreviews(old *Renderer) {
	if old == nil || old == r {
		return
	}
	old.mu.Lock()
	cp := make(map[*dpe.Element]previewEntry, len(old.previews))
	for k, v := range old.previews {
		cp[k] = v
	}
	gen := old.pvGen
	old.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.previews, r.pvGen = cp, max(r.pvGen, gen)
	r.imageMode = old.ImageMode()
}

// DropPreviews forgets every preview (a document was closed).
func (r *Renderer) DropPreviews() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.previews = map[*dpe.Element]previewEntry{}
	r.pvGen++
}

type previewEntry struct {
	p   Preview
	ver uint64
}

// ProbeImage reads what an Image element's header declares without
// decoding its pixels: mime, size and width×height (image.DecodeConfig),
// or the problem that stops a preview. It is for commands, not for Update:
// it base64-decodes the element's data.
func ProbeImage(el *dpe.Element, lim Limits) Preview {
	lim = lim.withDefaults()
	p := Preview{Mime: el.MetaString("image_mime_type")}
	data, err := imageData(el, lim.MaxImageBytes)
	if p.Mime == "" && len(data) > 0 {
		p.Mime = http.DetectContentType(data)
	}
	p.Bytes = len(data)
	switch {
	case err != nil:
		p.Problem = err.Error()
	case len(data) == 0:
		p.Problem = "no image data"
		p.Width, p.Height = metaDims(el)
	default:
		cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			p.Problem = "cannot decode: " + err.Error()
			break
		}
		p.Width, p.Height = cfg.Width, cfg.Height
		// The declared size is checked before decoding: a tiny file can
		// claim a huge canvas.
		if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > int64(lim.MaxImagePixels) {
			p.Problem = fmt.Sprintf("%s image too large to preview (limit %d pixels)", format, lim.MaxImagePixels)
		}
	}
	return p
}

// DecodePreview decodes an Image element and scales it down to a stored
// preview. The caller has checked the declared size (ProbeImage); ctx stops
// the scaling and is checked before the decode starts.
func DecodePreview(ctx context.Context, el *dpe.Element, lim Limits) (image.Image, error) {
	lim = lim.withDefaults()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := imageData(el, lim.MaxImageBytes)
	if err != nil {
		return nil, err
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("cannot decode: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > int64(lim.MaxImagePixels) {
		return nil, fmt.Errorf("image too large to preview (limit %d pixels)", lim.MaxImagePixels)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("cannot decode: %w", err)
	}
	return thumbnail(ctx, img)
}

// thumbnail box-averages img down to at most thumbMax on a side (aspect
// kept); a small image is kept as it is, so its preview is unchanged.
func thumbnail(ctx context.Context, img image.Image) (image.Image, error) {
	b := img.Bounds()
	iw, ih := b.Dx(), b.Dy()
	if iw <= thumbMax && ih <= thumbMax {
		return img, nil
	}
	tw, th := thumbMax, thumbMax
	if iw >= ih {
		th = max(1, ih*thumbMax/iw)
	} else {
		tw = max(1, iw*thumbMax/ih)
	}
	out := image.NewNRGBA(image.Rect(0, 0, tw, th))
	for y := range th {
		if y%16 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		y0, y1 := b.Min.Y+y*ih/th, b.Min.Y+(y+1)*ih/th
		y1 = max(y1, y0+1)
		for x := range tw {
			x0, x1 := b.Min.X+x*iw/tw, b.Min.X+(x+1)*iw/tw
			x1 = max(x1, x0+1)
			sx, sy := max((x1-x0)/4, 1), max((y1-y0)/4, 1)
			var rr, gg, bb, aa, n uint32
			for yy := y0; yy < y1; yy += sy {
				for xx := x0; xx < x1; xx += sx {
					c := color.NRGBAModel.Convert(img.At(xx, yy)).(color.NRGBA)
					rr, gg, bb, aa = rr+uint32(c.R), gg+uint32(c.G), bb+uint32(c.B), aa+uint32(c.A)
					n++
				}
			}
			out.SetNRGBA(x, y, color.NRGBA{uint8(rr / n), uint8(gg / n), uint8(bb / n), uint8(aa / n)})
		}
	}
	return out, nil
}
