package convert

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// List numbering as the sources define it. A ListItem's ele_metadata
// says "ordered" (true for a numbered item), "item_number" (the number the
// source shows, counting from the list's real start) and "list_style"
// (lower-alpha, upper-alpha, lower-roman, upper-roman; absent for decimal),
// which is what render writes the label from.

// maxListLevels bounds the levels one list keeps counters for (DOCX has
// 9, ODF 10; a hostile file may claim more).
const maxListLevels = 10

// listLevel is one level of a list definition.
type listLevel struct {
	ordered bool
	start   int    // first number; 0 means 1
	style   string // CSS counter style; "" decimal
	// indent is where an ODF level's text starts, in points from the
	// margin (fo:margin-left of its label alignment, or text:space-before
	// plus text:min-label-width); 0 when the style does not say.
	indent float64
}

// listCounter numbers the items of one list: one counter per level, and
// an item resets the counters of the levels below it, so a nested list
// starts again under each parent item.
type listCounter struct {
	next [maxListLevels]int // the number the next item at a level gets; 0: not started
}

// number is the number of an item at level lvl of a list whose level
// starts at start.
func (c *listCounter) number(lvl, start int) int {
	lvl = max(0, min(lvl, maxListLevels-1))
	if start < 1 {
		start = 1
	}
	if c.next[lvl] == 0 {
		c.next[lvl] = start
	}
	n := c.next[lvl]
	c.next[lvl]++
	for k := lvl + 1; k < maxListLevels; k++ {
		c.next[k] = 0
	}
	return n
}

// setListMeta records an item's numbering in m (nothing for a bullet).
func setListMeta(m Meta, lv listLevel, n int) {
	if !lv.ordered {
		return
	}
	m["ordered"] = true
	m["item_number"] = n
	if lv.style != "" {
		m["list_style"] = lv.style
	}
}

// markListStart marks the first item of a list that comes right after
// the items of another one at its depth (last is the element before it):
// ele_metadata list_start true. Two such lists (pandoc's "<!-- -->"
// between two, a bulleted list after another, also nested in one item)
// read as one list once the elements are side by side, in the TUI as in
// a Markdown export, unless the boundary is recorded; numbering alone
// cannot say it for bullets. A nested list's first item right after its
// parent item (last one level up) starts no list of that kind.
func markListStart(m Meta, first bool, depth int, last lastElement) {
	if first && (last.cat == "ListItem" || last.cat == "CheckBox") && last.depth >= depth {
		m["list_start"] = true
	}
}

// lastElement is the category and category_depth of the element before.
type lastElement struct {
	cat   string
	depth int
}

// lastOf is m's element as lastElement.
func lastOf(cat string, m Meta) lastElement {
	d, _ := m["category_depth"].(int)
	return lastElement{cat: cat, depth: d}
}

// docxListStyle is the counter style of a w:numFmt value; ok is false for
// bullets and unnumbered levels.
func docxListStyle(numFmt string) (style string, ok bool) {
	switch numFmt {
	case "bullet", "none", "":
		return "", false
	case "lowerLetter":
		return "lower-alpha", true
	case "upperLetter":
		return "upper-alpha", true
	case "lowerRoman":
		return "lower-roman", true
	case "upperRoman":
		return "upper-roman", true
	}
	return "", true
}

// odfListStyle is the counter style of an ODF style:num-format ("1", "a",
// "A", "i", "I"); ok is false when the level shows no number.
func odfListStyle(numFormat string) (style string, ok bool) {
	switch strings.TrimSpace(numFormat) {
	case "":
		return "", false
	case "a":
		return "lower-alpha", true
	case "A":
		return "upper-alpha", true
	case "i":
		return "lower-roman", true
	case "I":
		return "upper-roman", true
	}
	return "", true
}

// maxODFListStyles bounds the text:list-style definitions kept.
const maxODFListStyles = 4096

// odfLists is the list state of an ODT reader: the list styles by name
// and the list being read.
type odfLists struct {
	styles map[string][]listLevel // index: text:level − 1
	cur    *odfList               // the outermost list being read, nil outside lists
	last   *odfList               // the previous outermost list (text:continue-numbering)
	byID   map[string]*odfList    // outermost lists by xml:id (text:continue-list)
}

// odfList is one outermost text:list with the styles of its open levels.
type odfList struct {
	c listCounter
	// style[d] is the list style in effect at depth d (a nested list
	// without text:style-name keeps its parent's).
	style [maxListLevels]string
	// pending: the current text:list-item's first paragraph is not yet
	// emitted (later paragraphs of the item carry no number); start is
	// its text:start-value, 0 if none.
	pending bool
	start   int
	// started: an item was numbered; continues: the list goes on from
	// an earlier one.
	started, continues bool
	// shift is the depth of the list's first level (nestShift).
	shift int
	// fresh[d]: a list nested at depth d has begun and numbered no item
	// yet; it restarts its level's numbering (as Writer shows it) unless
	// it says text:continue-numbering.
	fresh [maxListLevels]bool
}

// readListStyle reads the text:list-style just started (consuming it).
func (l *odfLists) readListStyle(d *XMLDecoder, se xml.StartElement) error {
	name := attr(se, "name")
	levels := make([]listLevel, 0, 3)
	depth := 1
	at := -1 // the level whose properties are being read
	for depth > 0 {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "list-level-properties":
				if at >= 0 {
					levels[at].indent = odfLength(attr(t, "space-before")) + odfLength(attr(t, "min-label-width"))
				}
				continue
			case "list-level-label-alignment":
				if at >= 0 && attr(t, "margin-left") != "" {
					levels[at].indent = odfLength(attr(t, "margin-left"))
				}
				continue
			}
			if !strings.HasPrefix(t.Name.Local, "list-level-style-") {
				continue
			}
			at = -1
			k, err := strconv.Atoi(attr(t, "level"))
			if err != nil || k < 1 || k > maxListLevels {
				continue
			}
			for len(levels) < k {
				levels = append(levels, listLevel{start: -1})
			}
			lv := listLevel{start: 1}
			if t.Name.Local == "list-level-style-number" {
				lv.style, lv.ordered = odfListStyle(attr(t, "num-format"))
				if n, err := strconv.Atoi(attr(t, "start-value")); err == nil {
					lv.start = n
				}
			}
			levels[k-1] = lv
			at = k - 1
		case xml.EndElement:
			depth--
		}
	}
	if l.styles == nil {
		l.styles = map[string][]listLevel{}
	}
	if name != "" && (len(l.styles) < maxODFListStyles || l.styles[name] != nil) {
		l.styles[name] = levels
	}
	return nil
}

// odfLength is an ODF length ("0.25in", "0.635cm", "18pt") in points; 0
// when it is not one.
func odfLength(s string) float64 {
	s = strings.TrimSpace(s)
	for _, u := range []struct {
		unit string
		pt   float64
	}{{"in", 72}, {"cm", 72 / 2.54}, {"mm", 72 / 25.4}, {"pt", 1}, {"pc", 12}, {"px", 0.75}} {
		if v, ok := strings.CutSuffix(s, u.unit); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f > -1e6 && f < 1e6 {
				return f * u.pt
			}
			return 0
		}
	}
	return 0
}

// nestShift is how much deeper than its own levels an outermost list
// reads: Writer writes a Word list nested under another (a "List Number
// 2" paragraph under a "List Bullet" one) as a list of its own after the
// item it belongs to, indented further by its style. So a list whose
// first level starts to the right of the text of the list item right
// before it (prevDepth, the element before being that item) nests one
// level below that item; otherwise it does not (0).
func (l *odfLists) nestShift(prevDepth int, prevIsItem bool) int {
	cur, last := l.cur, l.last
	if !prevIsItem || cur == nil || last == nil {
		return 0
	}
	own := prevDepth - last.shift
	if own < 0 || own >= maxListLevels {
		return 0
	}
	prev := l.level(last.style[own], own).indent
	mine := l.level(cur.style[0], 0).indent
	if prev <= 0 || mine <= prev+0.5 {
		return 0
	}
	return min(prevDepth+1, maxListLevels-1)
}

// level is the numbering of depth d under list style name: its level
// d+1, or, when the style does not define that level (pandoc gives a
// list nested in another its own one-level style), the deepest level it
// defines above it.
func (l *odfLists) level(name string, d int) listLevel {
	levels := l.styles[name]
	for k := min(d, len(levels)-1); k >= 0; k-- {
		if levels[k].start >= 0 {
			return levels[k]
		}
	}
	return listLevel{}
}

// list reads a text:list at depth d (0 outermost) and its items; each
// child of an item goes to block at depth d+1.
func (r *odfReader) list(d *XMLDecoder, se xml.StartElement, depth int, block func(d *XMLDecoder, se xml.StartElement) error) error {
	l := &r.lists
	outer := l.cur == nil
	if outer {
		cur := &odfList{}
		from := l.byID[attr(se, "continue-list")]
		if from == nil && attr(se, "continue-numbering") == "true" {
			from = l.last
		}
		if from != nil {
			cur.c, cur.style, cur.continues, cur.shift = from.c, from.style, true, from.shift
		}
		if id := xmlID(se); id != "" && len(l.byID) < maxODFListStyles {
			if l.byID == nil {
				l.byID = map[string]*odfList{}
			}
			l.byID[id] = cur
		}
		l.cur = cur
		defer func() { l.last, l.cur = cur, nil }()
	}
	cur := l.cur
	if d := min(depth, maxListLevels-1); !outer && attr(se, "continue-numbering") != "true" {
		cur.c.next[d] = 0
		cur.fresh[d] = true
	}
	if d := min(depth, maxListLevels-1); attr(se, "style-name") != "" {
		cur.style[d] = attr(se, "style-name")
	} else if d > 0 {
		cur.style[d] = cur.style[d-1]
	}
	return r.children(d, func(d *XMLDecoder, ch xml.StartElement) error {
		if ch.Name.Local != "list-item" && ch.Name.Local != "list-header" {
			return skip(d)
		}
		cur.pending = ch.Name.Local == "list-item"
		cur.start, _ = strconv.Atoi(attr(ch, "start-value"))
		return r.children(d, block)
	})
}

// numberItem records the numbering of a list item's paragraph at depth
// d: the item's first paragraph gets the next number at its level. It
// reports the first item of a list that does not continue another
// (text:continue-list, text:continue-numbering): of an outermost list, or
// of a list nested in an item.
func (r *odfReader) numberItem(m Meta, d int) bool {
	cur := r.lists.cur
	if cur == nil || !cur.pending {
		return false
	}
	cur.pending = false
	d = min(d, maxListLevels-1)
	first := (!cur.started && !cur.continues) || cur.fresh[d]
	cur.started, cur.fresh[d] = true, false
	lv := r.lists.level(cur.style[d], d)
	if cur.start > 0 {
		cur.c.next[d] = cur.start
	}
	setListMeta(m, lv, cur.c.number(d, lv.start))
	return first
}

// xmlID is the xml:id attribute of se.
func xmlID(se xml.StartElement) string {
	for _, a := range se.Attr {
		if a.Name.Local == "id" && (a.Name.Space == "xml" || a.Name.Space == "http://www.w3.org/XML/1998/namespace") {
			return a.Value
		}
	}
	return ""
}

// isQuoteStyle reports a paragraph style (its name, lowercased, spaces
// for ODF's "_20_") that sets a block quote: Word's Quote and Intense
// Quote, pandoc's DOCX "Block Text", ODF's "Quotations". Its paragraphs
// say ele_metadata quote 1, as a Markdown block quote's do.
func isQuoteStyle(name string) bool {
	switch strings.TrimSpace(name) {
	case "quote", "intense quote", "block text", "quotations", "blockquote":
		return true
	}
	return false
}
