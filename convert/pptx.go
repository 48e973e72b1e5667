package convert

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"unicode"
)

// PPTX (PresentationML) reader: one page per slide, in the order of
// ppt/presentation.xml's sldIdLst. A title or ctrTitle placeholder is a
// Title (depth 0; subTitle depth 1); other text paragraphs are ListItem
// (category_depth = a:pPr lvl) when they carry a bullet, NarrativeText
// otherwise, CodeSnippet when every run is monospace; a:tbl keeps
// gridSpan/rowSpan as colspan/rowspan; p:pic is an Image from the slide's
// relationships; the notes slide's body is NarrativeText with
// ele_metadata slide_notes: true; the date and footer placeholders are
// Footer, a header placeholder Header, the slide number PageNumber (with
// ele_metadata placeholder: date-time, footer, header, page-number).

func openPPTX(ctx context.Context, src *Source, env *Env) (Pages, error) {
	z, err := env.OpenZip(src)
	if err != nil {
		return nil, err
	}
	main := "ppt/presentation.xml"
	if pkg, err := relsOf(env, z, ""); err == nil {
		if r, ok := relOfType(pkg, relOfficeDoc); ok && !r.external {
			main = r.target
		}
	}
	if z.File(main) == nil {
		return nil, errors.New("not a PowerPoint file: the zip has no ppt/presentation.xml")
	}
	rels, err := relsOf(env, z, main)
	if err != nil {
		return nil, err
	}
	var slides []string
	rc, err := z.Open(main)
	if err != nil {
		return nil, err
	}
	d := env.XML(rc)
	for {
		t, err := d.Token()
		if err != nil {
			rc.Close()
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s: %w", main, err)
		}
		if se, ok := t.(xml.StartElement); ok && se.Name.Local == "sldId" {
			if rl, ok := rels[relID(se)]; ok && !rl.external {
				slides = append(slides, rl.target)
			}
		}
	}
	var info Info
	coreProps(env, z, &info)
	bk := NewBook(env)
	for i, s := range slides {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := readSlide(env, z, s, bk); err != nil {
			return nil, fmt.Errorf("slide %d: %w", i+1, err)
		}
	}
	if err := bk.Err(); err != nil {
		return nil, err
	}
	return bk.Pages(info), nil
}

func readSlide(env *Env, z *Zip, part string, bk *Book) error {
	if z.File(part) == nil {
		return fmt.Errorf("part %s is missing", part)
	}
	rels, err := relsOf(env, z, part)
	if err != nil {
		return err
	}
	pb := bk.StartPage("")
	var els []block
	if err := slideBlocks(env, z, part, rels, &els); err != nil {
		return err
	}
	for _, b := range els {
		if b.cat == "Title" && b.meta["category_depth"] == 0 && bk.titles[len(bk.titles)-1] == "" {
			bk.SetTitle(b.text)
		}
	}
	if rl, ok := relOfType(rels, "/notesSlide"); ok && !rl.external && z.File(rl.target) != nil {
		nrels, err := relsOf(env, z, rl.target)
		if err != nil {
			return err
		}
		var notes []block
		if err := slideBlocks(env, z, rl.target, nrels, &notes); err != nil {
			return err
		}
		for _, b := range notes {
			if b.meta["notes_body"] == true && b.cat != "Image" {
				delete(b.meta, "notes_body")
				b.meta["slide_notes"] = true
				b.cat = "NarrativeText"
				delete(b.meta, "category_depth")
				els = append(els, b)
			}
		}
	}
	for _, b := range els {
		delete(b.meta, "notes_body")
		if b.image != nil {
			pb.AddImage(b.image, b.mime, b.text, b.meta)
		} else {
			pb.Add(b.cat, b.text, b.meta)
		}
	}
	return nil
}

// slideBlocks reads the shapes of a slide (or notes slide) part.
func slideBlocks(env *Env, z *Zip, part string, rels map[string]rel, out *[]block) error {
	rc, err := z.Open(part)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := env.XML(rc)
	// A picture's alternative text is its p:cNvPr descr (title when there
	// is no descr), which comes before its blip. A pandoc figure's caption
	// is the text box after it (caption: the image's index in out).
	alt, figure, caption := "", false, -1
	for {
		t, err := d.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("%s: %w", part, err)
		}
		se, ok := t.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "pic":
			alt, figure, caption = "", false, -1
		case "cNvPr":
			if alt, figure = pandocDescr(attr(se, "descr")); alt == "" && !figure {
				alt = strings.Join(strings.Fields(attr(se, "title")), " ")
			}
		case "sp":
			n := len(*out)
			if err := shape(d, out); err != nil {
				return err
			}
			if caption >= 0 && len(*out) > n && (*out)[n].cat == "NarrativeText" {
				(*out)[n].cat = "FigureCaption"
				(*out)[caption].text = (*out)[n].text
			}
			caption = -1
		case "graphicFrame":
			if err := frameTable(env, d, out); err != nil {
				return err
			}
		case "blip":
			if rl, ok := rels[attr(se, "embed")]; ok && !rl.external && z.File(rl.target) != nil {
				if figure {
					caption = len(*out)
				}
				*out = append(*out, imageBlock(env, z, rl.target, alt))
			}
		case "Fallback":
			if err := skip(d); err != nil {
				return err
			}
		}
	}
}

// pandocDescr is a picture's description without what pandoc's writer
// adds to it: pandoc writes descr as the image's title, a blank line and
// the image's source path (LibreOffice re-saves the blank line as
// spaces). "fig:" starts the title of a figure, whose caption, the real
// description, is the text box after the picture and wins over the
// title. Any other descr is the description, its whitespace folded.
func pandocDescr(descr string) (alt string, figure bool) {
	if t, ok := strings.CutPrefix(descr, "fig:"); ok {
		f := strings.Fields(t)
		if len(f) > 0 {
			f = f[:len(f)-1] // the source path, always last
		}
		return strings.Join(f, " "), true
	}
	if i := strings.LastIndex(descr, "\n\n"); i >= 0 {
		if tail := strings.TrimSpace(descr[i:]); tail != "" && !strings.ContainsFunc(tail, unicode.IsSpace) && path.Ext(tail) != "" {
			descr = descr[:i]
		}
	}
	return strings.Join(strings.Fields(descr), " "), false
}

// shape reads one p:sp: its placeholder type and its text paragraphs.
func shape(d *XMLDecoder, out *[]block) error {
	ph := ""
	isPh := false
	depth := 1
	var para strings.Builder
	lvl, bullet, mono, anyRun, runMono, lines := 0, true, true, false, false, false
	// autoNum is the paragraph's a:buAutoNum: its scheme and start.
	var autoNum struct {
		on    bool
		level listLevel
		typ   string
	}
	type slidePara struct {
		text          string
		level         int
		bullet, code  bool
		lines         bool // holds a line break: a code block of its own
		numbered      bool
		num           listLevel
		autoNumScheme string // type and start: another one is another list
	}
	var paras []slidePara
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "ph":
				isPh = true
				ph = attr(t, "type")
			case "p":
				para.Reset()
				lvl, bullet, mono, anyRun, lines = 0, true, true, false, false
				autoNum.on = false
			case "pPr":
				if n, err := strconv.Atoi(attr(t, "lvl")); err == nil && n >= 0 && n < 9 {
					lvl = n
				}
			case "buNone":
				bullet = false
			case "buAutoNum":
				typ := attr(t, "type")
				start, _ := strconv.Atoi(attr(t, "startAt"))
				autoNum.on, autoNum.typ = true, typ
				autoNum.level = listLevel{ordered: true, start: max(1, min(start, 32767)), style: pptxListStyle(typ)}
			case "r":
				runMono = false
			case "latin":
				runMono = isMonospace(attr(t, "typeface"))
			case "t":
				anyRun = true
				mono = mono && runMono
				txt, err := innerText(d)
				if err != nil {
					return err
				}
				depth--
				para.WriteString(txt)
			case "br":
				para.WriteByte('\n')
				lines = true
			case "fld":
				// Slide numbers and dates in body text are layout, not
				// content; in their own placeholder they are the furniture
				// the placeholder shows.
				if typ := attr(t, "type"); (typ == "slidenum" || strings.HasPrefix(typ, "datetime")) && pptxFurniture(ph) == "" {
					if err := skip(d); err != nil {
						return err
					}
					depth--
				}
			}
		case xml.EndElement:
			depth--
			if t.Name.Local == "p" {
				txt := strings.TrimSpace(para.String())
				if txt == "" {
					continue
				}
				paras = append(paras, slidePara{text: txt, level: lvl, bullet: bullet, code: mono && anyRun, lines: lines,
					numbered: autoNum.on && bullet, num: autoNum.level, autoNumScheme: autoNum.typ + "/" + strconv.Itoa(autoNum.level.start)})
			}
		}
	}
	if ph == "sldImg" {
		return nil
	}
	if cat := pptxFurniture(ph); cat != "" {
		// A date, footer, header or slide-number placeholder is the
		// slide's furniture, which exports leave out unless asked; its
		// text is what PowerPoint shows (a field's last computed value).
		var lines []string
		for _, p := range paras {
			lines = append(lines, p.text)
		}
		if txt := strings.Join(lines, " "); txt != "" {
			*out = append(*out, block{cat: cat, text: txt, meta: Meta{"placeholder": pptxPlaceholderName[ph]}})
		}
		return nil
	}
	// Numbered paragraphs count within the shape from their startAt; a
	// paragraph of another kind at their level or above, or another
	// scheme, starts the count again (as PowerPoint numbers them).
	var count listCounter
	lineCode := false // the last block is a one-line code paragraph of this shape
	scheme := [maxListLevels]string{}
	for _, p := range paras {
		b := block{meta: Meta{}}
		lv := max(0, min(p.level, maxListLevels-1))
		if !p.numbered || scheme[lv] != p.autoNumScheme {
			for k := lv; k < maxListLevels; k++ {
				count.next[k], scheme[k] = 0, ""
			}
		}
		if p.numbered {
			scheme[lv] = p.autoNumScheme
		}
		switch {
		case ph == "title" || ph == "ctrTitle":
			b.cat, b.text = "Title", strings.ReplaceAll(p.text, "\n", " ")
			b.meta["category_depth"] = 0
		case ph == "subTitle":
			b.cat, b.text = "Title", p.text
			b.meta["category_depth"] = 1
		case p.code: // every run monospace
			b.cat, b.text = "CodeSnippet", p.text
		case isPh && (ph == "" || ph == "body" || ph == "obj") && p.bullet: // bulleted body text
			b.cat, b.text = "ListItem", p.text
			b.meta["category_depth"] = p.level
		case p.level > 0 && p.bullet:
			b.cat, b.text = "ListItem", p.text
			b.meta["category_depth"] = p.level
		default:
			b.cat, b.text = "NarrativeText", p.text
		}
		if b.cat == "ListItem" && p.numbered {
			setListMeta(b.meta, p.num, count.number(lv, p.num.start))
		}
		if ph == "body" {
			b.meta["notes_body"] = true
		}
		// Code paragraphs of one line each are the lines of one snippet
		// (code typed into PowerPoint); a paragraph that holds line breaks
		// is a whole block, as pandoc and LibreOffice write one, and two
		// such blocks in a row stay two.
		oneLine := b.cat == "CodeSnippet" && !p.lines
		if n := len(*out); oneLine && lineCode && n > 0 && (*out)[n-1].cat == "CodeSnippet" {
			(*out)[n-1].text += "\n" + b.text
			continue
		}
		lineCode = oneLine
		*out = append(*out, b)
	}
	return nil
}

// pptxListStyle is the counter style of an a:buAutoNum type
// (ST_TextAutonumberScheme: arabicPeriod, alphaLcParenR, romanUcPeriod, …).
func pptxListStyle(typ string) string {
	switch {
	case strings.HasPrefix(typ, "alphaLc"):
		return "lower-alpha"
	case strings.HasPrefix(typ, "alphaUc"):
		return "upper-alpha"
	case strings.HasPrefix(typ, "romanLc"):
		return "lower-roman"
	case strings.HasPrefix(typ, "romanUc"):
		return "upper-roman"
	}
	return ""
}

// frameTable reads a p:graphicFrame; only tables (a:tbl) produce a block.
func frameTable(env *Env, d *XMLDecoder, out *[]block) error {
	g := &grid{}
	found := false
	var cur *cell
	col := 0
	skipCell, firstRow := false, false
	var text strings.Builder
	depth := 1
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "tbl":
				found = true
			case "tblPr":
				firstRow = attr(t, "firstRow") == "1" || attr(t, "firstRow") == "true"
			case "tr":
				g.rows = append(g.rows, nil)
				col = 0
			case "tc":
				skipCell = attr(t, "hMerge") == "1" || attr(t, "vMerge") == "1" || attr(t, "hMerge") == "true" || attr(t, "vMerge") == "true"
				cur = &cell{colspan: max(1, min(repeatAttr(t, "gridSpan"), 1000)), rowspan: max(1, min(repeatAttr(t, "rowSpan"), 100000)), col: col, header: firstRow && len(g.rows) == 1}
				text.Reset()
			case "t":
				txt, err := innerText(d)
				if err != nil {
					return err
				}
				depth--
				text.WriteString(txt)
			}
		case xml.EndElement:
			depth--
			switch t.Name.Local {
			case "p":
				text.WriteByte('\n')
			case "tc":
				if cur == nil || len(g.rows) == 0 {
					continue
				}
				// Every grid column has an a:tc (continuations carry
				// hMerge/vMerge), so a cell is one column of XML order.
				if !skipCell {
					cur.text = strings.TrimSpace(text.String())
					g.rows[len(g.rows)-1] = append(g.rows[len(g.rows)-1], cur)
				}
				col++
				cur = nil
			}
		}
	}
	if !found {
		return nil
	}
	if err := g.check(env); err != nil {
		return err
	}
	*out = append(*out, g.block())
	return nil
}

// pptxFurniture is the category of a placeholder type that holds slide
// furniture (ST_PlaceholderType dt, ftr, hdr, sldNum), else "".
func pptxFurniture(ph string) string {
	switch ph {
	case "dt", "ftr":
		return "Footer"
	case "hdr":
		return "Header"
	case "sldNum":
		return "PageNumber"
	}
	return ""
}

// pptxPlaceholderName names a furniture placeholder in ele_metadata
// placeholder, in the words ODP's presentation:class uses, so both
// formats say the same.
var pptxPlaceholderName = map[string]string{"dt": "date-time", "ftr": "footer", "hdr": "header", "sldNum": "page-number"}
