package search

import (
	"github.com/charmbracelet/x/ansi"
)

// Window is the part of a snippet that fits in cols terminal columns,
// centred on its first match, with "…" where it was cut; the spans are
// moved to the window's runes (a span cut by the window is cut with it).
// A Finder sends a snippet wider than a line (about 200 runes, the match
// some way in): clipping it from the right at the screen's width would
// cut the match off.
func Window(snip string, spans []Span, cols int) (string, []Span) {
	r := []rune(snip)
	n := len(r)
	if cols <= 0 {
		return "", nil
	}
	w := make([]int, n)
	total := 0
	for i, c := range r {
		w[i] = ansi.StringWidth(string(c))
		total += w[i]
	}
	if total <= cols {
		return snip, spans
	}
	const ell = 1 // "…" is one column
	lo, hi := 0, 0
	if len(spans) > 0 && spans[0].Start >= 0 && spans[0].Start < n {
		lo, hi = spans[0].Start, spans[0].Start
	}
	used := 0
	fits := func(lo, hi, used int) bool {
		extra := 0
		if lo > 0 {
			extra += ell
		}
		if hi < n {
			extra += ell
		}
		return used+extra <= cols
	}
	// The match first (as much of it as fits), then its context, one
	// rune at a time on the side that has less so far.
	end := hi
	if len(spans) > 0 {
		end = min(spans[0].End, n)
	}
	for hi < end && fits(lo, hi+1, used+w[hi]) {
		used += w[hi]
		hi++
	}
	left, right := 0, 0
	for {
		grewL, grewR := false, false
		if lo > 0 && (left <= right || hi == n) && fits(lo-1, hi, used+w[lo-1]) {
			lo--
			used += w[lo]
			left += w[lo]
			grewL = true
		} else if hi < n && fits(lo, hi+1, used+w[hi]) {
			used += w[hi]
			right += w[hi]
			hi++
			grewR = true
		} else if lo > 0 && fits(lo-1, hi, used+w[lo-1]) {
			lo--
			used += w[lo]
			left += w[lo]
			grewL = true
		}
		if !grewL && !grewR {
			break
		}
	}
	out := string(r[lo:hi])
	shift := -lo
	if lo > 0 {
		out = "…" + out
		shift++
	}
	if hi < n {
		out += "…"
	}
	var moved []Span
	for _, s := range spans {
		a, b := max(s.Start, lo), min(s.End, hi)
		if a >= b {
			continue
		}
		moved = append(moved, Span{Start: a + shift, End: b + shift})
	}
	return out, moved
}
