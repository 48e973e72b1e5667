package convert

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// OpenDocument reader (ODT, ODP, ODS): archive/zip + an encoding/xml
// token stream over content.xml, meta.xml for the properties and
// styles.xml for headers, footers and named styles.
//
// ODT: text:h with text:outline-level N is a Title of category_depth N−1;
// text:list nesting gives ListItem depth; paragraphs whose style (through
// its parent chain) is "Preformatted Text"/"Source Code" or a monospace
// font are one CodeSnippet per run of lines; "…Caption"/"Illustration"
// styles are FigureCaption; table:number-columns-spanned/-rows-spanned
// become colspan/rowspan; a formula object (draw:object → MathML) is a
// Formula with the math's text. Notes: as in DOCX, "[n]" in the text and
// "[n] note" NarrativeText at the end.
// ODP: one page per draw:page; presentation:class title → Title,
// outline/subtitle/text boxes → ListItem by list nesting or NarrativeText;
// speaker notes are NarrativeText with ele_metadata slide_notes: true;
// the date and footer a page names (presentation:use-date-time-name,
// use-footer-name) are Footer, its number PageNumber when its style
// displays one, as the PPTX reader reads the same placeholders.
// ODS: one page per table:table (sheet), one Table with spans and its
// cells' formulas (as XLSX).

func openODT(ctx context.Context, src *Source, env *Env) (Pages, error) {
	r, err := newODF(src, env, "text")
	if err != nil {
		return nil, err
	}
	f := &flow{env: env}
	if err := r.walk(ctx, func(d *XMLDecoder, se xml.StartElement) error {
		if f.err != nil {
			return f.err
		}
		return r.textBlock(d, se, f, 0)
	}); err != nil {
		return nil, err
	}
	f.headers, f.footers = r.masterText()
	for i, n := range r.notes {
		f.add(block{cat: "NarrativeText", text: fmt.Sprintf("[%d] %s", i+1, n), meta: Meta{"footnote": i + 1}})
	}
	return f.pages(env, r.info), nil
}

func openODP(ctx context.Context, src *Source, env *Env) (Pages, error) {
	r, err := newODF(src, env, "presentation")
	if err != nil {
		return nil, err
	}
	bk := NewBook(env)
	err = r.walk(ctx, func(d *XMLDecoder, se xml.StartElement) error {
		switch se.Name.Local {
		case "page":
			return r.slide(d, se, bk)
		case "footer-decl", "date-time-decl", "header-decl":
			// The text a page's footer or date placeholder shows, named
			// by the pages that use it (a current date has none).
			txt, err := innerText(d)
			if txt = trunc(strings.Join(strings.Fields(txt), " "), maxRunningText); txt != "" && len(r.decls) < maxODPDecls {
				if r.decls == nil {
					r.decls = map[string]string{}
				}
				r.decls[se.Name.Local+"/"+attr(se, "name")] = txt
			}
			return err
		}
		return skip(d)
	})
	if err != nil {
		return nil, err
	}
	if err := bk.Err(); err != nil {
		return nil, err
	}
	return bk.Pages(r.info), nil
}

func openODS(ctx context.Context, src *Source, env *Env) (Pages, error) {
	r, err := newODF(src, env, "spreadsheet")
	if err != nil {
		return nil, err
	}
	bk := NewBook(env)
	err = r.walk(ctx, func(d *XMLDecoder, se xml.StartElement) error {
		if se.Name.Local != "table" {
			return skip(d)
		}
		name := attr(se, "name")
		g, err := r.table(d, bk.Len())
		if err != nil {
			return err
		}
		pb := bk.StartPage(name)
		b := g.block()
		b.meta["page_name"] = name
		if len(g.formulas) > 0 {
			b.meta["formulas"] = g.formulas
		}
		if r.styles[attr(se, "style-name")].hidden {
			// As XLSX says it of a hidden sheet.
			pb.SetPageMeta("sheet_state", "hidden")
			b.meta["sheet_state"] = "hidden"
		}
		bk.Add("Table", b.text, b.meta)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := bk.Err(); err != nil {
		return nil, err
	}
	return bk.Pages(r.info), nil
}

type odfStyle struct {
	parent, display string
	mono, breakPage bool
	bold, italic    bool   // fo:font-weight bold (600 and up), fo:font-style italic or oblique
	align           string // fo:text-align (dpe.AlignWord)
	hidden          bool   // a table style's table:display="false" (a hidden sheet)
	// A drawing-page style's presentation:display-footer and
	// display-date-time "false" (shown otherwise), display-page-number
	// "true" (no number otherwise).
	noFooter, noDate, pageNumber bool
}

type odfReader struct {
	env    *Env
	z      *Zip
	body   string // office:text / presentation / spreadsheet
	info   Info
	styles map[string]odfStyle
	notes  []string
	// decls are an ODP's presentation:footer-decl and date-time-decl
	// texts, by element and name ("footer-decl/ftr1").
	decls  map[string]string
	lists  odfLists
	code   *block // open CodeSnippet (ODT)
	spaces int    // spaces written for text:s so far
}

func newODF(src *Source, env *Env, body string) (*odfReader, error) {
	z, err := env.OpenZip(src)
	if err != nil {
		return nil, err
	}
	if z.File("content.xml") == nil {
		return nil, errors.New("not an OpenDocument file: the zip has no content.xml")
	}
	r := &odfReader{env: env, z: z, body: body, styles: map[string]odfStyle{}}
	r.readMeta()
	if z.File("styles.xml") != nil {
		if err := r.readStyles("styles.xml", nil); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *odfReader) readMeta() {
	rc, err := r.z.Open("meta.xml")
	if err != nil {
		return
	}
	defer rc.Close()
	d := r.env.XML(rc)
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
		case "title", "keyword", "date", "description":
			v, err := innerText(d)
			if err != nil {
				return
			}
			v = strings.TrimSpace(v)
			switch se.Name.Local {
			case "title":
				r.info.Title = v
			case "description":
				r.info.Summary = v
			case "keyword":
				r.info.Keywords = append(r.info.Keywords, splitKeywords(v)...)
				r.info.Keywords = r.info.Keywords[:min(len(r.info.Keywords), maxKeywords)]
			case "date":
				r.info.LastModified = isoTime(v)
			}
		}
	}
}

// readStyles records paragraph styles (parent, display name, monospace
// font, page break before); with visit non-nil, also hands each
// master-page header/footer to it.
func (r *odfReader) readStyles(part string, visit func(d *XMLDecoder, se xml.StartElement) error) error {
	rc, err := r.z.Open(part)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := r.env.XML(rc)
	name := ""
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", part, err)
		}
		switch t := t.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "style":
				name = attr(t, "name")
				s := r.styles[name]
				s.parent, s.display = attr(t, "parent-style-name"), attr(t, "display-name")
				r.styles[name] = s
			case "text-properties", "paragraph-properties":
				r.styleProps(name, t)
			case "list-style":
				if err := r.lists.readListStyle(d, t); err != nil {
					return fmt.Errorf("%s: %w", part, err)
				}
			case "header", "footer":
				if visit != nil {
					if err := visit(d, t); err != nil {
						return err
					}
				}
			}
		case xml.EndElement:
			if t.Name.Local == "style" {
				name = ""
			}
		}
	}
}

// styleProps records what style name's text-properties or
// paragraph-properties (or a table style's table-properties) t say that
// the reader uses: a monospace font, a page break before, the text
// alignment, a hidden sheet.
func (r *odfReader) styleProps(name string, t xml.StartElement) {
	if name == "" {
		return
	}
	s := r.styles[name]
	switch t.Name.Local {
	case "table-properties":
		s.hidden = attr(t, "display") == "false"
	case "drawing-page-properties":
		s.noFooter = attr(t, "display-footer") == "false"
		s.noDate = attr(t, "display-date-time") == "false"
		s.pageNumber = attr(t, "display-page-number") == "true"
	case "text-properties":
		s.mono = s.mono || isMonospace(attr(t, "font-name")) || isMonospace(attr(t, "font-family"))
		if w := attr(t, "font-weight"); w != "" {
			n, err := strconv.Atoi(w)
			s.bold = w == "bold" || err == nil && n >= 600
		}
		if st := attr(t, "font-style"); st != "" {
			s.italic = st == "italic" || st == "oblique"
		}
	default:
		s.breakPage = s.breakPage || attr(t, "break-before") == "page"
		if a := dpe.AlignWord(attr(t, "text-align")); a != "" {
			s.align = a
		}
	}
	r.styles[name] = s
}

// masterText is the text of the master pages' headers and footers.
func (r *odfReader) masterText() (headers, footers []string) {
	if r.z.File("styles.xml") == nil {
		return nil, nil
	}
	_ = r.readStyles("styles.xml", func(d *XMLDecoder, se xml.StartElement) error {
		txt, err := textWithout(d, "page-number", "page-count", "date", "time")
		if txt = trunc(strings.TrimSpace(txt), maxRunningText); txt != "" && len(headers)+len(footers) < 2*maxRunning {
			if se.Name.Local == "header" {
				headers = append(headers, txt)
			} else {
				footers = append(footers, txt)
			}
		}
		return err
	})
	return headers, footers
}

// style resolves a style through its parents: its names (lowercased,
// "_20_" read as a space), monospace and page-break flags.
func (r *odfReader) style(name string) (names []string, s odfStyle) {
	for i := 0; i < 16 && name != ""; i++ {
		st := r.styles[name]
		names = append(names, strings.ToLower(strings.ReplaceAll(name, "_20_", " ")), strings.ToLower(st.display))
		s.mono = s.mono || st.mono
		s.bold = s.bold || st.bold
		s.italic = s.italic || st.italic
		if s.align == "" {
			s.align = st.align
		}
		if i == 0 {
			s.breakPage = st.breakPage
		}
		name = st.parent
	}
	return names, s
}

// walk reads content.xml (after its automatic styles) and calls fn for
// each child element of office:<body kind>; fn must consume the element.
func (r *odfReader) walk(ctx context.Context, fn func(d *XMLDecoder, se xml.StartElement) error) error {
	rc, err := r.z.Open("content.xml")
	if err != nil {
		return err
	}
	defer rc.Close()
	d := r.env.XML(rc)
	inBody, n := false, 0
	styleName := ""
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("content.xml: %w", err)
		}
		switch t := t.(type) {
		case xml.StartElement:
			if n++; n%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if inBody {
				if err := fn(d, t); err != nil {
					return err
				}
				continue
			}
			switch t.Name.Local {
			case r.body:
				if t.Name.Space == "urn:oasis:names:tc:opendocument:xmlns:office:1.0" {
					inBody = true
				}
			case "list-style":
				if err := r.lists.readListStyle(d, t); err != nil {
					return fmt.Errorf("content.xml: %w", err)
				}
			case "style":
				styleName = attr(t, "name")
				s := r.styles[styleName]
				s.parent = attr(t, "parent-style-name")
				r.styles[styleName] = s
			case "text-properties", "paragraph-properties", "table-properties", "drawing-page-properties":
				r.styleProps(styleName, t)
			}
		case xml.EndElement:
			if t.Name.Local == r.body {
				inBody = false
			}
		}
	}
}

// odfText is the text of one paragraph-level element with the objects
// found inside it.
type odfText struct {
	text strings.Builder
	// chars and monoChars count non-space text bytes, all and inside
	// monospace spans: all monospace is code.
	chars, monoChars int
	images           []block
	formulas         []mathOut
	emails           []string
	urls, urlTexts   []string // links: href and the words they are on
	// emphasized and emphasisTags are the bold, italic and code spans
	// (setEmphasis).
	emphasized, emphasisTags []string
	// annotations are the office:annotation comments anchored here
	// (annotationMeta); open are those whose range has not ended yet, by
	// office:name.
	annotations []Meta
	open        map[string]odfOpenNote
}

// setAnnotations records the paragraph's comments in m, as DOCX records
// Word's: a range that does not end in this paragraph covers the rest of
// its text. Ranges close in document order of their start.
func (o *odfText) setAnnotations(m Meta) {
	notes := o.annotations
	open := make([]odfOpenNote, 0, len(o.open))
	for _, n := range o.open {
		open = append(open, n)
	}
	slices.SortFunc(open, func(a, b odfOpenNote) int { return a.start - b.start })
	txt := o.text.String()
	for _, n := range open {
		notes = append(notes, annotationMeta(n.author, n.date, n.text, txt[n.start:]))
	}
	if len(notes) > 0 {
		m["annotations"] = notes
	}
}

// odfOpenNote is a comment whose range (up to its office:annotation-end)
// starts at byte start of the paragraph's text.
type odfOpenNote struct {
	start              int
	author, date, text string
}

// inline reads the content of a text:p / text:h / text:span just started.
func (r *odfReader) inline(d *XMLDecoder, out *odfText) error {
	depth := 1
	var href string
	hrefAt := 0      // where the link's text starts in out.text
	var monoAt []int // depths of open monospace spans
	type markedSpan struct {
		depth, start int
		tag          string
	}
	var marked []markedSpan // open bold, italic and code spans
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "s":
				n, err := strconv.Atoi(attr(t, "c"))
				if err != nil || n < 1 {
					n = 1
				}
				// A 20-byte element may ask for any number of spaces:
				// runs are capped, and so is their sum per document.
				n = min(n, 1000, max(1, maxODFSpaces-r.spaces))
				r.spaces += n
				out.text.WriteString(strings.Repeat(" ", n))
			case "tab":
				out.text.WriteByte('\t')
			case "line-break":
				out.text.WriteByte('\n')
			case "soft-page-break":
			case "a":
				href, hrefAt = attr(t, "href"), out.text.Len()
			case "span":
				_, st := r.style(attr(t, "style-name"))
				if st.mono {
					monoAt = append(monoAt, depth)
				}
				tag := ""
				switch {
				case st.mono:
					tag = "code"
				case st.bold:
					tag = "b"
				case st.italic:
					tag = "i"
				}
				if tag != "" {
					marked = append(marked, markedSpan{depth, out.text.Len(), tag})
				}
			case "note":
				body, err := r.noteBody(d)
				if err != nil {
					return err
				}
				depth--
				r.notes = append(r.notes, body)
				out.text.WriteString("[" + strconv.Itoa(len(r.notes)) + "]")
			case "frame":
				if err := r.frame(d, out); err != nil {
					return err
				}
				depth--
			case "annotation":
				author, date, text, err := odfAnnotation(d)
				if err != nil {
					return err
				}
				depth--
				if len(out.annotations)+len(out.open) >= maxDocxComments {
					break
				}
				if name := attr(t, "name"); name != "" {
					if out.open == nil {
						out.open = map[string]odfOpenNote{}
					}
					out.open[name] = odfOpenNote{start: out.text.Len(), author: author, date: date, text: text}
				} else {
					out.annotations = append(out.annotations, annotationMeta(author, date, text, ""))
				}
			case "annotation-end":
				if n, ok := out.open[attr(t, "name")]; ok {
					delete(out.open, attr(t, "name"))
					out.annotations = append(out.annotations, annotationMeta(n.author, n.date, n.text, out.text.String()[n.start:]))
				}
			case "bookmark-start", "bookmark-end", "tracked-changes":
				if err := skip(d); err != nil {
					return err
				}
				depth--
			}
		case xml.EndElement:
			if n := len(monoAt); n > 0 && monoAt[n-1] == depth {
				monoAt = monoAt[:n-1]
			}
			if n := len(marked); n > 0 && marked[n-1].depth == depth {
				sp := marked[n-1]
				marked = marked[:n-1]
				if s := strings.Join(strings.Fields(out.text.String()[sp.start:]), " "); s != "" && len(out.emphasized) < maxEmphasisSpans {
					out.emphasized = append(out.emphasized, s)
					out.emphasisTags = append(out.emphasisTags, sp.tag)
				}
			}
			depth--
			if t.Name.Local == "a" && href != "" {
				if txt := strings.Join(strings.Fields(out.text.String()[hrefAt:]), " "); txt != "" {
					out.urls, out.urlTexts = append(out.urls, href), append(out.urlTexts, txt)
				}
				if addr, ok := strings.CutPrefix(href, "mailto:"); ok {
					addr, _, _ = strings.Cut(addr, "?")
					out.emails = append(out.emails, addr)
				}
				href = ""
			}
		case xml.CharData:
			out.text.Write(t)
			n := len(strings.TrimSpace(string(t)))
			out.chars += n
			if len(monoAt) > 0 {
				out.monoChars += n
			}
		}
	}
	return nil
}

// noteBody is the text of a text:note's body (the citation is dropped).
func (r *odfReader) noteBody(d *XMLDecoder) (string, error) {
	var sb strings.Builder
	depth := 1
	inBody := false
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return "", err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			if t.Name.Local == "note-body" {
				inBody = true
			}
		case xml.EndElement:
			depth--
			if t.Name.Local == "p" && inBody {
				sb.WriteByte(' ')
			}
		case xml.CharData:
			if inBody {
				sb.Write(t)
			}
		}
	}
	return strings.TrimSpace(sb.String()), nil
}

// frame reads a draw:frame: an image from the package, a formula object
// (its MathML text), or a text box (its text joins the paragraph).
func (r *odfReader) frame(d *XMLDecoder, out *odfText) error {
	depth := 1
	// svg:title and svg:desc come after the image they describe. The
	// description is the alternative text, else the title: Writer keeps
	// a DOCX picture's descr as svg:desc and its title as svg:title, and
	// the DOCX reader reads descr first.
	title, desc := "", ""
	first := len(out.images)
	defer func() {
		alt := desc
		if alt == "" {
			alt = title
		}
		for i := first; i < len(out.images); i++ {
			if out.images[i].text == "" {
				out.images[i].text = alt
			}
		}
	}()
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "image":
				href := strings.TrimPrefix(attr(t, "href"), "./")
				if href != "" && !strings.Contains(href, "://") && r.z.File(href) != nil {
					out.images = append(out.images, imageBlock(r.env, r.z, href, ""))
				} else if href != "" {
					out.images = append(out.images, block{cat: "Image", meta: Meta{"image_path": href}})
				}
			case "object":
				href := strings.TrimSuffix(strings.TrimPrefix(attr(t, "href"), "./"), "/")
				if fm, ok := r.formula(path.Join(href, "content.xml")); ok {
					out.formulas = append(out.formulas, fm)
					out.text.WriteString(formulaLine(fm))
				}
			case "title", "desc":
				v, err := innerText(d)
				if err != nil {
					return err
				}
				depth--
				if t.Name.Local == "title" {
					title = strings.Join(strings.Fields(v), " ")
				} else {
					desc = strings.Join(strings.Fields(v), " ")
				}
			}
		case xml.CharData:
			out.text.Write(t)
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// formula is an embedded MathML object as a formula (mathMLMath); ok is
// false when it is not math (a chart or another embedded document).
func (r *odfReader) formula(part string) (mathOut, bool) {
	if r.z.File(part) == nil {
		return mathOut{}, false
	}
	rc, err := r.z.Open(part)
	if err != nil {
		return mathOut{}, false
	}
	defer rc.Close()
	d := r.env.XML(rc)
	for {
		t, err := d.Token()
		if err != nil {
			return mathOut{}, false
		}
		if se, ok := t.(xml.StartElement); ok {
			if se.Name.Local != "math" {
				return mathOut{}, false
			}
			tree, err := readMathTree(d, se)
			if err != nil {
				return mathOut{}, false
			}
			fm := mathMLMath(tree)
			return fm, strings.TrimSpace(fm.lin) != ""
		}
	}
}

// textBlock handles one ODT body-level element (also list contents and
// sections); listDepth > 0 inside a list.
func (r *odfReader) textBlock(d *XMLDecoder, se xml.StartElement, f *flow, listDepth int) error {
	switch se.Name.Local {
	case "h", "p":
		var o odfText
		if err := r.inline(d, &o); err != nil {
			return err
		}
		r.emitText(f, se, &o, listDepth)
	case "list":
		return r.list(d, se, listDepth, func(d *XMLDecoder, g xml.StartElement) error {
			return r.textBlock(d, g, f, listDepth+1)
		})
	case "table":
		r.code = nil
		g, err := r.table(d, -1)
		if err != nil {
			return err
		}
		f.add(g.block())
	case "section", "index-body", "table-of-content", "alphabetical-index", "illustration-index", "table-index", "bibliography", "user-index", "object-index":
		return r.children(d, func(d *XMLDecoder, ch xml.StartElement) error { return r.textBlock(d, ch, f, listDepth) })
	case "soft-page-break":
		return skip(d)
	default:
		return skip(d)
	}
	return nil
}

// children calls fn for each child element of the element just started.
func (r *odfReader) children(d *XMLDecoder, fn func(d *XMLDecoder, se xml.StartElement) error) error {
	for {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.StartElement:
			if err := fn(d, t); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

func (r *odfReader) emitText(f *flow, se xml.StartElement, o *odfText, listDepth int) {
	names, st := r.style(attr(se, "style-name"))
	if st.breakPage {
		f.add(block{brk: true})
	}
	txt, inline, display := placeFormulas(o.text.String(), o.formulas)
	trimmed := strings.TrimSpace(txt)
	has := func(subs ...string) bool {
		for _, n := range names {
			for _, s := range subs {
				if strings.Contains(n, s) {
					return true
				}
			}
		}
		return false
	}
	isCode := listDepth == 0 && se.Name.Local == "p" &&
		(st.mono || has("preformatted", "source code", "sourcecode") || (o.chars > 0 && o.monoChars == o.chars))
	if !isCode {
		r.code = nil
	}
	switch {
	case isCode:
		if r.code != nil {
			r.code.text += "\n" + strings.TrimRight(txt, "\n")
		} else {
			f.add(block{cat: "CodeSnippet", text: strings.TrimRight(txt, "\n"), meta: Meta{}})
			r.code = &f.blocks[len(f.blocks)-1]
		}
	case trimmed == "":
	case se.Name.Local == "h":
		lvl, err := strconv.Atoi(attr(se, "outline-level"))
		if err != nil || lvl < 1 {
			lvl = 1
		}
		lvl = min(lvl, 10)
		f.add(block{cat: "Title", text: trimmed, level: lvl, meta: Meta{"category_depth": lvl - 1}})
	case listDepth == 0 && odfHeadingLevel(names) > 0:
		// A text:p in a heading style, often through an automatic style
		// whose parent it is (Writer's import of an HTML <h1>): a heading
		// all the same.
		lvl := odfHeadingLevel(names)
		f.add(block{cat: "Title", text: trimmed, level: lvl, meta: Meta{"category_depth": lvl - 1}})
	case listDepth > 0:
		m := Meta{}
		first := r.numberItem(m, listDepth-1)
		depth := listDepth - 1
		if cur := r.lists.cur; cur != nil {
			if first {
				prev := f.lastBlock()
				pd, _ := prev.meta["category_depth"].(int)
				cur.shift = r.lists.nestShift(pd, prev.cat == "ListItem")
			}
			depth += cur.shift
		}
		m["category_depth"] = min(depth, maxListLevels-1)
		setLinks(m, o.urls, o.urlTexts)
		setEmphasis(m, o.emphasized, o.emphasisTags)
		setInlineFormulas(m, inline)
		o.setAnnotations(m)
		markListStart(m, first, depth, lastOf(f.lastBlock().cat, f.lastBlock().meta))
		f.add(block{cat: "ListItem", text: trimmed, meta: m})
	case has("subtitle", "author", "date"):
		f.add(block{cat: "NarrativeText", text: trimmed, front: true, meta: Meta{}})
	case has("title") && !has("table"):
		f.add(block{cat: "Title", text: trimmed, front: true, meta: Meta{"category_depth": 0}})
	case has("caption", "illustration", "figure"):
		f.add(block{cat: "FigureCaption", text: trimmed, meta: Meta{}})
	default:
		m := Meta{}
		setLinks(m, o.urls, o.urlTexts)
		if slices.ContainsFunc(names, isQuoteStyle) {
			m["quote"] = 1
		}
		setEmphasis(m, o.emphasized, o.emphasisTags)
		setInlineFormulas(m, inline)
		o.setAnnotations(m)
		f.add(block{cat: "NarrativeText", text: trimmed, meta: m})
	}
	for _, e := range o.emails {
		f.add(block{cat: "EmailAddress", text: e, meta: Meta{}})
	}
	for _, fm := range display {
		text, m := formulaBlock(fm)
		f.add(block{cat: "Formula", text: text, meta: m})
	}
	for _, im := range o.images {
		f.add(im)
	}
	if len(o.images)+len(o.formulas) > 0 {
		r.code = nil
	}
}

// odfHeadingLevel is the level of a paragraph style chain's "Heading N"
// style (1 to 10); 0 for none.
func odfHeadingLevel(names []string) int {
	for _, n := range names {
		if v, ok := strings.CutPrefix(n, "heading "); ok {
			if lvl, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && lvl >= 1 && lvl <= 10 {
				return lvl
			}
		}
	}
	return 0
}

// maxODFSpaces caps the spaces text:s elements expand to in one document.
const maxODFSpaces = 1 << 20

// maxODFCol caps a row's column position: far past any sheet's last
// column (16,384), and far from overflowing as repeats add up.
const maxODFCol = 1 << 24

// maxSheetCells caps the cells one table may expand to: ODS repeats rows
// and columns by count (an empty sheet declares a million rows).
const maxSheetCells = 1 << 20

// table reads a table:table. Covered cells are skipped; repeated rows and
// columns expand, but trailing empty ones are dropped and the total is
// capped. sheet ≥ 0 names the sheet in a limit error.
func (r *odfReader) table(d *XMLDecoder, sheet int) (*grid, error) {
	g := &grid{}
	cells := 0
	pendingEmpty := 0 // empty rows not yet materialised
	header := false
	var row []*cell
	var rowRepeat, col int
	next := 0          // the column after the row's last placed cell
	rowHeader := false // the row's cells are <th>
	var cur *cell
	var curRepeat int
	var text []string
	// A sheet's formulas (table:formula), kept beside their values as the
	// XLSX reader keeps them; rowFormulas waits for the row's repeat count.
	curFormula := ""
	type placed struct {
		col int
		f   string
	}
	var rowFormulas []placed
	type occKey struct{ row, col int }
	occ := map[occKey]bool{} // grid positions taken by spans
	depth := 1
	// est is the text and HTML the table will build, counted as it is
	// read so a repeated cell fails before its copies exist.
	var est int64
	maxOut := r.env.Limits.MaxOutputBytes
	limit := func() error {
		what := "table cell count"
		if sheet >= 0 {
			what = fmt.Sprintf("cell count on sheet %d", sheet)
		}
		return limitErr(what, maxSheetCells, int64(cells))
	}
	// fill writes the empty cells between the row's last placed cell and
	// column to, except positions spans from above cover, charging them
	// before they exist.
	fill := func(to int) error {
		if to <= next {
			return nil
		}
		if cells += to - next; cells > maxSheetCells {
			return limit()
		}
		if est += int64(to-next) * 16; est > maxOut {
			return limitErr("output size", maxOut, est)
		}
		for p := next; p < to; p++ {
			if !occ[occKey{len(g.rows) + pendingEmpty, p}] {
				row = append(row, &cell{colspan: 1, rowspan: 1, header: rowHeader, col: p})
			}
		}
		next = to
		return nil
	}
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "table-header-rows":
				header = true
			case "table-row":
				row, col, next = nil, 0, 0
				rowFormulas = rowFormulas[:0]
				rowRepeat = repeatAttr(t, "number-rows-repeated")
				// A sheet's first row is its header, as in XLSX.
				rowHeader = header || (sheet >= 0 && len(g.rows)+pendingEmpty == 0)
			case "table-cell", "covered-table-cell":
				curRepeat = repeatAttr(t, "number-columns-repeated")
				if t.Name.Local == "covered-table-cell" {
					// Positions a span covers are skipped when the next
					// origin cell is placed (pandoc omits covered cells,
					// LibreOffice writes them); a covered cell under a
					// span from the rows above takes its column, so the
					// empty cells after it keep theirs.
					cur = nil
					for i := 0; i < curRepeat && occ[occKey{len(g.rows) + pendingEmpty, col}]; i++ {
						col++
					}
					if err := skip(d); err != nil {
						return nil, err
					}
					depth--
					continue
				}
				for occ[occKey{len(g.rows) + pendingEmpty, col}] {
					col++
				}
				cur = &cell{colspan: max(1, repeatAttr(t, "number-columns-spanned")), rowspan: max(1, repeatAttr(t, "number-rows-spanned")), header: rowHeader, col: col}
				cur.colspan, cur.rowspan = min(cur.colspan, 16384), min(cur.rowspan, 1<<20)
				text = nil
				curFormula = ""
				if sheet >= 0 {
					curFormula = odfFormula(attr(t, "formula"))
				}
			case "p", "h":
				if cur != nil && cur.align == "" {
					_, st := r.style(attr(t, "style-name"))
					cur.align = st.align
				}
				var o odfText
				if err := r.inline(d, &o); err != nil {
					return nil, err
				}
				depth--
				text = append(text, strings.TrimSpace(o.text.String()))
				if len(o.annotations)+len(o.open) > 0 {
					m := Meta{}
					o.setAnnotations(m)
					notes, _ := m["annotations"].([]Meta)
					g.annotate(notes)
				}
			case "table":
				inner, err := r.table(d, sheet)
				if err != nil {
					return nil, err
				}
				depth--
				text = append(text, inner.text())
				g.annotate(inner.annotations)
			}
		case xml.EndElement:
			depth--
			switch t.Name.Local {
			case "table-header-rows":
				header = false
			case "table-cell":
				if cur == nil {
					continue
				}
				cur.text = strings.TrimSpace(strings.Join(text, "\n"))
				if cur.text == "" && cur.colspan == 1 && cur.rowspan == 1 {
					// Empty cells take up columns; they are written only
					// before a cell with text (and, outside a sheet, to the
					// row's end), so a sheet's trailing run of 16,384 empty
					// columns costs nothing.
					col = min(col+curRepeat, maxODFCol)
					cur = nil
					continue
				}
				if err := fill(col); err != nil {
					return nil, err
				}
				// ODF lists every grid column in a row (covered ones as
				// covered-table-cell), so an XML cell is one column wide
				// whatever its span.
				// Repeats share cur.text in the grid but each is written
				// out twice (text and HTML): over the budget before the
				// grid is built, this stops here. The grid's check charges
				// the bytes, once, when the table is whole.
				if est += int64(min(curRepeat, 16384)) * (2*int64(len(cur.text)) + 16); est > maxOut {
					return nil, limitErr("output size", maxOut, est)
				}
				if curFormula != "" {
					if est += int64(min(curRepeat, 16384)) * int64(len(curFormula)+16); est > maxOut {
						return nil, limitErr("output size", maxOut, est)
					}
				}
				for i := 0; i < curRepeat && i < 16384; i++ {
					c := *cur
					c.col = col
					row = append(row, &c)
					if curFormula != "" {
						rowFormulas = append(rowFormulas, placed{col, curFormula})
					}
					if c.colspan > 1 || c.rowspan > 1 {
						if cells += c.colspan * c.rowspan; cells > maxSheetCells {
							return nil, limit()
						}
						for r := 0; r < c.rowspan; r++ {
							for k := 0; k < c.colspan; k++ {
								occ[occKey{len(g.rows) + pendingEmpty + r, col + k}] = true
							}
						}
					}
					col += c.colspan
					next = col
					if cells++; cells > maxSheetCells {
						return nil, limit()
					}
				}
				cur = nil
			case "table-row":
				if sheet < 0 && len(row) > 0 {
					// A text table declares its columns: an empty last
					// cell is still a cell.
					if err := fill(col); err != nil {
						return nil, err
					}
				}
				if len(row) == 0 {
					pendingEmpty += rowRepeat
					continue
				}
				for ; pendingEmpty > 0; pendingEmpty-- {
					g.rows = append(g.rows, nil)
					if cells++; cells > maxSheetCells {
						return nil, limit()
					}
				}
				if rowRepeat > 1 {
					var rowBytes int64
					for _, c := range row {
						rowBytes += 2*int64(len(c.text)) + 16
					}
					if est += int64(rowRepeat-1) * rowBytes; est > maxOut {
						return nil, limitErr("output size", maxOut, est)
					}
				}
				if len(rowFormulas) > 0 && rowRepeat > 1 {
					// Each copy of the row names its formulas again.
					var n int64
					for _, p := range rowFormulas {
						n += int64(len(p.f)) + 16
					}
					if est += int64(rowRepeat-1) * n; est > maxOut {
						return nil, limitErr("output size", maxOut, est)
					}
				}
				for i := 0; i < rowRepeat; i++ {
					for _, p := range rowFormulas {
						if g.formulas == nil {
							g.formulas = map[string]any{}
						}
						g.formulas[colName(p.col+1)+strconv.Itoa(len(g.rows)+1)] = p.f
					}
					cp := make([]*cell, len(row))
					for j, c := range row {
						cc := *c
						cp[j] = &cc
					}
					g.rows = append(g.rows, cp)
					if cells += len(row); cells > maxSheetCells {
						return nil, limit()
					}
				}
			}
		}
	}
	return g, g.check(r.env)
}

// repeatAttr reads a positive count attribute (default 1).
func repeatAttr(se xml.StartElement, local string) int {
	n, err := strconv.Atoi(attr(se, local))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// slide reads one draw:page into a new page of bk.
func (r *odfReader) slide(d *XMLDecoder, se xml.StartElement, bk *Book) error {
	pb := bk.StartPage(attr(se, "name"))
	titled := false
	captionFor := -1 // a figure's Image on pb still waiting for its caption
	var visit func(d *XMLDecoder, se xml.StartElement, notes bool) error
	visit = func(d *XMLDecoder, se xml.StartElement, notes bool) error {
		switch se.Name.Local {
		case "frame", "custom-shape", "rect":
			class := attr(se, "class")
			if class == "page-thumbnail" || class == "page-number" || class == "date-time" || class == "footer" || class == "header" {
				return skip(d)
			}
			// A table frame also holds a preview picture of the table.
			var pics []block
			hasTable := false
			defer func() {
				if !hasTable {
					for _, b := range pics {
						pb.AddImage(b.image, b.mime, b.text, b.meta)
					}
				}
			}()
			title, desc := "", ""
			defer func() {
				// The description first, else the title, as the PPTX
				// reader reads descr and title (Impress keeps them as
				// svg:desc and svg:title); Impress keeps pandoc's descr
				// ("fig:", the title, the file name) as svg:desc: a
				// figure, whose caption comes next and is its alt text.
				alt, figure := pandocDescr(desc)
				if alt == "" && !figure {
					alt = title
				}
				for i := range pics {
					if pics[i].text == "" {
						pics[i].text = alt
					}
				}
				if figure && len(pics) > 0 && !hasTable {
					captionFor = pb.Len() + len(pics) - 1
				}
			}()
			// The text of a shape: a frame's text box, or a custom shape's
			// own paragraphs (every text box Impress draws, PPTX text boxes
			// it re-saved).
			text := func(f *flow) {
				r.code = nil
				for _, b := range f.blocks {
					if b.brk {
						continue
					}
					m := b.meta
					if m == nil {
						m = Meta{}
					}
					cat := b.cat
					switch {
					case notes:
						m["slide_notes"] = true
					case class == "title" && cat != "Image":
						cat = "Title"
						m["category_depth"] = 0
						if !titled {
							bk.SetTitle(b.text)
							titled = true
						}
					case class == "subtitle" && cat != "Image":
						cat = "Title"
						m["category_depth"] = 1
					}
					if b.image != nil {
						pb.AddImage(b.image, b.mime, b.text, m)
						continue
					}
					if captionFor >= 0 && captionFor < pb.Len() && cat == "NarrativeText" && !notes {
						// The figure's caption: a FigureCaption, and the
						// picture's alternative text, as the PPTX reader
						// reads pandoc's (the exports write it once).
						pb.els[captionFor].Text = b.text
						cat = "FigureCaption"
					}
					captionFor = -1
					pb.Add(cat, b.text, m)
				}
			}
			return r.children(d, func(d *XMLDecoder, ch xml.StartElement) error {
				switch ch.Name.Local {
				case "text-box":
					f := &flow{}
					if err := r.children(d, func(d *XMLDecoder, g xml.StartElement) error { return r.textBlock(d, g, f, 0) }); err != nil {
						return err
					}
					text(f)
					return nil
				case "p", "h", "list":
					if se.Name.Local == "frame" {
						return skip(d)
					}
					f := &flow{}
					if err := r.textBlock(d, ch, f, 0); err != nil {
						return err
					}
					text(f)
					return nil
				case "title", "desc":
					v, err := innerText(d)
					if ch.Name.Local == "title" {
						title = strings.Join(strings.Fields(v), " ")
					} else {
						desc = strings.Join(strings.Fields(v), " ")
					}
					return err
				case "table":
					hasTable = true
					g, err := r.table(d, -1)
					if err != nil {
						return err
					}
					b := g.block()
					pb.Add("Table", b.text, b.meta)
					return nil
				case "image":
					href := strings.TrimPrefix(attr(ch, "href"), "./")
					if href != "" && r.z.File(href) != nil {
						pics = append(pics, imageBlock(r.env, r.z, href, ""))
					}
					return skip(d)
				}
				return skip(d)
			})
		case "g":
			return r.children(d, func(d *XMLDecoder, ch xml.StartElement) error { return visit(d, ch, notes) })
		case "notes":
			return r.children(d, func(d *XMLDecoder, ch xml.StartElement) error { return visit(d, ch, true) })
		}
		return skip(d)
	}
	if err := r.children(d, func(d *XMLDecoder, ch xml.StartElement) error { return visit(d, ch, false) }); err != nil {
		return err
	}
	// The master page's date, footer and number placeholders show on
	// this page what the page names and its style displays: its
	// furniture, as the PPTX reader reads the same placeholders.
	st := r.styles[attr(se, "style-name")]
	if t := r.decls["date-time-decl/"+attr(se, "use-date-time-name")]; t != "" && !st.noDate {
		pb.Add("Footer", t, Meta{"placeholder": "date-time"})
	}
	if t := r.decls["footer-decl/"+attr(se, "use-footer-name")]; t != "" && !st.noFooter {
		pb.Add("Footer", t, Meta{"placeholder": "footer"})
	}
	if st.pageNumber {
		pb.Add("PageNumber", strconv.Itoa(bk.Len()), Meta{"placeholder": "page-number"})
	}
	return nil
}

// textWithout is innerText without the text of the named fields (a
// footer's page number differs on every page: it is layout, not content).
func textWithout(d *XMLDecoder, fields ...string) (string, error) {
	var sb strings.Builder
	depth, skipAt := 1, 0
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return sb.String(), err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			for _, f := range fields {
				if skipAt == 0 && t.Name.Local == f {
					skipAt = depth
				}
			}
		case xml.EndElement:
			if depth == skipAt {
				skipAt = 0
			}
			depth--
		case xml.CharData:
			if skipAt == 0 {
				sb.Write(t)
			}
		}
	}
	return sb.String(), nil
}

// odfAnnotation reads an office:annotation just started: its dc:creator,
// dc:date and the text of its paragraphs (one line).
func odfAnnotation(d *XMLDecoder) (author, date, text string, err error) {
	var paras []string
	var cur strings.Builder
	field := ""
	for depth := 1; depth > 0; {
		t, err := d.Token()
		if err != nil {
			return "", "", "", err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			if depth == 2 {
				field = t.Name.Local
			}
		case xml.EndElement:
			depth--
			if depth == 1 && (field == "p" || field == "h" || field == "list") {
				paras = append(paras, cur.String())
				cur.Reset()
			}
		case xml.CharData:
			switch field {
			case "creator":
				author += string(t)
			case "date":
				date += string(t)
			case "p", "h", "list":
				cur.Write(t)
			}
		}
	}
	text = displayLine(strings.Join(strings.Fields(strings.Join(paras, " ")), " "), maxCommentBytes)
	return strings.TrimSpace(author), strings.TrimSpace(date), text, nil
}

// maxODPDecls bounds the footer and date texts a presentation declares
// (Impress writes one per distinct text).
const maxODPDecls = 256

// odfFormula is a sheet cell's table:formula in the notation the XLSX
// reader keeps, so the same workbook says the same in both formats:
// OpenFormula (ODF 1.2 part 2) writes "of:=SUM([.B2:.B7];[$Rates.B1])"
// where Excel, and LibreOffice's own formula bar, write
// "=SUM(B2:B7,Rates!B1)". The namespace prefix goes, each [reference]
// loses its brackets and dots (a sheet becomes "Sheet!"), ";" between
// arguments is ","; text in double quotes is left as written.
func odfFormula(f string) string {
	if i := strings.IndexByte(f, ':'); i > 0 && i+1 < len(f) && f[i+1] == '=' && !strings.ContainsAny(f[:i], "=[\"'") {
		f = f[i+1:]
	}
	if f == "" {
		return ""
	}
	var sb strings.Builder
	for i := 0; i < len(f); {
		switch c := f[i]; c {
		case '"':
			j := quotedEnd(f, i, '"')
			sb.WriteString(f[i:j])
			i = j
		case '[':
			j := i + 1
			for j < len(f) && f[j] != ']' {
				if f[j] == '\'' {
					j = quotedEnd(f, j, '\'')
					continue
				}
				j++
			}
			sb.WriteString(odfReference(f[i+1 : min(j, len(f))]))
			i = j + 1
		case ';':
			sb.WriteByte(',')
			i++
		default:
			sb.WriteByte(c)
			i++
		}
	}
	return sb.String()
}

// quotedEnd is the index after the quote closing the one at f[i] (a
// doubled quote is one quote inside), or len(f).
func quotedEnd(f string, i int, q byte) int {
	for j := i + 1; j < len(f); j++ {
		if f[j] == q {
			if j+1 < len(f) && f[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(f)
}

// odfReference is an OpenFormula reference without its brackets in A1
// notation: ".B2" → B2, ".B2:.B7" → B2:B7, "$Rates.B1" → Rates!B1,
// "$'Q 1'.A1:.B2" → 'Q 1'!A1:B2 (a range's end on the same sheet does
// not name it again).
func odfReference(ref string) string {
	var parts []string
	first := ""
	for start, i := 0, 0; i <= len(ref); {
		if i < len(ref) && ref[i] == '\'' {
			i = quotedEnd(ref, i, '\'')
			continue
		}
		if i < len(ref) && ref[i] != ':' {
			i++
			continue
		}
		part := ref[start:i]
		sheet, cell := "", part
		for k := 0; k < len(part); {
			if part[k] == '\'' {
				k = quotedEnd(part, k, '\'')
				continue
			}
			if part[k] == '.' {
				sheet, cell = strings.TrimPrefix(part[:k], "$"), part[k+1:]
			}
			k++
		}
		switch {
		case sheet == "" || len(parts) > 0 && sheet == first:
			parts = append(parts, cell)
		default:
			parts = append(parts, sheet+"!"+cell)
		}
		if len(parts) == 1 {
			first = sheet
		}
		i++
		start = i
	}
	return strings.Join(parts, ":")
}
