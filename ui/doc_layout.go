package ui

import (
	"sort"

	"github.com/dpe-tui/dpe-tui/render"
)

// pageLayout is the document's layout part: the shown page's blocks as
// rendered for the content width, the line each starts on, the content
// height and the first line shown. It places lines only; which element
// is selected, and what the blocks hold, are the document's. arrange
// (in Update) keeps it current; View reads it.
type pageLayout struct {
	// h is the content height the layout gave the page: keys scroll by
	// it.
	h int
	// yoff is the first line shown.
	yoff  int
	cache blockCache
}

// blockCache is the shown page rendered: for which page, width and theme
// generation, its blocks, and offs[i], the line block i starts on
// (offs[len(blocks)] is total, the page's height in lines).
type blockCache struct {
	valid   bool
	page    int
	width   int
	gen     int
	blocks  []render.Block
	offs    []int
	total   int
	tvState map[int]render.TableView
}

// place sets the blocks and where each starts. One blank line separates
// blocks (it belongs to no element), except between two that joined
// reports read as one (list items: a list reads as one list).
func (l *pageLayout) place(blocks []render.Block, joined func(a, b int) bool) {
	c := &l.cache
	c.blocks = blocks
	c.offs = make([]int, len(blocks)+1)
	for i, b := range blocks {
		gap := 1
		if i == len(blocks)-1 || i+1 < len(blocks) && joined(b.ElementIndex, blocks[i+1].ElementIndex) {
			gap = 0
		}
		c.offs[i+1] = c.offs[i] + len(b.Lines) + gap
	}
	c.total = c.offs[len(blocks)]
}

// blockOf returns the block index showing element el (blocks may skip
// elements that render to nothing).
func (l *pageLayout) blockOf(el int) int {
	bs := l.cache.blocks
	i := sort.Search(len(bs), func(i int) bool { return bs[i].ElementIndex >= el })
	if i >= len(bs) {
		return len(bs) - 1
	}
	return i
}

// blockAt returns the block containing line y (-1: no blocks).
func (l *pageLayout) blockAt(y int) int {
	offs := l.cache.offs
	if len(offs) < 2 {
		return -1
	}
	i := sort.Search(len(offs)-1, func(i int) bool { return offs[i+1] > y })
	return min(i, len(offs)-2)
}

// clampScroll keeps the first line shown where a screenful fits below
// it, or at the top.
func (l *pageLayout) clampScroll() {
	l.yoff = max(0, min(l.yoff, l.cache.total-l.h))
}

// scrollBy moves the view by d lines, within the page.
func (l *pageLayout) scrollBy(d int) {
	l.yoff += d
	l.clampScroll()
}

// revealBlock scrolls so block b is visible; preferTop shows the top of
// a block taller than the screen, otherwise its bottom (when moving up).
func (l *pageLayout) revealBlock(b int, preferTop bool) {
	if b < 0 || b+1 >= len(l.cache.offs) {
		return
	}
	top, bot := l.cache.offs[b], l.cache.offs[b+1]
	switch {
	case top < l.yoff && (preferTop || bot-top <= l.h):
		l.yoff = top
	case top < l.yoff:
		l.yoff = max(top, bot-l.h)
	case bot > l.yoff+l.h:
		if bot-top <= l.h {
			l.yoff = bot - l.h
		} else if preferTop {
			l.yoff = top
		}
	}
	l.clampScroll()
}
