package convert

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html/charset"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// xlsxChunkRows is how many rows go into one TableChunk when a sheet is
// too big for one Table element (readers page through chunks instead of
// one element of megabytes).
const xlsxChunkRows = 1000

// xlsxMaxBlankRun bounds the empty rows written for a gap in a sheet's row
// numbers (row 1 then row 1,000,000 is two rows and a short run, not a
// million empty rows).
const xlsxMaxBlankRun = 100

// xlsxSparseGap is the run of empty columns from which a row stays sparse:
// the run is one <td colspan="N"></td> and one tab, not N cells. A cell
// at column XFD is then two cells, not 16,384 (a 12 KB sheet with one in
// each of 20,000 rows asked for 1.7 GB); shorter runs keep a cell per
// column, as a reader of a small table expects.
const xlsxSparseGap = 16

// xlsxCell is a cell with a value in a row: rows are kept sparse.
type xlsxCell struct {
	col  int // from 1
	text string
}

// xlsxPages is an open workbook: a page per sheet.
//
// The reader works on the package's XML directly (zip + encoding/xml
// tokens) rather than through excelize: excelize formats every cell
// through its locale tables (40 % of the time on a 100,000-row sheet) and
// loads a whole worksheet to answer for its merged cells. Here opening
// reads only the workbook, its relationships, the styles and the document
// properties; a page streams its own sheet (twice: once for the merged
// ranges, which come after the rows, once for the rows), so page 1 never
// waits for other sheets, and shared strings load on the first page.
type xlsxPages struct {
	z      *Zip
	env    *Env
	sheets []xlsxSheet
	info   Info

	date1904 bool
	fmts     []xlsxFormat // by cell style index (cellXfs)
	shared   *sharedStrings
	sstPath  string
	sstDone  bool
}

// xlsxSheet is a sheet of the workbook; state is "hidden" or
// "veryHidden" for a sheet the application does not show.
type xlsxSheet struct{ name, part, state string }

// xlsxFormat is a cell style's number format.
type xlsxFormat struct {
	code string
	date bool
}

func openXLSX(ctx context.Context, src *Source, env *Env) (Pages, error) {
	z, err := env.OpenZip(src)
	if err != nil {
		return nil, err
	}
	// Declared sizes are a cheap early answer for a bomb; the budget
	// reader still counts every byte really inflated.
	var inflated uint64
	for _, f := range z.Reader.File {
		inflated += f.UncompressedSize64
	}
	if lim := env.Limits.MaxDecompressed; inflated > uint64(lim) {
		return nil, limitErr("decompressed size", lim, int64(inflated))
	}
	p := &xlsxPages{z: z, env: env}
	wb := "xl/workbook.xml"
	if rels, err := p.rels("_rels/.rels", ""); err == nil {
		for _, r := range rels {
			if strings.HasSuffix(r.typ, "/officeDocument") {
				wb = r.target
			}
		}
	}
	if z.File(wb) == nil {
		return nil, errors.New("not an XLSX workbook (no workbook part)")
	}
	rels, err := p.rels(path.Join(path.Dir(wb), "_rels", path.Base(wb)+".rels"), path.Dir(wb))
	if err != nil {
		return nil, fmt.Errorf("damaged XLSX: %w", err)
	}
	byID := map[string]string{}
	stylesPath := ""
	for _, r := range rels {
		byID[r.id] = r.target
		switch {
		case strings.HasSuffix(r.typ, "/styles"):
			stylesPath = r.target
		case strings.HasSuffix(r.typ, "/sharedStrings"):
			p.sstPath = r.target
		}
	}
	if err := p.readWorkbook(wb, byID); err != nil {
		return nil, err
	}
	if len(p.sheets) == 0 {
		return nil, errors.New("XLSX workbook has no sheets")
	}
	if len(p.sheets) > env.Limits.MaxPages {
		return nil, limitErr("page count", int64(env.Limits.MaxPages), int64(len(p.sheets)))
	}
	if stylesPath != "" {
		if err := p.readStyles(stylesPath); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.readCore()
	for _, s := range p.sheets {
		p.info.PageTitles = append(p.info.PageTitles, s.name)
		p.info.SheetStates = append(p.info.SheetStates, s.state)
	}
	return p, nil
}

func (p *xlsxPages) Info() Info   { return p.info }
func (p *xlsxPages) Close() error { return nil }

type xlsxRel struct{ id, typ, target string }

// rels reads a relationships part; targets are resolved against base.
func (p *xlsxPages) rels(name, base string) ([]xlsxRel, error) {
	var out []xlsxRel
	err := p.scan(name, func(d *XMLDecoder, se xml.StartElement) error {
		if se.Name.Local == "Relationship" && attr(se, "TargetMode") != "External" {
			t := attr(se, "Target")
			if strings.HasPrefix(t, "/") {
				t = strings.TrimPrefix(t, "/")
			} else {
				t = path.Join(base, t)
			}
			out = append(out, xlsxRel{attr(se, "Id"), attr(se, "Type"), t})
		}
		return nil
	})
	return out, err
}

// scan calls f for each start element of a part.
func (p *xlsxPages) scan(name string, f func(*XMLDecoder, xml.StartElement) error) error {
	rc, err := p.z.Open(name)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := p.env.XML(rc)
	for {
		t, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if se, ok := t.(xml.StartElement); ok {
			if err := f(d, se); err != nil {
				return err
			}
		}
	}
}

func (p *xlsxPages) readWorkbook(wb string, byID map[string]string) error {
	err := p.scan(wb, func(d *XMLDecoder, se xml.StartElement) error {
		switch se.Name.Local {
		case "workbookPr":
			v := attr(se, "date1904")
			p.date1904 = v == "1" || v == "true"
		case "sheet":
			if len(p.sheets) >= p.env.Limits.MaxPages {
				return limitErr("page count", int64(p.env.Limits.MaxPages), int64(len(p.sheets)+1))
			}
			var rid string
			for _, a := range se.Attr {
				if a.Name.Local == "id" && a.Name.Space != "" {
					rid = a.Value
				}
			}
			if part := byID[rid]; part != "" {
				p.sheets = append(p.sheets, xlsxSheet{name: attr(se, "name"), part: part, state: sheetState(attr(se, "state"))})
			}
		}
		return nil
	})
	if err != nil {
		var le *dpe.LimitError
		if errors.As(err, &le) {
			return err
		}
		return fmt.Errorf("damaged XLSX: %w", err)
	}
	return nil
}

// builtinNumFmts are the number formats with implicit codes (ECMA-376
// part 1, 18.8.30) that matter for text.
var builtinNumFmts = map[int]string{
	1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00", 9: "0%", 10: "0.00%", 11: "0.00E+00",
	14: "mm-dd-yy", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy", 18: "h:mm AM/PM", 19: "h:mm:ss AM/PM",
	20: "h:mm", 21: "h:mm:ss", 22: "m/d/yy h:mm", 37: "#,##0 ;(#,##0)", 38: "#,##0 ;(#,##0)",
	39: "#,##0.00;(#,##0.00)", 40: "#,##0.00;(#,##0.00)", 45: "mm:ss", 46: "[h]:mm:ss", 47: "mm:ss.0",
	48: "##0.0E+0", 49: "@",
}

func (p *xlsxPages) readStyles(name string) error {
	custom := map[int]string{}
	var xfNumFmt []int
	inXfs := false
	err := p.scan(name, func(d *XMLDecoder, se xml.StartElement) error {
		switch se.Name.Local {
		case "numFmt":
			if id, err := strconv.Atoi(attr(se, "numFmtId")); err == nil && len(custom) < 4096 {
				custom[id] = attr(se, "formatCode")
			}
		case "cellXfs":
			inXfs = true
		case "cellStyles", "dxfs":
			inXfs = false
		case "xf":
			if inXfs && len(xfNumFmt) < 1<<16 {
				id, _ := strconv.Atoi(attr(se, "numFmtId"))
				xfNumFmt = append(xfNumFmt, id)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("damaged XLSX: %w", err)
	}
	p.fmts = make([]xlsxFormat, len(xfNumFmt))
	for i, id := range xfNumFmt {
		code, ok := custom[id]
		if !ok {
			code = builtinNumFmts[id]
		}
		// 27–36 and 50–58 are the East Asian built-in date formats.
		date := isDateFormat(code) || code == "" && (id >= 27 && id <= 36 || id >= 50 && id <= 58)
		if date && code == "" {
			code = "yyyy-mm-dd"
		}
		p.fmts[i] = xlsxFormat{code: code, date: date}
	}
	return nil
}

// readCore reads title, description, keywords and modification time from
// docProps/core.xml; a missing or broken part leaves them empty.
func (p *xlsxPages) readCore() {
	rc, err := p.z.Open("docProps/core.xml")
	if err != nil {
		return
	}
	defer rc.Close()
	d := p.env.XML(rc)
	for {
		t, err := d.Token()
		if err != nil {
			return
		}
		se, ok := t.(xml.StartElement)
		if !ok || d.Depth() != 2 {
			continue // the properties are the root's children
		}
		var s string
		if d.DecodeElement(&s, &se) != nil {
			return
		}
		d.depth-- // DecodeElement consumed the end element
		s = strings.TrimSpace(s)
		switch se.Name.Local {
		case "title":
			p.info.Title = s
		case "description":
			p.info.Summary = s
		case "keywords":
			p.info.Keywords = pdfKeywords(s)
		case "modified":
			p.info.LastModified = s
		}
	}
}

// loadShared reads the shared string table once: its bytes, and where
// each entry is (sharedStrings). Entries are decoded when a cell uses
// them: a table of 5,000,000 strings that no cell shows once took 14 s
// and 450 MB decoded whole, one string each.
func (p *xlsxPages) loadShared() error {
	if p.sstDone {
		return nil
	}
	p.sstDone = true
	if p.sstPath == "" || p.z.File(p.sstPath) == nil {
		return nil
	}
	data, err := p.z.ReadFile(p.sstPath)
	if err != nil {
		return fmt.Errorf("shared strings: %w", err)
	}
	sst, err := scanShared(data, p.env)
	if err != nil {
		return fmt.Errorf("shared strings: %w", err)
	}
	p.shared = sst
	return nil
}

// sharedStrings is the shared string table as read: the part's bytes and
// the [start, end) of each <si> element in them. An entry is decoded on
// first use and kept, so a string every cell shows is built once.
type sharedStrings struct {
	data  []byte
	spans []uint32 // start and end of entry i at 2i, 2i+1
	env   *Env
	text  map[int]string
}

func (s *sharedStrings) len() int {
	if s == nil {
		return 0
	}
	return len(s.spans) / 2
}

// get is entry k's text, "" when k is out of range or the entry is not
// well-formed.
func (s *sharedStrings) get(k int) string {
	if k < 0 || k >= s.len() {
		return ""
	}
	if t, ok := s.text[k]; ok {
		return t
	}
	t := s.decode(s.data[s.spans[2*k]:s.spans[2*k+1]])
	if s.text == nil {
		s.text = map[int]string{}
	}
	s.text[k] = t
	return t
}

// decode is the text of one <si> element: its <t> runs, without phonetic
// guides (<rPh>). Plain text in one <t> is taken as it is; anything else
// (entities, rich runs, line ends to normalize) goes through the XML
// decoder.
func (s *sharedStrings) decode(el []byte) string {
	if len(el) == 0 {
		return "" // <si/>
	}
	if gt := bytes.IndexByte(el, '>'); gt > 0 {
		inner := el[gt+1:]
		if lt := bytes.LastIndexByte(inner, '<'); lt >= 0 {
			inner = inner[:lt]
			for _, open := range [][]byte{[]byte("<t>"), []byte(`<t xml:space="preserve">`)} {
				if bytes.HasPrefix(inner, open) && bytes.HasSuffix(inner, []byte("</t>")) && len(inner) >= len(open)+4 {
					if t := inner[len(open) : len(inner)-4]; !bytes.ContainsAny(t, "<&\r") {
						return string(t)
					}
				}
			}
		}
	}
	d := s.env.XML(bytes.NewReader(el))
	var sb strings.Builder
	inT, inPh := false, 0
	for {
		t, err := d.RawToken()
		if err != nil {
			return sb.String() // io.EOF, or what was read before the damage
		}
		switch t := t.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "t":
				inT = true
			case "rPh":
				inPh++ // phonetic guide: not the cell's text
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inT = false
			case "rPh":
				inPh--
			}
		case xml.CharData:
			if inT && inPh == 0 {
				sb.Write(t)
			}
		}
	}
}

// scanShared finds the <si> elements of a shared string table by their
// tags alone (comments, CDATA, processing instructions and declarations
// skipped), a scan of the bytes instead of an XML token per piece, on the
// table in UTF-8 (transcoded first when it is not). More
// entries than Limits.MaxCells is a LimitError: no sheet could show them.
func scanShared(data []byte, env *Env) (*sharedStrings, error) {
	if int64(len(data)) >= 1<<32 {
		return nil, limitErr("shared strings size", 1<<32-1, int64(len(data)))
	}
	data, err := asUTF8(data, env)
	if err != nil {
		return nil, err
	}
	s := &sharedStrings{data: data, env: env}
	open := -1
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '<')
		if j < 0 {
			break
		}
		i += j
		rest := data[i:]
		skip := ""
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			skip = "-->"
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			skip = "]]>"
		case bytes.HasPrefix(rest, []byte("<?")):
			skip = "?>"
		case bytes.HasPrefix(rest, []byte("<!")):
			skip = ">"
		}
		if skip != "" {
			k := bytes.Index(rest, []byte(skip))
			if k < 0 {
				return nil, errors.New("unterminated markup")
			}
			i += k + len(skip)
			continue
		}
		end := bytes.IndexByte(rest, '>')
		if end < 0 {
			return nil, errors.New("unterminated tag")
		}
		tag := rest[1:end]
		closing := len(tag) > 0 && tag[0] == '/'
		name := tag
		if closing {
			name = name[1:]
		}
		if k := bytes.IndexAny(name, " \t\r\n/"); k >= 0 {
			name = name[:k]
		}
		if k := bytes.LastIndexByte(name, ':'); k >= 0 {
			name = name[k+1:]
		}
		if string(name) == "si" {
			switch {
			case closing && open >= 0:
				s.spans = append(s.spans, uint32(open), uint32(i+end+1))
				open = -1
			case !closing && bytes.HasSuffix(tag, []byte("/")):
				s.spans = append(s.spans, uint32(i), uint32(i)) // <si/>: an empty entry
			case !closing && open < 0:
				open = i
			}
			if n := int64(len(s.spans) / 2); n > env.Limits.MaxCells {
				return nil, limitErr("shared string count", env.Limits.MaxCells, n)
			}
		}
		i += end + 1
	}
	return s, nil
}

// asUTF8 is data in UTF-8: as it is, or transcoded when its byte order
// mark or XML declaration names another encoding (the decoder reads such
// parts through the same charset table), within Limits.MaxDecompressed.
func asUTF8(data []byte, env *Env) ([]byte, error) {
	label := ""
	switch {
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}), bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		label = "utf-16"
	case bytes.HasPrefix(data, []byte("<?xml")):
		decl := data
		if k := bytes.Index(decl, []byte("?>")); k >= 0 {
			decl = decl[:k]
		}
		if k := bytes.Index(decl, []byte("encoding=")); k >= 0 && len(decl) > k+10 {
			v := decl[k+10:]
			if q := bytes.IndexAny(v, "\"'"); q >= 0 {
				v = v[:q]
			}
			label = string(v)
		}
	}
	if label == "" || strings.EqualFold(label, "utf-8") || strings.EqualFold(label, "utf8") {
		return data, nil
	}
	r, err := charset.NewReaderLabel(label, bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("encoding %.20q: %w", label, err)
	}
	lim := env.Limits.MaxDecompressed
	out, err := io.ReadAll(io.LimitReader(r, lim+1))
	if err != nil {
		return nil, err
	}
	if int64(len(out)) > lim {
		return nil, limitErr("decompressed size", lim, int64(len(out)))
	}
	return out, nil
}

// span is a merged range's anchor (top-left) size.
type span struct{ rows, cols int }

// merges finds the sheet's merged ranges: a byte search for the
// mergeCells element (it follows the rows), then a decoder from there.
func (p *xlsxPages) merges(part string) (map[[2]int]span, map[[2]int]bool, error) {
	rc, err := p.z.Open(part)
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 64<<10)
	needle := []byte("mergeCells")
	var carry []byte
	buf := make([]byte, 64<<10)
	var rest io.Reader
	for rest == nil {
		n, err := br.Read(buf)
		win := append(carry, buf[:n]...)
		if k := bytes.Index(win, needle); k >= 0 {
			start := bytes.LastIndexByte(win[:k], '<')
			if start < 0 {
				start = k
			}
			rest = io.MultiReader(bytes.NewReader(append([]byte(nil), win[start:]...)), br)
			break
		}
		if err == io.EOF {
			return nil, nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		carry = append(carry[:0], win[max(0, len(win)-64):]...)
	}
	anchors := map[[2]int]span{}
	covered := map[[2]int]bool{}
	d := p.env.XML(rest)
	for {
		t, err := d.RawToken()
		if err != nil {
			break // the tail after the element is not a document: stop there
		}
		if ee, ok := t.(xml.EndElement); ok && ee.Name.Local == "mergeCells" {
			break
		}
		se, ok := t.(xml.StartElement)
		if !ok || se.Name.Local != "mergeCell" {
			continue
		}
		a, b, ok := strings.Cut(attr(se, "ref"), ":")
		if !ok {
			continue
		}
		r1, c1, ok1 := cellRef(a)
		r2, c2, ok2 := cellRef(b)
		if !ok1 || !ok2 || r2 < r1 || c2 < c1 || (r2-r1+1)*(c2-c1+1) > 1<<20 || len(covered) > 4<<20 {
			continue
		}
		anchors[[2]int{r1, c1}] = span{r2 - r1 + 1, c2 - c1 + 1}
		for r := r1; r <= r2; r++ {
			for c := c1; c <= c2; c++ {
				if r != r1 || c != c1 {
					covered[[2]int{r, c}] = true
				}
			}
		}
	}
	return anchors, covered, nil
}

// cellRef parses "B12" into row 12, column 2 (both from 1).
func cellRef(s string) (row, col int, ok bool) {
	i := 0
	for i < len(s) && i < 4 {
		ch := s[i] | 0x20
		if ch < 'a' || ch > 'z' {
			break
		}
		col = col*26 + int(ch-'a'+1)
		i++
	}
	if i == 0 || i == len(s) {
		return 0, 0, false
	}
	row, err := strconv.Atoi(strings.TrimPrefix(s[i:], "$"))
	if err != nil || row < 1 || row > 1<<20 || col > 1<<14 {
		return 0, 0, false
	}
	return row, col, true
}

func (p *xlsxPages) Page(ctx context.Context, i int, b *PageBuilder) error {
	sh := p.sheets[i]
	if err := p.loadShared(); err != nil {
		return err
	}
	anchors, covered, err := p.merges(sh.part)
	if err != nil {
		return fmt.Errorf("sheet %s: %w", sh.name, err)
	}
	rc, err := p.z.Open(sh.part)
	if err != nil {
		return fmt.Errorf("sheet %s: %w", sh.name, err)
	}
	defer rc.Close()
	t := &xlsxTable{b: b, sheet: sh.name, state: sh.state, page: i, anchors: anchors, covered: covered, merged: mergedCols(anchors, covered)}
	if sh.state != "" {
		b.SetPageMeta("sheet_state", sh.state)
	}
	// Shared formulas by si: the text is written in the range's first
	// cell only.
	type sharedFormula struct {
		row, col int
		text     string
	}
	shared := map[string]sharedFormula{}
	d := p.env.XML(bufio.NewReaderSize(rc, 64<<10))
	var (
		row, col     int // current row and the next cell's column
		cells        []xlsxCell
		cellCol      int
		typ, style   string
		val          strings.Builder
		inV, inIS    bool
		inF, hasF    bool
		formula      strings.Builder
		fType, fSI   string
		inT, inPh    int
		hasV         bool
		depth        int
		inSheetData  bool
		sinceCtxTest int
	)
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("sheet %s: %w", sh.name, err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			if depth++; depth > p.env.Limits.MaxDepth {
				return limitErr("nesting depth", int64(p.env.Limits.MaxDepth), int64(depth))
			}
			switch tk.Name.Local {
			case "sheetData":
				inSheetData = true
			case "row":
				if !inSheetData {
					continue
				}
				r := row + 1
				if v, err := strconv.Atoi(attr(tk, "r")); err == nil && v > row {
					r = v
				}
				for k := row + 1; k < r && k-row <= xlsxMaxBlankRun; k++ {
					t.addRow(k, nil)
				}
				row, col, cells = r, 1, cells[:0]
				if sinceCtxTest++; sinceCtxTest >= 256 {
					sinceCtxTest = 0
					if err := ctx.Err(); err != nil {
						return err
					}
				}
			case "c":
				if row == 0 {
					continue
				}
				cellCol = col
				if _, c, ok := cellRef(attr(tk, "r")); ok && c >= col {
					cellCol = c
				}
				typ, style = attr(tk, "t"), attr(tk, "s")
				val.Reset()
				formula.Reset()
				hasV, hasF = false, false
			case "f":
				inF, hasF = true, true
				fType, fSI = attr(tk, "t"), attr(tk, "si")
			case "v":
				inV, hasV = true, true
			case "is":
				inIS, hasV = true, true
			case "t":
				inT++
			case "rPh":
				inPh++
			}
		case xml.EndElement:
			depth--
			switch tk.Name.Local {
			case "sheetData":
				inSheetData = false
			case "v":
				inV = false
			case "f":
				inF = false
				if fType != "shared" || row == 0 {
					break
				}
				if f := formula.String(); strings.TrimSpace(f) != "" {
					if _, ok := shared[fSI]; !ok {
						shared[fSI] = sharedFormula{row, cellCol, f}
					}
				} else if m, ok := shared[fSI]; ok {
					formula.WriteString(shiftFormula(m.text, row-m.row, cellCol-m.col))
				}
			case "is":
				inIS = false
			case "t":
				inT--
			case "rPh":
				inPh--
			case "c":
				if row == 0 {
					continue
				}
				last := 0
				if len(cells) > 0 {
					last = cells[len(cells)-1].col
				}
				if cellCol <= last {
					col = last + 1
					continue // a second value for a column: the first one stays
				}
				text := ""
				if hasV {
					text = p.cellText(typ, style, val.String())
				}
				ftext := ""
				if hasF {
					ftext = strings.TrimSpace(formula.String())
				}
				if ftext != "" {
					ftext = "=" + ftext
					if b.Charge(0, 2*int64(len(ftext))+16) != nil {
						return nil
					}
					ref := colName(cellCol) + strconv.Itoa(row)
					t.formula(ref, ftext, text == "")
					if text == "" {
						text = ftext
					}
				}
				// Charged before the copies in the row's text and HTML are
				// built: one shared string can be used by every cell. The
				// empty columns before it cost what addRow writes for them.
				gapCells, gapBytes := t.gapCost(row, last+1, cellCol)
				if b.Charge(gapCells+1, gapBytes+2*int64(len(text))+16) != nil {
					return nil
				}
				cells = append(cells, xlsxCell{cellCol, text})
				col = cellCol + 1
			case "row":
				if row > 0 && inSheetData {
					for len(cells) > 0 && cells[len(cells)-1].text == "" {
						cells = cells[:len(cells)-1]
					}
					t.addRow(row, cells)
					if b.Err() != nil {
						return nil
					}
				}
			}
		case xml.CharData:
			switch {
			case inF:
				formula.Write(tk)
			case inV || inIS && inT > 0 && inPh == 0:
				val.Write(tk)
			}
		}
	}
	t.flush(true)
	return nil
}

// cellText is a cell's value as shown: shared and inline strings, booleans,
// errors, and numbers through their style's number format.
func (p *xlsxPages) cellText(typ, style, v string) string {
	var nf xlsxFormat
	if s, err := strconv.Atoi(style); err == nil && s >= 0 && s < len(p.fmts) {
		nf = p.fmts[s]
	}
	switch typ {
	case "s":
		k, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return ""
		}
		return formatText(p.shared.get(k), nf)
	case "inlineStr", "str":
		return formatText(v, nf)
	case "e", "d":
		return v
	case "b":
		if strings.TrimSpace(v) == "1" {
			return "TRUE"
		}
		return "FALSE"
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return v
	}
	return formatNumber(f, nf, p.date1904)
}

// xlsxTable writes a sheet's rows as one Table, or as TableChunks of
// xlsxChunkRows rows when the sheet is longer.
type xlsxTable struct {
	b                *PageBuilder
	sheet, state     string
	formulas         map[string]any // this element's: A1 reference → "=…"
	uncached         []string       // references of formulas without a cached value
	page             int
	anchors          map[[2]int]span
	covered          map[[2]int]bool
	merged           map[int][]int // row → its merged columns (anchors and covered), sorted
	htmlB, textB     strings.Builder
	header           []string
	n, chunk, start  int
	cells            int // <td>/<th> written since the last flush
	chunked, started bool
}

// mergedCols indexes the merged positions by row, so a run of empty
// columns can tell whether a merge lies in it without a lookup per column.
func mergedCols(anchors map[[2]int]span, covered map[[2]int]bool) map[int][]int {
	if len(anchors) == 0 {
		return nil
	}
	m := map[int][]int{}
	for k := range anchors {
		m[k[0]] = append(m[k[0]], k[1])
	}
	for k := range covered {
		m[k[0]] = append(m[k[0]], k[1])
	}
	for _, cols := range m {
		slices.Sort(cols)
	}
	return m
}

// sparse reports whether the empty columns [from, to) of row r are written
// as one colspan: a long run with no merged cell in it.
func (t *xlsxTable) sparse(r, from, to int) bool {
	if to-from < xlsxSparseGap {
		return false
	}
	cols := t.merged[r]
	k, _ := slices.BinarySearch(cols, from)
	return k >= len(cols) || cols[k] >= to
}

// gapCost is what addRow writes for the empty columns [from, to) of row r:
// the cells and bytes charged before the row is built.
func (t *xlsxTable) gapCost(r, from, to int) (cells, bytes int64) {
	switch {
	case to <= from:
		return 0, 0
	case t.sparse(r, from, to):
		return 1, int64(len(`<td colspan="16384"></td>` + "\t"))
	}
	n := int64(to - from)
	return n, n * int64(len("<td></td>\t"))
}

func (t *xlsxTable) addRow(r int, cols []xlsxCell) {
	if !t.started {
		t.started = true
		if len(cols) > 0 {
			// header_info names every column up to the last one: at most
			// 16,384 strings, most of them empty (shared, not copied).
			t.header = make([]string, cols[len(cols)-1].col)
			for _, c := range cols {
				t.header[c.col-1] = c.text
			}
		}
	}
	if t.n == 0 {
		t.start = r
	}
	t.htmlB.WriteString("<tr>")
	tag := "td"
	if r == 1 {
		tag = "th"
	}
	first := true
	sep := func() {
		if !first {
			t.textB.WriteByte('\t')
		}
		first = false
	}
	cell := func(c int, v string) {
		key := [2]int{r, c}
		if t.covered[key] {
			return
		}
		attrs := ""
		if s, ok := t.anchors[key]; ok {
			if s.rows > 1 {
				attrs += fmt.Sprintf(` rowspan="%d"`, s.rows)
			}
			if s.cols > 1 {
				attrs += fmt.Sprintf(` colspan="%d"`, s.cols)
			}
		}
		fmt.Fprintf(&t.htmlB, "<%s%s>%s</%s>", tag, attrs, html.EscapeString(v), tag)
		t.cells++
		sep()
		t.textB.WriteString(v)
	}
	next := 1
	for _, v := range cols {
		if t.sparse(r, next, v.col) {
			fmt.Fprintf(&t.htmlB, `<%s colspan="%d"></%s>`, tag, v.col-next, tag)
			t.cells++
			sep()
		} else {
			for c := next; c < v.col; c++ {
				cell(c, "")
			}
		}
		cell(v.col, v.text)
		next = v.col + 1
	}
	t.htmlB.WriteString("</tr>")
	t.textB.WriteByte('\n')
	t.n++
	if t.n >= xlsxChunkRows {
		t.flush(false)
	}
}

func (t *xlsxTable) flush(last bool) {
	if t.n == 0 && (!last || t.chunked) {
		return
	}
	if t.cells == 0 && !t.chunked && last {
		// An empty sheet (or one of blank rows only) has no table: a
		// <table> without cells is not a table (DPE-E032). Its page stays,
		// titled with the sheet's name, without elements.
		t.htmlB.Reset()
		t.textB.Reset()
		t.n = 0
		return
	}
	cat := "Table"
	meta := Meta{"page_name": t.sheet, "page_number": t.page + 1}
	if t.chunked || !last {
		cat = "TableChunk"
		t.chunked = true
		meta["chunk_index"] = t.chunk
		meta["row_start"] = t.start
	}
	if t.header != nil {
		meta["header_info"] = t.header
	}
	if t.state != "" {
		meta["sheet_state"] = t.state
	}
	if len(t.formulas) > 0 {
		meta["formulas"] = t.formulas
	}
	if len(t.uncached) > 0 {
		meta["formulas_uncached"] = t.uncached
	}
	t.formulas, t.uncached = nil, nil
	meta["text_as_html"] = "<table>" + t.htmlB.String() + "</table>"
	t.b.Add(cat, strings.TrimRight(t.textB.String(), "\n"), meta)
	t.htmlB.Reset()
	t.textB.Reset()
	t.chunk++
	t.n = 0
	t.cells = 0
}

// formula records the formula of the cell at ref for the element being
// built; uncached: the cell has no value of its own and shows it.
func (t *xlsxTable) formula(ref, f string, uncached bool) {
	if t.formulas == nil {
		t.formulas = map[string]any{}
	}
	t.formulas[ref] = f
	if uncached {
		t.uncached = append(t.uncached, ref)
	}
}

// sheetState is a sheet's workbook state: "" for a visible sheet.
func sheetState(s string) string {
	switch s {
	case "hidden", "veryHidden":
		return s
	}
	return ""
}
