package render

import (
	"strconv"
	"strings"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// A list item's label comes from what the converter recorded about the
// source's numbering: ele_metadata "ordered" (bool), "item_number" (the
// item's number in its list, counting from the list's real start) and
// "list_style" (decimal, lower-alpha, upper-alpha, lower-roman,
// upper-roman; absent means decimal). Text that already carries its own
// marker ("3.", "a)", "•") keeps it and gets no second one.

// maxLabelNumber bounds the numbers a label is written with: a label is
// for reading, and a hostile item_number must not become a 7-digit gutter.
const maxLabelNumber = 9999

// listLabel is the source's label of an ordered item ("3.", "c.", "iv."),
// or "" for an unordered one.
func listLabel(el *dpe.Element) string {
	n, ok := orderedNumber(el)
	if !ok {
		return ""
	}
	return formatListNumber(n, el.MetaString("list_style")) + "."
}

// orderedNumber is the item's number when the item is ordered: item_number
// when recorded and positive, else 1.
func orderedNumber(el *dpe.Element) (int, bool) {
	if ordered, ok := metaBool(el, "ordered"); !ok || !ordered {
		return 0, false
	}
	n, ok := el.MetaInt("item_number")
	if !ok || n < 1 {
		n = 1
	}
	return min(n, maxLabelNumber), true
}

// formatListNumber writes n in a CSS list-style-type's counter style.
func formatListNumber(n int, style string) string {
	switch strings.ToLower(strings.TrimSpace(style)) {
	case "lower-alpha", "lower-latin", "a":
		return alphaNumber(n, 'a')
	case "upper-alpha", "upper-latin", "A":
		return alphaNumber(n, 'A')
	case "lower-roman", "i":
		return strings.ToLower(romanNumber(n))
	case "upper-roman", "I":
		return romanNumber(n)
	}
	return strconv.Itoa(n)
}

// alphaNumber is the bijective base-26 label: a … z, aa, ab, …
func alphaNumber(n int, first byte) string {
	var b []byte
	for n > 0 {
		n--
		b = append(b, first+byte(n%26))
		n /= 26
	}
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

func romanNumber(n int) string {
	if n >= 4000 {
		return strconv.Itoa(n)
	}
	vals := [...]int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := [...]string{"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"}
	var s strings.Builder
	for i, v := range vals {
		for n >= v {
			s.WriteString(syms[i])
			n -= v
		}
	}
	return s.String()
}

// mdList keeps what a Markdown export needs to nest list items across
// the elements of a page: CommonMark nests an item under its parent only
// when it is indented to the parent's content column, and an indent of
// four or more spaces with no parent item is a code block. So each item
// is indented by its ancestors' content widths, and an item can be at
// most one level deeper than the item before it.
type mdList struct {
	// content[d] is the content column of the open item at depth d.
	content []int
	// last[d] is the open list's last item at depth d: whether the next
	// one at that depth starts another list.
	last []*dpe.Element
}

// item returns the Markdown line of a list item at depth d with marker,
// and records its content column.
func (l *mdList) item(d int, marker, text string) string {
	d = min(d, len(l.content))
	l.content = l.content[:d]
	indent := 0
	if d > 0 {
		indent = l.content[d-1]
	}
	l.content = append(l.content, indent+len(marker)+1)
	return strings.Repeat(" ", indent) + marker + " " + text
}

// end closes every open list (a non-list element came between).
func (l *mdList) end() { l.content, l.last = l.content[:0], l.last[:0] }

// at is the depth el is written at: at most one deeper than the item
// before.
func (l *mdList) at(el *dpe.Element) int { return min(depth(el), len(l.content)) }

// see records el as the last item at its depth; the lists deeper than it
// are closed.
func (l *mdList) see(el *dpe.Element) {
	d := min(l.at(el), len(l.last))
	l.last = append(l.last[:d], el)
}

// separate closes the list el does not continue (splits) and returns
// the separator to write before el: at the outermost depth it ends every
// list; nested, it is indented into the parent item (as pandoc writes it),
// so the parent item goes on and only its inner list ends.
func (l *mdList) separate(el *dpe.Element) string {
	d := l.at(el)
	if d == 0 {
		l.end()
		return listSeparator
	}
	l.content, l.last = l.content[:d], l.last[:min(d, len(l.last))]
	return strings.Repeat(" ", l.content[d-1]) + listSeparator
}

// listSeparator is what a Markdown export writes between two lists that
// follow each other with nothing between: an empty HTML comment, as
// pandoc writes it, since CommonMark continues a list through a blank
// line and ignores the numbers after the first.
const listSeparator = "<!-- -->"

// splits reports whether el, a list item right after the items of
// another list at its depth (outermost, or nested in the same item),
// starts a list of its own that Markdown would join to the one before
// (the same kind of marker). The source's numbering says where one list
// ends: an ordered item whose number does not follow the item before,
// another list style, a numbered list after a bulleted one or the other
// way round, and the converter's list_start (the first item of a list
// right after another).
func (l *mdList) splits(el *dpe.Element) bool {
	d := l.at(el)
	if d >= len(l.last) || l.last[d] == nil {
		return false
	}
	prev := l.last[d]
	n, ordered := orderedNumber(el)
	pn, prevOrdered := orderedNumber(prev)
	start, _ := metaBool(el, "list_start")
	switch {
	case start, ordered != prevOrdered:
	case ordered && (n != pn+1 || !strings.EqualFold(el.MetaString("list_style"), prev.MetaString("list_style"))):
	default:
		return false
	}
	kind := func(el *dpe.Element) string {
		line := strings.TrimSpace(sanitize.Line(el.Text))
		m, rest := listMarker(line)
		m, _ = mdItemMarker(el, m, rest)
		if isDecimalMarker(m) {
			return m[len(m)-1:]
		}
		return m
	}
	return kind(el) == kind(prev)
}

// mdMarker is the CommonMark marker of an item: decimal numbers for
// ordered items, "-" otherwise (a lettered or roman item is a bullet
// item that starts with its label: exportListItem).
func mdMarker(el *dpe.Element) string {
	if n, ok := orderedNumber(el); ok {
		return strconv.Itoa(n) + "."
	}
	return "-"
}
