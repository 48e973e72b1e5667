package render

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// The index must pick exactly the caption relatedCaption (the rule as
// written, quadratic) picks, on pages mixing every way of linking.
func TestCaptionIndex_MatchesTheRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ids := []string{"", "a", "b", "c", "d"}
	pick := func() string { return ids[rng.IntN(len(ids))] }
	for round := range 300 {
		p := &dpe.Page{Decoded: true}
		for j := range 12 {
			cat := []string{"Image", "FigureCaption", "NarrativeText"}[rng.IntN(3)]
			meta := map[string]json.RawMessage{}
			if id := pick(); id != "" {
				meta["parent_id"], _ = json.Marshal(id)
			}
			if rng.IntN(2) == 0 {
				meta["related_ids"], _ = json.Marshal([]string{pick(), pick()})
			}
			p.Elements = append(p.Elements, &dpe.Element{ID: pick(), Category: cat, Text: fmt.Sprintf("el %d", j), Metadata: meta})
		}
		ci := newCaptionIndex(p)
		for i, el := range p.Elements {
			if normalizeCategory(el.Category) != catImage {
				continue
			}
			if got, want := ci.caption(p, i), relatedCaption(p, i); got != want {
				t.Fatalf("round %d image %d: index says %q, rule says %q", round, i, got, want)
			}
		}
	}
}

// Flatten joins blocks into lines with gap blank lines between them, and
// returns where each block starts.
func Flatten(blocks []Block, gap int) (lines []string, starts []int) {
	starts = make([]int, len(blocks))
	for i, b := range blocks {
		if i > 0 {
			for range gap {
				lines = append(lines, "")
			}
		}
		starts[i] = len(lines)
		lines = append(lines, b.Lines...)
	}
	return lines, starts
}

// relatedCaption is the caption rule written plainly, the oracle the
// linear-time caption index is checked against. It finds the FigureCaption that belongs to the image at i: one
// naming it as parent or related, or one it names as related. A caption
// right after the image is drawn right below it anyway (reading order,
// proposal §4.1), so it is not repeated.
func relatedCaption(p *dpe.Page, i int) string {
	img := p.Elements[i]
	related := map[string]bool{}
	for _, id := range metaStrings(img, "related_ids") {
		related[id] = true
	}
	isCaption := func(el *dpe.Element) bool {
		return el != nil && normalizeCategory(el.Category) == catFigureCaption
	}
	for j, el := range p.Elements {
		if !isCaption(el) || j == i+1 {
			continue
		}
		if img.ID != "" && (el.MetaString("parent_id") == img.ID || contains(metaStrings(el, "related_ids"), img.ID)) {
			return el.Text
		}
		if el.ID != "" && related[el.ID] {
			return el.Text
		}
	}
	return ""
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
