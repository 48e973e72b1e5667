package convert

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/xuri/excelize/v2"
)

// xlsxChunkRows is how many rows go into one TableChunk when a sheet is
// too big for one Table element (readers page through chunks instead of
// one element of megabytes).
const xlsxChunkRows = 1000

// xlsxPages is an open workbook: a page per sheet, rows streamed.
type xlsxPages struct {
	f      *excelize.File
	sheets []string
	info   Info
}

func openXLSX(ctx context.Context, src *Source, env *Env) (Pages, error) {
	// excelize reads the whole zip; its size caps are the decompressed-size
	// limit (the bomb guard), so it never inflates more than we allow.
	zr, err := env.OpenZip(src)
	if err != nil {
		return nil, err
	}
	var inflated uint64
	for _, f := range zr.Reader.File {
		inflated += f.UncompressedSize64
	}
	if lim := env.Limits.MaxDecompressed; inflated > uint64(lim) {
		return nil, limitErr("decompressed size", lim, int64(inflated))
	}
	f, err := excelize.OpenReader(&readerAtReader{r: src.ReaderAt, size: src.Size}, excelize.Options{
		UnzipSizeLimit:    env.Limits.MaxDecompressed,
		UnzipXMLSizeLimit: min(env.Limits.MaxDecompressed, 16<<20),
	})
	if err != nil {
		if errors.Is(err, excelize.ErrWorkbookFileFormat) {
			return nil, errors.New("not an XLSX workbook")
		}
		if strings.Contains(err.Error(), "size limit") {
			return nil, limitErr("decompressed size", env.Limits.MaxDecompressed, int64(inflated))
		}
		return nil, fmt.Errorf("damaged XLSX: %w", err)
	}
	p := &xlsxPages{f: f, sheets: f.GetSheetList()}
	if len(p.sheets) == 0 {
		f.Close()
		return nil, errors.New("XLSX workbook has no sheets")
	}
	if props, err := f.GetDocProps(); err == nil && props != nil {
		p.info.Title = strings.TrimSpace(props.Title)
		p.info.Summary = strings.TrimSpace(props.Description)
		p.info.Keywords = pdfKeywords(props.Keywords)
		p.info.LastModified = strings.TrimSpace(props.Modified)
	}
	p.info.PageTitles = append([]string(nil), p.sheets...)
	return p, nil
}

func (p *xlsxPages) Info() Info { return p.info }

func (p *xlsxPages) Close() error { return p.f.Close() }

// span is a merged range's anchor (top-left) size.
type span struct{ rows, cols int }

func (p *xlsxPages) Page(ctx context.Context, i int, b *PageBuilder) error {
	sheet := p.sheets[i]
	// Merged cells: the anchor gets rowspan/colspan, the rest are skipped.
	anchors := map[[2]int]span{}
	covered := map[[2]int]bool{}
	if mcs, err := p.f.GetMergeCells(sheet); err == nil {
		for _, mc := range mcs {
			c1, r1, err1 := excelize.CellNameToCoordinates(mc.GetStartAxis())
			c2, r2, err2 := excelize.CellNameToCoordinates(mc.GetEndAxis())
			if err1 != nil || err2 != nil || r2 < r1 || c2 < c1 || (r2-r1+1)*(c2-c1+1) > 1<<20 {
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
	}
	rows, err := p.f.Rows(sheet)
	if err != nil {
		return fmt.Errorf("sheet %s: %w", sheet, err)
	}
	defer rows.Close()
	var (
		htmlB, textB strings.Builder
		header       []string
		n, chunk     int
		chunkStart   = 1
		chunked      bool
	)
	flush := func(last bool) {
		if n == 0 && !last {
			return
		}
		cat := "Table"
		meta := Meta{"page_name": sheet, "page_number": i + 1}
		if chunked || !last {
			cat = "TableChunk"
			chunked = true
			meta["chunk_index"] = chunk
			meta["row_start"] = chunkStart
		}
		if header != nil {
			meta["header_info"] = header
		}
		meta["text_as_html"] = "<table>" + htmlB.String() + "</table>"
		if n > 0 || !chunked {
			b.Add(cat, strings.TrimRight(textB.String(), "\n"), meta)
		}
		htmlB.Reset()
		textB.Reset()
		chunk++
		n = 0
	}
	r := 0
	for rows.Next() {
		r++
		if r%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		cols, err := rows.Columns()
		if err != nil {
			return fmt.Errorf("sheet %s row %d: %w", sheet, r, err)
		}
		if len(cols) == 0 && n == 0 && r > 1 {
			// A run of blank rows at a chunk start carries nothing.
		}
		if r == 1 {
			header = append([]string(nil), cols...)
		}
		if n == 0 {
			chunkStart = r
		}
		htmlB.WriteString("<tr>")
		var line []string
		for c, v := range cols {
			key := [2]int{r, c + 1}
			if covered[key] {
				continue
			}
			tag := "td"
			if r == 1 {
				tag = "th"
			}
			attrs := ""
			if s, ok := anchors[key]; ok {
				if s.rows > 1 {
					attrs += fmt.Sprintf(` rowspan="%d"`, s.rows)
				}
				if s.cols > 1 {
					attrs += fmt.Sprintf(` colspan="%d"`, s.cols)
				}
			}
			fmt.Fprintf(&htmlB, "<%s%s>%s</%s>", tag, attrs, html.EscapeString(v), tag)
			line = append(line, v)
		}
		htmlB.WriteString("</tr>")
		textB.WriteString(strings.Join(line, "\t"))
		textB.WriteByte('\n')
		n++
		if n >= xlsxChunkRows {
			flush(false)
		}
		if b.Err() != nil {
			return nil
		}
	}
	if err := rows.Error(); err != nil {
		return fmt.Errorf("sheet %s: %w", sheet, err)
	}
	flush(true)
	return nil
}

// readerAtReader reads a ReaderAt from the start (excelize wants an
// io.Reader).
type readerAtReader struct {
	r interface {
		ReadAt([]byte, int64) (int, error)
	}
	size int64
	off  int64
}

func (r *readerAtReader) Read(p []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	if rem := r.size - r.off; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := r.r.ReadAt(p, r.off)
	r.off += int64(n)
	if err == io.EOF && r.off < r.size {
		err = io.ErrUnexpectedEOF
	} else if err == io.EOF {
		err = nil
	}
	return n, err
}
