package convert

import (
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"path"
	"strings"
	"time"
)

// Shared pieces of the zip+XML readers (DOCX, PPTX, OpenDocument): the
// flow of a word-processing document into pages, tables with merged
// cells, package relationships and document properties.

// block is one element of a word-processing flow before pagination.
type block struct {
	cat   string
	text  string
	meta  Meta
	level int  // heading level (1 = top) for a Title; 0: not a heading
	front bool // document title / author / date: front matter of page 0
	brk   bool // an explicit page (or section) break, no content
	image []byte
	mime  string
}

// flow paginates word-processing blocks into a Book. A page is a section
// at each level-1 heading; a document without level-1 headings is split
// at its explicit page breaks instead (and then each break also stays
// visible as a PageBreak element). Headers and footers repeat on every
// page as Header and Footer elements, as they do on paper. Footnotes go
// after the last block as NarrativeText (see the readers).
type flow struct {
	blocks           []block
	headers, footers []string
	// env, when set, is charged for each block as it is collected (the
	// elements are built from the blocks only after the whole body is
	// read, so the Book's own checks would come too late); err is the
	// first limit hit, after which blocks are dropped.
	env *Env
	err error
}

func (f *flow) add(b block) {
	if f.err != nil {
		return
	}
	if f.env != nil {
		if f.err = f.env.Charge(0, elementSize(b.text, b.meta)); f.err != nil {
			return
		}
	}
	f.blocks = append(f.blocks, b)
}

// lastBlock is the last block, the zero block when there is none.
func (f *flow) lastBlock() block {
	if len(f.blocks) == 0 {
		return block{}
	}
	return f.blocks[len(f.blocks)-1]
}

func (f *flow) pages(env *Env, info Info) Pages {
	bk := NewBook(env)
	splitAtH1 := false
	for _, b := range f.blocks {
		if b.level == 1 {
			splitAtH1 = true
			break
		}
	}
	onlyFront := true // the current page holds only front matter so far
	var titles []struct {
		level int
		id    string
	}
	// items[d] is the open list item at depth d: a deeper item's parent.
	// Any other block ends the list.
	var items []string
	open := func(title string) {
		f.closePage(bk)
		bk.StartPage(title)
		for _, h := range f.headers {
			bk.Add("Header", h, nil)
		}
		onlyFront = true
		titles = titles[:0]
		items = items[:0]
	}
	open("")
	for i := range f.blocks {
		b := &f.blocks[i]
		switch {
		case b.brk:
			if bk.Current().Len() > len(f.headers) {
				bk.Add("PageBreak", "", nil)
				if !splitAtH1 {
					open("")
				}
			}
			continue
		case b.level == 1 && splitAtH1:
			if onlyFront {
				bk.SetTitle(b.text)
			} else {
				open(b.text)
			}
		}
		if !b.front {
			onlyFront = false
		}
		m := b.meta
		if m == nil {
			m = Meta{}
		}
		if b.level > 0 {
			for len(titles) > 0 && titles[len(titles)-1].level >= b.level {
				titles = titles[:len(titles)-1]
			}
		}
		depth := -1
		if b.cat == "ListItem" {
			depth, _ = m["category_depth"].(int)
			if depth > 0 && depth <= len(items) {
				m["parent_id"] = items[depth-1]
			}
		} else {
			items = items[:0]
		}
		if len(titles) > 0 {
			if _, set := m["parent_id"]; !set {
				m["parent_id"] = titles[len(titles)-1].id
			}
		}
		var id string
		if b.image != nil || b.cat == "Image" {
			id = bk.Current().AddImage(b.image, b.mime, b.text, m)
		} else {
			id = bk.Add(b.cat, b.text, m)
		}
		if depth >= 0 && id != "" {
			items = append(items[:min(depth, len(items))], id)
		}
		if b.level > 0 {
			titles = append(titles, struct {
				level int
				id    string
			}{b.level, id})
		}
	}
	f.closePage(bk)
	if info.Title == "" {
		for _, b := range f.blocks {
			if b.cat == "Title" {
				info.Title = b.text
				break
			}
		}
	}
	return bk.Pages(info)
}

func (f *flow) closePage(bk *Book) {
	if bk.Len() == 0 {
		return
	}
	for _, ft := range f.footers {
		bk.Add("Footer", ft, nil)
	}
}

// cell is one origin cell of a table (cells a merge covers are not cells).
type cell struct {
	text             string
	colspan, rowspan int
	header           bool
	col              int    // grid column where the cell starts
	align            string // "right", "center" or "" (dpe.AlignWord)
}

// grid is a table as rows of origin cells.
type grid struct {
	rows [][]*cell
	// formulas are a sheet's formula cells (A1 reference → "=…"), which
	// only the ODS reader fills.
	formulas map[string]any
	// annotations are the comments anchored in the cells' paragraphs
	// (annotationMeta), at most maxDocxComments: the table's, as a
	// paragraph's are its own.
	annotations []Meta
}

// annotate adds a cell paragraph's comments to the table's.
func (g *grid) annotate(notes []Meta) {
	g.annotations = append(g.annotations, notes[:min(len(notes), max(0, maxDocxComments-len(g.annotations)))]...)
}

// cols is the grid width.
func (g *grid) cols() int {
	n := 0
	for _, r := range g.rows {
		w := 0
		for _, c := range r {
			w = max(w, c.col+c.colspan)
		}
		n = max(n, w)
	}
	return n
}

// maxTableArea caps the grid positions of one table (rows × columns as
// spans reach): its plain text pads every row to the grid, so a few
// bytes of colspan could otherwise ask for gigabytes.
const maxTableArea = 1 << 22

// check reports a table whose grid is over maxTableArea, and charges env
// for the text and HTML block will build: every grid position is a cell,
// and every cell's text is written twice (repeated rows and columns share
// one string in the grid, so the grid is cheap and its output is not).
func (g *grid) check(env *Env) error {
	w := g.cols()
	area := int64(w) * int64(len(g.rows))
	if area > maxTableArea {
		return limitErr("table grid cells", maxTableArea, area)
	}
	bytes := area * int64(len("<td></td>\t"))
	for _, r := range g.rows {
		for _, c := range r {
			bytes += 2 * int64(len(c.text))
		}
	}
	return env.Charge(area, bytes)
}

// html is text_as_html: merged cells keep rowspan/colspan.
func (g *grid) html() string {
	var sb strings.Builder
	sb.WriteString("<table>")
	for _, r := range g.rows {
		sb.WriteString("<tr>")
		for _, c := range r {
			tag := "td"
			if c.header {
				tag = "th"
			}
			sb.WriteString("<" + tag)
			if c.colspan > 1 {
				fmt.Fprintf(&sb, ` colspan="%d"`, c.colspan)
			}
			if c.rowspan > 1 {
				fmt.Fprintf(&sb, ` rowspan="%d"`, c.rowspan)
			}
			if c.align != "" {
				sb.WriteString(` style="text-align: ` + c.align + `;"`)
			}
			sb.WriteString(">")
			sb.WriteString(strings.ReplaceAll(html.EscapeString(c.text), "\n", "<br>"))
			sb.WriteString("</" + tag + ">")
		}
		sb.WriteString("</tr>")
	}
	sb.WriteString("</table>")
	return sb.String()
}

// text is the plain form: one line per row, cells separated by tabs, a
// merged cell's text in its first grid position and empty cells for the
// positions it covers, so columns line up.
func (g *grid) text() string {
	w := g.cols()
	var sb strings.Builder
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	for ri, r := range g.rows {
		line := make([]string, w)
		for _, c := range r {
			if c.col < w {
				line[c.col] = clean.Replace(c.text)
			}
		}
		if ri > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(strings.Join(line, "\t"))
	}
	return sb.String()
}

// element is the Table block of g.
func (g *grid) block() block {
	b := block{cat: "Table", text: g.text(), meta: Meta{
		"text_as_html": g.html(),
		"table_rows":   len(g.rows),
		"table_cols":   g.cols(),
	}}
	if len(g.annotations) > 0 {
		b.meta["annotations"] = g.annotations
	}
	return b
}

// rels maps a relationship id to its target part (resolved against the
// source part's folder) or, for an external target, the URL.
type rel struct {
	typ, target string
	external    bool
}

// relsOf reads the relationships of part (word/document.xml →
// word/_rels/document.xml.rels). A missing rels part is no relationships.
func relsOf(env *Env, z *Zip, part string) (map[string]rel, error) {
	dir, file := path.Split(part)
	name := path.Join(dir, "_rels", file+".rels")
	out := map[string]rel{}
	if z.File(name) == nil {
		return out, nil
	}
	rc, err := z.Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	d := env.XML(rc)
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		se, ok := t.(xml.StartElement)
		if !ok || se.Name.Local != "Relationship" {
			continue
		}
		r := rel{typ: attr(se, "Type"), target: attr(se, "Target"), external: attr(se, "TargetMode") == "External"}
		if !r.external {
			if strings.HasPrefix(r.target, "/") {
				r.target = strings.TrimPrefix(r.target, "/")
			} else {
				r.target = path.Join(dir, r.target)
			}
		}
		out[attr(se, "Id")] = r
	}
}

// relOfType finds the first relationship whose type ends in suffix
// ("/officeDocument"), transitional or strict.
func relOfType(rs map[string]rel, suffix string) (rel, bool) {
	for _, r := range rs {
		if strings.HasSuffix(r.typ, suffix) {
			return r, true
		}
	}
	return rel{}, false
}

// attr is the value of the attribute with this local name (any namespace).
func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// skip consumes the rest of the element just started, through the
// bounded decoder (xml.Decoder.Skip would bypass its depth count).
func skip(d *XMLDecoder) error {
	depth := 1
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// innerText returns all character data of the element just started,
// consuming it.
func innerText(d *XMLDecoder) (string, error) {
	var sb strings.Builder
	depth := 1
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return sb.String(), err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			sb.Write(t)
		}
	}
	return sb.String(), nil
}

// coreProps reads docProps/core.xml (title, keywords, modified) into info.
// It is optional: a missing or broken part leaves info as it is.
func coreProps(env *Env, z *Zip, info *Info) {
	rc, err := z.Open("docProps/core.xml")
	if err != nil {
		return
	}
	defer rc.Close()
	d := env.XML(rc)
	for {
		t, err := d.Token()
		if err != nil {
			return
		}
		se, ok := t.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "title", "keywords", "modified", "description":
			v, err := innerText(d)
			if err != nil {
				return
			}
			v = strings.TrimSpace(v)
			switch se.Name.Local {
			case "title":
				info.Title = v
			case "description":
				info.Summary = v
			case "keywords":
				info.Keywords = splitKeywords(v)
			case "modified":
				info.LastModified = isoTime(v)
			}
		}
	}
}

// splitKeywords splits a keywords property on commas or semicolons, into
// at most maxKeywords keywords (a 50 MB ",,,a" property is not split into
// millions first).
func splitKeywords(v string) []string {
	var out []string
	for v != "" && len(out) < maxKeywords {
		k, rest, _ := strings.Cut(v, ",")
		if i := strings.IndexByte(k, ';'); i >= 0 {
			k, rest = v[:i], v[i+1:]
		}
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
		v = rest
	}
	return out
}

// isoTime normalises a property date to RFC 3339; unparseable: "".
func isoTime(v string) string {
	v = strings.TrimSpace(v)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return ""
}

// readPart reads a zip entry of at most max bytes; more is a LimitError
// named what.
func readPart(z *Zip, name string, max int64, what string) ([]byte, error) {
	rc, err := z.Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, limitErr(what, max, int64(len(data)))
	}
	return data, nil
}

// mimeByExt is the image mime type for a media part's extension.
func mimeByExt(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".bmp":
		return "image/bmp"
	case ".svg":
		return "image/svg+xml"
	case ".tif", ".tiff":
		return "image/tiff"
	case ".webp":
		return "image/webp"
	case ".emf":
		return "image/emf"
	case ".wmf":
		return "image/wmf"
	}
	return ""
}

// imageBlock reads a media part into an Image block. An image over the
// size limit is still an Image (AddImage says why it is not embedded).
func imageBlock(env *Env, z *Zip, part, alt string) block {
	b := block{cat: "Image", text: alt, mime: mimeByExt(part), meta: Meta{"image_path": part}}
	data, err := readPart(z, part, env.Limits.MaxImageBytes, "image size")
	if err != nil {
		if b.text == "" {
			b.text = err.Error()
		}
		b.image = []byte{}
		return b
	}
	b.image = data
	return b
}

// isMonospace reports whether a font family name is a fixed-pitch one.
func isMonospace(font string) bool {
	f := strings.ToLower(font)
	for _, m := range []string{"courier", "consolas", "mono", "menlo", "monaco", "lucida console", "source code", "inconsolata", "fira code", "cascadia"} {
		if strings.Contains(f, m) {
			return true
		}
	}
	return false
}

// relID is an element's r:id (the relationships namespace), which some
// elements carry next to a plain id attribute (p:sldId id="256" r:id=…).
func relID(se xml.StartElement) string {
	for _, a := range se.Attr {
		if a.Name.Local == "id" && strings.Contains(a.Name.Space, "relationships") {
			return a.Value
		}
	}
	return attr(se, "id")
}
