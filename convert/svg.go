package convert

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
)

// openSVG converts an SVG drawing into one page holding one Image element,
// as a PNG is: the drawing embedded (image_base64, image/svg+xml) within
// MaxImageBytes (a drawing has no pixels to count), its size from the root's width and height (or its
// viewBox), its alternative text from the root's title or desc. It was
// refused as an unknown file type, or called "binary" when fetched.
func openSVG(ctx context.Context, src *Source, env *Env) (Pages, error) {
	data, err := src.Bytes()
	if err != nil {
		return nil, err
	}
	base := baseName(src)
	book := NewBook(env)
	b := book.StartPage(base)
	alt, w, h, err := svgHead(env, data)
	if err != nil {
		return nil, err
	}
	meta := Meta{"image_path": base, "image_mime_type": "image/svg+xml"}
	if w > 0 && h > 0 {
		meta["image_width"], meta["image_height"] = w, h
	}
	switch {
	case int64(len(data)) > env.Limits.MaxImageBytes:
		if alt == "" {
			alt = limitErr("image size", env.Limits.MaxImageBytes, int64(len(data))).Error()
		}
	default:
		meta["image_base64"] = base64.StdEncoding.EncodeToString(data)
	}
	b.Add("Image", alt, meta)
	if err := book.Err(); err != nil {
		return nil, err
	}
	return book.Pages(Info{}), nil
}

// svgHead reads the root svg element: its size in pixels (width and
// height, else the viewBox's when neither is given; 0 when they do not
// say) and its title, else desc, among the root's children.
func svgHead(env *Env, data []byte) (alt string, w, h int, err error) {
	d := env.XML(bytes.NewReader(data))
	d.Strict = false
	depth := 0
	title, desc := "", ""
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", 0, 0, err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			switch {
			case depth == 1 && t.Name.Local != "svg":
				return "", 0, 0, errors.New("not an SVG drawing: its root element is " + strconv.Quote(displayLine(t.Name.Local, 64)))
			case depth == 1:
				w, h = svgLength(attr(t, "width")), svgLength(attr(t, "height"))
				if f := strings.Fields(strings.ReplaceAll(attr(t, "viewBox"), ",", " ")); attr(t, "width") == "" && attr(t, "height") == "" && len(f) == 4 {
					w, h = svgLength(f[2]), svgLength(f[3])
				}
			case depth == 2 && (t.Name.Local == "title" || t.Name.Local == "desc"):
				v, err := innerText(d)
				if err != nil {
					return "", 0, 0, err
				}
				depth--
				v = displayLine(strings.Join(strings.Fields(v), " "), maxCommentBytes)
				if t.Name.Local == "title" && title == "" {
					title = v
				} else if desc == "" {
					desc = v
				}
			}
		case xml.EndElement:
			depth--
			if depth == 0 {
				if title == "" {
					title = desc
				}
				return title, w, h, nil
			}
		}
	}
	return "", 0, 0, errors.New("not an SVG drawing: no svg element")
}

// svgLength is an SVG length in CSS pixels (96 to the inch): a number
// alone or in px, in, cm, mm, pt or pc, rounded; 0 for a percentage and
// for what is not a length.
func svgLength(s string) int {
	s = strings.TrimSpace(s)
	scale := 1.0
	for _, u := range []struct {
		unit string
		px   float64
	}{{"px", 1}, {"in", 96}, {"cm", 96 / 2.54}, {"mm", 96 / 25.4}, {"pt", 96.0 / 72}, {"pc", 16}} {
		if v, ok := strings.CutSuffix(s, u.unit); ok {
			s, scale = strings.TrimSpace(v), u.px
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f > 1e6 || math.IsNaN(f) {
		return 0
	}
	return int(math.Round(f * scale))
}

// looksSVG: text whose first element (after an XML declaration, a
// doctype and comments) is svg.
func looksSVG(text []byte) bool {
	for i := 0; i < 16; i++ {
		text = bytes.TrimLeft(text, " \t\r\n")
		switch {
		case bytes.HasPrefix(text, []byte("<svg")):
			return len(text) > 4 && strings.ContainsRune(" \t\r\n>/", rune(text[4]))
		case bytes.HasPrefix(text, []byte("<?")), bytes.HasPrefix(text, []byte("<!DOCTYPE")), bytes.HasPrefix(text, []byte("<!doctype")):
			k := bytes.IndexByte(text, '>')
			if k < 0 {
				return false
			}
			text = text[k+1:]
		case bytes.HasPrefix(text, []byte("<!--")):
			k := bytes.Index(text, []byte("-->"))
			if k < 0 {
				return false
			}
			text = text[k+3:]
		default:
			return false
		}
	}
	return false
}
