package convert

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// DOCX (WordprocessingML) reader: archive/zip + an encoding/xml token
// stream over word/document.xml, with styles.xml for heading levels and
// code styles, numbering.xml for list kinds, the relationships for images
// and links, headers/footers and footnotes.
//
// Mapping: a paragraph whose style (or its basedOn chain) has an outline
// level, or is "Heading N", is a Title with category_depth N−1 (the
// "Title" style is depth 0 too, front matter); numPr/ilvl is a ListItem of
// that depth; "Source Code"-like styles or all-monospace runs are a
// CodeSnippet (consecutive ones merge; Word keeps no language); a style
// named "… Caption" is a FigureCaption; m:oMath is a Formula holding the
// math's text; tables keep gridSpan/vMerge as colspan/rowspan.
//
// Footnotes and endnotes: the reference becomes "[n]" in the text and the
// note itself a NarrativeText "[n] text" (ele_metadata footnote: n) after
// the last block of the document, as a printed book does with endnotes.

const (
	relOfficeDoc = "/officeDocument"
	relImage     = "/image"
	relHeader    = "/header"
	relFooter    = "/footer"
	relFootnotes = "/footnotes"
	relEndnotes  = "/endnotes"
	relStyles    = "/styles"
	relNumbering = "/numbering"
	relHyperlink = "/hyperlink"
	relComments  = "/comments"
)

func openDOCX(ctx context.Context, src *Source, env *Env) (Pages, error) {
	z, err := env.OpenZip(src)
	if err != nil {
		return nil, err
	}
	main := "word/document.xml"
	if pkg, err := relsOf(env, z, ""); err == nil {
		if r, ok := relOfType(pkg, relOfficeDoc); ok && !r.external {
			main = r.target
		}
	}
	if z.File(main) == nil {
		return nil, errors.New("not a Word document: the zip has no word/document.xml")
	}
	r := &docxReader{env: env, z: z, main: main}
	if r.rels, err = relsOf(env, z, main); err != nil {
		return nil, err
	}
	if err := r.readStyles(); err != nil {
		return nil, err
	}
	if err := r.readNumbering(); err != nil {
		return nil, err
	}
	if err := r.readNotes(); err != nil {
		return nil, err
	}
	if err := r.readComments(); err != nil {
		return nil, err
	}
	f := &flow{env: env}
	if err := r.body(ctx, f); err != nil {
		return nil, err
	}
	if f.err != nil {
		return nil, f.err
	}
	// Headers and footers repeat on every page: a few short ones.
	for _, id := range r.headerIDs[:min(len(r.headerIDs), maxRunning)] {
		if t := r.partText(id); t != "" {
			f.headers = append(f.headers, trunc(t, maxRunningText))
		}
	}
	for _, id := range r.footerIDs[:min(len(r.footerIDs), maxRunning)] {
		if t := r.partText(id); t != "" {
			f.footers = append(f.footers, trunc(t, maxRunningText))
		}
	}
	for _, n := range r.used {
		f.add(block{cat: "NarrativeText", text: fmt.Sprintf("[%d] %s", n.num, n.text), meta: Meta{"footnote": n.num}})
	}
	var info Info
	coreProps(env, z, &info)
	return f.pages(env, info), nil
}

// maxRunning and maxRunningText bound the headers/footers (count, bytes)
// that are repeated on every page.
const (
	maxRunning     = 3
	maxRunningText = 2048
	// maxDocxLists bounds the lists (w:num instances) counted.
	maxDocxLists = 4096
)

// trunc cuts s to at most n bytes at a rune boundary.
func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

type docxStyle struct {
	name, basedOn string
	outline       int // 1-based outline level; 0 none
	mono          bool
	numbered      bool
	numID         string
	ilvl          int
}

type docxNote struct {
	num  int
	text string
}

type docxReader struct {
	env    *Env
	z      *Zip
	main   string
	rels   map[string]rel
	styles map[string]docxStyle
	// levels[numId][ilvl] is the numbering of a list level; counters
	// count the items of each numId so far.
	levels   map[string]map[int]listLevel
	counters map[string]*listCounter
	// comments are word/comments.xml's by w:id; annotated, those already
	// recorded on a paragraph.
	comments  map[string]docxComment
	annotated map[string]bool
	// numIDs[d] is the w:num of the last list item at depth d, since an
	// item at a lower depth: an item of another w:num starts a list
	// (markListStart); a nested list has a w:num of its own.
	numIDs  []string
	notes   map[string]string // "f<id>" / "e<id>" → text
	used    []docxNote        // notes in reference order
	noteNum map[string]int

	// codeWhole: the open CodeSnippet came from one paragraph with line
	// breaks of its own, a whole block no next paragraph extends.
	codeWhole bool

	headerIDs, footerIDs []string
	seenHF               map[string]bool
}

// partXML opens a part for token reading.
func (r *docxReader) partXML(name string) (*XMLDecoder, io.Closer, error) {
	rc, err := r.z.Open(name)
	if err != nil {
		return nil, nil, err
	}
	return r.env.XML(rc), rc, nil
}

// relPartXML is partXML of the part the document's relationship of type
// rel points at; a nil decoder when there is none.
func (r *docxReader) relPartXML(rel string) (*XMLDecoder, io.Closer, error) {
	rl, ok := relOfType(r.rels, rel)
	if !ok || r.z.File(rl.target) == nil {
		return nil, nil, nil
	}
	return r.partXML(rl.target)
}

func (r *docxReader) readStyles() error {
	r.styles = map[string]docxStyle{}
	d, c, err := r.relPartXML(relStyles)
	if err != nil || d == nil {
		return err
	}
	defer c.Close()
	var id string
	var cur docxStyle
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("styles: %w", err)
		}
		switch t := t.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "style":
				id, cur = attr(t, "styleId"), docxStyle{}
			case "name":
				cur.name = attr(t, "val")
			case "basedOn":
				cur.basedOn = attr(t, "val")
			case "outlineLvl":
				if n, err := strconv.Atoi(attr(t, "val")); err == nil && n >= 0 && n < 9 {
					cur.outline = n + 1
				}
			case "rFonts":
				cur.mono = cur.mono || isMonospace(attr(t, "ascii")) || isMonospace(attr(t, "hAnsi"))
			case "numId":
				cur.numID = attr(t, "val")
				cur.numbered = cur.numID != "0"
			case "ilvl":
				cur.ilvl, _ = strconv.Atoi(attr(t, "val"))
			}
		case xml.EndElement:
			if t.Name.Local == "style" && id != "" {
				r.styles[id] = cur
				id = ""
			}
		}
	}
}

// style resolves a paragraph style through its basedOn chain (bounded:
// a cycle is not followed forever).
func (r *docxReader) style(id string) docxStyle {
	s, ok := r.styles[id]
	if !ok {
		s.name = id
	}
	out := s
	for i := 0; i < 16 && s.basedOn != ""; i++ {
		s = r.styles[s.basedOn]
		if out.outline == 0 {
			out.outline = s.outline
		}
		out.mono = out.mono || s.mono
		if !out.numbered && s.numbered {
			out.numbered, out.numID, out.ilvl = true, s.numID, s.ilvl
		}
	}
	if out.outline == 0 {
		if n, ok := headingNumber(out.name); ok {
			out.outline = n
		} else if n, ok := headingNumber(id); ok {
			out.outline = n
		}
	}
	return out
}

// headingNumber reads "heading 2" / "Heading2" style names.
func headingNumber(name string) (int, bool) {
	n := strings.ToLower(strings.ReplaceAll(name, " ", ""))
	if !strings.HasPrefix(n, "heading") {
		return 0, false
	}
	v, err := strconv.Atoi(n[len("heading"):])
	if err != nil || v < 1 || v > 9 {
		return 0, false
	}
	return v, true
}

func (r *docxReader) readNumbering() error {
	r.levels, r.counters = map[string]map[int]listLevel{}, map[string]*listCounter{}
	d, c, err := r.relPartXML(relNumbering)
	if err != nil || d == nil {
		return err
	}
	defer c.Close()
	abstract := map[string]map[int]listLevel{}
	numToAbs := map[string]string{}
	starts := map[string]map[int]int{} // w:num's lvlOverride/startOverride
	var absID, numID string
	lvl := -1
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("numbering: %w", err)
		}
		se, ok := t.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "abstractNum":
			absID, numID = attr(se, "abstractNumId"), ""
			abstract[absID] = map[int]listLevel{}
		case "num":
			numID, absID = attr(se, "numId"), ""
		case "abstractNumId":
			if numID != "" {
				numToAbs[numID] = attr(se, "val")
			}
		case "lvl", "lvlOverride":
			lvl, _ = strconv.Atoi(attr(se, "ilvl"))
		case "start", "startOverride":
			n, err := strconv.Atoi(attr(se, "val"))
			if err != nil || lvl < 0 || lvl >= maxListLevels {
				continue
			}
			if se.Name.Local == "startOverride" && numID != "" {
				if starts[numID] == nil {
					starts[numID] = map[int]int{}
				}
				starts[numID][lvl] = n
			} else if absID != "" {
				lv := abstract[absID][lvl]
				lv.start = n
				abstract[absID][lvl] = lv
			}
		case "numFmt":
			if absID != "" && lvl >= 0 && lvl < maxListLevels {
				lv := abstract[absID][lvl]
				lv.style, lv.ordered = docxListStyle(attr(se, "val"))
				abstract[absID][lvl] = lv
			}
		}
	}
	for n, a := range numToAbs {
		lvls := map[int]listLevel{}
		for k, lv := range abstract[a] {
			if s, ok := starts[n][k]; ok {
				lv.start = s
			}
			lvls[k] = lv
		}
		r.levels[n] = lvls
	}
	return nil
}

// listItem numbers an item of list numID at level ilvl: Word counts each
// w:num on its own, and an item restarts the levels below it.
func (r *docxReader) listItem(m Meta, numID string, ilvl int) {
	lv := r.levels[numID][ilvl]
	c := r.counters[numID]
	if c == nil {
		if len(r.counters) >= maxDocxLists {
			return
		}
		c = &listCounter{}
		r.counters[numID] = c
	}
	setListMeta(m, lv, c.number(ilvl, lv.start))
}

func (r *docxReader) readNotes() error {
	r.notes, r.noteNum = map[string]string{}, map[string]int{}
	for _, k := range []struct{ rel, prefix string }{{relFootnotes, "f"}, {relEndnotes, "e"}} {
		err := r.eachPartEntry(k.rel, "notes", func(se xml.StartElement, txt string) {
			if typ := attr(se, "type"); typ == "" || typ == "normal" {
				r.notes[k.prefix+attr(se, "id")] = strings.TrimSpace(txt)
			}
		}, "footnote", "endnote")
		if err != nil {
			return err
		}
	}
	return nil
}

// eachPartEntry reads the part the document's relationship rel points at
// (none: nothing to read) and calls f with each start element named one
// of names and its plain text (plainText): the entries of the footnotes,
// endnotes and comments parts. what names the part in errors.
func (r *docxReader) eachPartEntry(rel, what string, f func(se xml.StartElement, txt string), names ...string) error {
	d, c, err := r.relPartXML(rel)
	if err != nil || d == nil {
		return err
	}
	defer c.Close()
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		se, ok := t.(xml.StartElement)
		if !ok || !slices.Contains(names, se.Name.Local) {
			continue
		}
		txt, err := r.plainText(d)
		if err != nil {
			return err
		}
		f(se, txt)
	}
}

// plainText is the w:t text of the element just started (paragraphs
// separated by newlines), consuming it.
func (r *docxReader) plainText(d *XMLDecoder) (string, error) {
	var sb strings.Builder
	depth, inT := 1, false
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return "", err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "t":
				inT = true
			case "tab":
				sb.WriteByte('\t')
			case "br":
				sb.WriteByte('\n')
			}
		case xml.EndElement:
			depth--
			switch t.Name.Local {
			case "t":
				inT = false
			case "p":
				sb.WriteByte('\n')
			}
		case xml.CharData:
			if inT {
				sb.Write(t)
			}
		}
	}
	return strings.TrimRight(sb.String(), "\n"), nil
}

// partText is the text of a header/footer part by relationship id.
func (r *docxReader) partText(id string) string {
	rl, ok := r.rels[id]
	if !ok || rl.external || r.z.File(rl.target) == nil {
		return ""
	}
	d, c, err := r.partXML(rl.target)
	if err != nil {
		return ""
	}
	defer c.Close()
	for {
		t, err := d.Token()
		if err != nil {
			return ""
		}
		if _, ok := t.(xml.StartElement); ok {
			txt, err := r.plainText(d)
			if err != nil {
				return ""
			}
			return strings.TrimSpace(txt)
		}
	}
}

// body walks w:body. Containers (sdt, customXml, ins …) are transparent:
// only paragraphs, tables and section properties are acted on.
func (r *docxReader) body(ctx context.Context, f *flow) error {
	if err := r.bodyTokens(ctx, f); err != nil && ctx.Err() == nil {
		return fmt.Errorf("%s: %w", r.main, err)
	}
	return ctx.Err()
}

func (r *docxReader) bodyTokens(ctx context.Context, f *flow) error {
	d, c, err := r.partXML(r.main)
	if err != nil {
		return err
	}
	defer c.Close()
	var code *block // the CodeSnippet being extended by following code paragraphs
	n := 0
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		se, ok := t.(xml.StartElement)
		if !ok {
			continue
		}
		if n++; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if f.err != nil {
				return f.err
			}
		}
		switch se.Name.Local {
		case "p":
			p, err := r.paragraph(d)
			if err != nil {
				return err
			}
			code = r.emit(f, p, code)
		case "tbl":
			var pics []block
			g, err := r.table(d, &pics)
			if err != nil {
				return err
			}
			f.add(g.block())
			// Pictures in cells follow the table (a grid cell holds text).
			for _, p := range pics {
				f.add(p)
			}
			code = nil
		case "sectPr":
			if err := r.sectPr(d); err != nil {
				return err
			}
		case "Fallback":
			// mc:AlternateContent repeats its content for old readers.
			if err := skip(d); err != nil {
				return err
			}
		}
	}
}

func (r *docxReader) sectPr(d *XMLDecoder) error {
	if r.seenHF == nil {
		r.seenHF = map[string]bool{}
	}
	depth := 1
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			id := relID(t)
			if id == "" || r.seenHF[id] {
				continue
			}
			switch t.Name.Local {
			case "headerReference":
				r.seenHF[id] = true
				r.headerIDs = append(r.headerIDs, id)
			case "footerReference":
				r.seenHF[id] = true
				r.footerIDs = append(r.footerIDs, id)
			}
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// para is one parsed w:p.
type para struct {
	style              string
	align              string // direct w:jc (dpe.AlignWord)
	outline            int    // direct w:outlineLvl + 1; 0 none
	numbered           bool
	numID              string
	ilvl               int
	text               strings.Builder
	allMono, anyRun    bool
	breakBefore, brk   bool // page break before / inside
	sectionEnd         bool
	images             []block
	formulas           []mathOut // every formula, its line in text (placeFormulas)
	inline             []mathOut // those that stand in a sentence (emit)
	linkURLs, linkText []string
	emails             []string
	// comments are the annotations anchored here (readComments); open
	// is where each comment's range started in text.
	comments []Meta
	open     map[string]int
	// emphasized and emphasisTags are the bold, italic and code runs
	// (consecutive runs of one kind joined), as setEmphasis records them.
	emphasized, emphasisTags []string
}

// runMarks are the inline marks of the run being read: w:b, w:i, and code
// (pandoc's VerbatimChar character style, or a monospace font).
type runMarks struct{ bold, italic, code bool }

// tag is the emphasized_text_tags value of a run with marks m: code over
// bold over italic.
func (m runMarks) tag() string {
	switch {
	case m.code:
		return "code"
	case m.bold:
		return "b"
	case m.italic:
		return "i"
	}
	return ""
}

// onOff is a w:b / w:i toggle: on unless w:val says 0, false or off.
func onOff(t xml.StartElement) bool {
	switch attr(t, "val") {
	case "0", "false", "off":
		return false
	}
	return true
}

func (r *docxReader) paragraph(d *XMLDecoder) (*para, error) {
	p := &para{allMono: true}
	depth, inT := 1, false
	runMono := false
	var marks runMarks
	var spanTag string
	var span strings.Builder
	endSpan := func() {
		if s := strings.Join(strings.Fields(span.String()), " "); spanTag != "" && s != "" && len(p.emphasized) < maxEmphasisSpans {
			p.emphasized = append(p.emphasized, s)
			p.emphasisTags = append(p.emphasisTags, spanTag)
		}
		span.Reset()
	}
	var link *rel
	var linkText strings.Builder
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "pStyle":
				p.style = attr(t, "val")
			case "jc":
				if p.align == "" {
					p.align = dpe.AlignWord(attr(t, "val"))
				}
			case "outlineLvl":
				// Direct formatting can make any paragraph a heading.
				if n, err := strconv.Atoi(attr(t, "val")); err == nil && n >= 0 && n < 9 {
					p.outline = n + 1
				}
			case "numId":
				p.numID = attr(t, "val")
				p.numbered = p.numID != "0"
			case "ilvl":
				p.ilvl, _ = strconv.Atoi(attr(t, "val"))
			case "pageBreakBefore":
				p.breakBefore = attr(t, "val") != "0" && attr(t, "val") != "false"
			case "sectPr":
				p.sectionEnd = true
				if err := r.sectPr(d); err != nil {
					return nil, err
				}
				depth--
			case "r":
				runMono, marks = false, runMarks{}
			case "b":
				marks.bold = onOff(t)
			case "i":
				marks.italic = onOff(t)
			case "rStyle":
				marks.code = marks.code || strings.Contains(strings.ToLower(attr(t, "val")), "verbatim")
			case "rFonts":
				runMono = isMonospace(attr(t, "ascii")) || isMonospace(attr(t, "hAnsi"))
			case "t":
				inT = true
				p.anyRun = true
				if !runMono {
					p.allMono = false
				}
			case "tab":
				p.text.WriteByte('\t')
			case "br", "cr":
				if attr(t, "type") == "page" {
					p.brk = true
				} else {
					p.text.WriteByte('\n')
				}
			case "hyperlink":
				// w:anchor names a bookmark of this document (pandoc
				// writes one per heading, named by its id): the link is
				// "#name", which the browser follows to the heading.
				anchor := attr(t, "anchor")
				if rl, ok := r.rels[relID(t)]; ok && rl.external {
					if anchor != "" {
						rl.target += "#" + anchor
					}
					link = &rl
					linkText.Reset()
				} else if anchor != "" {
					link = &rel{target: "#" + anchor}
					linkText.Reset()
				}
			case "commentRangeStart":
				if p.open == nil {
					p.open = map[string]int{}
				}
				p.open[attr(t, "id")] = p.text.Len()
			case "commentRangeEnd", "commentReference":
				// The range's end, or the reference of a comment without
				// one: the annotation is this paragraph's, once. A range
				// begun in an earlier paragraph covers this one's text
				// up to here.
				id := attr(t, "id")
				if r.annotated[id] || len(p.comments) >= maxDocxComments {
					break
				}
				covers := ""
				if start, ok := p.open[id]; ok {
					covers = p.text.String()[start:]
				} else if t.Name.Local == "commentRangeEnd" {
					covers = p.text.String()
				}
				if a, ok := r.annotation(id, covers); ok {
					r.annotated[id] = true
					p.comments = append(p.comments, a)
				}
			case "footnoteReference", "endnoteReference":
				key := "f" + attr(t, "id")
				if t.Name.Local == "endnoteReference" {
					key = "e" + attr(t, "id")
				}
				if txt, ok := r.notes[key]; ok {
					num, seen := r.noteNum[key]
					if !seen {
						num = len(r.used) + 1
						r.noteNum[key] = num
						r.used = append(r.used, docxNote{num: num, text: txt})
					}
					p.text.WriteString("[" + strconv.Itoa(num) + "]")
				}
			case "oMath":
				tree, err := readMathTree(d, t)
				if err != nil {
					return nil, err
				}
				depth--
				if fm := ommlMath(tree); strings.TrimSpace(fm.lin) != "" {
					p.formulas = append(p.formulas, fm)
					p.text.WriteString(formulaLine(fm))
				}
			case "drawing", "pict", "object":
				imgs, err := r.drawing(d)
				if err != nil {
					return nil, err
				}
				depth--
				p.images = append(p.images, imgs...)
			case "Fallback", "instrText", "delText":
				if err := skip(d); err != nil {
					return nil, err
				}
				depth--
			}
		case xml.EndElement:
			depth--
			switch t.Name.Local {
			case "t":
				inT = false
			case "hyperlink":
				if link != nil {
					p.linkURLs = append(p.linkURLs, link.target)
					p.linkText = append(p.linkText, linkText.String())
					if addr, ok := strings.CutPrefix(link.target, "mailto:"); ok {
						addr, _, _ = strings.Cut(addr, "?")
						p.emails = append(p.emails, addr)
					}
					link = nil
				}
			}
		case xml.CharData:
			if inT {
				p.text.Write(t)
				if link != nil {
					linkText.Write(t)
				}
				m := marks
				m.code = m.code || runMono
				if tag := m.tag(); tag != spanTag {
					endSpan()
					spanTag = tag
				}
				span.Write(t)
			}
		}
	}
	endSpan()
	return p, nil
}

// drawing collects the pictures of a w:drawing / w:pict: a:blip r:embed
// (DrawingML) or v:imagedata r:id (VML), alt text from wp:docPr descr.
func (r *docxReader) drawing(d *XMLDecoder) ([]block, error) {
	var out []block
	alt := ""
	depth := 1
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "docPr":
				alt = attr(t, "descr")
				if alt == "" {
					alt = attr(t, "title")
				}
			case "blip", "imagedata":
				id := attr(t, "embed")
				if id == "" {
					id = relID(t)
				}
				if rl, ok := r.rels[id]; ok && !rl.external && r.z.File(rl.target) != nil {
					out = append(out, imageBlock(r.env, r.z, rl.target, alt))
				}
			}
		case xml.EndElement:
			depth--
		}
	}
	return out, nil
}

// emit turns a paragraph into blocks; code is the open CodeSnippet that a
// following code paragraph extends (returned: the new open one).
func (r *docxReader) emit(f *flow, p *para, code *block) *block {
	if p.breakBefore {
		f.add(block{brk: true})
	}
	st := r.style(p.style)
	if p.outline > 0 {
		st.outline = p.outline
	}
	lname := strings.ToLower(st.name)
	txt, inline, display := placeFormulas(p.text.String(), p.formulas)
	p.inline, p.formulas = inline, display
	trimmed := strings.TrimSpace(txt)
	isCode := strings.Contains(strings.ReplaceAll(lname, " ", ""), "sourcecode") || lname == "code" ||
		strings.Contains(lname, "preformatted") || st.mono || (p.anyRun && p.allMono && trimmed != "")
	var next *block
	switch {
	case trimmed == "" && len(p.images) == 0 && len(p.formulas) == 0:
		// Empty paragraphs are spacing; in code they are blank lines.
		if code != nil && isCode {
			code.text += "\n"
			next = code
		}
	case isCode:
		// A code paragraph with line breaks of its own is a whole block
		// (pandoc writes each code block as one SourceCode paragraph, its
		// lines split by w:br); paragraphs without are the lines of one
		// block (Word users type a line per paragraph).
		lines := strings.TrimRight(txt, "\n")
		whole := strings.Contains(lines, "\n")
		if code != nil && !whole && !r.codeWhole {
			code.text += "\n" + lines
			next = code
		} else {
			f.add(block{cat: "CodeSnippet", text: lines, meta: Meta{}})
			next = &f.blocks[len(f.blocks)-1]
			r.codeWhole = whole
		}
	case trimmed == "":
		// Only pictures or math: they follow below.
	case st.outline > 0:
		f.add(block{cat: "Title", text: trimmed, level: st.outline, meta: Meta{"category_depth": st.outline - 1}})
	case lname == "title" || lname == "subtitle":
		depth := 0
		if lname == "subtitle" {
			depth = 1
		}
		f.add(block{cat: "Title", text: trimmed, front: true, meta: Meta{"category_depth": depth}})
	case lname == "author" || lname == "date" || lname == "abstract":
		f.add(block{cat: "NarrativeText", text: trimmed, front: true, meta: Meta{}})
	case strings.Contains(lname, "caption"):
		// The picture keeps its alternative text even when it repeats
		// the caption (pandoc writes both): render says it once.
		f.add(block{cat: "FigureCaption", text: trimmed, meta: Meta{}})
	case p.numbered || st.numbered:
		ilvl, numID := p.ilvl, p.numID
		depth := ilvl
		if !p.numbered {
			// Numbering from the style: Word's "List Bullet 2" styles
			// number at the style's ilvl (0) of a list of their own and
			// say the depth in the name.
			ilvl, numID, depth = st.ilvl, st.numID, st.ilvl
			if f := strings.Fields(lname); len(f) == 3 && f[0] == "list" {
				if n, err := strconv.Atoi(f[2]); err == nil && n >= 1 && n <= 9 {
					depth = n - 1
				}
			}
		}
		m := Meta{"category_depth": max(0, min(depth, 8))}
		markListStart(m, numID != r.numAt(depth), depth, lastOf(f.lastBlock().cat, f.lastBlock().meta))
		r.setNumAt(depth, numID)
		r.listItem(m, numID, ilvl)
		addLinks(m, p)
		f.add(block{cat: "ListItem", text: trimmed, meta: m})
	case trimmed != "":
		m := Meta{}
		addLinks(m, p)
		if isQuoteStyle(lname) {
			m["quote"] = 1
		}
		f.add(block{cat: "NarrativeText", text: trimmed, meta: m})
	}
	if !isCode {
		next = nil
	}
	for _, e := range p.emails {
		f.add(block{cat: "EmailAddress", text: e, meta: Meta{}})
	}
	for _, fm := range p.formulas {
		text, m := formulaBlock(fm)
		f.add(block{cat: "Formula", text: text, meta: m})
	}
	for _, im := range p.images {
		f.add(im)
	}
	if p.brk || p.sectionEnd {
		f.add(block{brk: true})
		next = nil
	}
	return next
}

func addLinks(m Meta, p *para) {
	setLinks(m, p.linkURLs, p.linkText)
	if len(p.comments) > 0 {
		m["annotations"] = p.comments
	}
	setEmphasis(m, p.emphasized, p.emphasisTags)
	setInlineFormulas(m, p.inline)
}

// docxComment is one w:comment of word/comments.xml.
type docxComment struct{ author, date, text string }

// maxDocxComments bounds the comments kept, and maxCommentBytes the text
// of each.
const maxDocxComments, maxCommentBytes = 4096, 4096

// readComments reads word/comments.xml: each comment's author, date and
// text, by w:id. The paragraphs they are anchored in record them as
// annotations (para.comments).
func (r *docxReader) readComments() error {
	r.comments, r.annotated = map[string]docxComment{}, map[string]bool{}
	return r.eachPartEntry(relComments, "comments", func(se xml.StartElement, txt string) {
		if len(r.comments) < maxDocxComments {
			r.comments[attr(se, "id")] = docxComment{author: attr(se, "author"), date: attr(se, "date"),
				text: displayLine(strings.TrimSpace(txt), maxCommentBytes)}
		}
	}, "comment")
}

// annotation is a comment anchored in a paragraph, as ele_metadata
// annotations records it: who wrote what about which words (covers: the
// paragraph's text between the comment's range start and end, "" for a
// comment on a point).
func (r *docxReader) annotation(id, covers string) (Meta, bool) {
	c, ok := r.comments[id]
	if !ok {
		return nil, false
	}
	return annotationMeta(c.author, c.date, c.text, covers), true
}

// numAt is the w:num of the last list item at depth d ("" for none).
func (r *docxReader) numAt(d int) string {
	if d < len(r.numIDs) {
		return r.numIDs[d]
	}
	return ""
}

// setNumAt records an item of numID at depth d: the deeper lists of the
// item before are closed.
func (r *docxReader) setNumAt(d int, numID string) {
	for len(r.numIDs) <= d {
		r.numIDs = append(r.numIDs, "")
	}
	r.numIDs = r.numIDs[:d+1]
	r.numIDs[d] = numID
}

// annotationMeta is one entry of ele_metadata annotations, the shape
// DOCX comments and ODT office:annotation share: text, covers (the words
// the comment is about, "" for a point), and author and date when known.
func annotationMeta(author, date, text, covers string) Meta {
	a := Meta{"text": text, "covers": strings.TrimSpace(covers)}
	if author != "" {
		a["author"] = author
	}
	if date != "" {
		a["date"] = date
	}
	return a
}

// table reads a w:tbl. gridSpan widens a cell; vMerge without "restart"
// continues the cell above (its rowspan grows, no cell is emitted). A
// nested table is flattened into its cell's text.
func (r *docxReader) table(d *XMLDecoder, pics *[]block) (*grid, error) {
	g := &grid{}
	// owner[col] is the latest origin cell starting a vertical run in
	// that grid column (a lookup, not a scan: merges may run for
	// thousands of rows).
	type origin struct {
		c   *cell
		row int
	}
	owner := map[int]origin{}
	var cur *cell
	col := 0
	vcont := false
	header := false
	var cellText []string
	depth := 1
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "tr":
				g.rows = append(g.rows, nil)
				col, header = 0, false
			case "tblHeader":
				header = attr(t, "val") != "false" && attr(t, "val") != "0"
			case "tc":
				cur = &cell{colspan: 1, rowspan: 1, col: col, header: header}
				vcont, cellText = false, nil
			case "gridSpan":
				if cur != nil {
					if n, err := strconv.Atoi(attr(t, "val")); err == nil && n > 1 && n < 1000 {
						cur.colspan = n
					}
				}
			case "vMerge":
				v := attr(t, "val")
				vcont = v == "" || v == "continue"
			case "p":
				p, err := r.paragraph(d)
				if err != nil {
					return nil, err
				}
				depth--
				cellText = append(cellText, strings.TrimSpace(p.text.String()))
				*pics = append(*pics, p.images...)
				g.annotate(p.comments)
				if cur != nil && cur.align == "" {
					cur.align = p.align
				}
			case "tbl":
				inner, err := r.table(d, pics)
				if err != nil {
					return nil, err
				}
				depth--
				cellText = append(cellText, inner.text())
				g.annotate(inner.annotations)
			}
		case xml.EndElement:
			depth--
			if t.Name.Local == "tc" && cur != nil && len(g.rows) > 0 {
				row := len(g.rows) - 1
				if vcont {
					if up, ok := owner[cur.col]; ok && up.row+up.c.rowspan >= row {
						up.c.rowspan = row - up.row + 1
						col += cur.colspan
						cur = nil
						continue
					}
				}
				cur.text = strings.TrimSpace(strings.Join(cellText, "\n"))
				g.rows[row] = append(g.rows[row], cur)
				for k := cur.col; k < cur.col+cur.colspan; k++ {
					owner[k] = origin{cur, row}
				}
				col += cur.colspan
				cur = nil
			}
		}
	}
	return g, g.check(r.env)
}
