package render

import (
	"sort"
	"strings"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// captionIndex finds the FigureCaption that belongs to each image of a page
// (see relatedCaption for the rule) in time linear in the page, not in
// images × captions: a page of thousands of images must render in one
// frame.
type captionIndex struct {
	byParent  map[string][]int // caption indices naming an id as parent_id
	byRelated map[string][]int // caption indices listing an id in related_ids
	byID      map[string][]int // caption indices by element_id
}

func newCaptionIndex(p *dpe.Page) *captionIndex {
	var ci *captionIndex
	for j, el := range p.Elements {
		if el == nil || normalizeCategory(el.Category) != catFigureCaption {
			continue
		}
		if ci == nil {
			ci = &captionIndex{byParent: map[string][]int{}, byRelated: map[string][]int{}, byID: map[string][]int{}}
		}
		if id := el.MetaString("parent_id"); id != "" {
			ci.byParent[id] = append(ci.byParent[id], j)
		}
		for _, id := range metaStrings(el, "related_ids") {
			ci.byRelated[id] = append(ci.byRelated[id], j)
		}
		if el.ID != "" {
			ci.byID[el.ID] = append(ci.byID[el.ID], j)
		}
	}
	return ci
}

// caption returns the caption text for the image at i: the first caption in
// page order that names the image or that the image names, skipping the one
// right after it (drawn below it anyway).
func (ci *captionIndex) caption(p *dpe.Page, i int) string {
	if ci == nil {
		return ""
	}
	img := p.Elements[i]
	var cands []int
	if img.ID != "" {
		cands = append(cands, ci.byParent[img.ID]...)
		cands = append(cands, ci.byRelated[img.ID]...)
	}
	for _, id := range metaStrings(img, "related_ids") {
		cands = append(cands, ci.byID[id]...)
	}
	sort.Ints(cands)
	for _, j := range cands {
		if j != i+1 {
			return p.Elements[j].Text
		}
	}
	return ""
}

// altIsNextCaption: the element at i is an Image whose alternative text
// is the words of the FigureCaption right after it (pandoc writes one
// source text as both: img alt and figcaption, descr and a caption
// paragraph). The caption says it; the image does not say it again. The
// document keeps both.
func altIsNextCaption(p *dpe.Page, i int) bool {
	el := p.Elements[i]
	if el == nil || i+1 >= len(p.Elements) || normalizeCategory(el.Category) != catImage {
		return false
	}
	next := p.Elements[i+1]
	return next != nil && normalizeCategory(next.Category) == catFigureCaption &&
		strings.Join(strings.Fields(el.Text), " ") == strings.Join(strings.Fields(next.Text), " ")
}
