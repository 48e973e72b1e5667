package ui

import (
	"testing"

	"github.com/dpe-tui/dpe-tui/render"
)

// laidOut is a layout of blocks of the given heights for elements 0, 2,
// 4, … (element 1, 3, … render to nothing), h lines high; joined joins
// elements 4 and 6 (two list items).
func laidOut(h int, heights ...int) *pageLayout {
	var bs []render.Block
	for i, n := range heights {
		bs = append(bs, render.Block{ElementIndex: 2 * i, Lines: make([]string, n)})
	}
	l := &pageLayout{h: h}
	l.place(bs, func(a, b int) bool { return a == 4 && b == 6 })
	return l
}

// TestPageLayout_Place: a blank line between blocks, none after the last
// nor between two joined ones.
func TestPageLayout_Place(t *testing.T) {
	l := laidOut(5, 3, 1, 2, 2, 4)
	want := []int{0, 4, 6, 8, 11, 15}
	if len(l.cache.offs) != len(want) || l.cache.total != 15 {
		t.Fatalf("offsets %v total %d, want %v total 15", l.cache.offs, l.cache.total, want)
	}
	for i, o := range want {
		if l.cache.offs[i] != o {
			t.Fatalf("offsets %v, want %v", l.cache.offs, want)
		}
	}
}

// TestPageLayout_BlockOfAndAt: an element that renders to nothing maps to
// the next block shown; a line to the block it (or its gap) belongs to.
func TestPageLayout_BlockOfAndAt(t *testing.T) {
	l := laidOut(5, 3, 1, 2)
	for el, b := range map[int]int{0: 0, 1: 1, 2: 1, 4: 2, 9: 2} {
		if got := l.blockOf(el); got != b {
			t.Errorf("blockOf(%d) = %d, want %d", el, got, b)
		}
	}
	for y, b := range map[int]int{0: 0, 3: 0, 4: 1, 5: 1, 6: 2, 99: 2} {
		if got := l.blockAt(y); got != b {
			t.Errorf("blockAt(%d) = %d, want %d", y, got, b)
		}
	}
	if got := (&pageLayout{}).blockAt(0); got != -1 {
		t.Errorf("blockAt on no blocks = %d, want -1", got)
	}
}

// TestPageLayout_ScrollStaysOnThePage: the first line shown never leaves
// a part of the screen empty below the page, nor goes above it.
func TestPageLayout_ScrollStaysOnThePage(t *testing.T) {
	l := laidOut(5, 3, 1, 2, 2, 4) // 15 lines
	l.scrollBy(100)
	if l.yoff != 10 {
		t.Fatalf("scrolled past the end: yoff %d, want 10", l.yoff)
	}
	l.scrollBy(-100)
	if l.yoff != 0 {
		t.Fatalf("scrolled above the top: yoff %d, want 0", l.yoff)
	}
	short := laidOut(20, 3)
	short.scrollBy(2)
	if short.yoff != 0 {
		t.Fatalf("a page shorter than the screen scrolled: yoff %d", short.yoff)
	}
}

// TestPageLayout_RevealBlock: a block below the screen comes up to its
// bottom line; one above comes down to its top; a block taller than the
// screen shows its top when asked to (moving down), else its bottom.
func TestPageLayout_RevealBlock(t *testing.T) {
	l := laidOut(5, 3, 1, 2, 8, 1) // offs 0 4 6 8 17 18 (blocks 2 and 3 joined)
	l.revealBlock(2, true)         // lines 6–7
	if l.yoff != 3 {
		t.Fatalf("block below the screen: yoff %d, want 3 (its last line at the bottom)", l.yoff)
	}
	l.revealBlock(0, false)
	if l.yoff != 0 {
		t.Fatalf("block above the screen: yoff %d, want 0", l.yoff)
	}
	l.revealBlock(3, true) // 9 lines with its gap, taller than 5
	if l.yoff != 8 {
		t.Fatalf("tall block, preferTop: yoff %d, want 8 (its top)", l.yoff)
	}
	l.scrollBy(100) // 13: the last screenful
	l.revealBlock(3, false)
	if l.yoff != 12 {
		t.Fatalf("tall block from below: yoff %d, want 12 (its bottom at the screen's)", l.yoff)
	}
	l.revealBlock(-1, true)
	l.revealBlock(99, true)
	if l.yoff != 12 {
		t.Fatalf("no such block moved the view to %d", l.yoff)
	}
}
