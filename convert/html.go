package convert

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// HTML reader (golang.org/x/net/html). A page is a section at each heading
// of the document's top level, as DOCX and ODT split at level 1 (a heading
// that finds its page empty, or holding only the title block, names it
// instead). h1–h6 are
// Title with category_depth level−1; p and loose text NarrativeText;
// ul/ol nesting gives ListItem depth; tables keep rowspan/colspan; pre is
// a CodeSnippet whose language comes from a "language-x"/"lang-x" class
// (or pandoc's "sourceCode x"); img is an Image — data: URIs are decoded,
// anything else is kept as image_path and never fetched; figcaption is a
// FigureCaption, address an Address, an explicit mailto: link an
// EmailAddress, <math> a Formula. script, style, template and the like
// are dropped.

func openHTML(ctx context.Context, src *Source, env *Env) (Pages, error) {
	data, err := src.Bytes()
	if err != nil {
		return nil, err
	}
	bk := NewBook(env)
	h := &htmlConv{env: env, bk: bk, split: true}
	info, err := h.convert(ctx, data, "")
	if err != nil {
		return nil, err
	}
	if info.Title == "" {
		info.Title = h.first
	}
	if err := bk.Err(); err != nil {
		return nil, err
	}
	return bk.Pages(info), nil
}

// htmlConv converts HTML into a Book. EPUB reuses it per chapter with
// split off and resolve reading images from the package.
type htmlConv struct {
	env   *Env
	bk    *Book
	split bool // start a page at each heading of the document's top level
	// splitLevel is that level (the smallest heading level outside the
	// title block; 0: no headings); frontEls counts the front matter
	// (title block) at the start of the current page.
	splitLevel, frontEls int
	titleBlock           bool // a title block has been read
	// resolve reads a relative image reference (EPUB); nil: not resolved.
	resolve func(ref string) (data []byte, mime string, ok bool)
	// local is a link into another document of the same book (an EPUB's
	// "ch002.xhtml#checks") as a link within this one ("#checks"), which
	// the browser follows to the heading; nil: links stay as written.
	local func(href string) string

	inline strings.Builder // text of the paragraph being gathered
	// emphasized and emphasisTags are that paragraph's bold, italic and
	// code spans (b, i, code), as the Markdown reader records them.
	emphasized, emphasisTags []string
	links, linkTexts         []string      // its links: href and text (linkOf)
	emails                   []string      // mailto addresses of that paragraph
	formulas                 []mathOut     // its inline math, each one's line in inline
	comments                 []Meta        // its comments (setComments)
	openComments             []htmlComment // comments whose comment-end is still to come
	titles                   []htmlTitle
	items                    []string // items[d]: the latest list item at depth d (a deeper item's parent)
	first                    string   // first heading (page title fallback)
	nodes                    int
}

type htmlTitle struct {
	level int
	id    string
}

// parseHTML parses with the declared (or sniffed) charset.
func parseHTML(data []byte) (*xhtml.Node, error) {
	var in io.Reader = bytes.NewReader(data)
	if r, err := charset.NewReader(bytes.NewReader(data), "text/html"); err == nil {
		in = r
	}
	n, err := xhtml.Parse(in)
	if err != nil && strings.Contains(err.Error(), "open stack of elements exceeds") {
		// The parser's own nesting cap; say it as the limit it is.
		return nil, limitErr("nesting depth", htmlParserDepth, htmlParserDepth+1)
	}
	return n, err
}

// htmlParserDepth is x/net/html's cap on open elements.
const htmlParserDepth = 512

// convert adds the elements of one HTML document and returns what its
// head says (title, keywords).
func (h *htmlConv) convert(ctx context.Context, data []byte, base string) (Info, error) {
	var info Info
	root, err := parseHTML(data)
	if err != nil {
		return info, err
	}
	// Head: title and keywords.
	var walkHead func(n *xhtml.Node, depth int)
	walkHead = func(n *xhtml.Node, depth int) {
		if depth > h.env.Limits.MaxDepth {
			return
		}
		if n.Type == xhtml.ElementNode {
			switch n.DataAtom {
			case atom.Title:
				if info.Title == "" {
					info.Title = strings.Join(strings.Fields(textOf(n)), " ")
				}
			case atom.Meta:
				switch strings.ToLower(getAttr(n, "name")) {
				case "keywords":
					info.Keywords = splitKeywords(getAttr(n, "content"))
				case "description":
					info.Summary = getAttr(n, "content")
				case "dcterms.modified", "last-modified", "date":
					if info.LastModified == "" {
						info.LastModified = isoTime(getAttr(n, "content"))
					}
				}
			case atom.Body:
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walkHead(c, depth+1)
		}
	}
	walkHead(root, 0)
	body := findBody(root)
	if h.split {
		h.splitLevel = topHeading(body, h.env.Limits.MaxDepth)
	}
	if err := h.walk(ctx, body, 0, 0); err != nil {
		return info, err
	}
	h.flush()
	return info, nil
}

func findBody(n *xhtml.Node) *xhtml.Node {
	var found *xhtml.Node
	var f func(n *xhtml.Node, d int)
	f = func(n *xhtml.Node, d int) {
		if found != nil || d > 8 {
			return
		}
		if n.Type == xhtml.ElementNode && n.DataAtom == atom.Body {
			found = n
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c, d+1)
		}
	}
	f(n, 0)
	if found == nil {
		return n
	}
	return found
}

func getAttr(n *xhtml.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textOf is all the text under n (no scripts or styles).
func textOf(n *xhtml.Node) string {
	var sb strings.Builder
	var f func(n *xhtml.Node, d int)
	f = func(n *xhtml.Node, d int) {
		if d > DefaultMaxDepth {
			return
		}
		switch n.Type {
		case xhtml.TextNode:
			sb.WriteString(n.Data)
		case xhtml.ElementNode:
			if dropped(n) {
				return
			}
			if n.DataAtom == atom.Br {
				sb.WriteByte('\n')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c, d+1)
		}
	}
	f(n, 0)
	return sb.String()
}

func dropped(n *xhtml.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Head, atom.Iframe, atom.Object, atom.Embed, atom.Svg, atom.Button, atom.Select, atom.Input, atom.Textarea:
		return true
	case atom.A:
		// A footnote's way back to its reference (pandoc's "↩︎").
		return getAttr(n, "role") == "doc-backlink" || hasToken(getAttr(n, "class"), "footnote-back")
	case atom.Span:
		// A comment's text is no text of the body (isCommentStart).
		return isCommentStart(n)
	case atom.Nav:
		// Navigation (pandoc's table of contents, a site's menu) repeats
		// the headings or leads away from the page: it is no content of
		// the document, and it made a page of its own before the first
		// heading.
		return true
	}
	switch getAttr(n, "role") {
	case "navigation", "doc-toc":
		return true
	}
	return false
}

// taskBox is the checkbox a task list item starts with: an <input
// type="checkbox"> in the item before any text of its own (directly, or
// in the label or paragraph that opens it); nil for other items.
func taskBox(li *xhtml.Node) *xhtml.Node {
	for c, d := li.FirstChild, 0; c != nil && d < 3; {
		switch {
		case c.Type == xhtml.TextNode && strings.TrimSpace(c.Data) == "":
			c = c.NextSibling
		case c.Type != xhtml.ElementNode:
			return nil
		case c.DataAtom == atom.Input:
			if strings.EqualFold(getAttr(c, "type"), "checkbox") {
				return c
			}
			return nil
		case c.DataAtom == atom.Label || c.DataAtom == atom.P || c.DataAtom == atom.Span:
			c, d = c.FirstChild, d+1
		default:
			return nil
		}
	}
	return nil
}

// attrOf is attribute key of n and whether n has it at all (a boolean
// attribute's value is empty).
func attrOf(n *xhtml.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// layoutTable reports a table used for layout, not data (gtk-doc,
// libxml's manuals and many generated pages lay the whole page out in
// nested tables): one without a header row (<th>, <thead>) whose cells
// hold blocks (headings, lists, code, forms, tables; a paragraph is not
// one: DocBook wraps every data cell in <p>), or whose every row is a
// single cell spanning one column. A data table keeps its grid.
func layoutTable(t *xhtml.Node) bool {
	rows, single, blocks, header := 0, true, false, false
	var cell func(n *xhtml.Node, d int)
	cell = func(n *xhtml.Node, d int) {
		for c := n.FirstChild; c != nil && !blocks && d < DefaultMaxDepth; c = c.NextSibling {
			if c.Type != xhtml.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Pre, atom.Ul, atom.Ol, atom.Dl,
				atom.Table, atom.Form, atom.Blockquote, atom.Hr:
				blocks = true
			default:
				cell(c, d+1)
			}
		}
	}
	var rowsOf func(n *xhtml.Node, d int)
	rowsOf = func(n *xhtml.Node, d int) {
		for c := n.FirstChild; c != nil && d < 4; c = c.NextSibling {
			if c.Type != xhtml.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Thead:
				header = true
			case atom.Tbody, atom.Tfoot:
				rowsOf(c, d+1)
			case atom.Tr:
				rows++
				cells := 0
				for td := c.FirstChild; td != nil; td = td.NextSibling {
					switch td.DataAtom {
					case atom.Th:
						header = true
					case atom.Td:
						cells++
						if n, err := strconv.Atoi(getAttr(td, "colspan")); err == nil && n > 1 {
							cells++
						}
						cell(td, 0)
					}
				}
				single = single && cells <= 1
			}
		}
	}
	rowsOf(t, 0)
	return !header && rows > 0 && (blocks || single)
}

// hasToken reports whether the space-separated list s holds tok.
func hasToken(s, tok string) bool { return slices.Contains(strings.Fields(s), tok) }

// Footnotes as pandoc writes them to HTML and EPUB, and as EPUB marks
// them (epub:type, DPUB-ARIA roles): a reference is a link to the note,
// its number in the text; the notes are a section after the body. They
// read as DOCX and ODT footnotes do: "[n]" in the referring text, apart
// from the word it follows, and each note a NarrativeText "[n] text"
// (ele_metadata footnote: n) where the notes section stands.

func isNoteRef(n *xhtml.Node) bool {
	return n.DataAtom == atom.A && (getAttr(n, "role") == "doc-noteref" || getAttr(n, "epub:type") == "noteref" ||
		hasToken(getAttr(n, "class"), "footnote-ref"))
}

func isNotesSection(n *xhtml.Node) bool {
	switch n.DataAtom {
	case atom.Section, atom.Aside, atom.Div:
	default:
		return false
	}
	t := getAttr(n, "epub:type")
	return getAttr(n, "role") == "doc-endnotes" || hasToken(getAttr(n, "class"), "footnotes") ||
		t == "footnotes" || t == "endnotes" || t == "rearnotes"
}

// notes reads a notes section: each list item (or, in EPUB, each aside of
// epub:type footnote) is note n, counted from 1.
func (h *htmlConv) notes(n *xhtml.Node, depth int) {
	h.flush()
	num := 0
	var f func(n *xhtml.Node, d int)
	f = func(n *xhtml.Node, d int) {
		if d > h.env.Limits.MaxDepth {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != xhtml.ElementNode || dropped(c) {
				continue
			}
			if c.DataAtom == atom.Li || getAttr(c, "epub:type") == "footnote" || getAttr(c, "role") == "doc-endnote" {
				num++
				if txt := strings.Join(strings.Fields(textOf(c)), " "); txt != "" {
					h.bk.Add("NarrativeText", fmt.Sprintf("[%d] %s", num, txt), Meta{"footnote": num})
				}
				continue
			}
			f(c, d+1)
		}
	}
	f(n, depth)
}

// docTitle reports whether heading n is the document's title, not a
// section: a heading in pandoc's header id="title-block-header", or,
// in a document without one, a heading of class "title" (docutils).
// blockSeen says whether a title block came before n.
func docTitle(n *xhtml.Node, blockSeen bool) bool {
	for p, k := n.Parent, 0; p != nil && k < 3; p, k = p.Parent, k+1 {
		if isTitleBlock(p) {
			return true
		}
	}
	return !blockSeen && slices.Contains(strings.Fields(getAttr(n, "class")), "title")
}

func isTitleBlock(n *xhtml.Node) bool {
	return n.DataAtom == atom.Header && getAttr(n, "id") == "title-block-header"
}

// topHeading is the smallest heading level under n that is not the
// document's title (0 when there is none).
func topHeading(n *xhtml.Node, maxDepth int) int {
	top, seen := 0, false
	var f func(n *xhtml.Node, d int)
	f = func(n *xhtml.Node, d int) {
		if d > maxDepth || top == 1 {
			return
		}
		if n.Type == xhtml.ElementNode {
			if dropped(n) {
				return
			}
			switch n.DataAtom {
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				if l := int(n.Data[1] - '0'); !docTitle(n, seen) && (top == 0 || l < top) {
					top = l
				}
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c, d+1)
		}
		if isTitleBlock(n) {
			seen = true
		}
	}
	f(n, 0)
	return top
}

// meta is a fresh ele_metadata with parent_id = the innermost open heading.
func (h *htmlConv) meta() Meta {
	m := Meta{}
	if len(h.titles) > 0 {
		m["parent_id"] = h.titles[len(h.titles)-1].id
	}
	return m
}

// flush emits the gathered inline text as a NarrativeText.
func (h *htmlConv) flush() {
	raw := h.inline.String()
	txt, inline, display := placeFormulas(joinLines(raw), h.formulas)
	txt = strings.TrimSpace(txt)
	h.inline.Reset()
	if txt != "" {
		m := h.meta()
		setLinks(m, h.links, h.linkTexts)
		setEmphasis(m, h.emphasized, h.emphasisTags)
		setInlineFormulas(m, inline)
		h.setComments(m, raw)
		h.bk.Add("NarrativeText", txt, m)
	}
	for _, fm := range display {
		h.formula(fm)
	}
	for _, e := range h.emails {
		h.bk.Add("EmailAddress", e, h.meta())
	}
	h.links, h.linkTexts, h.emails, h.emphasized, h.emphasisTags, h.formulas = nil, nil, nil, nil, nil, nil
	h.comments, h.openComments = nil, nil
}

// setComments records the paragraph's comments (annotationMeta, as
// DOCX records Word's), a range not ended in it covering the rest of its
// text raw.
func (h *htmlConv) setComments(m Meta, raw string) {
	notes := h.comments
	for _, c := range h.openComments {
		notes = append(notes, annotationMeta(c.note.author, c.note.date, c.note.text, joinLines(raw[min(c.at, len(raw)):])))
	}
	if len(notes) > 0 {
		m["annotations"] = notes[:min(len(notes), maxDocxComments)]
	}
}

// formula adds a Formula element of its own (display math).
func (h *htmlConv) formula(fm mathOut) {
	text, m := formulaBlock(fm)
	for k, v := range h.meta() {
		m[k] = v
	}
	h.bk.Add("Formula", text, m)
}

// addEmphasis appends the span of inline element n, marked tag, to
// spans and tags: its text with white space collapsed, as the
// paragraph's is (joinLines).
func addEmphasis(spans, tags []string, n *xhtml.Node, tag string) ([]string, []string) {
	if s := strings.Join(strings.Fields(textOf(n)), " "); s != "" && len(spans) < maxEmphasisSpans {
		return append(spans, s), append(tags, tag)
	}
	return spans, tags
}

// emphasisIn is the emphasis spans under n, in document order (an
// emphasis element's own marked descendants are its text, not spans of
// their own).
func emphasisIn(n *xhtml.Node) (spans, tags []string) {
	eachInline(n, func(n *xhtml.Node) bool {
		if tag := emphasisTag(n); tag != "" {
			spans, tags = addEmphasis(spans, tags, n, tag)
			return false
		}
		return true
	})
	return spans, tags
}

// eachInline calls fn on each element under n (n too) that is not
// dropped, in document order, going inside an element only when fn says
// so.
func eachInline(n *xhtml.Node, fn func(*xhtml.Node) bool) {
	var f func(n *xhtml.Node, d int)
	f = func(n *xhtml.Node, d int) {
		if d > DefaultMaxDepth || n.Type == xhtml.ElementNode && (dropped(n) || !fn(n)) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c, d+1)
		}
	}
	f(n, 0)
}

// isCommentStart: pandoc's span of a comment (class comment-start,
// with id, author and date, the comment's text inside), which its DOCX
// writer makes a Word comment of.
func isCommentStart(n *xhtml.Node) bool {
	return n.DataAtom == atom.Span && hasToken(getAttr(n, "class"), "comment-start")
}

// htmlComment is a comment whose range is open: its id, where its words
// start in the paragraph's text, and the comment.
type htmlComment struct {
	id   string
	at   int
	note docxComment
}

// commentOf is a comment span's author, date (pandoc writes them as
// data-author and data-date) and text.
func commentOf(n *xhtml.Node) docxComment {
	attr := func(k string) string {
		if v := getAttr(n, "data-"+k); v != "" {
			return v
		}
		return getAttr(n, k)
	}
	return docxComment{author: attr("author"), date: attr("date"), text: displayLine(strings.Join(strings.Fields(spanText(n, 0)), " "), maxCommentBytes)}
}

// spanText is the text under n, as written (textOf leaves out what is
// dropped, and a comment span is).
func spanText(n *xhtml.Node, d int) string {
	if n.Type == xhtml.TextNode {
		return n.Data
	}
	var sb strings.Builder
	for c := n.FirstChild; c != nil && d < DefaultMaxDepth; c = c.NextSibling {
		sb.WriteString(spanText(c, d+1))
	}
	return sb.String()
}

// linkOf is the link an <a> makes, as link_urls and link_texts record
// it: its href (a link into the same book made local) and its text with
// white space collapsed. ok is false for an <a> without an href or text
// and a footnote reference (the note's number in the text). A mailto link
// is a link of its paragraph, as DOCX and ODT keep it, besides the
// EmailAddress it also makes.
func (h *htmlConv) linkOf(a *xhtml.Node) (href, text string, ok bool) {
	href = strings.TrimSpace(getAttr(a, "href"))
	text = strings.Join(strings.Fields(textOf(a)), " ")
	if href == "" || text == "" || isNoteRef(a) {
		return "", "", false
	}
	if h.local != nil {
		href = h.local(href)
	}
	return href, text, true
}

// emphasisTag is the emphasized_text_tags value of an inline element:
// "b" (b, strong), "i" (i, em) or "code" (code, kbd, samp); "" for none.
func emphasisTag(n *xhtml.Node) string {
	switch n.DataAtom {
	case atom.B, atom.Strong:
		return "b"
	case atom.I, atom.Em:
		return "i"
	case atom.Code, atom.Kbd, atom.Samp:
		return "code"
	}
	return ""
}

// lineBreak stands for a <br> in a paragraph being gathered: the
// paragraph's other white space (source line ends included) collapses,
// and its <br>s stay line breaks (an address, a mail signature, a list
// of readings written as lines).
const lineBreak = "\u2028"

// joinLines collapses white space in each line of s (lines end at
// lineBreak) and joins the non-empty ones with newlines.
func joinLines(s string) string {
	var lines []string
	for _, l := range strings.Split(s, lineBreak) {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// walk visits n's children. listDepth counts enclosing lists.
func (h *htmlConv) walk(ctx context.Context, n *xhtml.Node, depth, listDepth int) error {
	if depth > h.env.Limits.MaxDepth {
		return limitErr("nesting depth", int64(h.env.Limits.MaxDepth), int64(depth))
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if h.nodes++; h.nodes%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := h.node(ctx, c, depth+1, listDepth); err != nil {
			return err
		}
	}
	return nil
}

func (h *htmlConv) node(ctx context.Context, n *xhtml.Node, depth, listDepth int) error {
	switch n.Type {
	case xhtml.TextNode:
		h.inline.WriteString(n.Data)
		return nil
	case xhtml.ElementNode:
	default:
		return h.walk(ctx, n, depth, listDepth)
	}
	if isCommentStart(n) {
		// pandoc's comment span: the comment is an annotation of the
		// paragraph, covering the words up to its comment-end.
		h.openComments = append(h.openComments, htmlComment{id: getAttr(n, "id"), at: h.inline.Len(), note: commentOf(n)})
		return nil
	}
	if n.DataAtom == atom.Span && hasToken(getAttr(n, "class"), "comment-end") {
		for i, c := range h.openComments {
			if c.id == getAttr(n, "id") {
				h.comments = append(h.comments, annotationMeta(c.note.author, c.note.date, c.note.text, joinLines(h.inline.String()[c.at:])))
				h.openComments = append(h.openComments[:i], h.openComments[i+1:]...)
				break
			}
		}
		return nil
	}
	if dropped(n) {
		return nil
	}
	if isNoteRef(n) {
		if num := strings.TrimSpace(textOf(n)); num != "" {
			h.inline.WriteString("[" + num + "]")
		}
		return nil
	}
	if isNotesSection(n) {
		h.notes(n, depth)
		return nil
	}
	if isTitleBlock(n) {
		// pandoc's title, author and date: front matter of the page
		// the first section names.
		h.flush()
		onlyFront := h.bk.Len() == 0 || h.bk.Current().Len() == h.frontEls
		if err := h.walk(ctx, n, depth, listDepth); err != nil {
			return err
		}
		h.flush()
		if onlyFront {
			h.frontEls = h.bk.Current().Len()
		}
		h.titleBlock = true
		return nil
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		h.flush()
		level := int(n.Data[1] - '0')
		txt := strings.Join(strings.Fields(textOf(n)), " ")
		if txt == "" {
			return nil
		}
		front := docTitle(n, h.titleBlock)
		if h.split && !front && level == h.splitLevel {
			if h.bk.CurrentEmpty() || h.bk.Current().Len() == h.frontEls {
				h.bk.SetTitle(txt)
			} else {
				h.bk.StartPage(txt)
				h.frontEls = 0
			}
			h.titles = h.titles[:0]
		} else if h.bk.Len() > 0 && h.bk.titles[len(h.bk.titles)-1] == "" && h.bk.CurrentEmpty() {
			h.bk.SetTitle(txt)
		}
		for len(h.titles) > 0 && h.titles[len(h.titles)-1].level >= level {
			h.titles = h.titles[:len(h.titles)-1]
		}
		if front {
			// The document's title (pandoc's title block) is front
			// matter: not a section, and the page's first section
			// heading still names the page.
			if h.bk.Len() == 0 || h.bk.Current().Len() == h.frontEls {
				h.frontEls++
			}
			h.bk.Add("Title", txt, Meta{"category_depth": 0})
			break
		}
		m := h.meta()
		m["category_depth"] = level - 1
		id := h.bk.Add("Title", txt, m)
		h.titles = append(h.titles, htmlTitle{level, id})
		if h.first == "" {
			h.first = txt
		}
	case atom.Ul, atom.Ol:
		h.flush()
		lv := htmlListLevel(n)
		num := lv.start
		for li := n.FirstChild; li != nil; li = li.NextSibling {
			if li.Type != xhtml.ElementNode || li.DataAtom != atom.Li {
				continue
			}
			if v, err := strconv.Atoi(getAttr(li, "value")); err == nil && lv.ordered {
				num = v
			}
			if err := h.listItem(ctx, li, depth+1, listDepth, lv, num); err != nil {
				return err
			}
			num++
		}
	case atom.Table:
		h.flush()
		if layoutTable(n) {
			// Its cells are the page's columns and boxes: their content is
			// read as the page's own blocks, in order.
			return h.walk(ctx, n, depth, listDepth)
		}
		g := htmlTable(n, h.env.Limits.MaxDepth)
		if err := g.check(h.env); err != nil {
			return err
		}
		b := g.block()
		m := h.meta()
		for k, v := range b.meta {
			m[k] = v
		}
		h.bk.Add("Table", b.text, m)
	case atom.Pre:
		h.flush()
		m := h.meta()
		if lang := codeLanguage(n); lang != "" {
			m["language"] = lang
		}
		h.bk.Add("CodeSnippet", strings.TrimRight(strings.TrimPrefix(textOf(n), "\n"), "\n "), m)
	case atom.Img:
		h.flush()
		h.image(n)
	case atom.Figcaption, atom.Caption:
		h.flush()
		if txt := strings.Join(strings.Fields(textOf(n)), " "); txt != "" {
			h.bk.Add("FigureCaption", txt, h.meta())
		}
	case atom.Address:
		h.flush()
		if txt := strings.TrimSpace(textOf(n)); txt != "" {
			h.bk.Add("Address", txt, h.meta())
		}
	case atom.Hr:
		h.flush()
		h.bk.Add("PageBreak", "", h.meta())
	case atom.Math:
		fm := mathMLMath(htmlMathTree(n))
		if alt := strings.TrimSpace(getAttr(n, "alttext")); alt != "" && fm.tex == "" {
			fm.tex = alt // MathML's alttext is the source (LaTeX, as pandoc writes it)
		}
		if strings.TrimSpace(fm.lin) == "" {
			break
		}
		if strings.EqualFold(getAttr(n, "display"), "block") {
			h.flush()
			h.formula(fm)
			break
		}
		// Inline math stays in its sentence (placeFormulas, at flush).
		h.inline.WriteString(formulaLine(fm))
		h.formulas = append(h.formulas, fm)
	case atom.Sup, atom.Sub:
		// A script keeps its place: mc<sup>2</sup> is mc², not mc2.
		h.inline.WriteString(htmlScriptText(n))
	case atom.Br:
		h.inline.WriteString(lineBreak)
	case atom.A:
		href := strings.TrimSpace(getAttr(n, "href"))
		if err := h.walk(ctx, n, depth, listDepth); err != nil {
			return err
		}
		if strings.HasPrefix(strings.ToLower(href), "mailto:") {
			addr, _, _ := strings.Cut(href[len("mailto:"):], "?")
			if u, err := url.PathUnescape(addr); err == nil {
				addr = u
			}
			if addr = strings.TrimSpace(addr); addr != "" {
				// After the paragraph it sits in, which stays whole.
				h.emails = append(h.emails, addr)
			}
		}
		if u, txt, ok := h.linkOf(n); ok {
			h.links, h.linkTexts = append(h.links, u), append(h.linkTexts, txt)
		}
	default:
		if n.DataAtom == atom.Span && strings.Contains(" "+getAttr(n, "class")+" ", " math ") {
			// pandoc's math spans: display math is a formula of its own.
			if strings.Contains(getAttr(n, "class"), "display") {
				h.flush()
				h.bk.Add("Formula", strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(textOf(n)), `\[`), `\]`)), h.meta())
				return nil
			}
			// Inline math as pandoc's plain HTML writes it (letters in
			// <em>, scripts in <sup>/<sub>): an inline formula of its
			// readable text, its letters not taken for emphasis.
			if fm := (mathOut{lin: htmlScriptText(n)}); strings.TrimSpace(fm.lin) != "" {
				h.inline.WriteString(formulaLine(fm))
				h.formulas = append(h.formulas, fm)
			}
			return nil
		}
		if isBlock(n) {
			h.flush()
			err := h.walk(ctx, n, depth, listDepth)
			h.flush()
			return err
		}
		if tag := emphasisTag(n); tag != "" {
			h.emphasized, h.emphasisTags = addEmphasis(h.emphasized, h.emphasisTags, n, tag)
		}
		return h.walk(ctx, n, depth, listDepth)
	}
	return nil
}

func isBlock(n *xhtml.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Header, atom.Footer, atom.Nav, atom.Aside,
		atom.Blockquote, atom.Figure, atom.Dl, atom.Dt, atom.Dd, atom.Li, atom.Form, atom.Fieldset, atom.Details, atom.Summary, atom.Body:
		return true
	}
	return false
}

// htmlListLevel is the numbering of a ul/ol: ol's start, and its counter
// style from type= or a list-style-type declaration.
func htmlListLevel(n *xhtml.Node) listLevel {
	if n.DataAtom != atom.Ol {
		return listLevel{}
	}
	lv := listLevel{ordered: true, start: 1}
	if s, err := strconv.Atoi(getAttr(n, "start")); err == nil {
		lv.start = s
	}
	if t := getAttr(n, "type"); t != "" {
		lv.style, _ = odfListStyle(t)
	}
	css := strings.ToLower(getAttr(n, "style"))
	if _, v, ok := strings.Cut(css, "list-style-type:"); ok {
		v, _, _ = strings.Cut(v, ";")
		switch v = strings.TrimSpace(v); v {
		case "lower-alpha", "upper-alpha", "lower-roman", "upper-roman":
			lv.style = v
		case "lower-latin", "upper-latin":
			lv.style = strings.Replace(v, "latin", "alpha", 1)
		}
	}
	return lv
}

// listItem emits one li: its own text (without nested lists) as a
// ListItem, then nested lists one level deeper and other blocks inside.
func (h *htmlConv) listItem(ctx context.Context, li *xhtml.Node, depth, listDepth int, lv listLevel, num int) error {
	if depth > h.env.Limits.MaxDepth {
		return limitErr("nesting depth", int64(h.env.Limits.MaxDepth), int64(depth))
	}
	var own strings.Builder
	var rest []*xhtml.Node
	var spans, tags, urls, texts []string
	var notes []Meta // the item's comments (pandoc's comment spans)
	for c := li.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == xhtml.ElementNode && (c.DataAtom == atom.Ul || c.DataAtom == atom.Ol || c.DataAtom == atom.Pre || c.DataAtom == atom.Table || c.DataAtom == atom.Img) {
			rest = append(rest, c)
			continue
		}
		if c.Type == xhtml.ElementNode && isCommentStart(c) && len(notes) < maxDocxComments {
			cm := commentOf(c)
			notes = append(notes, annotationMeta(cm.author, cm.date, cm.text, ""))
		}
		if c.Type == xhtml.ElementNode && dropped(c) {
			continue
		}
		own.WriteString(textOf(c))
		own.WriteByte(' ')
		s, tg := emphasisIn(c)
		spans, tags = append(spans, s...), append(tags, tg...)
		eachInline(c, func(a *xhtml.Node) bool {
			if a.DataAtom != atom.A {
				return true
			}
			if u, txt, ok := h.linkOf(a); ok {
				urls, texts = append(urls, u), append(texts, txt)
			}
			return false
		})
	}
	m := h.meta()
	m["category_depth"] = listDepth
	if listDepth > 0 && listDepth <= len(h.items) {
		m["parent_id"] = h.items[listDepth-1]
	}
	setListMeta(m, lv, num)
	setEmphasis(m, spans[:min(len(spans), maxEmphasisSpans)], tags[:min(len(tags), maxEmphasisSpans)])
	setLinks(m, urls, texts)
	if len(notes) > 0 {
		m["annotations"] = notes
	}
	first := true
	for s := li.PrevSibling; s != nil && first; s = s.PrevSibling {
		first = s.Type != xhtml.ElementNode || s.DataAtom != atom.Li
	}
	markListStart(m, first, listDepth, h.bk.last())
	cat := "ListItem"
	if box := taskBox(li); box != nil {
		// A task list item (pandoc and GitHub write <input
		// type="checkbox"> first in the item): a CheckBox with its state.
		cat = "CheckBox"
		_, m["checked"] = attrOf(box, "checked")
	}
	if txt := strings.Join(strings.Fields(own.String()), " "); txt != "" {
		id := h.bk.Add(cat, txt, m)
		h.items = append(h.items[:min(listDepth, len(h.items))], id)
	}
	for _, c := range rest {
		if err := h.node(ctx, c, depth+1, listDepth+1); err != nil {
			return err
		}
	}
	return nil
}

// codeLanguage reads the language of a pre (or its code child) from its
// classes: language-x, lang-x, or pandoc's "sourceCode x".
func codeLanguage(pre *xhtml.Node) string {
	for _, n := range []*xhtml.Node{pre, pre.FirstChild} {
		if n == nil || n.Type != xhtml.ElementNode {
			continue
		}
		classes := strings.Fields(getAttr(n, "class"))
		for _, c := range classes {
			if l, ok := strings.CutPrefix(c, "language-"); ok && l != "" {
				return strings.ToLower(l)
			}
			if l, ok := strings.CutPrefix(c, "lang-"); ok && l != "" {
				return strings.ToLower(l)
			}
		}
		if len(classes) == 2 && classes[0] == "sourceCode" {
			return strings.ToLower(classes[1])
		}
		if l := getAttr(n, "data-lang"); l != "" {
			return strings.ToLower(l)
		}
	}
	return ""
}

func (h *htmlConv) image(n *xhtml.Node) {
	src := strings.TrimSpace(getAttr(n, "src"))
	alt := getAttr(n, "alt")
	m := h.meta()
	switch {
	case strings.HasPrefix(strings.ToLower(src), "data:"):
		if mt, data, ok := decodeDataURI(src, h.env.Limits.MaxImageBytes); ok {
			h.bk.Current().AddImage(data, mt, alt, m)
			return
		}
		h.bk.Add("Image", alt, m)
	case src == "":
	default:
		if h.resolve != nil && !strings.Contains(src, "://") {
			if data, mt, ok := h.resolve(src); ok {
				m["image_path"] = src
				h.bk.Current().AddImage(data, mt, alt, m)
				return
			}
		}
		// Remote images are never fetched: the element keeps the URL.
		m["image_path"] = src
		h.bk.Add("Image", alt, m)
	}
}

// decodeDataURI decodes data:<mime>[;base64],<payload> (RFC 2397); a
// payload over max bytes is refused.
func decodeDataURI(s string, max int64) (string, []byte, bool) {
	head, payload, found := strings.Cut(s[len("data:"):], ",")
	if !found || int64(len(payload)) > max*4/3+4 {
		return "", nil, false
	}
	params := strings.Split(head, ";")
	mt := strings.ToLower(strings.TrimSpace(params[0]))
	b64 := false
	for _, p := range params[1:] {
		if strings.EqualFold(strings.TrimSpace(p), "base64") {
			b64 = true
		}
	}
	if !b64 {
		u, err := url.PathUnescape(payload)
		return mt, []byte(u), err == nil
	}
	clean := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, payload)
	data, err := base64.StdEncoding.DecodeString(clean)
	if err != nil {
		if data, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(clean, "=")); err != nil {
			return "", nil, false
		}
	}
	return mt, data, true
}

// htmlTable reads a table into a grid, honouring rowspan/colspan (rows of
// thead, tbody and tfoot in order; nested tables become text).
func htmlTable(t *xhtml.Node, maxDepth int) *grid {
	g := &grid{}
	// occupied[r] marks grid columns taken by rowspans from rows above.
	var occupied []map[int]bool
	var rows []*xhtml.Node
	var collect func(n *xhtml.Node, d int)
	collect = func(n *xhtml.Node, d int) {
		if d > maxDepth {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != xhtml.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Tr:
				rows = append(rows, c)
			case atom.Thead, atom.Tbody, atom.Tfoot:
				collect(c, d+1)
			}
		}
	}
	collect(t, 0)
	const maxSpan = 1000
	marked := 0
	for ri, tr := range rows {
		for len(occupied) <= ri {
			occupied = append(occupied, map[int]bool{})
		}
		var row []*cell
		col := 0
		for td := tr.FirstChild; td != nil; td = td.NextSibling {
			if td.Type != xhtml.ElementNode || (td.DataAtom != atom.Td && td.DataAtom != atom.Th) {
				continue
			}
			for occupied[ri][col] {
				col++
			}
			cs := min(max(1, atoiOr(getAttr(td, "colspan"), 1)), maxSpan)
			rs := min(max(1, atoiOr(getAttr(td, "rowspan"), 1)), len(rows)-ri)
			if marked += cs * rs; marked > maxTableArea {
				// Spans past the table size cap are not honoured; the grid
				// check then reports the table.
				cs, rs = 1, 1
			}
			c := &cell{text: strings.Join(strings.Fields(textOf(td)), " "), colspan: cs, rowspan: rs, col: col, header: td.DataAtom == atom.Th, align: dpe.CellAlign(td.Attr)}
			row = append(row, c)
			for r := ri + 1; r < ri+rs; r++ {
				for len(occupied) <= r {
					occupied = append(occupied, map[int]bool{})
				}
				for k := col; k < col+cs; k++ {
					occupied[r][k] = true
				}
			}
			col += cs
		}
		g.rows = append(g.rows, row)
	}
	return g
}

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return def
	}
	return n
}

// htmlScriptText is n's text with its <sup> and <sub> written as scripts
// (superscript, subscript: x², Q₂₈, e⁻ˣ, else ^{…}).
func htmlScriptText(n *xhtml.Node) string {
	var sb strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == xhtml.TextNode:
			sb.WriteString(c.Data)
		case c.Type == xhtml.ElementNode:
			sb.WriteString(htmlScriptText(c))
		}
	}
	switch n.DataAtom {
	case atom.Sup:
		return superscript(sb.String())
	case atom.Sub:
		return subscript(sb.String())
	}
	return sb.String()
}
