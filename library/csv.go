package library

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
)

// csvRowsPerPage is how many data rows one Table page holds; the header row
// is repeated on every page so each page reads on its own.
const csvRowsPerPage = 200

// convertCSV reads delimited text with encoding/csv (ragged rows allowed,
// lazy quotes) into one Table element per page of rows.
func convertCSV(b *docBuilder, data []byte, comma rune) error {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = comma
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	var records [][]string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("parse delimited text: %w", err)
		}
		records = append(records, rec)
	}
	if len(records) == 0 {
		b.add(catNarrativeText, "(empty table)", nil)
		return nil
	}
	width := 0
	for _, rec := range records {
		width = max(width, len(rec))
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
		b.startPage(title)
		m := map[string]any{
			"text_as_html": tableHTML(header, rows),
			"header_info":  map[string]any{"columns": header},
		}
		if start > 0 {
			// proposal §3.4 is_continuation: the same table goes on.
			m["is_continuation"] = true
			m["parent_id"] = "p0-e0"
		}
		b.add(catTable, tableText(header, rows), m)
	}
	return nil
}
