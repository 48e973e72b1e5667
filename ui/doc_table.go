package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
)

func (d *documentScreen) isTableSelected() bool {
	el := d.selected()
	return el != nil && isTable(el)
}

// tableAt names a table element of the document; ok false names none.
type tableAt struct {
	ok        bool
	page, sel int
}

// tableActive: a table is selected and its cell cursor is shown (esc has
// not put it away).
func (d *documentScreen) tableActive() bool {
	return d.isTableSelected() && d.cellAway != (tableAt{true, d.page, d.sel})
}

func (d *documentScreen) tableWidth() int {
	_, cw := d.layout(d.e.width)
	return max(10, cw-gutterW)
}

// tableKey is the table keys on a selected Table or TableChunk: l/h move
// the selected cell by column (the table scrolls when any column is
// narrower than its content), J/K by row, 0/$ the ends, w/W widen or narrow the
// selected column, enter opens the cell and its row.
func (d *documentScreen) tableKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	e := d.e
	k := e.keys
	el := d.selected()
	tv := d.tv[d.sel]
	cp := d.cell[d.sel]
	info, err := e.renderer.TableInfo(el, d.tableWidth(), tv)
	if err != nil {
		if matches(msg, k.Cell, k.ColLeft, k.ColRight) {
			return e.info("this table has no cells to show: " + oneLine(err)), true
		}
		return nil, false
	}
	if cp.row < info.HeaderRows && info.Rows > info.HeaderRows {
		cp.row = info.HeaderRows
	}
	switch {
	case matches(msg, k.ColRight):
		if cp.col >= info.Cols-1 {
			return e.info("already at the last column"), true
		}
		cp.col++
	case matches(msg, k.ColLeft):
		if cp.col == 0 {
			return e.info("already at the first column"), true
		}
		cp.col--
	case matches(msg, k.RowDown):
		if cp.row >= info.Rows-1 {
			return e.info("already at the last row"), true
		}
		cp.row++
	case matches(msg, k.RowUp):
		if cp.row <= info.HeaderRows {
			return e.info("already at the first row"), true
		}
		cp.row--
	case matches(msg, k.FirstCol):
		cp.col = 0
	case matches(msg, k.LastCol):
		cp.col = max(0, info.Cols-1)
	case matches(msg, k.Widen):
		wide := tv
		if wide.WideCol != cp.col+1 {
			wide.ColWidthBonus = 0 // the bonus belongs to one column
		}
		wide.ColWidthBonus += 8
		wide.WideCol = cp.col + 1
		if d.looksSame(el, tv, wide, cp) {
			return e.info(widthUnchanged(info, fmt.Sprintf("column %d shows whole", cp.col+1), "w widens a column cut to fit")), true
		}
		tv = wide
	case matches(msg, k.Narrow):
		if tv.ColWidthBonus == 0 {
			return e.info(widthUnchanged(info, "no column is widened", "W narrows a column w widened")), true
		}
		tv.ColWidthBonus = max(0, tv.ColWidthBonus-8)
		if tv.ColWidthBonus == 0 {
			tv.WideCol = 0
		}
	case matches(msg, k.Cell):
		d.cellAway = tableAt{}
		return d.e.ask(overlayMsg{s: newCellView(e, d, d.sel, cp)}), true
	default:
		return nil, false
	}
	d.cellAway = tableAt{} // a table key takes the cursor out again
	d.cell[d.sel] = cp
	d.tv[d.sel] = tv
	d.scrollToCell(d.sel)
	return nil, true
}

// looksSame: table el with its cell cursor at cp draws the same in view
// a as in view b (a width key that would change nothing on screen).
func (d *documentScreen) looksSame(el *dpe.Element, a, b render.TableView, cp cellPos) bool {
	w := d.tableWidth()
	a.Cursor, a.Row, a.Col = true, cp.row, cp.col
	b.Cursor, b.Row, b.Col = true, cp.row, cp.col
	return d.e.renderer.Table(el, w, a) == d.e.renderer.Table(el, w, b)
}

// widthUnchanged says why a width key did nothing on a table: it fits
// (every column whole), or else why; then what the key is for.
func widthUnchanged(info render.TableInfo, why, what string) string {
	if !info.Squeezed && !info.Clipped {
		why = "this table fits: every column shows whole"
	}
	return why + " · " + what
}

// scrollToCell scrolls table el so its selected cell's column is shown
// and the page so its row is. A squeezed table, every column in view,
// stays as it is laid out: the cursor moving does not change a width
// (enter shows a cut cell whole, w widens its column).
func (d *documentScreen) scrollToCell(el int) {
	e := d.e
	p := d.curPage()
	if p == nil || el >= len(p.Elements) {
		return
	}
	t := p.Elements[el]
	cp := d.cell[el]
	tv := d.tv[el]
	tv.Cursor, tv.Row, tv.Col = true, cp.row, cp.col
	w := d.tableWidth()
	info, err := e.renderer.TableInfo(t, w, tv)
	if err != nil {
		return
	}
	if cp.col >= 1 {
		for tries := 0; tries < info.Cols && (cp.col < info.FirstCol || cp.col > info.LastCol || cp.col == info.LastCol && info.LastPartial); tries++ {
			if cp.col < info.FirstCol {
				tv.XOffset--
			} else if tv.XOffset < info.MaxXOffset {
				tv.XOffset++
			} else {
				break
			}
			info, _ = e.renderer.TableInfo(t, w, tv)
		}
	} else {
		tv.XOffset = 0
	}
	d.tv[el] = tv
	d.invalidate()
	_, cw := d.layout(e.width)
	d.ensureBlocks(cw)
	// bring the row into view
	if line := e.renderer.TableRowLine(t, w, tv, cp.row); line >= 0 {
		b := d.blockOf(el)
		if b >= 0 && b < len(d.cache.offs) {
			y := d.cache.offs[b] + line
			if y < d.yoff || y >= d.yoff+d.h {
				d.yoff = max(0, y-d.h/2)
				d.clampScroll()
			}
		}
	}
}

// newCellView shows the selected cell in full, wrapped, and its row as
// header: value pairs.
func newCellView(e *env, d *documentScreen, el int, cp cellPos) *lineView {
	p := d.curPage()
	t := p.Elements[el]
	page := d.page
	return newLineView(e, "cell", func(w int) []string {
		st := e.st
		cell, pairs, ok := e.renderer.TableCell(t, cp.row, cp.col)
		if !ok {
			return []string{"", st.dim.Render("  no such cell")}
		}
		out := []string{" " + st.title.Render(fmt.Sprintf("Table cell · page %d · element %d · row %d · column %d", page+1, el+1, cp.row+1, cp.col+1)), ""}
		for _, l := range wrapCells(cell, max(10, w-4)) {
			out = append(out, "  "+l)
		}
		out = append(out, "", " "+st.title.Render("Row"))
		kw := 0
		for _, pr := range pairs {
			kw = max(kw, len([]rune(pr[0])))
		}
		kw = min(kw, max(8, w/3))
		for _, pr := range pairs {
			first := true
			for _, l := range wrapCells(pr[1], max(10, w-kw-6)) {
				label := ""
				if first {
					label = pr[0]
				}
				out = append(out, "  "+st.label.Render(fit(label, kw))+"  "+l)
				first = false
			}
		}
		return out
	})
}

func isCode(el *dpe.Element) bool {
	return dpe.NormalizeCategory(el.Category) == dpe.CategoryCodeSnippet
}

func (d *documentScreen) isCodeSelected() bool {
	el := d.selected()
	return el != nil && isCode(el)
}

// codeStep is how far one code key scrolls sideways.
const codeStep = 8

// codeKey scrolls a selected CodeSnippet's lines sideways (h/l): code is
// cut, never wrapped, so a long line is read by scrolling.
func (d *documentScreen) codeKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	e := d.e
	k := e.keys
	el := d.selected()
	tv := d.tv[d.sel]
	most := e.renderer.CodeMaxXOffset(el, d.codeWidth())
	switch {
	case matches(msg, k.CodeRight):
		if tv.XOffset >= most {
			if most == 0 {
				return e.info("every line of this code block fits"), true
			}
			return e.info("already at the end of the longest line"), true
		}
		tv.XOffset = min(most, tv.XOffset+codeStep)
	case matches(msg, k.CodeLeft):
		if tv.XOffset == 0 {
			return e.info("already at the start of the lines"), true
		}
		tv.XOffset = max(0, tv.XOffset-codeStep)
	default:
		return nil, false
	}
	if tv.XOffset == 0 {
		delete(d.tv, d.sel)
	} else {
		d.tv[d.sel] = tv
	}
	d.invalidate()
	return nil, true
}

// codeWidth is the width code blocks are drawn at (prose's, capped at the
// reading width).
func (d *documentScreen) codeWidth() int {
	return min(d.tableWidth(), readingWidth)
}

// tableMarker tells where a selected table's cursor is.
func tableMarker(tv render.TableView) string {
	if !tv.Cursor {
		return ""
	}
	return strings.TrimSpace(fmt.Sprintf("row %d col %d", tv.Row+1, tv.Col+1))
}
