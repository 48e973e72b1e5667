package convert

import (
	"strings"

	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// pdfMaxOutline bounds the outline entries read (a hostile outline can
// loop: siblings and children are followed only this many times), and
// pdfMaxOutlineDepth its nesting.
const (
	pdfMaxOutline      = 4096
	pdfMaxOutlineDepth = 16
	pdfMaxTitleRunes   = 200
)

// pdfOutlineEntry is a bookmark: its title, level (1 at the top) and the
// page it opens, -1 when none.
type pdfOutlineEntry struct {
	title string
	level int
	page  int
}

// readOutline walks the document's bookmarks depth first, in their order.
func (p *pdfPages) readOutline() []pdfOutlineEntry {
	var out []pdfOutlineEntry
	seen := 0
	var walk func(first *references.FPDF_BOOKMARK, level int)
	walk = func(bm *references.FPDF_BOOKMARK, level int) {
		for bm != nil && seen < pdfMaxOutline && level <= pdfMaxOutlineDepth {
			seen++
			e := pdfOutlineEntry{level: level, page: -1}
			if t, err := p.inst.FPDFBookmark_GetTitle(&requests.FPDFBookmark_GetTitle{Bookmark: *bm}); err == nil {
				e.title = outlineTitle(t.Title)
			}
			e.page = p.bookmarkPage(*bm)
			if e.title != "" {
				out = append(out, e)
			}
			if c, err := p.inst.FPDFBookmark_GetFirstChild(&requests.FPDFBookmark_GetFirstChild{Document: p.doc.Document, Bookmark: bm}); err == nil && c.Bookmark != nil {
				walk(c.Bookmark, level+1)
			}
			next, err := p.inst.FPDFBookmark_GetNextSibling(&requests.FPDFBookmark_GetNextSibling{Document: p.doc.Document, Bookmark: *bm})
			if err != nil {
				return
			}
			bm = next.Bookmark
		}
	}
	first, err := p.inst.FPDFBookmark_GetFirstChild(&requests.FPDFBookmark_GetFirstChild{Document: p.doc.Document})
	if err != nil || first.Bookmark == nil {
		return nil
	}
	walk(first.Bookmark, 1)
	return out
}

// bookmarkPage is the page a bookmark opens (its destination, or its
// GoTo action's), -1 when none.
func (p *pdfPages) bookmarkPage(bm references.FPDF_BOOKMARK) int {
	var dest *references.FPDF_DEST
	if d, err := p.inst.FPDFBookmark_GetDest(&requests.FPDFBookmark_GetDest{Document: p.doc.Document, Bookmark: bm}); err == nil && d.Dest != nil {
		dest = d.Dest
	} else if a, err := p.inst.FPDFBookmark_GetAction(&requests.FPDFBookmark_GetAction{Bookmark: bm}); err == nil && a.Action != nil {
		if d, err := p.inst.FPDFAction_GetDest(&requests.FPDFAction_GetDest{Document: p.doc.Document, Action: *a.Action}); err == nil && d.Dest != nil {
			dest = d.Dest
		}
	}
	if dest == nil {
		return -1
	}
	i, err := p.inst.FPDFDest_GetDestPageIndex(&requests.FPDFDest_GetDestPageIndex{Document: p.doc.Document, Dest: *dest})
	if err != nil {
		return -1
	}
	return i.Index
}

// outlineTitle is a bookmark title on one line, bounded.
func outlineTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > pdfMaxTitleRunes {
		s = string(r[:pdfMaxTitleRunes]) + "…"
	}
	return s
}

// applyOutline names each page in the sidebar after the first bookmark
// that opens it, or the section it lies in (the last bookmark before it),
// and returns the levels of the titles by page, which give headings their
// depth.
func applyOutline(outline []pdfOutlineEntry, titles []string) map[int]map[string]int {
	levels := map[int]map[string]int{}
	for _, e := range outline {
		if e.page < 0 || e.page >= len(titles) {
			continue
		}
		if titles[e.page] == "" {
			titles[e.page] = e.title
		}
		if levels[e.page] == nil {
			levels[e.page] = map[string]int{}
		}
		if _, ok := levels[e.page][e.title]; !ok {
			levels[e.page][e.title] = e.level
		}
	}
	// A page no bookmark opens is named after the section it lies in:
	// the last bookmark of the pages before it.
	lastOn := map[int]string{}
	for _, e := range outline {
		if e.page >= 0 {
			lastOn[e.page] = e.title
		}
	}
	last := ""
	for i := range titles {
		if titles[i] == "" {
			titles[i] = last
		}
		if t, ok := lastOn[i]; ok {
			last = t
		}
	}
	return levels
}
