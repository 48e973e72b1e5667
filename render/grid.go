package render

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// Grid is a parsed table: a rectangle of sanitized single-line cells.
type Grid struct {
	Cols       int
	HeaderRows int        // leading rows that are the header
	Rows       [][]string // each exactly Cols cells, sanitized with sanitize.Line
	// Spanned[r][c] is true when cell (r,c) is covered by the colspan of the
	// cell to its left; nil when the table has no colspan.
	Spanned [][]bool
	// Align is each column's alignment from the source ("right" or
	// "center"; "" for the default, left); nil when no column has one.
	Align  []string
	Source string // "html", "markdown", "tsv" or "csv"
	// Truncated says what a limit cut off ("" when nothing was).
	Truncated string
}

// ErrNoTable is returned when an element holds nothing parseable as a table.
var ErrNoTable = errors.New("no table found")

// TableLimits bound table parsing: a hostile table must not cost unbounded cells.
type TableLimits struct {
	MaxCells, MaxCols, MaxCellChars int
}

func (r *Renderer) tableLimits() TableLimits {
	return TableLimits{MaxCells: r.lim.MaxTableCells, MaxCols: r.lim.MaxTableCols, MaxCellChars: r.lim.MaxChars}
}

// ParseTableLimits parses a Table/TableChunk element:
// ele_metadata.text_as_html when present (proposal §3.4), else the text as a
// Markdown pipe table, TSV or CSV; a continued chunk gets its header row
// from header_info.
func ParseTableLimits(el *dpe.Element, lim TableLimits) (*Grid, error) {
	if el == nil {
		return nil, ErrNoTable
	}
	g, err := parseTableSource(el, lim)
	if err == nil {
		withHeaderInfo(g, el, lim)
	}
	return g, err
}

func parseTableSource(el *dpe.Element, lim TableLimits) (*Grid, error) {
	if h := el.MetaString("text_as_html"); strings.Contains(strings.ToLower(h), "<t") {
		if g, err := ParseHTMLTable(h, lim); err == nil {
			return g, nil
		}
	}
	return ParseTextTable(el.Text, lim)
}

// HeaderInfo is ele_metadata header_info, the names of a table's columns:
// a JSON array of strings (what the converters write), or an object
// whose "columns" is one (an older shape, still read).
func HeaderInfo(el *dpe.Element) []string {
	raw := el.Metadata["header_info"]
	if len(raw) == 0 {
		return nil
	}
	var cols []string
	if json.Unmarshal(raw, &cols) == nil {
		return cols
	}
	var obj struct {
		Columns []string `json:"columns"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return obj.Columns
	}
	return nil
}

// withHeaderInfo gives a continued table chunk (is_continuation, or a
// chunk_index after the first) its table's header row from header_info
// when the chunk's own rows do not start with it: the first data row of
// a chunk is not a header.
func withHeaderInfo(g *Grid, el *dpe.Element, lim TableLimits) {
	cont, _ := metaBool(el, "is_continuation")
	if n, ok := el.MetaInt("chunk_index"); ok && n > 0 {
		cont = true
	}
	if !cont {
		return
	}
	names := HeaderInfo(el)
	if len(names) == 0 || len(g.Rows) == 0 {
		return
	}
	b := newBuilder(lim)
	names = names[:min(len(names), lim.MaxCols, max(g.Cols, 1))]
	head := make([]string, g.Cols)
	for i, n := range names {
		head[i] = b.cell(n)
	}
	if slices.Equal(head, g.Rows[0]) {
		g.HeaderRows = max(g.HeaderRows, 1)
		return
	}
	g.Rows = append([][]string{head}, g.Rows...)
	if g.Spanned != nil {
		g.Spanned = append([][]bool{make([]bool, g.Cols)}, g.Spanned...)
	}
	g.HeaderRows = 1
}

// gridBuilder accumulates rows under the limits.
type gridBuilder struct {
	lim       TableLimits
	g         Grid
	cells     int
	anySpan   bool
	truncated string
}

func (b *gridBuilder) cell(s string) string {
	s, more := clip(s, b.lim.MaxCellChars)
	s = sanitize.Line(strings.TrimSpace(s))
	if more > 0 {
		s += "…"
	}
	return s
}

// setAlign records column col's alignment a, the first one the source
// gives for that column.
func (b *gridBuilder) setAlign(col int, a string) {
	if a == "" || col < 0 || col >= b.lim.MaxCols {
		return
	}
	for len(b.g.Align) <= col {
		b.g.Align = append(b.g.Align, "")
	}
	if b.g.Align[col] == "" {
		b.g.Align[col] = a
	}
}

// add appends a row; false once the cell budget is spent.
func (b *gridBuilder) add(row []string, spanned []bool) bool {
	if len(row) > b.lim.MaxCols {
		row = row[:b.lim.MaxCols]
		if spanned != nil {
			spanned = spanned[:b.lim.MaxCols]
		}
		b.truncated = fmt.Sprintf("only the first %d columns are shown", b.lim.MaxCols)
	}
	if b.cells+len(row) > b.lim.MaxCells {
		b.truncated = fmt.Sprintf("table cut at %d rows (cell limit %d)", len(b.g.Rows), b.lim.MaxCells)
		return false
	}
	b.cells += len(row)
	b.g.Rows = append(b.g.Rows, row)
	b.g.Spanned = append(b.g.Spanned, spanned)
	if spanned != nil {
		b.anySpan = true
	}
	b.g.Cols = max(b.g.Cols, len(row))
	return true
}

func (b *gridBuilder) done(source string) (*Grid, error) {
	g := &b.g
	if len(g.Rows) == 0 || g.Cols == 0 {
		return nil, ErrNoTable
	}
	g.Source = source
	g.Truncated = b.truncated
	for i, row := range g.Rows {
		for len(row) < g.Cols {
			row = append(row, "")
		}
		g.Rows[i] = row
		if b.anySpan {
			sp := g.Spanned[i]
			if sp == nil {
				sp = make([]bool, 0, g.Cols)
			}
			for len(sp) < g.Cols {
				sp = append(sp, false)
			}
			g.Spanned[i] = sp
		}
	}
	if !b.anySpan {
		g.Spanned = nil
	}
	g.HeaderRows = min(g.HeaderRows, len(g.Rows))
	if len(g.Align) > g.Cols {
		g.Align = g.Align[:g.Cols]
	}
	for len(g.Align) > 0 && len(g.Align) < g.Cols {
		g.Align = append(g.Align, "")
	}
	return g, nil
}

func newBuilder(lim TableLimits) *gridBuilder {
	d := DefaultLimits()
	if lim.MaxCells <= 0 {
		lim.MaxCells = d.MaxTableCells
	}
	if lim.MaxCols <= 0 {
		lim.MaxCols = d.MaxTableCols
	}
	if lim.MaxCellChars <= 0 {
		lim.MaxCellChars = d.MaxChars
	}
	return &gridBuilder{lim: lim}
}

// ParseHTMLTable parses the first <table> in s with golang.org/x/net/html.
// rowspan repeats a cell's text in the rows it covers (each row stays
// readable on its own while scrolling); colspan leaves the covered cells
// empty and marks them Spanned so the grid draws one wide cell.
func ParseHTMLTable(s string, lim TableLimits) (*Grid, error) {
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return nil, fmt.Errorf("parse table html: %w", err)
	}
	table := findTable(doc)
	if table == nil {
		return nil, ErrNoTable
	}
	b := newBuilder(lim)
	type pend struct {
		text    string
		left    int
		spanned bool
	}
	var pending []pend
	header := 0
	headerDone := false
	explicitHeader := false
	stop := false
	rowsDone := 0

	takePending := func(row *[]string, sp *[]bool, col int) int {
		for col < len(pending) && pending[col].left > 0 {
			*row = append(*row, pending[col].text)
			*sp = append(*sp, pending[col].spanned)
			pending[col].left--
			col++
		}
		return col
	}
	doRow := func(tr *html.Node, inHead bool) {
		if stop {
			return
		}
		var row []string
		var sp []bool
		col := 0
		allTH := true
		anyCell := false
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || (c.DataAtom != atom.Td && c.DataAtom != atom.Th) {
				continue
			}
			anyCell = true
			if c.DataAtom != atom.Th {
				allTH = false
			}
			col = takePending(&row, &sp, col)
			b.setAlign(col, dpe.CellAlign(c.Attr))
			text := b.cell(cellText(c))
			cs := spanAttr(c, "colspan", 1, b.lim.MaxCols)
			rs := spanAttr(c, "rowspan", 1, 65534)
			for k := 0; k < cs && col < b.lim.MaxCols; k++ {
				t := text
				if k > 0 {
					t = ""
				}
				row = append(row, t)
				sp = append(sp, k > 0)
				for len(pending) <= col {
					pending = append(pending, pend{})
				}
				if rs > 1 {
					pending[col] = pend{text: t, left: rs - 1, spanned: k > 0}
				}
				col++
			}
		}
		takePending(&row, &sp, col)
		if !anyCell {
			return
		}
		hasSpan := false
		for _, v := range sp {
			hasSpan = hasSpan || v
		}
		if !hasSpan {
			sp = nil
		}
		if !b.add(row, sp) {
			stop = true
			return
		}
		rowsDone++
		if inHead {
			explicitHeader = true
			header = rowsDone
		} else if !headerDone && !explicitHeader && allTH {
			header = rowsDone
		} else {
			headerDone = true
		}
	}
	var walk func(n *html.Node, inHead bool)
	walk = func(n *html.Node, inHead bool) {
		for c := n.FirstChild; c != nil && !stop; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Tr:
				doRow(c, inHead)
			case atom.Thead:
				walk(c, true)
			case atom.Tbody, atom.Tfoot:
				walk(c, false)
			}
		}
	}
	walk(table, false)
	if header == 0 && len(b.g.Rows) > 1 {
		// No <thead>/<th>: document tables (unstructured's text_as_html)
		// almost always start with their header row.
		header = 1
	}
	b.g.HeaderRows = header
	return b.done("html")
}

func findTable(n *html.Node) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == atom.Table {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := findTable(c); t != nil {
			return t
		}
	}
	return nil
}

func spanAttr(n *html.Node, name string, def, maxV int) int {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, name) {
			v, err := strconv.Atoi(strings.TrimSpace(a.Val))
			if err != nil || v < 1 {
				return def
			}
			return min(v, maxV)
		}
	}
	return def
}

// cellText flattens a cell's text; <br> and block elements become spaces.
func cellText(n *html.Node) string {
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				sb.WriteString(c.Data)
			case html.ElementNode:
				if c.DataAtom == atom.Script || c.DataAtom == atom.Style {
					continue
				}
				sb.WriteByte(' ')
				walk(c)
				sb.WriteByte(' ')
			}
			if sb.Len() > 1<<20 {
				return
			}
		}
	}
	walk(n)
	return strings.Join(strings.Fields(sb.String()), " ")
}

// ParseTextTable parses table text: a Markdown pipe table, else TSV, else
// CSV. The first row is taken as the header.
func ParseTextTable(s string, lim TableLimits) (*Grid, error) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(s) == "" {
		return nil, ErrNoTable
	}
	if g, err := parseMarkdownTable(lines, lim); err == nil {
		return g, nil
	}
	if strings.Contains(lines[0], "\t") {
		b := newBuilder(lim)
		for _, l := range lines {
			if strings.TrimSpace(l) == "" {
				continue
			}
			parts := strings.Split(l, "\t")
			row := make([]string, len(parts))
			for i, p := range parts {
				row[i] = b.cell(p)
			}
			if !b.add(row, nil) {
				break
			}
		}
		b.g.HeaderRows = boolInt(len(b.g.Rows) > 1)
		return b.done("tsv")
	}
	return parseCSV(s, lim)
}

func parseCSV(s string, lim TableLimits) (*Grid, error) {
	cr := csv.NewReader(strings.NewReader(s))
	cr.LazyQuotes = true
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	b := newBuilder(lim)
	multi := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("parse csv table: %w", err)
		}
		if len(rec) > 1 {
			multi++
		}
		row := make([]string, len(rec))
		for i, p := range rec {
			row[i] = b.cell(p)
		}
		if !b.add(row, nil) {
			break
		}
	}
	// Prose with a comma is not a table: most rows must have 2+ fields.
	if len(b.g.Rows) == 0 || multi*2 < len(b.g.Rows) || b.g.Cols < 2 {
		return nil, ErrNoTable
	}
	b.g.HeaderRows = boolInt(len(b.g.Rows) > 1)
	return b.done("csv")
}

func isMarkdownSeparator(l string) bool {
	l = strings.TrimSpace(l)
	if !strings.Contains(l, "-") || !strings.Contains(l, "|") && !strings.HasPrefix(l, "-") {
		return false
	}
	for _, c := range l {
		switch c {
		case '|', '-', ':', ' ', '\t':
		default:
			return false
		}
	}
	return true
}

func splitPipes(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	if strings.HasSuffix(l, "|") && !strings.HasSuffix(l, `\|`) {
		l = l[:len(l)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteByte('|')
			i++
		case l[i] == '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(l[i])
		}
	}
	return append(cells, cur.String())
}

func parseMarkdownTable(lines []string, lim TableLimits) (*Grid, error) {
	start := -1
	for i := 0; i+1 < len(lines); i++ {
		if strings.Contains(lines[i], "|") && isMarkdownSeparator(lines[i+1]) {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, ErrNoTable
	}
	b := newBuilder(lim)
	for j, d := range splitPipes(lines[start+1]) {
		d = strings.TrimSpace(d)
		switch l, r := strings.HasPrefix(d, ":"), strings.HasSuffix(d, ":"); {
		case l && r:
			b.setAlign(j, "center")
		case r:
			b.setAlign(j, "right")
		}
	}
	for i := start; i < len(lines); i++ {
		if i == start+1 {
			continue
		}
		l := lines[i]
		if !strings.Contains(l, "|") {
			break
		}
		parts := splitPipes(l)
		row := make([]string, len(parts))
		for j, p := range parts {
			row[j] = b.cell(p)
		}
		if !b.add(row, nil) {
			break
		}
	}
	b.g.HeaderRows = 1
	return b.done("markdown")
}
