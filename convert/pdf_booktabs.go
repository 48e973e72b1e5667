package convert

import (
	"math"
	"sort"
)

// A table ruled only across (booktabs style: a rule above the header, one
// below it, one under the last row, no verticals) has no grid to read.
// Its rules give the table's extent and its bands (the header between the
// first two, the body below, each mid rule starting a group of rows); its
// columns are the vertical strips of whitespace no word inside crosses,
// and its rows are its lines, a line with nothing in the first column
// continuing the row above (a wrapped cell stays one cell).

const (
	// pdfMaxTableRules bounds the rules one table is looked for among.
	pdfMaxTableRules = 64
	// pdfMinTableWidth is the shortest rule that can span a table, in
	// points (shorter ones underline a word or a footnote mark).
	pdfMinTableWidth = 40
)

// ruleOnlyTables finds the tables among horizontal lines that no vertical
// one meets; the runs they hold are marked in taken.
func ruleOnlyTables(hs []pdfSeg, runs []pdfRun, taken []bool) []*pdfTable {
	if len(hs) < 3 {
		return nil
	}
	// Rules of one table span the same width; top to bottom.
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].at > hs[j].at })
	used := make([]bool, len(hs))
	var tables []*pdfTable
	for i := range hs {
		if used[i] || hs[i].b-hs[i].a < pdfMinTableWidth {
			continue
		}
		seq := []int{i}
		for j := i + 1; j < len(hs) && len(seq) < pdfMaxTableRules; j++ {
			if !used[j] && math.Abs(hs[j].a-hs[i].a) <= pdfRuleTol && math.Abs(hs[j].b-hs[i].b) <= pdfRuleTol {
				seq = append(seq, j)
			}
		}
		ys := make([]float64, len(seq))
		for n, r := range seq {
			ys[n] = hs[r].at
		}
		// The longest run of rules from the first that makes a table;
		// what does not is tried again from its next rule.
		for k := 0; k+2 < len(seq); {
			found := false
			for e := len(seq) - 1; e >= k+2; e-- {
				if t := ruleOnlyTable(ys[k:e+1], hs[seq[k]].a, hs[seq[k]].b, runs, taken); t != nil {
					tables = append(tables, t)
					for _, r := range seq[k : e+1] {
						used[r] = true
					}
					k, found = e+1, true
					break
				}
			}
			if !found {
				k++
			}
		}
	}
	return tables
}

// ruleOnlyTable reads the table between rules at ys (top to bottom) from
// left to right, or nil when the text between them is not one: a band
// without text, a word across the table's edge, one column only, mostly
// fixed-pitch text (a listing between rules), fewer than two rows of two
// cells.
func ruleOnlyTable(ys []float64, left, right float64, runs []pdfRun, taken []bool) *pdfTable {
	top, bottom := ys[0], ys[len(ys)-1]
	var in []int
	for k, r := range runs {
		if taken[k] || r.bottom > top || r.top < bottom {
			continue
		}
		cy := (r.top + r.bottom) / 2
		if cy > top || cy < bottom {
			continue // touches a rule from outside
		}
		if r.right < left-pdfRuleTol || r.left > right+pdfRuleTol {
			continue // beside the table
		}
		if r.left < left-pdfRuleTol || r.right > right+pdfRuleTol {
			return nil // text running across its edge: the rules are not a table's
		}
		in = append(in, k)
	}
	if len(in) < 4 {
		return nil
	}
	body := bodySize(pick(runs, in))
	mono, all := 0, 0
	for _, k := range in {
		all += len(runs[k].text)
		if runs[k].mono {
			mono += len(runs[k].text)
		}
	}
	if 2*mono > all {
		return nil
	}
	// Columns: the runs' extents joined where less than half an em apart.
	spans := make([][2]float64, 0, len(in))
	for _, k := range in {
		spans = append(spans, [2]float64{runs[k].left, runs[k].right})
	}
	sort.Slice(spans, func(a, c int) bool { return spans[a][0] < spans[c][0] })
	gap := math.Max(0.5*body, 3)
	var cols [][2]float64
	for _, sp := range spans {
		if n := len(cols); n > 0 && sp[0] < cols[n-1][1]+gap {
			cols[n-1][1] = math.Max(cols[n-1][1], sp[1])
			continue
		}
		cols = append(cols, sp)
	}
	C := len(cols)
	if C < 2 || C > 128 {
		return nil
	}
	colOf := func(r pdfRun) int {
		for c := C - 1; c > 0; c-- {
			if r.left >= cols[c][0]-0.5 {
				return c
			}
		}
		return 0
	}
	t := &pdfTable{left: left, right: right, top: top, bottom: bottom}
	for _, c := range cols {
		t.anchors = append(t.anchors, c[0])
	}
	full := 0
	for b := 0; b+1 < len(ys); b++ {
		var band []pdfRun
		for _, k := range in {
			if cy := (runs[k].top + runs[k].bottom) / 2; cy <= ys[b] && cy > ys[b+1] {
				band = append(band, runs[k])
			}
		}
		if len(band) == 0 {
			return nil
		}
		for _, row := range bandRows(band, colOf) {
			cells := make([]pdfCell, C)
			byCol := make([][]pdfRun, C)
			for _, r := range row {
				c := colOf(r)
				byCol[c] = append(byCol[c], r)
			}
			filled := 0
			for c := range cells {
				cells[c] = pdfCell{text: cellText(byCol[c]), col: c, span: 1}
				if cells[c].text != "" {
					filled++
				}
			}
			if filled >= 2 {
				full++
			}
			t.rows = append(t.rows, cells)
		}
	}
	if full < 2 {
		return nil
	}
	for _, k := range in {
		taken[k] = true
	}
	return t
}

// bandRows groups a band's runs into rows: runs sharing a baseline are a
// line, and a line with nothing in the first column continues the row
// above it.
func bandRows(band []pdfRun, colOf func(pdfRun) int) [][]pdfRun {
	sort.SliceStable(band, func(a, c int) bool {
		return band[a].top+band[a].bottom > band[c].top+band[c].bottom
	})
	var lines [][]pdfRun
	var lt, lb float64
	for _, r := range band {
		if n := len(lines); n > 0 {
			ov := math.Min(lt, r.top) - math.Max(lb, r.bottom)
			if ov > 0.5*math.Min(lt-lb, r.top-r.bottom) {
				lines[n-1] = append(lines[n-1], r)
				lt, lb = math.Max(lt, r.top), math.Min(lb, r.bottom)
				continue
			}
		}
		lines = append(lines, []pdfRun{r})
		lt, lb = r.top, r.bottom
	}
	var rows [][]pdfRun
	for _, l := range lines {
		first := false
		for _, r := range l {
			if colOf(r) == 0 {
				first = true
			}
		}
		if n := len(rows); n > 0 && !first {
			rows[n-1] = append(rows[n-1], l...)
			continue
		}
		rows = append(rows, l)
	}
	return rows
}

// pick is runs at the indexes ks.
func pick(runs []pdfRun, ks []int) []pdfRun {
	out := make([]pdfRun, len(ks))
	for i, k := range ks {
		out[i] = runs[k]
	}
	return out
}
