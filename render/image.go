package render

import (
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // register decoders for image.DecodeConfig/Decode
	_ "image/jpeg"
	_ "image/png"
	"net/http"
	"strconv"
	"strings"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// Preview size bounds, in terminal cells.
const (
	previewMaxCols = 64
	previewMaxRows = 20
)

func imageCaptionFromMeta(el *dpe.Element) string {
	for _, k := range []string{"caption", "image_caption", "alt", "alt_text"} {
		if v := el.MetaString(k); v != "" {
			return v
		}
	}
	return ""
}

// ImageData returns an Image element's bytes (ele_metadata.image_base64)
// and mime type (image_mime_type, else sniffed), for saving to a file.
// maxBytes <= 0 means the default limit. No data is (nil, "", nil).
func ImageData(el *dpe.Element, maxBytes int) ([]byte, string, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultLimits().MaxImageBytes
	}
	data, err := imageData(el, maxBytes)
	if err != nil || len(data) == 0 {
		return nil, "", err
	}
	mime := strings.TrimSpace(sanitize.Line(el.MetaString("image_mime_type")))
	if mime == "" {
		mime = http.DetectContentType(data)
	}
	return data, mime, nil
}

// imageData decodes ele_metadata.image_base64 (a data: URI prefix is
// tolerated). It refuses data whose encoded size already exceeds the limit.
func imageData(el *dpe.Element, maxBytes int) ([]byte, error) {
	b64 := el.MetaString("image_base64")
	if b64 == "" {
		return nil, nil
	}
	if strings.HasPrefix(b64, "data:") {
		if i := strings.Index(b64, ","); i >= 0 {
			b64 = b64[i+1:]
		}
	}
	if len(b64)/4*3 > maxBytes {
		return nil, fmt.Errorf("image data is over the %s limit", byteSize(int64(maxBytes)))
	}
	b64 = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, b64)
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		data, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(b64, "="))
	}
	if err != nil {
		return nil, fmt.Errorf("image_base64 is not base64: %w", err)
	}
	return data, nil
}

func byteSize(n int64) string {
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1024*1024))
	}
}

// image renders an Image element: a line saying what it is (mime, size,
// dimensions), a half-block preview when the data decodes and the theme has
// colour, then the caption and any text. Undecodable data says why.
func (r *Renderer) image(el *dpe.Element, width int, ic imageContext) []string {
	var p Preview
	if r.deferImages {
		var ok bool
		if p, ok = r.PreviewOf(el); !ok {
			p = Preview{Mime: el.MetaString("image_mime_type"), Pending: true}
		}
	} else {
		p = ProbeImage(el, r.lim)
		if p.Problem == "" && p.Bytes > 0 && r.theme.Color {
			img, err := DecodePreview(context.Background(), el, r.lim)
			if err != nil {
				p.Problem = err.Error()
			}
			p.Thumb = img
		}
	}
	mime := p.Mime
	if mime == "" {
		mime = "image"
	}
	parts := []string{"▣ " + r.line(mime)}
	if p.Bytes > 0 {
		parts = append(parts, byteSize(int64(p.Bytes)))
	}
	if p.Width > 0 && p.Height > 0 {
		parts = append(parts, fmt.Sprintf("%d×%d", p.Width, p.Height))
	}
	problem := p.Problem
	img := p.Thumb
	if p := el.MetaString("image_path"); p != "" {
		parts = append(parts, r.line(p))
	} else if u := el.MetaString("image_url"); u != "" {
		parts = append(parts, r.line(u))
	}
	off := r.ImageMode() == ImagesOff
	desc := strings.Join(parts, " · ")
	if off {
		desc += " (previews off)"
		img = nil
	}
	lines := styleLines(r.theme.Dim, hanging("", desc, width))
	if problem != "" {
		lines = append(lines, styleLines(r.theme.Warning, hanging("", "⚠ "+sanitize.Line(problem), width))...)
	} else if p.Pending && img == nil && r.theme.Color && !off {
		lines = append(lines, styleLines(r.theme.Dim, hanging("", "◌ preview pending", width))...)
	}
	if k := p.Kitty; img != nil && k.ID != 0 && k.Cols <= width && r.ImageMode() == ImagesKitty {
		lines = append(lines, KittyPlaceholders(k.ID, k.Cols, k.Rows)...)
	} else if img != nil {
		lines = append(lines, halfBlocks(img, width, r.theme.Background)...)
	}
	caption := imageCaptionFromMeta(el)
	if caption == "" {
		caption = ic.caption
	}
	if caption != "" {
		s, _ := r.text(caption)
		lines = append(lines, styleLines(r.theme.Italic, wrap(s, width))...)
	}
	if strings.TrimSpace(el.Text) != "" && el.Text != caption && !ic.altRepeat {
		lines = append(lines, r.plain(el, width)...)
	}
	return lines
}

func metaDims(el *dpe.Element) (int, int) {
	for _, k := range [][2]string{{"image_width", "image_height"}, {"width", "height"}} {
		w, ok1 := el.MetaInt(k[0])
		h, ok2 := el.MetaInt(k[1])
		if ok1 && ok2 {
			return w, h
		}
	}
	return 0, 0
}

// halfBlocks draws img with "▀": each cell is two pixels, the top one as
// foreground and the bottom one as background, which keeps pixels square
// on a terminal whose cells are twice as tall as wide.
func halfBlocks(img image.Image, width int, bg color.RGBA) []string {
	b := img.Bounds()
	iw, ih := b.Dx(), b.Dy()
	if iw <= 0 || ih <= 0 {
		return nil
	}
	cols, rows := PreviewCells(img, width)
	if cols <= 0 {
		return nil
	}
	px := func(x, y int) color.RGBA {
		// Box-average a few samples of the source area.
		x0, x1 := b.Min.X+x*iw/cols, b.Min.X+(x+1)*iw/cols
		y0, y1 := b.Min.Y+y*ih/(rows*2), b.Min.Y+(y+1)*ih/(rows*2)
		x1, y1 = max(x1, x0+1), max(y1, y0+1)
		sx, sy := max((x1-x0)/4, 1), max((y1-y0)/4, 1)
		var rr, gg, bb, n uint32
		for yy := y0; yy < y1; yy += sy {
			for xx := x0; xx < x1; xx += sx {
				c := color.NRGBAModel.Convert(img.At(xx, yy)).(color.NRGBA)
				a := uint32(c.A)
				rr += (uint32(c.R)*a + uint32(bg.R)*(255-a)) / 255
				gg += (uint32(c.G)*a + uint32(bg.G)*(255-a)) / 255
				bb += (uint32(c.B)*a + uint32(bg.B)*(255-a)) / 255
				n++
			}
		}
		return color.RGBA{uint8(rr / n), uint8(gg / n), uint8(bb / n), 0xFF}
	}
	lines := make([]string, rows)
	var sb strings.Builder
	for y := range rows {
		sb.Reset()
		var lastT, lastB color.RGBA
		for x := range cols {
			t, bo := px(x, 2*y), px(x, 2*y+1)
			if x == 0 || t != lastT || bo != lastB {
				fmt.Fprintf(&sb, "\x1b[38;2;%d;%d;%d;48;2;%d;%d;%dm", t.R, t.G, t.B, bo.R, bo.G, bo.B)
				lastT, lastB = t, bo
			}
			sb.WriteString("▀")
		}
		sb.WriteString("\x1b[m")
		lines[y] = sb.String()
	}
	return lines
}
