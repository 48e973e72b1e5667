package render

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// Table layout constants: the column separator and the narrowest a
// column is squeezed to before the table scrolls instead. A column is as
// wide as its content up to the width the table has: no fixed cap, so a
// wide terminal shows long cells whole.
const (
	colSep        = " │ "
	colSepWidth   = 3
	colMinSqueeze = 6
)

// gridEntry caches a parsed table and its columns' natural widths.
type gridEntry struct {
	fp      fingerprint
	grid    *Grid
	err     error
	natural []int
}

func (r *Renderer) grid(el *dpe.Element) gridEntry {
	fp := fingerprintOf(el)
	r.mu.Lock()
	e, ok := r.grids[el]
	r.mu.Unlock()
	if ok && e.fp == fp {
		return e
	}
	g, err := ParseTableLimits(el, r.tableLimits())
	e = gridEntry{fp: fp, grid: g, err: err}
	if g != nil {
		e.natural = make([]int, g.Cols)
		for _, row := range g.Rows {
			for c, cell := range row {
				if w := ansi.StringWidth(cell); w > e.natural[c] {
					e.natural[c] = w
				}
			}
		}
	}
	r.mu.Lock()
	if len(r.grids) > 4096 {
		clear(r.grids)
	}
	r.grids[el] = e
	r.mu.Unlock()
	return e
}

// shareChunkWidths gives the chunks of one table on page p (a run of
// TableChunks whose chunk_index counts up by one) one set of natural column
// widths, each column as wide as it is anywhere in the table, so the
// columns stay put from one chunk to the next. Lines drawn with a chunk's
// own widths are dropped when its widths change.
func (r *Renderer) shareChunkWidths(p *dpe.Page) {
	els := p.Elements
	for i := 0; i < len(els); {
		j := i + 1
		if isChunk(els[i]) {
			prev, _ := els[i].MetaInt("chunk_index")
			for j < len(els) && isChunk(els[j]) {
				n, _ := els[j].MetaInt("chunk_index")
				if n != prev+1 {
					break
				}
				prev = n
				j++
			}
		}
		if j-i > 1 {
			r.shareWidths(els[i:j])
		}
		i = j
	}
}

func isChunk(el *dpe.Element) bool {
	return el != nil && normalizeCategory(el.Category) == catTableChunk
}

func (r *Renderer) shareWidths(chunks []*dpe.Element) {
	entries := make([]gridEntry, len(chunks))
	var shared []int
	for k, el := range chunks {
		entries[k] = r.grid(el)
		for c, w := range entries[k].natural {
			if c == len(shared) {
				shared = append(shared, 0)
			}
			shared[c] = max(shared[c], w)
		}
	}
	for k, el := range chunks {
		e := entries[k]
		if e.grid == nil || slices.Equal(e.natural, shared[:len(e.natural)]) {
			continue
		}
		e.natural = slices.Clone(shared[:len(e.natural)])
		r.mu.Lock()
		r.grids[el] = e
		for key, ce := range r.cache {
			if key.el == el {
				r.cacheLines -= len(ce.lines)
				delete(r.cache, key)
			}
		}
		r.mu.Unlock()
	}
}

// TableInfo describes how a table is laid out at a width and view, so the
// UI can clamp scrolling and label it.
type TableInfo struct {
	Rows, Cols, HeaderRows int
	// FirstCol..LastCol (0-based, inclusive) are the scrolled columns shown
	// after the fixed first column.
	FirstCol, LastCol int
	MaxXOffset        int
	Clipped           bool // some columns are off screen
	// LastPartial is set when column LastCol is cut to fit the width.
	LastPartial bool
	// Squeezed is true when some column is narrower than its content
	// (capped or squeezed): scrolling by column shows it whole.
	Squeezed  bool
	Truncated string // a parse limit that was hit, "" if none
}

type tableLayout struct {
	cols   []int // visible column indices, in order
	widths []int // their widths
	info   TableInfo
	sep    string // styled column separator, rendered once per layout
	// cursor marks grid cell (row, col) when the view has a cursor.
	cursor   bool
	row, col int
	// brackets: without colour the cursor's cell is marked [so], in a
	// column of room kept on each side of the table (and the separators'
	// spaces), never in the cell's own width.
	brackets bool
}

// layout is layoutTable for this renderer: without colour a table with a
// cursor keeps one column on each side for the brackets, whichever cell
// the cursor is on, so its columns do not move as it does.
func (r *Renderer) layout(e gridEntry, width int, v TableView) tableLayout {
	width = max(width, 1)
	if !r.theme.Color && v.Cursor && width > 2 {
		lay := layoutTable(e.grid, e.natural, width-2, v)
		lay.brackets = true
		return lay
	}
	return layoutTable(e.grid, e.natural, width, v)
}

// layout fits columns to width. All columns at their natural widths (at
// most the width, plus the bonus of a widened column) when they fit; else
// squeezed evenly down to
// colMinSqueeze; else the first column stays and the rest scroll by
// XOffset.
func layoutTable(g *Grid, natural []int, width int, v TableView) tableLayout {
	lay := tableLayout{cursor: v.Cursor, row: v.Row, col: v.Col, info: TableInfo{Rows: len(g.Rows), Cols: g.Cols, HeaderRows: g.HeaderRows, FirstCol: min(1, g.Cols-1), LastCol: g.Cols - 1, Truncated: g.Truncated}}
	if lay.cursor && lay.row < g.HeaderRows && len(g.Rows) > g.HeaderRows {
		lay.row = g.HeaderRows // the cursor is on a body row; the header marks its column
	}
	n := g.Cols
	nat := make([]int, n)
	total := colSepWidth * (n - 1)
	for i := range n {
		capW := width
		if v.WideCol == 0 || v.WideCol == i+1 {
			capW += max(v.ColWidthBonus, 0)
		}
		nat[i] = min(max(natural[i], 1), capW)
		total += nat[i]
		if natural[i] > nat[i] {
			lay.info.Squeezed = true
		}
	}
	all := func(ws []int) tableLayout {
		for i := range n {
			lay.cols = append(lay.cols, i)
		}
		lay.widths = ws
		return lay
	}
	if total <= width {
		return all(nat)
	}
	lay.info.Squeezed = true
	minTotal := colSepWidth * (n - 1)
	for i := range n {
		minTotal += min(nat[i], colMinSqueeze)
	}
	if minTotal <= width && n > 1 && !v.Scroll {
		// Largest level L such that every column capped at L fits.
		lo, hi := colMinSqueeze, slices.Max(nat)
		sum := func(l int) int {
			s := colSepWidth * (n - 1)
			for _, w := range nat {
				s += min(w, l)
			}
			return s
		}
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if sum(mid) <= width {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		ws := make([]int, n)
		for i, w := range nat {
			ws[i] = min(w, lo)
		}
		extra := width - sum(lo)
		for i := range ws {
			if extra == 0 {
				break
			}
			if nat[i] > ws[i] {
				ws[i]++
				extra--
			}
		}
		widenSqueezed(ws, nat, v)
		return all(ws)
	}
	if n == 1 {
		lay.cols, lay.widths = []int{0}, []int{max(width, 1)}
		return lay
	}
	// Scroll: fixed first column, then from XOffset on. A column takes
	// at most half the width here (plus a widened column's bonus), so
	// its neighbours stay in view.
	for i := range n {
		capW := max(colMinSqueeze, width/2)
		if v.WideCol == 0 || v.WideCol == i+1 {
			capW += max(v.ColWidthBonus, 0)
		}
		nat[i] = min(max(natural[i], 1), capW)
	}
	first := min(nat[0], max(colMinSqueeze, width/4))
	avail := width - first - colSepWidth
	// Scrolling stops once the last column is in view: the largest useful
	// offset is the one whose window ends exactly at the right edge.
	firstFit, used := n-1, nat[n-1]
	for c := n - 2; c >= 1 && used+colSepWidth+nat[c] <= avail; c-- {
		used += colSepWidth + nat[c]
		firstFit = c
	}
	maxOff := max(firstFit-1, 0)
	off := min(max(v.XOffset, 0), maxOff)
	lay.cols, lay.widths = []int{0}, []int{first}
	used = 0
	last := 1 + off
	for c := 1 + off; c < n; c++ {
		need := nat[c]
		if len(lay.cols) > 1 {
			need += colSepWidth
		}
		if used+need <= avail {
			lay.cols = append(lay.cols, c)
			lay.widths = append(lay.widths, nat[c])
			used += need
			last = c
			continue
		}
		room := avail - used
		if len(lay.cols) > 1 {
			room -= colSepWidth
		}
		if len(lay.cols) == 1 || room >= colMinSqueeze {
			lay.cols = append(lay.cols, c)
			lay.widths = append(lay.widths, max(room, 1))
			last = c
			lay.info.LastPartial = room < nat[c]
		}
		break
	}
	lay.info.FirstCol, lay.info.LastCol = 1+off, last
	lay.info.Clipped = off > 0 || last < n-1
	lay.info.MaxXOffset = maxOff
	return lay
}

// TableInfo reports the layout of a table element at width and view.
func (r *Renderer) TableInfo(el *dpe.Element, width int, v TableView) (TableInfo, error) {
	e := r.grid(el)
	if e.err != nil {
		return TableInfo{}, e.err
	}
	return r.layout(e, width, v).info, nil
}

// Table renders a Table/TableChunk element as a grid with horizontal scroll
// state v. Falls back to the text when nothing parses;
// any other element renders as Element does.
func (r *Renderer) Table(el *dpe.Element, width int, v TableView) string {
	return strings.Join(r.elementLines(el, width, v, imageContext{}), "\n")
}

// TableWindow renders only what a viewport shows of a table: the sticky
// lines (scroll marker, header rows and the rule under them) and body rows
// first..first+count-1. total is the number of body rows. This is what
// keeps a 10,000-row table cheap to scroll.
func (r *Renderer) TableWindow(el *dpe.Element, width int, v TableView, first, count int) (sticky, body []string, total int) {
	width = max(width, 1)
	e := r.grid(el)
	if e.err != nil {
		lines := r.elementLines(el, width, v, imageContext{})
		lo := min(max(first, 0), len(lines))
		hi := min(lo+max(count, 0), len(lines))
		return nil, lines[lo:hi], len(lines)
	}
	g := e.grid
	lay := r.layout(e, width, v)
	lay.sep = r.theme.TableBorder.Render(colSep)
	sticky = r.tableSticky(g, lay, width)
	total = len(g.Rows) - g.HeaderRows
	lo := min(max(first, 0), total)
	hi := min(lo+max(count, 0), total)
	body = make([]string, 0, hi-lo)
	for i := lo; i < hi; i++ {
		body = append(body, r.tableRow(g, g.HeaderRows+i, lay, false))
	}
	return fit(sticky, width), fit(body, width), total
}

func (r *Renderer) tableLines(el *dpe.Element, width int, v TableView) []string {
	e := r.grid(el)
	if e.err != nil {
		return r.plain(el, width)
	}
	g := e.grid
	lay := r.layout(e, width, v)
	lay.sep = r.theme.TableBorder.Render(colSep)
	lines := r.tableSticky(g, lay, width)
	for i := g.HeaderRows; i < len(g.Rows); i++ {
		lines = append(lines, r.tableRow(g, i, lay, false))
	}
	if g.Truncated != "" {
		lines = append(lines, r.theme.Warning.Render(sanitize.Truncate("⚠ "+g.Truncated, width)))
	}
	return lines
}

// tableSticky is what stays on screen while the body scrolls: the column
// marker when clipped, the header rows, and the rule under them.
func (r *Renderer) tableSticky(g *Grid, lay tableLayout, width int) []string {
	var lines []string
	if lay.info.Clipped {
		m := fmt.Sprintf("cols %d–%d of %d", lay.info.FirstCol+1, lay.info.LastCol+1, g.Cols)
		if lay.info.FirstCol == lay.info.LastCol {
			m = fmt.Sprintf("col %d of %d", lay.info.FirstCol+1, g.Cols) // one column shown (a wide cell)
		}
		if lay.info.FirstCol > 1 {
			m = "◂ " + m
		}
		if lay.info.LastCol < g.Cols-1 {
			m += " ▸"
		}
		lines = append(lines, r.theme.TableMarker.Render(sanitize.Truncate(m, width)))
	}
	for i := 0; i < g.HeaderRows; i++ {
		lines = append(lines, r.tableRow(g, i, lay, true))
	}
	if g.HeaderRows > 0 {
		parts := make([]string, len(lay.widths))
		for i, w := range lay.widths {
			parts[i] = strings.Repeat("─", w)
		}
		rule := strings.Join(parts, "─┼─")
		if lay.brackets {
			rule = "─" + rule + "─"
		}
		lines = append(lines, r.theme.TableBorder.Render(rule))
	}
	return lines
}

// tableRow draws row ri. Cells covered by a colspan merge with the cell on
// their left (the separator between them becomes part of one wide cell).
func (r *Renderer) tableRow(g *Grid, ri int, lay tableLayout, header bool) string {
	row := g.Rows[ri]
	var sp []bool
	if g.Spanned != nil {
		sp = g.Spanned[ri]
	}
	var sb strings.Builder
	sep := lay.sep
	// With brackets the row is one column wider on each side; the
	// brackets of the cursor's cell take the space beside it.
	marked := func(i, j int) bool {
		return lay.brackets && lay.col >= lay.cols[i] && lay.col <= lay.cols[j-1] && (ri == lay.row || header)
	}
	open, closed := false, false // the cursor cell's [ written, its ] due
	if lay.brackets {
		j := 1
		for sp != nil && j < len(lay.cols) && lay.cols[j] == lay.cols[j-1]+1 && sp[lay.cols[j]] {
			j++
		}
		if marked(0, j) {
			sb.WriteByte('[')
			open = true
		} else {
			sb.WriteByte(' ')
		}
	}
	for i := 0; i < len(lay.cols); {
		c := lay.cols[i]
		w := lay.widths[i]
		j := i + 1
		for sp != nil && j < len(lay.cols) && lay.cols[j] == lay.cols[j-1]+1 && sp[lay.cols[j]] {
			w += colSepWidth + lay.widths[j]
			j++
		}
		text := row[c]
		if sp != nil && sp[c] {
			// The origin of this span scrolled away: show its text here.
			o := c
			for o > 0 && sp[o] {
				o--
			}
			text = row[o]
		}
		if i > 0 {
			switch {
			case closed:
				sb.WriteString("]" + r.theme.TableBorder.Render(colSep[1:]))
				closed = false
			case marked(i, j):
				sb.WriteString(r.theme.TableBorder.Render(colSep[:len(colSep)-1]) + "[")
				open = true
			default:
				sb.WriteString(sep)
			}
		}
		align := ""
		if c < len(g.Align) && (sp == nil || !sp[c]) && (j == i+1) {
			align = g.Align[c] // a spanning cell keeps the default
		}
		cell := padAligned(text, w, align)
		inCol := lay.cursor && lay.col >= c && lay.col <= lay.cols[j-1]
		switch {
		case inCol && (ri == lay.row || header):
			if open {
				open, closed = false, true // its ] goes after it
			}
			if header {
				cell = r.theme.TableColHeader.Render(cell)
			} else {
				cell = r.theme.TableCursor.Render(cell)
			}
		case header && text != "":
			cell = r.theme.TableHeader.Render(cell)
		}
		sb.WriteString(cell)
		i = j
	}
	if lay.brackets {
		if closed {
			sb.WriteByte(']')
		} else {
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

// padAligned is pad with the column's alignment from the source: a right
// or centred cell takes its spare room on the left (half of it, centred).
func padAligned(s string, w int, align string) string {
	spare := w - cellWidth(s)
	if spare <= 0 || (align != "right" && align != "center") {
		return pad(s, w)
	}
	left := spare
	if align == "center" {
		left = spare / 2
	}
	return pad(strings.Repeat(" ", left)+s, w)
}

// TableFind is the cell of the nth (from 0) case-insensitive occurrence
// of query in the table's cells, in reading order, and the byte offset of
// that occurrence in the cell's text (-1 when lower-casing changes the
// cell's length, so no offset into it holds); row counts the header rows
// too. A search counts its hits in an element's text in the same order,
// so its nth hit in a table is this cell; when the cells hold fewer
// occurrences than n (the text and the HTML differ), the last is taken.
func (r *Renderer) TableFind(el *dpe.Element, query string, n int) (row, col, at int, ok bool) {
	e := r.grid(el)
	if e.err != nil || query == "" {
		return 0, 0, 0, false
	}
	q := strings.ToLower(query)
	for ri, cells := range e.grid.Rows {
		for ci, c := range cells {
			lc := strings.ToLower(c)
			for from := 0; ; {
				i := strings.Index(lc[from:], q)
				if i < 0 {
					break
				}
				row, col, at, ok = ri, ci, from+i, true
				if len(lc) != len(c) {
					at = -1
				}
				if n--; n < 0 {
					return row, col, at, true
				}
				from += i + len(q)
			}
		}
	}
	return row, col, at, ok
}

// TableCell is the text of cell (row, col) and of its header cell, and
// the whole row as (header, value) pairs, for the cell view.
func (r *Renderer) TableCell(el *dpe.Element, row, col int) (cell string, pairs [][2]string, ok bool) {
	e := r.grid(el)
	if e.err != nil || row < 0 || row >= len(e.grid.Rows) || col < 0 || col >= e.grid.Cols {
		return "", nil, false
	}
	g := e.grid
	for c, v := range g.Rows[row] {
		h := fmt.Sprintf("column %d", c+1)
		if g.HeaderRows > 0 && row >= g.HeaderRows && g.Rows[0][c] != "" {
			h = g.Rows[0][c]
		}
		pairs = append(pairs, [2]string{h, v})
	}
	return g.Rows[row][col], pairs, true
}

// TableRowLine is the line, within the lines Table renders at width and
// v, of grid row row (header rows included), or -1.
func (r *Renderer) TableRowLine(el *dpe.Element, width int, v TableView, row int) int {
	e := r.grid(el)
	if e.err != nil || row < 0 || row >= len(e.grid.Rows) {
		return -1
	}
	lay := r.layout(e, width, v)
	sticky := 0
	if lay.info.Clipped {
		sticky++
	}
	if row < e.grid.HeaderRows {
		return sticky + row
	}
	if e.grid.HeaderRows > 0 {
		sticky += e.grid.HeaderRows + 1
	}
	return sticky + row - e.grid.HeaderRows
}

// widenSqueezed gives the column the user widened (TableView.WideCol, w) up
// to ColWidthBonus more cells in a squeezed layout, taken one cell at a
// time from the widest other columns, none below colMinSqueeze: the total
// stays what fitted.
func widenSqueezed(ws, nat []int, v TableView) {
	j := v.WideCol - 1
	if j < 0 || j >= len(ws) || v.ColWidthBonus <= 0 {
		return
	}
	grow := min(nat[j], ws[j]+v.ColWidthBonus) - ws[j]
	for ; grow > 0; grow-- {
		from := -1
		for i, w := range ws {
			if i != j && w > colMinSqueeze && (from < 0 || w > ws[from]) {
				from = i
			}
		}
		if from < 0 {
			return
		}
		ws[from]--
		ws[j]++
	}
}

// ObjectGrid is a diff's reading of a changed table's cells
// (identity.TableGrid): the element object's text_as_html (or its text)
// parsed as the screen parses a table, under the default limits.
func ObjectGrid(object []byte) ([][]string, int, bool) {
	var o struct {
		Category   string                     `json:"category"`
		Text       string                     `json:"text"`
		TextAsHTML *string                    `json:"text_as_html"`
		Metadata   map[string]json.RawMessage `json:"metadata"`
	}
	if json.Unmarshal(object, &o) != nil {
		return nil, 0, false
	}
	el := &dpe.Element{Category: o.Category, Text: o.Text, Metadata: o.Metadata}
	if o.TextAsHTML != nil {
		if el.Metadata == nil {
			el.Metadata = map[string]json.RawMessage{}
		}
		el.Metadata["text_as_html"], _ = json.Marshal(*o.TextAsHTML)
	}
	d := DefaultLimits()
	g, err := ParseTableLimits(el, TableLimits{MaxCells: d.MaxTableCells, MaxCols: d.MaxTableCols, MaxCellChars: d.MaxChars})
	if err != nil {
		return nil, 0, false
	}
	return g.Rows, g.HeaderRows, true
}
