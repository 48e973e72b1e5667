package convert

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"html"
	"io"
	"strings"
)

// csvRowsPerPage is how many data rows one Table page holds; the header row
// is repeated on every page so each page reads on its own.
const csvRowsPerPage = 200

func openCSV(ctx context.Context, src *Source, env *Env) (Pages, error) {
	return openDelimited(ctx, src, env, ',', KindCSV)
}

func openTSV(ctx context.Context, src *Source, env *Env) (Pages, error) {
	return openDelimited(ctx, src, env, '\t', KindTSV)
}

// openDelimited reads delimited text with encoding/csv (ragged rows
// allowed, lazy quotes) into one Table element per page of rows.
func openDelimited(ctx context.Context, src *Source, env *Env, comma rune, kind Kind) (Pages, error) {
	// Every byte of a field is written twice, in the text and in
	// text_as_html: a file over half the output budget cannot fit, and is
	// refused before it is read.
	if est := 2 * src.Size; est > env.Limits.MaxOutputBytes {
		return nil, limitErr("output size", env.Limits.MaxOutputBytes, est)
	}
	data, err := textBytes(src)
	if err != nil {
		return nil, err
	}
	if kind == KindCSV {
		// A .csv may be separated by semicolons (spreadsheets write
		// them where the comma is the decimal sign) or tabs: the first
		// records say.
		comma = sniffDelimiter(data, comma)
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = comma
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	r.ReuseRecord = false
	maxRows := env.Limits.MaxPages * csvRowsPerPage
	var records [][]string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("parse delimited text: %w", err)
		}
		if len(records) > maxRows {
			return nil, limitErr("page count", int64(env.Limits.MaxPages), int64(len(records)/csvRowsPerPage+1))
		}
		if len(records)%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		records = append(records, rec)
	}
	info := Info{Title: baseName(src), Keywords: pathKeywords(src, kind.FileType())}
	book := NewBook(env)
	if len(records) == 0 {
		book.StartPage(info.Title).Add("NarrativeText", "(empty table)", nil)
		return book.Pages(info), nil
	}
	width := 0
	for _, rec := range records {
		width = max(width, len(rec))
	}
	// Every row is padded to the widest one (one row of 100,000 commas
	// pads them all): charged before the padding is allocated.
	if err := env.Charge(int64(width)*int64(len(records)), int64(width)*int64(len(records))*int64(len("<td></td>\t"))); err != nil {
		return nil, err
	}
	for i, rec := range records {
		for len(rec) < width {
			rec = append(rec, "")
		}
		records[i] = rec
	}
	header, body := records[0], records[1:]
	total := len(body)
	for start := 0; start == 0 || start < total; start += csvRowsPerPage {
		end := min(start+csvRowsPerPage, total)
		rows := body[start:end]
		title := fmt.Sprintf("Rows %d–%d of %d", start+1, end, total)
		if total == 0 {
			title = "Header only"
		}
		m := Meta{
			"text_as_html": PlainTableHTML(header, rows),
			"header_info":  header, // the column names, as xlsx.go writes them
		}
		if start > 0 {
			// proposal §3.4 is_continuation: the same table goes on.
			m["is_continuation"] = true
			m["parent_id"] = "p0-e0"
		}
		book.StartPage(title).Add("Table", PlainTableText(header, rows), m)
	}
	if err := book.Err(); err != nil {
		return nil, err
	}
	return book.Pages(info), nil
}

// PlainTableText is the plain form of a table: cells joined by tabs, rows
// by newlines, header first (the library's generated tables use it too).
func PlainTableText(header []string, rows [][]string) string {
	var sb strings.Builder
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	write := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				sb.WriteByte('\t')
			}
			sb.WriteString(clean.Replace(c))
		}
		sb.WriteByte('\n')
	}
	if header != nil {
		write(header)
	}
	for _, r := range rows {
		write(r)
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// PlainTableHTML renders a table without merged cells as escaped HTML for
// ele_metadata.text_as_html, the header row in <thead>.
func PlainTableHTML(header []string, rows [][]string) string {
	return alignedTableHTML(header, rows, nil)
}

// alignedTableHTML is PlainTableHTML with each column's alignment
// (dpe.AlignWord; nil or "" for the default).
func alignedTableHTML(header []string, rows [][]string, align []string) string {
	var sb strings.Builder
	open := func(tag string, col int) {
		sb.WriteString("<" + tag)
		if col < len(align) && align[col] != "" {
			sb.WriteString(` style="text-align: ` + align[col] + `;"`)
		}
		sb.WriteString(">")
	}
	sb.WriteString("<table>")
	if header != nil {
		sb.WriteString("<thead><tr>")
		for i, h := range header {
			open("th", i)
			sb.WriteString(html.EscapeString(h))
			sb.WriteString("</th>")
		}
		sb.WriteString("</tr></thead>")
	}
	sb.WriteString("<tbody>")
	for _, r := range rows {
		sb.WriteString("<tr>")
		for i, cell := range r {
			open("td", i)
			sb.WriteString(html.EscapeString(cell))
			sb.WriteString("</td>")
		}
		sb.WriteString("</tr>")
	}
	sb.WriteString("</tbody></table>")
	return sb.String()
}
