package convert

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"mime"
	"net/url"
	"path"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"go.yaml.in/yaml/v3"
	xhtml "golang.org/x/net/html"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/mathtext"
)

// maxEmbeddedImage caps an image file inlined as image_base64; larger ones
// are referenced by image_path only.
const maxEmbeddedImage = 1 << 20

// frontMatter is the optional "---" block at the top of a Markdown file:
// plain "key: value" lines (not YAML). It is how corpus documents carry a
// title, summary, keywords and a fixed last_modified (deterministic goldens).
type frontMatter struct {
	Title, Summary, LastModified string
	Keywords                     []string
}

// splitFrontMatter returns the front matter and the rest of src. A block only
// counts when it opens on the first line, closes within 40 lines and every
// line inside is "key: value"; otherwise the "---" is a thematic break.
func splitFrontMatter(src []byte) (frontMatter, []byte) {
	var fm frontMatter
	s := string(src)
	first, rest, ok := strings.Cut(s, "\n")
	if !ok || strings.TrimRight(first, "\r") != "---" {
		return fm, src
	}
	lines := strings.SplitN(rest, "\n", 42)
	for i, line := range lines {
		if i >= 40 {
			break
		}
		line = strings.TrimRight(line, "\r")
		if line == "---" {
			body := strings.Join(lines[i+1:], "\n")
			return fm, []byte(body)
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.ContainsAny(k, " \t") || k == "" {
			return frontMatter{}, src
		}
		v = strings.TrimSpace(v)
		items := yamlValue(v)
		v = strings.Join(items, ", ")
		switch strings.ToLower(k) {
		case "title":
			fm.Title = v
		case "summary", "description":
			fm.Summary = v
		case "last_modified", "lastmodified":
			fm.LastModified = v
		case "keywords":
			if len(items) > 1 {
				fm.Keywords = append(fm.Keywords, items...)
				break
			}
			for _, kw := range strings.Split(v, ",") {
				if kw = strings.TrimSpace(kw); kw != "" {
					fm.Keywords = append(fm.Keywords, kw)
				}
			}
		}
	}
	return frontMatter{}, src
}

// yamlValue reads one front-matter value as YAML does: a quoted scalar
// loses its quotes and escapes ("Quoted Title"), a flow sequence
// ([a, b]) gives its items. Anything else YAML would not read as a
// scalar or a list of scalars (a nested "a: b", a comment) stays the text
// it is.
func yamlValue(v string) []string {
	var n yaml.Node
	if v == "" || yaml.Unmarshal([]byte(v), &n) != nil || len(n.Content) != 1 {
		return []string{v}
	}
	switch c := n.Content[0]; c.Kind {
	case yaml.ScalarNode:
		return []string{c.Value}
	case yaml.SequenceNode:
		var out []string
		for _, e := range c.Content {
			if e.Kind != yaml.ScalarNode {
				return []string{v}
			}
			if e.Value != "" {
				out = append(out, e.Value)
			}
		}
		return out
	}
	return []string{v}
}

// mdConverter walks a goldmark AST and emits DPE elements.
type mdConverter struct {
	src   []byte
	files AssetReader // for images stored next to the document; may be nil
	doc   string      // path of the document inside files
	b     *mdBook

	splitLevel int // heading level that starts a new page; 0 = one page
	// titles is the stack of open section headings: parent_id of what
	// follows (proposal §3.4 parent_id, category_depth).
	titles []titleRef
	// quote is the block quotes the current block sits in: its elements
	// say "quote" (the nesting) in their metadata.
	quote int
}

type titleRef struct {
	level int
	id    string
}

func newMarkdownParser() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote), goldmark.WithParserOptions(markdownMathOption))
}

// convertMarkdown converts src into pages: one page per top-level section,
// split at H1 when there are several, else at H2 (a single H1 is the
// document title and lives on page 0).
func convertMarkdown(b *mdBook, src []byte, files AssetReader, doc string) (frontMatter, string) {
	fm, body := splitFrontMatter(src)
	root := newMarkdownParser().Parser().Parse(text.NewReader(body))
	c := &mdConverter{src: body, files: files, doc: doc, b: b}

	var h1, h2 int
	firstH1 := ""
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			switch h.Level {
			case 1:
				h1++
				if firstH1 == "" {
					firstH1 = c.inlineText(h)
				}
			case 2:
				h2++
			}
		}
	}
	switch {
	case h1 >= 2:
		c.splitLevel = 1
	case h2 >= 1:
		c.splitLevel = 2
	}
	title := fm.Title
	if title == "" {
		title = firstH1
	}
	if title != "" {
		b.pageTitle = title
	}
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		c.block(n, "", 0)
	}
	return fm, title
}

// parent is the element a new element hangs under: an explicit one (list
// item) or else the innermost open section title.
func (c *mdConverter) parent(explicit string) string {
	if explicit != "" {
		return explicit
	}
	if len(c.titles) > 0 {
		return c.titles[len(c.titles)-1].id
	}
	return ""
}

func (c *mdConverter) meta(parent string) Meta {
	m := Meta{}
	if p := c.parent(parent); p != "" {
		m["parent_id"] = p
	}
	if c.quote > 0 {
		m["quote"] = c.quote
	}
	return m
}

// block emits the elements of one block node. parent is a list item id
// when the block sits inside a list item, depth its nesting.
func (c *mdConverter) block(n ast.Node, parent string, depth int) {
	switch n := n.(type) {
	case *ast.Heading:
		c.heading(n)
	case *ast.Paragraph:
		c.paragraph(n, parent)
	case *ast.TextBlock:
		c.paragraph(n, parent)
	case *ast.List:
		c.list(n, parent, depth)
	case *ast.FencedCodeBlock:
		lang := strings.ToLower(strings.TrimSpace(string(n.Language(c.src))))
		code := c.lines(n.Lines())
		if lang == "math" || lang == "latex" || lang == "tex" {
			c.b.add("Formula", strings.TrimRight(code, "\n"), c.meta(parent))
			return
		}
		m := c.meta(parent)
		if lang != "" {
			m["language"] = lang
		}
		c.b.add("CodeSnippet", code, m)
	case *ast.CodeBlock:
		c.b.add("CodeSnippet", c.lines(n.Lines()), c.meta(parent))
	case *ast.Blockquote:
		c.quote++
		for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
			c.block(ch, parent, depth)
		}
		c.quote--
	case *east.FootnoteList:
		// The notes, in the order they are referred to: "[n] text" with
		// ele_metadata footnote n, as the DOCX and ODT readers write them.
		for fn := n.FirstChild(); fn != nil; fn = fn.NextSibling() {
			f, ok := fn.(*east.Footnote)
			if !ok || f.Index < 1 {
				continue
			}
			if t := c.inlineText(f); t != "" {
				m := c.meta(parent)
				m["footnote"] = f.Index
				c.b.add("NarrativeText", fmt.Sprintf("[%d] %s", f.Index, t), m)
			}
		}
	case *ast.ThematicBreak:
		c.b.add("PageBreak", "", c.meta(parent))
	case *ast.HTMLBlock:
		raw := c.lines(n.Lines())
		if n.HasClosure() {
			raw += string(n.ClosureLine.Value(c.src))
		}
		m := c.meta(parent)
		m["text_as_html"] = raw
		c.b.add("Text", markdownHTMLText(raw), m)
		for _, img := range htmlImages(raw) {
			c.image(img, parent)
		}
	case *east.Table:
		c.table(n, parent)
	default:
		if t := strings.TrimSpace(c.inlineText(n)); t != "" {
			c.b.add("NarrativeText", t, c.meta(parent))
		}
	}
}

func (c *mdConverter) heading(h *ast.Heading) {
	txt := c.inlineText(h)
	// A split heading opens a page unless the current page is still empty
	// (then the heading just names it).
	if c.splitLevel != 0 && h.Level == c.splitLevel {
		if c.b.book.CurrentEmpty() && c.b.book.Len() > 0 {
			c.b.book.SetTitle(txt)
		} else {
			c.b.book.StartPage(txt)
		}
	}
	for len(c.titles) > 0 && c.titles[len(c.titles)-1].level >= h.Level {
		c.titles = c.titles[:len(c.titles)-1]
	}
	m := Meta{"category_depth": h.Level - 1}
	if p := c.parent(""); p != "" {
		m["parent_id"] = p
	}
	id := c.b.add("Title", txt, m)
	c.titles = append(c.titles, titleRef{level: h.Level, id: id})
}

// paragraph emits display math as Formula, a paragraph of images as Image
// (+ FigureCaption from the image title), anything else as NarrativeText
// followed by the images it contained.
func (c *mdConverter) paragraph(n ast.Node, parent string) {
	// Display math is taken from the source, not the inline text: Markdown
	// would read the underscores of a subscript (Q_{28} … \sigma_{28}) as
	// emphasis and drop them.
	if raw := strings.TrimSpace(c.lines(n.Lines())); strings.HasPrefix(raw, "$$") && strings.HasSuffix(raw, "$$") && len(raw) > 4 {
		c.b.add("Formula", strings.TrimSpace(raw[2:len(raw)-2]), c.meta(parent))
		return
	}
	var in inlineCollector
	in.walk(c.src, n)
	txt := strings.TrimSpace(in.sb.String())
	if txt != "" {
		m := c.meta(parent)
		setLinks(m, in.linkURLs, in.linkTexts)
		in.setEmphasis(m)
		setInlineFormulas(m, in.formulas)
		c.b.add("NarrativeText", txt, m)
	}
	for _, img := range in.images {
		c.image(img, parent)
	}
}

func (c *mdConverter) image(img mdImage, parent string) {
	m := c.meta(parent)
	dest := img.dest
	switch {
	case strings.HasPrefix(strings.ToLower(dest), "data:"):
		if mt, data, ok := parseDataURI(dest); ok {
			m["image_base64"] = data
			m["image_mime_type"] = mt
		}
	case strings.Contains(dest, "://"):
		m["image_path"] = dest
	default:
		m["image_path"] = dest
		if mt, data, ok := c.readImage(dest); ok {
			m["image_base64"] = data
			m["image_mime_type"] = mt
		}
	}
	id := c.b.add("Image", img.alt, m)
	if img.title != "" {
		cm := c.meta(parent)
		cm["related_ids"] = []string{id}
		c.b.add("FigureCaption", img.title, cm)
	}
}

// readImage inlines an image file that lives in the same folder, refusing
// paths that leave it (".." by fs.ValidPath; symlinks and special files
// are the AssetReader's to refuse). An image that is missing, too large or
// unreadable keeps its image_path only.
func (c *mdConverter) readImage(dest string) (mimeType, b64 string, ok bool) {
	if c.files == nil {
		return "", "", false
	}
	u, err := url.PathUnescape(dest)
	if err != nil {
		return "", "", false
	}
	p := path.Clean(path.Join(path.Dir(c.doc), u))
	if !fs.ValidPath(p) {
		return "", "", false
	}
	mt := mime.TypeByExtension(path.Ext(p))
	if !strings.HasPrefix(mt, "image/") {
		return "", "", false
	}
	data, err := c.files(p, maxEmbeddedImage)
	if err != nil || int64(len(data)) > maxEmbeddedImage {
		return "", "", false
	}
	return mt, base64.StdEncoding.EncodeToString(data), true
}

// parseDataURI decodes data:<mime>[;base64],<payload> (RFC 2397) into a
// mime type and canonical standard base64.
func parseDataURI(s string) (mimeType, b64 string, ok bool) {
	head, payload, found := strings.Cut(s[len("data:"):], ",")
	if !found {
		return "", "", false
	}
	params := strings.Split(head, ";")
	mimeType = strings.ToLower(strings.TrimSpace(params[0]))
	if mimeType == "" {
		mimeType = "text/plain"
	}
	isB64 := false
	for _, p := range params[1:] {
		if strings.EqualFold(strings.TrimSpace(p), "base64") {
			isB64 = true
		}
	}
	var raw []byte
	if isB64 {
		clean := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
				return -1
			}
			return r
		}, payload)
		var err error
		raw, err = base64.StdEncoding.DecodeString(clean)
		if err != nil {
			if raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(clean, "=")); err != nil {
				return "", "", false
			}
		}
	} else {
		u, err := url.PathUnescape(payload)
		if err != nil {
			return "", "", false
		}
		raw = []byte(u)
	}
	return mimeType, base64.StdEncoding.EncodeToString(raw), true
}

// list emits ListItem (or CheckBox for GFM task items) with category_depth
// = nesting and parent_id = the enclosing item.
func (c *mdConverter) list(l *ast.List, parent string, depth int) {
	num := l.Start
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		item, ok := it.(*ast.ListItem)
		if !ok {
			continue
		}
		first := item.FirstChild()
		var in inlineCollector
		rest := first
		if first != nil {
			switch first.(type) {
			case *ast.Paragraph, *ast.TextBlock:
				in.walk(c.src, first)
				rest = first.NextSibling()
			}
		}
		m := c.meta(parent)
		m["category_depth"] = depth
		markListStart(m, it == l.FirstChild(), depth, c.b.book.last())
		if l.IsOrdered() {
			m["ordered"] = true
			m["item_number"] = num
			num++
		}
		setLinks(m, in.linkURLs, in.linkTexts)
		in.setEmphasis(m)
		cat := "ListItem"
		if in.checkbox != nil {
			cat = "CheckBox"
			m["checked"] = *in.checkbox
		}
		id := c.b.add(cat, strings.TrimSpace(in.sb.String()), m)
		for _, img := range in.images {
			c.image(img, id)
		}
		for ch := rest; ch != nil; ch = ch.NextSibling() {
			c.block(ch, id, depth+1)
		}
	}
}

// table emits one Table element: tab-separated text and text_as_html
// (proposal §3.4 text_as_html), the header row in <thead>.
func (c *mdConverter) table(t *east.Table, parent string) {
	var header []string
	var rows [][]string
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for cell := r.FirstChild(); cell != nil; cell = cell.NextSibling() {
			var in inlineCollector
			in.walk(c.src, cell)
			cells = append(cells, strings.TrimSpace(in.sb.String()))
		}
		if _, ok := r.(*east.TableHeader); ok {
			header = cells
		} else {
			rows = append(rows, cells)
		}
	}
	m := c.meta(parent)
	var align []string
	for _, a := range t.Alignments {
		align = append(align, dpe.AlignWord(a.String()))
	}
	m["text_as_html"] = alignedTableHTML(header, rows, align)
	c.b.add("Table", PlainTableText(header, rows), m)
}

func (c *mdConverter) lines(segs *text.Segments) string {
	var sb strings.Builder
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		sb.Write(seg.Value(c.src))
	}
	return sb.String()
}

func (c *mdConverter) inlineText(n ast.Node) string {
	var in inlineCollector
	in.walk(c.src, n)
	return strings.TrimSpace(in.sb.String())
}

type mdImage struct{ dest, title, alt string }

// inlineCollector flattens inline nodes to plain text and remembers links,
// images and a task-list checkbox on the way.
type inlineCollector struct {
	sb                  strings.Builder
	linkURLs, linkTexts []string
	images              []mdImage
	checkbox            *bool
	// emphasized and emphasisTags are the text of the emphasis spans, in
	// order, and "b" (strong), "i" or "code" (a code span) for each
	// (proposal §3.4 emphasized_text_contents, as unstructured writes
	// them, with the HTML tag's name).
	emphasized, emphasisTags []string
	// formulas are the inline formulas ($…$), in order; the text holds
	// each one's readable line.
	formulas []mathOut
}

// maxEmphasisSpans bounds the spans one element records.
const maxEmphasisSpans = 256

// setEmphasis records in's emphasis spans in m.
func (in *inlineCollector) setEmphasis(m Meta) { setEmphasis(m, in.emphasized, in.emphasisTags) }

// setEmphasis records an element's bold, italic and code spans in m
// (proposal §3.4 emphasized_text_contents, and emphasized_text_tags "b",
// "i" or "code" for each), which every reader with inline marks writes
// and the Markdown export writes back.
// setLinks records an element's links: link_urls and, at the same
// index, link_texts (unstructured's names), the words each link is on,
// which exports and the browser find in the element's text.
func setLinks(m Meta, urls, texts []string) {
	if len(urls) > 0 && len(urls) == len(texts) {
		m["link_urls"], m["link_texts"] = urls, texts
	}
}

func setEmphasis(m Meta, spans, tags []string) {
	if len(spans) > 0 && len(spans) == len(tags) {
		m["emphasized_text_contents"] = spans
		m["emphasized_text_tags"] = tags
	}
}

func (in *inlineCollector) walk(src []byte, n ast.Node) {
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		switch t := ch.(type) {
		case *ast.Text:
			in.sb.Write(t.Value(src))
			if t.HardLineBreak() {
				in.sb.WriteByte('\n')
			} else if t.SoftLineBreak() {
				in.sb.WriteByte(' ')
			}
		case *ast.String:
			in.sb.Write(t.Value)
		case *ast.Link:
			var sub inlineCollector
			sub.walk(src, t)
			in.sb.WriteString(sub.sb.String())
			in.linkURLs = append(in.linkURLs, string(t.Destination))
			in.linkTexts = append(in.linkTexts, sub.sb.String())
			in.images = append(in.images, sub.images...)
		case *ast.AutoLink:
			label := string(t.Label(src))
			in.sb.WriteString(label)
			in.linkURLs = append(in.linkURLs, string(t.URL(src)))
			in.linkTexts = append(in.linkTexts, label)
		case *ast.Image:
			var sub inlineCollector
			sub.walk(src, t)
			in.images = append(in.images, mdImage{
				dest: string(t.Destination), title: string(t.Title), alt: sub.sb.String(),
			})
		case *ast.RawHTML:
			// Inline tags are markup, not content; their text (if any) is
			// in sibling Text nodes. An <img> is a picture with its alt.
			var raw strings.Builder
			for i := 0; i < t.Segments.Len() && raw.Len() < mdMaxRawImgTag; i++ {
				seg := t.Segments.At(i)
				raw.Write(seg.Value(src))
			}
			in.images = append(in.images, htmlImages(raw.String())...)
		case *ast.Emphasis:
			var sub inlineCollector
			sub.walk(src, t)
			in.sb.WriteString(sub.sb.String())
			if txt := strings.TrimSpace(sub.sb.String()); txt != "" && len(in.emphasized) < maxEmphasisSpans {
				tag := "i"
				if t.Level >= 2 {
					tag = "b"
				}
				in.emphasized = append(in.emphasized, txt)
				in.emphasisTags = append(in.emphasisTags, tag)
			}
			in.linkURLs = append(in.linkURLs, sub.linkURLs...)
			in.linkTexts = append(in.linkTexts, sub.linkTexts...)
			in.images = append(in.images, sub.images...)
		case *ast.CodeSpan:
			// A code span is recorded as the HTML tag it would be (code),
			// beside the emphasis spans, so the Markdown export writes it
			// back between backticks.
			var sub inlineCollector
			sub.walk(src, t)
			in.sb.WriteString(sub.sb.String())
			if txt := sub.sb.String(); strings.TrimSpace(txt) != "" && len(in.emphasized) < maxEmphasisSpans {
				in.emphasized = append(in.emphasized, txt)
				in.emphasisTags = append(in.emphasisTags, "code")
			}
		case *east.FootnoteLink:
			// The reference reads [n] in the text, as in DOCX and ODT.
			fmt.Fprintf(&in.sb, "[%d]", t.Index)
		case *markdownMath:
			fm := mathOut{tex: string(t.tex), lin: mathtext.LaTeXToUnicode(string(t.tex))}
			in.sb.WriteString(formulaLine(fm))
			in.formulas = append(in.formulas, fm)
		case *east.FootnoteBacklink:
		case *east.TaskCheckBox:
			v := t.IsChecked
			in.checkbox = &v
		default:
			in.walk(src, ch)
		}
	}
}

// mdMaxRawImgTag bounds the bytes of one inline HTML tag read for an
// <img>, and mdMaxHTMLImages the pictures one HTML block gives.
const (
	mdMaxRawImgTag  = 64 << 10
	mdMaxHTMLImages = 256
)

// htmlImages are the <img> tags of raw HTML in Markdown (src, alt, title),
// which the Markdown's own images become too.
func htmlImages(raw string) []mdImage {
	if !strings.Contains(strings.ToLower(raw), "<img") {
		return nil
	}
	z := xhtml.NewTokenizer(strings.NewReader(raw))
	var out []mdImage
	for len(out) < mdMaxHTMLImages {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			return out
		}
		if tt != xhtml.StartTagToken && tt != xhtml.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if string(name) != "img" {
			continue
		}
		var img mdImage
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			switch string(k) {
			case "src":
				img.dest = string(v)
			case "alt":
				img.alt = string(v)
			case "title":
				img.title = string(v)
			}
		}
		out = append(out, img)
	}
	return out
}

// htmlText extracts the text of an HTML fragment with x/net/html's
// tokenizer (script and style bodies dropped).
func markdownHTMLText(raw string) string {
	z := xhtml.NewTokenizer(bytes.NewReader([]byte(raw)))
	var sb strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return strings.Join(strings.Fields(sb.String()), " ")
		case xhtml.StartTagToken:
			name, _ := z.TagName()
			if s := string(name); s == "script" || s == "style" {
				skip++
			}
			sb.WriteByte(' ')
		case xhtml.EndTagToken:
			name, _ := z.TagName()
			if s := string(name); (s == "script" || s == "style") && skip > 0 {
				skip--
			}
			sb.WriteByte(' ')
		case xhtml.TextToken:
			if skip == 0 {
				sb.Write(z.Text())
			}
		}
	}
}

// AssetReader reads a file a document refers to (an image a Markdown file
// embeds) by its slash path inside the folder the document was read from
// (fs.ValidPath, never ".."), at most limit bytes. It is how a caller keeps
// such reads inside that folder: the library's reads go through its
// os.Root and refuse FIFOs, devices and links that leave it.
type AssetReader func(p string, limit int64) ([]byte, error)

type assetsKey struct{}

// WithAssets returns ctx carrying read for the readers that follow
// references (Markdown images). The document's own path in that folder is
// Source.DocRef, or its base name when DocRef is empty. Without it
// relative images keep their image_path and are not embedded.
func WithAssets(ctx context.Context, read AssetReader) context.Context {
	return context.WithValue(ctx, assetsKey{}, read)
}

// mdBook is a Book whose first page, when an element comes before any
// heading opens one, takes the document title.
type mdBook struct {
	book      *Book
	pageTitle string
}

func (m *mdBook) add(category, text string, meta Meta) string {
	if m.book.Len() == 0 {
		m.book.StartPage(m.pageTitle)
	}
	return m.book.Add(category, text, meta)
}

// openMarkdown converts Markdown (goldmark, GFM): one page per top-level
// section. A leading "---" block of "key: value" lines sets title, summary,
// keywords and last_modified.
func openMarkdown(ctx context.Context, src *Source, env *Env) (Pages, error) {
	data, err := textBytes(src)
	if err != nil {
		return nil, err
	}
	if err := markdownPrecheck(data, env.Limits.MaxDepth); err != nil {
		return nil, err
	}
	files, _ := ctx.Value(assetsKey{}).(AssetReader)
	doc := src.DocRef
	if doc == "" {
		doc = baseName(src)
	}
	b := &mdBook{book: NewBook(env), pageTitle: baseName(src)}
	fm, title := convertMarkdown(b, data, files, doc)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if b.book.Len() == 0 {
		b.book.StartPage(b.pageTitle)
	}
	if err := b.book.Err(); err != nil {
		return nil, err
	}
	info := Info{Title: title, Summary: fm.Summary, Keywords: fm.Keywords, LastModified: fm.LastModified}
	if info.Title == "" {
		info.Title = baseName(src)
	}
	if len(info.Keywords) == 0 {
		info.Keywords = pathKeywords(src, KindMarkdown.FileType())
	}
	return b.book.Pages(info), nil
}

// mdMaxBrackets bounds the '[' in one paragraph. Goldmark's inline parser
// looks for the end of every link it opens, so a paragraph of 50,000
// "[x](" takes most of a minute; a real paragraph has a few dozen.
const mdMaxBrackets = 4096

// mdMaxLinkScan bounds, over the whole document, the bytes goldmark scans
// for link destinations: after each "](" it reads to the next whitespace
// (after "](<", to the next '>'), within the line. Under the per-paragraph
// cap, 75 paragraphs of 4,000 "[x](" (1.2 MB) still cost 21 s, since each
// opener scans the rest of its line; at about 15 ns a byte this is half a
// second, and 150,000 real links of 200 bytes each.
const mdMaxLinkScan = 1 << 25

// mdMaxDelimiterWork bounds goldmark's emphasis matching over the whole
// document: it matches each closer against the open delimiters ('*', '_',
// '~') of its paragraph, so a paragraph of d delimiters costs about d²
// (20 paragraphs of 16,000 "*a " took 4 s). The sum of d² is capped: about
// a quarter of a second, and 100,000 paragraphs of 50 delimiters each.
const mdMaxDelimiterWork = 1 << 28

// mdMaxCodeSpanScan bounds, over the whole document, the bytes goldmark
// scans for code span ends: at each run of k backticks it reads the rest
// of the paragraph for a run of exactly k, so runs of 1…6,000 backticks
// (18 MB) cost it minutes. Counted as if every run opened a span: from
// each run to the next of its length, or to the paragraph's end. A real
// paragraph costs its length once per run length it uses, so this is a
// few times a 40 MB document.
const mdMaxCodeSpanScan = 1 << 27

// mdMaxTableCells bounds the GFM table cells one document builds:
// goldmark makes an AST node (and its inline children) for every cell,
// padding each row to the delimiter row's column count, about 400 bytes
// a cell, so 100,000 columns × 50 rows (10 MB) took 2.2 GB and died out
// of memory. 262,144 cells are about 100 MB, and a table few people write.
const mdMaxTableCells = 1 << 18

// mdMaxFootnotes bounds the footnote definitions of one document:
// goldmark's footnote extension costs about the square of their count
// (20,000 notes took 38 s, 5,000 took 1.4 s); 1,024 cost a tenth of a
// second, more than a long book has in one file. Lines that look like a
// definition ("[^id]:" after any container markers) are counted.
const mdMaxFootnotes = 1024

// markdownPrecheck refuses, in one linear pass before the parser runs,
// the inputs on which the parser is super-linear and cannot be stopped:
// containers (block quotes and list items) nested past maxDepth (">"
// ×100,000 on one line), a paragraph (lines up to a blank one, fenced
// code left out) with more than mdMaxBrackets '[', and over the whole
// document more than mdMaxDelimiterWork of emphasis matching or
// mdMaxLinkScan bytes of link destination scanning, more than
// mdMaxCodeSpanScan bytes of code span scanning, lists nested past
// maxDepth by indentation alone (each item 2 spaces in from the last),
// more than mdMaxTableCells table cells, or more than mdMaxFootnotes
// footnote definitions.
func markdownPrecheck(data []byte, maxDepth int) error {
	brackets, fenced, blank := 0, false, true
	var scan, delims, delimWork, spanScan, cells, notes int64
	var pos int64       // offset of the line in data
	var paraLines int   // lines of the paragraph so far
	var tableCols int64 // columns of the paragraph's table, once its delimiter row is seen
	// lists holds the content column of each open list item: a line
	// indented to it or past is inside the item.
	var lists []int
	// ticks holds, per backtick run length, where the last run of that
	// length in this paragraph ended: the next one of that length, or
	// the paragraph's end, is how far goldmark scans from it.
	ticks := map[int]int64{}
	// paragraphEnd adds the paragraph's emphasis matching and code span
	// scanning to the sums.
	paragraphEnd := func(end int64) error {
		delimWork += delims * delims
		delims = 0
		for k, at := range ticks {
			spanScan += end - at
			delete(ticks, k)
		}
		paraLines, tableCols = 0, 0
		if delimWork > mdMaxDelimiterWork {
			return limitErr("emphasis delimiter pairs", mdMaxDelimiterWork, delimWork)
		}
		if spanScan > mdMaxCodeSpanScan {
			return limitErr("bytes scanned for code span ends", mdMaxCodeSpanScan, spanScan)
		}
		return nil
	}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		lineAt := pos
		pos += int64(len(line)) + 1
		depth := containerDepth(line)
		if depth > maxDepth {
			return limitErr("block quote nesting depth", int64(maxDepth), int64(depth))
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			brackets, blank = 0, true
			if err := paragraphEnd(lineAt); err != nil {
				return err
			}
			continue
		}
		if bytes.HasPrefix(trimmed, []byte("```")) || bytes.HasPrefix(trimmed, []byte("~~~")) {
			fenced, brackets = !fenced, 0
			if err := paragraphEnd(lineAt); err != nil {
				return err
			}
			continue
		}
		if fenced { // code is not parsed for links
			continue
		}
		if i := bytes.Index(trimmed, []byte("[^")); i >= 0 && i <= 2*maxDepth && bytes.Contains(trimmed[i:], []byte("]:")) {
			if notes++; notes > mdMaxFootnotes {
				return limitErr("footnote definitions", mdMaxFootnotes, notes)
			}
		}
		// A line closes the list items it is not indented into: a new
		// item always, any other line only after a blank one (else it
		// is a lazy continuation of the item's paragraph).
		indent, markers := listMarkers(line)
		if len(markers) > 0 || blank {
			for len(lists) > 0 && lists[len(lists)-1] > indent {
				lists = lists[:len(lists)-1]
			}
		}
		if total := len(lists) + depth; total > maxDepth {
			return limitErr("list nesting depth", int64(maxDepth), int64(total))
		}
		lists = append(lists, markers...)
		blank = false
		if tableCols > 0 {
			cells += tableCols
		} else if paraLines > 0 {
			if cols := delimiterRowColumns(line); cols > 0 {
				tableCols = cols
				cells += 2 * cols // the header and the delimiter row
			}
		}
		if cells > mdMaxTableCells {
			return limitErr("table cell count", mdMaxTableCells, cells)
		}
		paraLines++
		for i := 0; i < len(line); {
			if line[i] != '`' {
				i++
				continue
			}
			j := i
			for j < len(line) && line[j] == '`' {
				j++
			}
			at := lineAt + int64(j)
			if last, ok := ticks[j-i]; ok {
				spanScan += lineAt + int64(i) - last
			}
			ticks[j-i] = at
			i = j
		}
		if spanScan > mdMaxCodeSpanScan {
			return limitErr("bytes scanned for code span ends", mdMaxCodeSpanScan, spanScan)
		}
		if brackets += bytes.Count(line, []byte("[")); brackets > mdMaxBrackets {
			return limitErr("'[' in one paragraph", mdMaxBrackets, int64(brackets))
		}
		for _, c := range line {
			if c == '*' || c == '_' || c == '~' {
				delims++
			}
		}
		if scan += linkScan(line); scan > mdMaxLinkScan {
			return limitErr("bytes scanned for link destinations", mdMaxLinkScan, scan)
		}
	}
	return paragraphEnd(pos)
}

// listMarkers reads the list item markers that open line ("- 1. x"):
// its indentation and the content column of each item it opens (where
// the item's text starts: after the marker and up to 4 spaces, or one
// past the marker when more follow or nothing does).
func listMarkers(line []byte) (indent int, cols []int) {
	col, i := 0, 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		if line[i] == '\t' {
			col += 4 - col%4
		} else {
			col++
		}
		i++
	}
	indent = col
	for i < len(line) {
		j := i
		switch c := line[i]; {
		case c == '-' || c == '*' || c == '+':
			j++
		case c >= '0' && c <= '9':
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j == len(line) || (line[j] != '.' && line[j] != ')') {
				return indent, cols
			}
			j++
		default:
			return indent, cols
		}
		if j < len(line) && line[j] != ' ' && line[j] != '\t' {
			return indent, cols
		}
		col += j - i
		spaces := 0
		for j < len(line) && line[j] == ' ' && spaces < 5 {
			j++
			spaces++
		}
		if spaces == 0 || spaces == 5 || j == len(line) {
			j, spaces = i+(j-i-spaces)+min(spaces, 1), min(spaces, 1)
		}
		col += spaces
		cols = append(cols, col)
		i = j
	}
	return indent, cols
}

// delimiterRowColumns is the column count of line when it is a GFM table
// delimiter row ("|---|:-:|", after any container markers), else 0:
// one more than its inner '|'. Goldmark pads or cuts every row of the
// table to that count.
func delimiterRowColumns(line []byte) int64 {
	line = bytes.TrimLeft(line, " \t>")
	_, markers := listMarkers(line)
	if len(markers) > 0 {
		line = bytes.TrimLeft(line[min(markers[len(markers)-1], len(line)):], " \t")
	}
	line = bytes.TrimRight(line, " \t\r")
	if len(line) > 1 && line[len(line)-1] == '|' {
		line = line[:len(line)-1]
	}
	if len(line) > 1 && line[0] == '|' {
		line = line[1:]
	}
	dash := false
	var pipes int64
	for _, c := range line {
		switch c {
		case '-':
			dash = true
		case '|':
			pipes++
		case ':', ' ', '\t', '\r':
		default:
			return 0
		}
	}
	if !dash {
		return 0
	}
	return pipes + 1
}

// containerDepth counts the block quote markers and list item markers
// that open a line ("> - > 1. text" is 4 deep): each is a container
// goldmark nests, and nesting costs it the square.
func containerDepth(line []byte) int {
	depth := 0
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '>':
			depth++
			i++
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			depth++
			i += 2
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 < len(line) && (line[j] == '.' || line[j] == ')') && (line[j+1] == ' ' || line[j+1] == '\t') {
				depth++
				i = j + 2
				continue
			}
			return depth
		default:
			return depth
		}
	}
	return depth
}

// linkScan is what goldmark reads for the link destinations opened in
// line: from each "](" to the next whitespace, from each "](<" to the next
// '>', or to the line's end. One pass: the openers waiting for their end
// are counted, not listed.
func linkScan(line []byte) int64 {
	var cost, nWS, sumWS, nGT, sumGT int64
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			cost += nWS*int64(i) - sumWS
			nWS, sumWS = 0, 0
		case c == '>':
			cost += nGT*int64(i) - sumGT
			nGT, sumGT = 0, 0
		case c == ']' && i+1 < len(line) && line[i+1] == '(':
			if i+2 < len(line) && line[i+2] == '<' {
				nGT, sumGT = nGT+1, sumGT+int64(i)
			} else {
				nWS, sumWS = nWS+1, sumWS+int64(i)
			}
		}
	}
	n := int64(len(line))
	return cost + nWS*n - sumWS + nGT*n - sumGT
}
