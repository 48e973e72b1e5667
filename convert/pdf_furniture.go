package convert

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/klippa-app/go-pdfium/requests"
)

// Running headers and footers are told from body text by repetition, not
// by position alone: a line in the top or bottom band of a page is
// furniture only when a neighbouring page (one or two pages away, for
// headers that alternate left and right) has the same text at the same
// place, page-number digits allowed to differ — by as much as the page
// numbers do: "Sentence 44.0 lorem ipsum" at a page's foot and "Sentence
// 46.0 lorem ipsum" at the same place on the next page are body text
// that happens to fall alike, not a running line. The end of a sentence
// carried over to the next page, a section heading at a page's top or a
// table's header cells sit in those bands too, and do not repeat.

// pdfFurnitureBand is the share of the page height, at the top and at
// the bottom, where running headers and footers are looked for.
const pdfFurnitureBand = 0.1

// pdfMaxCandidates bounds the band lines compared on one page.
const pdfMaxCandidates = 16

// pdfBox is a rectangle in PDF user space.
type pdfBox struct{ left, bottom, right, top float64 }

func (b pdfBox) overlaps(o pdfBox) bool {
	return b.left < o.right && o.left < b.right && b.bottom < o.top && o.bottom < b.top
}

// pdfCandidate is a line in a page's top or bottom band: where it is and
// its text with digits folded (furnitureKey).
type pdfCandidate struct {
	box  pdfBox
	key  string // size and text
	text string // furnitureKey of the text alone
	nums []int  // the numbers in the text (lineNumbers)
}

// furnitureKey is text as compared across pages: spaces collapsed, each
// run of digits one "#", and a page number of any kind ("12", "xii",
// "Page 3 of 9") the same key.
func furnitureKey(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if pageNumberText.MatchString(text) {
		return "\x00page"
	}
	return digitRun.ReplaceAllString(text, "#")
}

var digitRun = regexp.MustCompile(`[0-9]+`)

// lineNumbers is the numbers in text, in order: its digit runs, or the
// value of a lone roman numeral ("xii").
func lineNumbers(text string) []int {
	text = strings.TrimSpace(text)
	if v := romanValue(text); v > 0 && len(text) <= 6 {
		return []int{v}
	}
	var out []int
	for _, d := range digitRun.FindAllString(text, -1) {
		n, err := strconv.Atoi(d)
		if err != nil || len(d) > 9 {
			n = -1 // too long for a page number: compared as text only
		}
		out = append(out, n)
	}
	return out
}

// numbersAlike reports whether the numbers of a line on one page (a) and
// of the line at its place delta pages on (b) are those of one running
// line: each number the same, or grown by delta as a page number grows.
// A digit-folded key that matches while the numbers move otherwise is two
// body lines ("Sentence 44.0" and "Sentence 46.0").
func numbersAlike(a, b []int, delta int) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] && (a[k] < 0 || b[k]-a[k] != delta) {
			return false
		}
	}
	return true
}

// bandCandidates is the lines of runs in the top and bottom bands of a
// page of height h, in the body's size or smaller: running lines are
// set small, and a heading at a page's top ("Part 2" after "Part 1") is
// larger. The size is part of the key.
func bandCandidates(runs []pdfRun, h float64) []pdfCandidate {
	body := bodySize(runs)
	var band []pdfRun
	for _, r := range runs {
		if r.bottom > (1-pdfFurnitureBand)*h || r.top < pdfFurnitureBand*h {
			band = append(band, r)
		}
	}
	if len(band) == 0 {
		return nil
	}
	var out []pdfCandidate
	for _, l := range groupLines(band) {
		if len(out) == pdfMaxCandidates {
			break
		}
		if l.size > 1.1*body {
			continue
		}
		raw := l.text()
		text := furnitureKey(raw)
		out = append(out, pdfCandidate{box: pdfBox{l.left, l.bottom, l.right, l.top},
			key: fmt.Sprintf("%.1f\x00%s", math.Round(l.size*2)/2, text), text: text, nums: lineNumbers(raw)})
	}
	return out
}

// sameSpot reports whether a and b, delta pages after a, are one running
// line: the same key, numbers alike, the same baseline within 2 pt, and
// overlapping horizontally (a centred "Page 9" and "Page 10" differ in
// width).
func sameSpot(a, b pdfCandidate, delta int) bool {
	return a.key == b.key && numbersAlike(a.nums, b.nums, delta) && math.Abs(a.box.bottom-b.box.bottom) < 2 &&
		a.box.left < b.box.right && b.box.left < a.box.right
}

// runningLines returns the boxes of page i's band lines that repeat on a
// neighbouring page, and remembers page i's lines for the pages after it.
// Pages already read are compared from memory; a page read on its own
// (no neighbour read before it: the first page, or `get --page N`) looks
// at its neighbours' text in the same places.
func (p *pdfPages) runningLines(i int, cands []pdfCandidate) []pdfBox {
	if p.bands == nil {
		p.bands = map[int][]pdfCandidate{}
	}
	p.bands[i] = cands
	if len(cands) == 0 {
		return nil
	}
	matched := make([]bool, len(cands))
	for _, j := range []int{i - 1, i + 1, i - 2, i + 2} {
		other, ok := p.bands[j]
		if !ok {
			continue
		}
		for k, c := range cands {
			for _, o := range other {
				if sameSpot(c, o, j-i) {
					matched[k] = true
				}
			}
		}
	}
	_, before := p.bands[i-1]
	_, after := p.bands[i+1]
	if !before && !after {
		for _, j := range []int{i - 1, i + 1} {
			if j < 0 || j >= len(p.info.PageTitles) {
				continue
			}
			texts := p.textAt(j, cands)
			for k, c := range cands {
				if k < len(texts) && furnitureKey(texts[k]) == c.text && numbersAlike(c.nums, lineNumbers(texts[k]), j-i) {
					matched[k] = true
				}
			}
		}
	}
	var out []pdfBox
	for k, c := range cands {
		if matched[k] {
			out = append(out, c.box)
		}
	}
	return out
}

// textAt is the text of page j inside each candidate's box, widened by
// two of its heights to each side (a page number grows a digit) and
// nothing when page j cannot be read.
func (p *pdfPages) textAt(j int, cands []pdfCandidate) []string {
	tp, err := p.inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{
		Page: requests.Page{ByIndex: &requests.PageByIndex{Document: p.doc.Document, Index: j}},
	})
	if err != nil {
		return nil
	}
	defer p.inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	out := make([]string, len(cands))
	for k, c := range cands {
		hgt := c.box.top - c.box.bottom
		r, err := p.inst.FPDFText_GetBoundedText(&requests.FPDFText_GetBoundedText{TextPage: tp.TextPage,
			Left: c.box.left - 2*hgt, Right: c.box.right + 2*hgt, Top: c.box.top + 1, Bottom: c.box.bottom - 1})
		if err == nil && len(r.Text) <= 4*pdfMaxAlt {
			out[k] = r.Text
		}
	}
	return out
}

// runningBlock reports whether bl is one of the page's running lines.
func runningBlock(bl *pdfBlock, running []pdfBox) bool {
	return runningBox(pdfBox{bl.left, bl.bottom, bl.right, bl.top}, running)
}

// runningBox reports whether b overlaps one of the page's running lines.
func runningBox(b pdfBox, running []pdfBox) bool {
	for _, r := range running {
		if b.overlaps(r) {
			return true
		}
	}
	return false
}
