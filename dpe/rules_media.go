package dpe

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// coordinates checks ele_metadata.coordinates (proposal §3.4 空间位置,
// appendix A). Both shapes in use are read: appendix A's system object
// ({"type", "width", "height"}) and the flat one of unstructured-style
// resolvers ("system": "PixelSpace" with layout_width/layout_height).
func (e *elemCheck) coordinates(raw json.RawMessage) {
	const at = "ele_metadata.coordinates"
	if raw[0] != '{' {
		e.report(at, RuleFieldType, Violation, string(raw), "coordinates is %s, want an object", jsonKind(raw))
		return
	}
	// Read with the package's scanner, not encoding/json: every element of
	// a large document may carry coordinates, and this is the hot path.
	sc := &jscan{data: raw, maxDepth: DefaultMaxDepth}
	var points, system json.RawMessage
	var w, h *float64
	num := func(v, end int) (*float64, bool) {
		x, err := strconv.ParseFloat(string(raw[v:end]), 64)
		return &x, err == nil
	}
	bad := false
	_, err := sc.object(0, 1, func(key []byte, v int) (int, error) {
		end, err := sc.value(v, 1)
		if err != nil {
			return 0, err
		}
		switch string(key) {
		case "points":
			points = raw[v:end]
		case "system":
			system = raw[v:end]
		case "layout_width", "layout_height":
			if raw[v] == 'n' {
				break
			}
			x, ok := num(v, end)
			if !ok {
				bad = true
			} else if key[7] == 'w' {
				w = x
			} else {
				h = x
			}
		}
		return end, nil
	})
	if err != nil || bad {
		e.report(at, RuleFieldType, Violation, string(raw), "coordinates has fields of the wrong type")
		return
	}
	sys := ""
	switch {
	case len(system) == 0 || string(system) == "null":
		e.report(at, RuleCoordNoSystem, Violation, string(raw), "coordinates have no system (PixelSpace, PointSpace or RelativeCoordinateSystem)")
	case system[0] == '"':
		sys = systemName(system)
	case system[0] == '{':
		ss := &jscan{data: system, maxDepth: DefaultMaxDepth}
		name := ""
		_, err := ss.object(0, 1, func(key []byte, v int) (int, error) {
			end, err := ss.value(v, 1)
			if err != nil {
				return 0, err
			}
			switch k := string(key); {
			case (k == "type" || k == "name") && system[v] == '"':
				if k == "type" || sys == "" {
					sys = systemName(system[v:end])
				}
				if k == "name" {
					name = systemName(system[v:end])
				}
			case (k == "width" || k == "height") && system[v] != 'n':
				x, err := strconv.ParseFloat(string(system[v:end]), 64)
				if err != nil {
					bad = true
				} else if k == "width" {
					w = &x
				} else {
					h = &x
				}
			}
			return end, nil
		})
		if err != nil || bad {
			e.report(at+".system", RuleFieldType, Violation, string(system), "coordinates.system has fields of the wrong type")
			return
		}
		if sys == "" {
			sys = name
		}
		if sys == "" {
			e.report(at+".system", RuleCoordNoSystem, Violation, string(system), "coordinates.system has no type")
		}
	default:
		e.report(at+".system", RuleFieldType, Violation, string(system), "coordinates.system is %s, want an object or a name", jsonKind(system))
	}
	c := struct{ Points, System json.RawMessage }{points, system}
	known := true
	switch sys {
	case "":
	case "PixelSpace", "PointSpace":
	case "RelativeCoordinateSystem":
		one := 1.0
		w, h = &one, &one
	default:
		known = false
		e.report(at+".system", RuleCoordSystem, Violation, sys, "coordinate system %q is not PixelSpace, PointSpace or RelativeCoordinateSystem", sys)
	}
	if sys == "PointSpace" && (w == nil || h == nil) {
		if !e.skipped(RuleCoordSize, Warning) { // on every element of some documents
			e.report(at+".system", RuleCoordSize, Warning, string(c.System), "PointSpace coordinates without width and height: points cannot be placed on the page")
		}
	}
	var buf [8][2]float64
	if pts, ok := pairs(c.Points, &buf); ok {
		// The common shape, read without allocating: same checks as below.
		if len(pts) < 2 {
			e.report(at+".points", RuleCoordPoints, Violation, string(c.Points), "coordinates have %d point(s), want at least 2", len(pts))
			return
		}
		if !known || w == nil || h == nil {
			return
		}
		for k, p := range pts {
			if p[0] < 0 || p[1] < 0 || p[0] > *w || p[1] > *h {
				e.report(fmt.Sprintf("%s.points[%d]", at, k), RuleCoordBounds, Violation, fmt.Sprintf("[%g, %g]", p[0], p[1]),
					"point %d (%g, %g) lies outside the %s's %g × %g", k, p[0], p[1], sys, *w, *h)
				return
			}
		}
		return
	}
	pts, ok := parsePoints(c.Points)
	if !ok {
		e.report(at+".points", RuleCoordPoints, Violation, string(c.Points), "points is %s, want an array of [x, y] pairs", describeOrMissing(c.Points))
		return
	}
	for k, p := range pts {
		if len(p) != 2 {
			e.report(fmt.Sprintf("%s.points[%d]", at, k), RuleCoordPoints, Violation, fmt.Sprint(p), "point %d has %d number(s), want [x, y]", k, len(p))
			return
		}
	}
	if len(pts) < 2 {
		e.report(at+".points", RuleCoordPoints, Violation, string(c.Points), "coordinates have %d point(s), want at least 2", len(pts))
		return
	}
	if !known || w == nil || h == nil {
		return
	}
	for k, p := range pts {
		if p[0] < 0 || p[1] < 0 || p[0] > *w || p[1] > *h {
			e.report(fmt.Sprintf("%s.points[%d]", at, k), RuleCoordBounds, Violation, fmt.Sprintf("[%g, %g]", p[0], p[1]),
				"point %d (%g, %g) lies outside the %s's %g × %g", k, p[0], p[1], sys, *w, *h)
			return
		}
	}
}

// systemName decodes a coordinate system name token; the three known
// names (on every element of many documents) need no allocation.
func systemName(tok []byte) string {
	switch string(tok) {
	case `"PixelSpace"`:
		return "PixelSpace"
	case `"PointSpace"`:
		return "PointSpace"
	case `"RelativeCoordinateSystem"`:
		return "RelativeCoordinateSystem"
	}
	return decodeString(tok)
}

func describeOrMissing(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "missing"
	}
	return describe(raw)
}

// tableHTMLProblem says why s is not an HTML table with rows ("" when it
// is one). Parsing is the tokenizer's: lenient, like a browser's.
func tableHTMLProblem(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	tables, rows, cells := 0, 0, 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				return "does not parse: " + z.Err().Error()
			}
			switch {
			case tables == 0:
				return "has no <table> element"
			case rows == 0:
				return "has a <table> without rows (<tr>)"
			case cells == 0:
				return "has table rows without cells (<td>/<th>)"
			}
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "table":
				tables++
			case "tr":
				rows++
			case "td", "th":
				cells++
			}
		}
	}
}

// image: data that decodes, a mime type that agrees with it, and some
// source of the picture at all (appendix B: image_path, image_base64).
func (e *elemCheck) image() {
	var b64 string
	if raw, ok := e.meta(mImageBase64); ok {
		if json.Unmarshal(raw, &b64) != nil {
			e.report("ele_metadata.image_base64", RuleFieldType, Violation, string(raw), "image_base64 is %s, want a string", jsonKind(raw))
			return
		}
	}
	if strings.TrimSpace(b64) == "" {
		for _, k := range []int{mImagePath, mImageURL, mImageURI, mURL} {
			var s string
			if raw, ok := e.meta(k); ok && json.Unmarshal(raw, &s) == nil && s != "" {
				return
			}
		}
		e.report("ele_metadata", RuleImageNoData, Warning, "", "Image has neither image_base64 nor image_path/image_url: there is no picture to show")
		return
	}
	data, err := decodeBase64(b64)
	if err != nil {
		e.report("ele_metadata.image_base64", RuleImageBase64, Violation, b64, "image_base64 does not decode: %v", err)
		return
	}
	var declared string
	if raw, ok := e.meta(mImageMimeType); ok {
		_ = json.Unmarshal(raw, &declared)
	}
	if declared == "" {
		return
	}
	got := http.DetectContentType(data[:min(len(data), 512)])
	if !mimeAgrees(declared, got, data) {
		e.report("ele_metadata.image_mime_type", RuleImageMime, Violation, declared,
			"image_mime_type is %q but the bytes are %s", declared, strings.TrimSuffix(got, "; charset=utf-8"))
	}
}

func decodeBase64(s string) ([]byte, error) {
	if strings.HasPrefix(s, "data:") {
		if i := strings.IndexByte(s, ','); i >= 0 {
			s = s[i+1:]
		}
	}
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, s)
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		if d2, err2 := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "=")); err2 == nil {
			return d2, nil
		}
		if ce, ok := err.(base64.CorruptInputError); ok {
			return nil, fmt.Errorf("not base64 at byte %s", strconv.FormatInt(int64(ce), 10))
		}
		return nil, err
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("no bytes")
	}
	return data, nil
}

// mimeAgrees compares a declared image type with the sniffed one. A format
// the sniffer does not know (application/octet-stream) is not disputed;
// SVG is text, recognised by its root element.
func mimeAgrees(declared, sniffed string, data []byte) bool {
	d := strings.ToLower(strings.TrimSpace(declared))
	if i := strings.IndexByte(d, ';'); i >= 0 {
		d = strings.TrimSpace(d[:i])
	}
	switch d {
	case "image/jpg", "image/pjpeg":
		d = "image/jpeg"
	case "image/x-icon", "image/vnd.microsoft.icon":
		d = "image/x-icon"
	case "image/x-ms-bmp":
		d = "image/bmp"
	}
	if d == "image/svg+xml" {
		return bytes.Contains(data[:min(len(data), 4096)], []byte("<svg"))
	}
	if sniffed == "application/octet-stream" {
		return true
	}
	return d == sniffed
}

// pairs reads points of the shape [[x, y], ...] (at most len(buf) of
// them, plain JSON numbers) into buf; ok is false for anything else, which
// parsePoints then reads.
func pairs(raw json.RawMessage, buf *[8][2]float64) ([][2]float64, bool) {
	n, i := 0, 0
	ws := func() {
		for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
			i++
		}
	}
	num := func() (float64, bool) {
		ws()
		j := i
		for j < len(raw) && (raw[j] == '-' || raw[j] == '+' || raw[j] == '.' || raw[j] == 'e' || raw[j] == 'E' || (raw[j] >= '0' && raw[j] <= '9')) {
			j++
		}
		if j == i {
			return 0, false
		}
		if j-i <= 15 { // digits only: exact as a float64, no parsing
			x, digits := 0.0, true
			for _, c := range raw[i:j] {
				if c < '0' || c > '9' {
					digits = false
					break
				}
				x = x*10 + float64(c-'0')
			}
			if digits {
				i = j
				ws()
				return x, true
			}
		}
		x, err := strconv.ParseFloat(string(raw[i:j]), 64)
		i = j
		ws()
		return x, err == nil
	}
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	i = 1
	ws()
	if i < len(raw) && raw[i] == ']' {
		return buf[:0], i == len(raw)-1
	}
	for {
		if n == len(buf) || i >= len(raw) || raw[i] != '[' {
			return nil, false
		}
		i++
		x, ok := num()
		if !ok || i >= len(raw) || raw[i] != ',' {
			return nil, false
		}
		i++
		y, ok := num()
		if !ok || i >= len(raw) || raw[i] != ']' {
			return nil, false
		}
		i++
		buf[n] = [2]float64{x, y}
		n++
		ws()
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i++
			ws()
		case ']':
			return buf[:n], i == len(raw)-1
		default:
			return nil, false
		}
	}
}

// parsePoints reads [[x, y], ...]; ok is false when it is not an array of
// number arrays.
func parsePoints(raw json.RawMessage) ([][]float64, bool) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	sc := &jscan{data: raw, maxDepth: DefaultMaxDepth}
	var pts [][]float64
	ok := true
	_, err := sc.array(0, 1, func(_, v int) (int, error) {
		if raw[v] != '[' {
			ok = false
			return sc.value(v, 1)
		}
		var p []float64
		end, err := sc.array(v, 2, func(_, nv int) (int, error) {
			end, err := sc.value(nv, 2)
			if err != nil {
				return 0, err
			}
			x, perr := strconv.ParseFloat(string(raw[nv:end]), 64)
			if perr != nil {
				ok = false
			}
			p = append(p, x)
			return end, nil
		})
		pts = append(pts, p)
		return end, err
	})
	return pts, err == nil && ok
}
