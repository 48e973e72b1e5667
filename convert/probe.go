package convert

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
)

// Probe is what a folder listing needs about a file, had without
// converting its pages.
type Probe struct {
	Kind         Kind
	FileType     string
	Title        string // properties or the file name
	Summary      string
	Keywords     []string // never nil
	LastModified string   // RFC 3339 or empty
	// PageCount is 0 when it is not known before conversion: a PDF whose
	// page tree is not plain text in the file (object streams).
	PageCount int
}

// Probe sniffs src and reads its metadata and page count. It never starts
// the PDF engine (a listing of a folder with PDFs must not cost the
// engine's start-up): a PDF's page count is read from the /Count of its
// page tree when that is plain text in the file, its title is the file
// name until it is converted. Other formats are opened (Open) and closed.
// Errors are Open's: one line starting with src.Name.
func (c *Converter) Probe(ctx context.Context, src Source) (Probe, error) {
	kind, err := Sniff(src.Name, src.ReaderAt, src.Size)
	if err != nil {
		return Probe{}, fmt.Errorf("%s: %w", src.Name, err)
	}
	if kind != KindPDF {
		d, err := c.Open(ctx, src)
		if err != nil {
			return Probe{}, err
		}
		defer d.Close()
		return Probe{Kind: d.Kind(), FileType: d.FileType(), Title: d.Title(), Summary: d.head.Summary,
			Keywords: d.Keywords(), LastModified: d.LastModified(), PageCount: d.PageCount()}, nil
	}
	lim := c.opt.Limits
	if src.Size > lim.MaxFileSize {
		return Probe{}, fmt.Errorf("%s: %w", src.Name, limitErr("file size", lim.MaxFileSize, src.Size))
	}
	src.lim = lim.MaxFileSize
	data, err := src.Bytes()
	if err != nil {
		return Probe{}, fmt.Errorf("%s: %w", src.Name, err)
	}
	p := Probe{Kind: kind, FileType: kind.FileType(), Title: baseName(&src), Keywords: []string{}, PageCount: pdfPageCountHint(data)}
	if d := pdfDateHint(data); d != "" {
		p.LastModified = d
	} else if !src.ModTime.IsZero() {
		p.LastModified = src.ModTime.UTC().Truncate(1e9).Format("2006-01-02T15:04:05Z07:00")
	}
	if bytes.LastIndex(data, []byte("%%EOF")) < 0 {
		// Every complete PDF has %%EOF after its last revision: a
		// truncated download is that file's error now, not a surprise on
		// first read. Bytes after it (a mail gateway's footer, junk
		// appended) are no truncation: PDFium reads such a file, so the
		// listing must not call it broken. Searched from the end, where
		// a complete file has it, so a large PDF is not read through.
		return Probe{}, fmt.Errorf("%s: truncated PDF (no %%%%EOF)", src.Name)
	}
	return p, nil
}

// pdfObject matches one indirect object; pdfPagesCount the /Count of a
// page tree node in it.
var (
	pdfObject     = regexp.MustCompile(`(?s)\d+\s+\d+\s+obj\b(.*?)endobj`)
	pdfTypePages  = regexp.MustCompile(`/Type\s*/Pages\b`)
	pdfPagesCount = regexp.MustCompile(`/Count\s+(\d{1,9})\b`)
	pdfModDate    = regexp.MustCompile(`/ModDate\s*\((D:[0-9+\-Z']{4,32})\)`)
	pdfCreateDate = regexp.MustCompile(`/CreationDate\s*\((D:[0-9+\-Z']{4,32})\)`)
)

// pdfDateHint is the document's date as the conversion reads it (ModDate,
// else CreationDate) when the Info dictionary is plain text; the last one
// wins, as an incremental update appends a newer Info. "" otherwise.
func pdfDateHint(data []byte) string {
	for _, re := range []*regexp.Regexp{pdfModDate, pdfCreateDate} {
		if all := re.FindAllSubmatch(data, -1); len(all) > 0 {
			if d := pdfDate(string(all[len(all)-1][1])); d != "" {
				return d
			}
		}
	}
	return ""
}

// pdfPageCountHint is the largest /Count of a /Type /Pages object written
// as plain text (the root of the page tree holds the total), or 0.
func pdfPageCountHint(data []byte) int {
	best := 0
	for _, m := range pdfObject.FindAllSubmatchIndex(data, -1) {
		body := data[m[2]:m[3]]
		if s := bytes.Index(body, []byte("stream")); s >= 0 {
			body = body[:s] // the dictionary only, not stream bytes
		}
		if !pdfTypePages.Match(body) {
			continue
		}
		if c := pdfPagesCount.FindSubmatch(body); c != nil {
			if n, err := strconv.Atoi(string(c[1])); err == nil && n > best {
				best = n
			}
		}
	}
	return best
}
