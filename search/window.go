package search

import (
	"github.com/charmbracelet/x/ansi"
)

// Window is the part of a snippet that fits in cols terminal columns,
// centred on its densest run of matches (where most fit in the window),
// cut between words when a word boundary is near, with "…" where it was
// cut; the spans are
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
	a := densestSpan(spans, w, cols)
	lo, hi := 0, 0
	if a >= 0 {
		lo, hi = spans[a].Start, spans[a].Start
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
	if a >= 0 {
		end = min(max(spans[a].End, hi), n)
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
	// Between words: an end inside a word moves to the nearest space
	// within wordSlack runes, never into the match.
	matchLo, matchHi := lo, lo
	if a >= 0 {
		matchLo, matchHi = max(lo, spans[a].Start), min(hi, spans[a].End)
	}
	if lo > 0 && !isSpace(r[lo-1]) && !isSpace(r[lo]) {
		for i := lo; i < min(matchLo, lo+wordSlack); i++ {
			if isSpace(r[i]) {
				lo = i + 1
				break
			}
		}
	}
	if hi < n && !isSpace(r[hi-1]) && !isSpace(r[hi]) {
		for i := hi - 1; i > max(matchHi, hi-wordSlack); i-- {
			if isSpace(r[i]) {
				hi = i
				break
			}
		}
	}
	for lo > 0 && lo < hi && isSpace(r[lo]) && lo < matchLo {
		lo++
	}
	for hi < n && hi > lo && isSpace(r[hi-1]) && hi > matchHi {
		hi--
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

// wordSlack is how far, in runes, a window's end moves to a word boundary.
const wordSlack = 12

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }

// densestSpan is the index of the valid span that starts the cols-wide run
// (w: each rune's width) holding the most spans, the first of equals; -1
// when no span is valid. Spans are in order.
func densestSpan(spans []Span, w []int, cols int) int {
	n := len(w)
	col := make([]int, n+1) // col[i]: columns before rune i
	for i, x := range w {
		col[i+1] = col[i] + x
	}
	best, bestN := -1, 0
	j := 0
	for i, s := range spans {
		if s.Start < 0 || s.Start >= n || s.End < s.Start {
			continue
		}
		j = max(j, i)
		for j < len(spans) && spans[j].Start >= 0 && spans[j].End <= n && col[spans[j].End]-col[s.Start] <= cols-2 {
			j++
		}
		if c := max(1, j-i); c > bestN {
			best, bestN = i, c
		}
	}
	return best
}
