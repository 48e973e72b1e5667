package convert

import (
	"math"
	"sort"
	"strings"
)

// A ruled table is read from its drawn borders, not from how its text
// lines up: the ruling lines (thin paths) that meet form a grid, a cell
// is a rectangle of it, a border missing inside the grid joins two cells
// (colspan, rowspan), and every line of text inside a cell is that cell's
// (a wrapped cell stays one cell).

// pdfRuleTol is how far apart two ruling lines may be and still be one
// (a double border), or miss a crossing and still meet, in points.
const pdfRuleTol = 2.5

// pdfSeg is a horizontal (at y, from a to b in x) or vertical (at x, from
// a to b in y) ruling line.
type pdfSeg struct {
	at, a, b float64
}

// mergeSegs joins segments on one line (at within pdfRuleTol) whose
// extents touch.
func mergeSegs(segs []pdfSeg) []pdfSeg {
	sort.Slice(segs, func(i, j int) bool {
		if math.Abs(segs[i].at-segs[j].at) > pdfRuleTol/2 {
			return segs[i].at < segs[j].at
		}
		return segs[i].a < segs[j].a
	})
	var out []pdfSeg
	for _, s := range segs {
		if n := len(out); n > 0 && math.Abs(out[n-1].at-s.at) <= pdfRuleTol/2 && s.a <= out[n-1].b+pdfRuleTol {
			out[n-1].b = math.Max(out[n-1].b, s.b)
			continue
		}
		out = append(out, s)
	}
	return out
}

// covers reports whether one of segs lies at position at and spans v.
func covers(segs []pdfSeg, at, v float64) bool {
	for _, s := range segs {
		if math.Abs(s.at-at) <= pdfRuleTol && v >= s.a-pdfRuleTol && v <= s.b+pdfRuleTol {
			return true
		}
	}
	return false
}

// clusterPositions is the distinct positions of vs (within pdfRuleTol),
// ascending.
func clusterPositions(vs []float64) []float64 {
	sort.Float64s(vs)
	var out []float64
	for _, v := range vs {
		if n := len(out); n > 0 && v-out[n-1] <= pdfRuleTol {
			continue
		}
		out = append(out, v)
	}
	return out
}

// ruledTables finds the ruled tables among rules and returns them with the
// runs they do not hold.
func ruledTables(rules []pdfBox, runs []pdfRun) ([]*pdfTable, []pdfRun) {
	var hs, vs []pdfSeg
	for _, r := range rules {
		if r.top-r.bottom <= pdfRuleWidth {
			hs = append(hs, pdfSeg{(r.top + r.bottom) / 2, r.left, r.right})
		} else {
			vs = append(vs, pdfSeg{(r.left + r.right) / 2, r.bottom, r.top})
		}
	}
	if len(hs) < 2 {
		return nil, runs
	}
	hs, vs = mergeSegs(hs), mergeSegs(vs)
	// Connected groups of lines: a horizontal and a vertical one meet
	// when each reaches the other.
	n := len(hs) + len(vs)
	parent := make([]int, n)
	for k := range parent {
		parent[k] = k
	}
	find := func(k int) int {
		for parent[k] != k {
			parent[k] = parent[parent[k]]
			k = parent[k]
		}
		return k
	}
	for i, h := range hs {
		for j, v := range vs {
			if v.at >= h.a-pdfRuleTol && v.at <= h.b+pdfRuleTol && h.at >= v.a-pdfRuleTol && h.at <= v.b+pdfRuleTol {
				parent[find(i)] = find(len(hs) + j)
			}
		}
	}
	groups := map[int][2][]pdfSeg{}
	for i, h := range hs {
		g := groups[find(i)]
		g[0] = append(g[0], h)
		groups[find(i)] = g
	}
	for j, v := range vs {
		g := groups[find(len(hs)+j)]
		g[1] = append(g[1], v)
		groups[find(len(hs)+j)] = g
	}
	keys := make([]int, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var tables []*pdfTable
	taken := make([]bool, len(runs))
	var free []pdfSeg // horizontal lines no vertical one meets
	for _, k := range keys {
		g := groups[k]
		if len(g[1]) == 0 {
			free = append(free, g[0]...)
			continue
		}
		if len(g[0]) >= 2 && len(g[1]) >= 2 {
			if t := ruledGrid(g[0], g[1], runs, taken); t != nil {
				tables = append(tables, t)
			}
		}
	}
	tables = append(tables, ruleOnlyTables(free, runs, taken)...)
	if len(tables) == 0 {
		return nil, runs
	}
	rest := runs[:0:0]
	for k, r := range runs {
		if !taken[k] {
			rest = append(rest, r)
		}
	}
	sort.SliceStable(tables, func(a, c int) bool { return tables[a].top > tables[c].top })
	return tables, rest
}

// ruledGrid makes the table of one group of ruling lines, or nil when they
// do not make two cells or more with text; the runs it holds are marked
// in taken.
func ruledGrid(hs, vs []pdfSeg, runs []pdfRun, taken []bool) *pdfTable {
	var yv, xv []float64
	for _, h := range hs {
		yv = append(yv, h.at)
	}
	for _, v := range vs {
		xv = append(xv, v.at)
	}
	ys, xs := clusterPositions(yv), clusterPositions(xv)
	if len(ys) < 2 || len(xs) < 2 || (len(ys)-1)*(len(xs)-1) < 2 || len(ys) > 1025 || len(xs) > 129 {
		return nil
	}
	// Rows top to bottom.
	for i, j := 0, len(ys)-1; i < j; i, j = i+1, j-1 {
		ys[i], ys[j] = ys[j], ys[i]
	}
	R, C := len(ys)-1, len(xs)-1
	// The runs of each grid square, by their centre.
	square := make([][]pdfRun, R*C)
	idx := make([][]int, R*C)
	texts := 0
	for k, r := range runs {
		if taken[k] {
			continue
		}
		cx, cy := (r.left+r.right)/2, (r.top+r.bottom)/2
		if cx < xs[0] || cx > xs[C] || cy > ys[0] || cy < ys[R] {
			continue
		}
		c := sort.SearchFloat64s(xs, cx) - 1
		row := 0
		for row < R-1 && cy < ys[row+1] {
			row++
		}
		c = max(0, min(c, C-1))
		square[row*C+c] = append(square[row*C+c], r)
		idx[row*C+c] = append(idx[row*C+c], k)
		texts++
	}
	if texts == 0 {
		return nil
	}
	t := &pdfTable{anchors: xs[:C], left: xs[0], right: xs[C], top: ys[0], bottom: ys[R]}
	seen := make([]bool, R*C)
	filled := 0
	for r := 0; r < R; r++ {
		if rows := openRows(square[r*C:(r+1)*C], seen[r*C:(r+1)*C], vs, xs, (ys[r]+ys[r+1])/2); rows != nil {
			for c := 0; c < C; c++ {
				seen[r*C+c] = true
				for _, k := range idx[r*C+c] {
					taken[k] = true
				}
			}
			for _, cell := range rows[0] {
				if cell.text != "" {
					filled++
				}
			}
			t.rows = append(t.rows, rows...)
			continue
		}
		var cells []pdfCell
		ym := (ys[r] + ys[r+1]) / 2
		for c := 0; c < C; c++ {
			if seen[r*C+c] {
				continue
			}
			cs := 1
			for c+cs < C && !covers(vs, xs[c+cs], ym) {
				cs++
			}
			rs := 1
			for r+rs < R {
				open := true
				for cc := c; cc < c+cs; cc++ {
					if covers(hs, ys[r+rs], (xs[cc]+xs[cc+1])/2) {
						open = false
					}
				}
				if !open {
					break
				}
				rs++
			}
			var in []pdfRun
			for rr := r; rr < r+rs; rr++ {
				for cc := c; cc < c+cs; cc++ {
					seen[rr*C+cc] = true
					in = append(in, square[rr*C+cc]...)
					for _, k := range idx[rr*C+cc] {
						taken[k] = true
					}
				}
			}
			text := cellText(in)
			if text != "" {
				filled++
			}
			cells = append(cells, pdfCell{text: text, col: c, span: cs, rowspan: rs})
		}
		t.rows = append(t.rows, cells)
	}
	if filled < 2 {
		// A framed paragraph, or a box around one word: not a table.
		for k := range square {
			for _, i := range idx[k] {
				taken[i] = false
			}
		}
		return nil
	}
	return t
}

// openRows splits one band of grid squares (between two horizontal
// rules) into rows when it holds several rows without rules between them
// (LaTeX's |c|c| with \hline under the header only): every column its own
// ruled cell, each holding two lines or more, one line for each row, the
// lines at the same heights in every column that has text. It is nil
// otherwise, a wrapped cell's lines among them (the other cells of its
// row have fewer lines).
func openRows(squares [][]pdfRun, seen []bool, vs []pdfSeg, xs []float64, ym float64) [][]pdfCell {
	C := len(squares)
	cols := make([][]*pdfLine, C)
	n := 0
	for c := range C {
		if seen[c] || c > 0 && !covers(vs, xs[c], ym) {
			return nil // covered from above, or merged with its neighbour
		}
		if len(squares[c]) == 0 {
			continue
		}
		lines := groupLines(append([]pdfRun(nil), squares[c]...))
		sort.SliceStable(lines, func(a, b int) bool { return lines[a].top > lines[b].top })
		if n == 0 {
			n = len(lines)
		}
		if len(lines) != n || n < 2 {
			return nil
		}
		cols[c] = lines
	}
	if n < 2 {
		return nil
	}
	var ref []*pdfLine
	for _, ls := range cols {
		if ls == nil {
			continue
		}
		if ref == nil {
			ref = ls
			continue
		}
		for k, l := range ls {
			if !overlapHalf(l, ref[k]) {
				return nil
			}
		}
	}
	rows := make([][]pdfCell, n)
	for k := range rows {
		for c := range C {
			text := ""
			if cols[c] != nil {
				text = cols[c][k].text()
			}
			rows[k] = append(rows[k], pdfCell{text: text, col: c, span: 1})
		}
	}
	return rows
}

// cellText is the text of a cell's runs, line by line, top to bottom.
func cellText(rs []pdfRun) string {
	if len(rs) == 0 {
		return ""
	}
	lines := groupLines(append([]pdfRun(nil), rs...))
	sort.SliceStable(lines, func(a, c int) bool { return lines[a].top > lines[c].top })
	parts := make([]string, len(lines))
	for k, l := range lines {
		parts[k] = l.text()
	}
	return strings.Join(parts, " ")
}
