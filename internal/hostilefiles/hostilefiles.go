// Package hostilefiles makes files built to make a converter amplify: a
// few bytes in that ask for gigabytes of output, memory or minutes of
// CPU. Tests make them fresh (nothing large is checked in); `go run
// ./internal/hostilefiles/make-hostile DIR` writes them for a manual run
// (serve --docs DIR, convert, open).
//
// Each file names the limit that must stop it (the What of the
// dpe.LimitError the converter returns), so a test can hold every
// converter to "past the budget, a LimitError for that document only".
package hostilefiles

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// File is one hostile file.
type File struct {
	Name string // file name; its extension is the format
	// Limit is a word of the LimitError's What that must stop it
	// ("output size", "cell count", "PDF engine memory" …); any of
	// several, separated by "|". PDFium reaches its memory limit in
	// seconds, or on a loaded machine meets the conversion's deadline
	// first: either is a budget. Empty: a file that asks for much
	// only of a converter that pads, and converts within every budget
	// (the far-column sheet, whose rows stay sparse).
	Limit string
	Why   string // what it does, in one line
	Write func(w io.Writer) error
}

// All is every hostile file.
func All() []File {
	return []File{
		{"xlsx-shared-string.xlsx", "output size", "200 cells all pointing at one 1 MiB shared string", xlsxSharedString},
		{"ods-repeated.ods", "output size", "a 64 KiB cell repeated 1,000 columns × 1,000 rows", odsRepeated},
		{"xlsx-far-column.xlsx", "", "one cell at column XFD in each of 20,000 rows", xlsxFarColumn},
		{"xlsx-unused-shared-strings.xlsx", "", "5,000,000 shared strings, two of them used by a cell", xlsxUnusedSharedStrings},
		{"csv-ragged.csv", "cell count", "one row of 100,000 commas pads 10,000 short rows", csvRagged},
		{"csv-long-line.csv", "output size", "one 400 MB line", csvLongLine},
		{"pdf-self-form.pdf", "PDF engine|conversion time", "a form XObject that draws itself twice", pdfSelfForm},
		{"pdf-fan-out.pdf", "PDF engine|conversion time", "form XObjects drawing the next level ten times, nine levels deep", pdfFanOut},
		{"pdf-flate-bomb.pdf", "PDF engine|conversion time", "a 1 MB content stream that inflates to 1 GiB", pdfFlateBomb},
		{"pdf-2m-chars.pdf", "character count|PDF engine|conversion time", "2,000,000 characters on one page", pdf2MChars},
		{"md-link-openers.md", "'[' in one paragraph", `"[x](" ×50,000 in one paragraph`, mdLinkOpeners},
		{"md-quote-depth.md", "block quote nesting depth", `">" ×100,000 on one line`, mdQuoteDepth},
		{"md-link-paragraphs.md", "bytes scanned for link destinations", `75 paragraphs of "[x](" ×4,000 (each under the '[' cap)`, mdLinkParagraphs},
		{"md-emphasis.md", "emphasis delimiter pairs", `20 paragraphs of "*a " ×16,000`, mdEmphasis},
		{"md-quote-list.md", "block quote nesting depth", `"> - " ×10,000 on one line`, mdQuoteList},
		{"md-table-wide.md", "table cell count", "a table 100,000 columns wide with 50 rows", mdTableWide},
		{"md-list-deep.md", "list nesting depth", "2,000 list items, each indented 2 spaces past the last", mdListDeep},
		{"md-backticks.md", "bytes scanned for code span ends", "runs of 1 to 4,000 backticks that never close", mdBackticks},
		{"eml-many-parts.eml", "MIME part count", "250,000 MIME parts", emlManyParts},
		{"eml-deep.eml", "MIME multipart count", "multiparts nested 10,000 deep", emlDeep},
		{"docx-tiny-paragraphs.docx", "output size", "3,000,000 one-letter paragraphs in a small zip", docxTinyParagraphs},
	}
}

// WriteAll writes every file into dir and returns their paths.
func WriteAll(dir string) ([]string, error) {
	var paths []string
	for _, f := range All() {
		p := filepath.Join(dir, f.Name)
		if err := WriteFile(p, f); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// WriteFile writes f at path.
func WriteFile(path string, f File) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 1<<20)
	err = f.Write(w)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	return nil
}

// repeatWriter writes s n times.
func repeat(w io.Writer, s string, n int) error {
	// In blocks, so a million repeats are a few hundred writes.
	block := strings.Repeat(s, max(1, (64<<10)/max(len(s), 1)))
	per := len(block) / len(s)
	for n > 0 {
		k := min(n, per)
		if _, err := io.WriteString(w, block[:k*len(s)]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// zipParts writes a zip of the parts in order; a part's content is made
// by its function (so big parts stream).
type part struct {
	name  string
	write func(io.Writer) error
}

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func zipParts(w io.Writer, parts ...part) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for _, p := range parts {
		method := zip.Deflate
		if p.name == "mimetype" {
			method = zip.Store
		}
		pw, err := zw.CreateHeader(&zip.FileHeader{Name: p.name, Method: method})
		if err != nil {
			return err
		}
		if err := p.write(pw); err != nil {
			return err
		}
	}
	return zw.Close()
}

const (
	nsMain = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
	nsRel  = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	nsPkg  = "http://schemas.openxmlformats.org/package/2006/relationships"
)

// xlsx is a one-sheet workbook with the given sheetData rows and shared
// strings.
func xlsx(w io.Writer, rows func(io.Writer) error, shared func(io.Writer) error) error {
	return zipParts(w,
		part{"[Content_Types].xml", text(`<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`)},
		part{"_rels/.rels", text(`<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="` + nsPkg + `"><Relationship Id="rId1" Type="` + nsRel + `/officeDocument" Target="xl/workbook.xml"/></Relationships>`)},
		part{"xl/workbook.xml", text(`<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="` + nsMain + `" xmlns:r="` + nsRel + `"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`)},
		part{"xl/_rels/workbook.xml.rels", text(`<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="` + nsPkg + `"><Relationship Id="rId1" Type="` + nsRel + `/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="` + nsRel + `/sharedStrings" Target="sharedStrings.xml"/></Relationships>`)},
		part{"xl/sharedStrings.xml", func(w io.Writer) error {
			if _, err := io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="`+nsMain+`">`); err != nil {
				return err
			}
			if err := shared(w); err != nil {
				return err
			}
			_, err := io.WriteString(w, `</sst>`)
			return err
		}},
		part{"xl/worksheets/sheet1.xml", func(w io.Writer) error {
			if _, err := io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="`+nsMain+`"><sheetData>`); err != nil {
				return err
			}
			if err := rows(w); err != nil {
				return err
			}
			_, err := io.WriteString(w, `</sheetData></worksheet>`)
			return err
		}},
	)
}

func xlsxSharedString(w io.Writer) error {
	return xlsx(w, func(w io.Writer) error {
		for r := 1; r <= 20; r++ {
			fmt.Fprintf(w, `<row r="%d">`, r)
			for c := 0; c < 10; c++ {
				fmt.Fprintf(w, `<c r="%c%d" t="s"><v>0</v></c>`, 'A'+c, r)
			}
			io.WriteString(w, `</row>`)
		}
		return nil
	}, func(w io.Writer) error {
		io.WriteString(w, `<si><t>`)
		repeat(w, "x", 1<<20)
		_, err := io.WriteString(w, `</t></si>`)
		return err
	})
}

// xlsxUnusedSharedStrings is a sheet of two cells whose shared-string
// table holds 5,000,000 entries: all but two are never shown, and must
// cost a scan, not a string each.
func xlsxUnusedSharedStrings(w io.Writer) error {
	return xlsx(w, func(w io.Writer) error {
		_, err := io.WriteString(w, `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>4999999</v></c></row>`)
		return err
	}, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		for i := range 5_000_000 {
			if _, err := fmt.Fprintf(bw, `<si><t>s%d</t></si>`, i); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}

func xlsxFarColumn(w io.Writer) error {
	return xlsx(w, func(w io.Writer) error {
		for r := 1; r <= 20000; r++ {
			if _, err := fmt.Fprintf(w, `<row r="%d"><c r="XFD%d"><v>1</v></c></row>`, r, r); err != nil {
				return err
			}
		}
		return nil
	}, func(io.Writer) error { return nil })
}

func odsRepeated(w io.Writer) error {
	const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"`
	return zipParts(w,
		part{"mimetype", text("application/vnd.oasis.opendocument.spreadsheet")},
		part{"META-INF/manifest.xml", text(`<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`)},
		part{"content.xml", func(w io.Writer) error {
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><office:document-content `+ns+` office:version="1.2"><office:body><office:spreadsheet><table:table table:name="Sheet1"><table:table-row table:number-rows-repeated="1000"><table:table-cell table:number-columns-repeated="1000"><text:p>`)
			repeat(w, "y", 64<<10)
			_, err := io.WriteString(w, `</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>`)
			return err
		}},
	)
}

func csvRagged(w io.Writer) error {
	io.WriteString(w, "a,b\n")
	repeat(w, ",", 100000)
	io.WriteString(w, "\n")
	return repeat(w, "1,2\n", 10000)
}

func csvLongLine(w io.Writer) error {
	return repeat(w, "abcdefghij", 40_000_000) // 400 MB, no newline
}

func mdLinkOpeners(w io.Writer) error { return repeat(w, "[x](", 50000) }

func mdLinkParagraphs(w io.Writer) error {
	return repeat(w, strings.Repeat("[x](", 4000)+"\n\n", 75)
}

func mdEmphasis(w io.Writer) error {
	return repeat(w, strings.Repeat("*a ", 16000)+"\n\n", 20)
}

func mdQuoteList(w io.Writer) error {
	repeat(w, "> - ", 10000)
	_, err := io.WriteString(w, "deep\n")
	return err
}

func mdQuoteDepth(w io.Writer) error {
	repeat(w, ">", 100000)
	_, err := io.WriteString(w, " deep\n")
	return err
}

func emlManyParts(w io.Writer) error {
	io.WriteString(w, "From: a@example.com\r\nTo: b@example.com\r\nSubject: many parts\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n")
	repeat(w, "--b\r\nContent-Type: text/plain\r\n\r\nx\r\n", 250000)
	_, err := io.WriteString(w, "--b--\r\n")
	return err
}

func emlDeep(w io.Writer) error {
	const depth = 10000
	io.WriteString(w, "From: a@example.com\r\nTo: b@example.com\r\nSubject: deep\r\nMIME-Version: 1.0\r\n")
	for i := 0; i < depth; i++ {
		fmt.Fprintf(w, "Content-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n--b%d\r\n", i, i)
	}
	io.WriteString(w, "Content-Type: text/plain\r\n\r\ninnermost\r\n")
	for i := depth - 1; i >= 0; i-- {
		if _, err := fmt.Fprintf(w, "--b%d--\r\n", i); err != nil {
			return err
		}
	}
	return nil
}

func docxTinyParagraphs(w io.Writer) error {
	const nsW = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	return zipParts(w,
		part{"[Content_Types].xml", text(`<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`)},
		part{"_rels/.rels", text(`<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="` + nsPkg + `"><Relationship Id="rId1" Type="` + nsRel + `/officeDocument" Target="word/document.xml"/></Relationships>`)},
		part{"word/document.xml", func(w io.Writer) error {
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="`+nsW+`"><w:body>`)
			if err := repeat(w, `<w:p><w:r><w:t>a</w:t></w:r></w:p>`, 3_000_000); err != nil {
				return err
			}
			_, err := io.WriteString(w, `</w:body></w:document>`)
			return err
		}},
	)
}

// pdf writes a PDF of the given objects (numbered from 1; object 1 is the
// catalog) with a correct cross-reference table.
func pdf(w io.Writer, objs ...[]byte) error {
	var buf bytes.Buffer
	buf.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = buf.Len()
		fmt.Fprintf(&buf, "%d 0 obj\n", i+1)
		buf.Write(o)
		buf.WriteString("\nendobj\n")
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&buf, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	_, err := w.Write(buf.Bytes())
	return err
}

func stream(dict string, data []byte) []byte {
	return fmt.Appendf(nil, "<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

// pdfPage is objects 1–4 (catalog, pages, page, font) of a one-page PDF
// whose page draws content (object 5) with form XObjects /X0… objects 6….
func pdfPage(xobjects int) [][]byte {
	var xo strings.Builder
	for i := 0; i < xobjects; i++ {
		fmt.Fprintf(&xo, "/X%d %d 0 R ", i, 6+i)
	}
	return [][]byte{
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		fmt.Appendf(nil, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << %s>> >> /Contents 5 0 R >>", xo.String()),
		[]byte("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
	}
}

func pdfSelfForm(w io.Writer) error {
	objs := pdfPage(1)
	objs = append(objs,
		stream("", []byte("/X0 Do")),
		stream("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << /X0 6 0 R >> >>",
			[]byte("BT /F1 12 Tf 72 720 Td (self) Tj ET q 0.5 0 0 0.5 0 0 cm /X0 Do Q q 0.5 0 0 0.5 306 0 cm /X0 Do Q")),
	)
	return pdf(w, objs...)
}

func pdfFanOut(w io.Writer) error {
	const levels = 9
	objs := pdfPage(levels)
	objs = append(objs, stream("", []byte("/X0 Do")))
	for l := 0; l < levels; l++ {
		var body string
		if l == levels-1 {
			body = "BT /F1 1 Tf 10 10 Td (leaf) Tj ET"
		} else {
			body = strings.Repeat(fmt.Sprintf("/X%d Do ", l+1), 10)
		}
		objs = append(objs, stream(fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << /X%d %d 0 R >> >>", l+1, 7+l), []byte(body)))
	}
	return pdf(w, objs...)
}

func pdfFlateBomb(w io.Writer) error {
	// 1 GiB of text operators, deflated chunk by chunk: each chunk is
	// compressed once and repeated (a sync-flushed deflate block refers
	// only to its own bytes), so making the file costs one MiB of work.
	chunk := bytes.Repeat([]byte("BT /F1 12 Tf 72 720 Td (bomb) Tj ET\n"), (1<<20)/36)
	var block bytes.Buffer
	fw, _ := flate.NewWriter(&block, flate.BestCompression)
	fw.Write(chunk)
	fw.Flush()
	const n = 1024
	var z bytes.Buffer
	z.Write([]byte{0x78, 0xda}) // zlib header, best compression
	sum := adler32.New()
	for i := 0; i < n; i++ {
		z.Write(block.Bytes())
		sum.Write(chunk)
	}
	z.Write([]byte{0x03, 0x00}) // a final, empty fixed-Huffman block
	z.Write(sum.Sum(nil))
	objs := pdfPage(0)
	objs = append(objs, stream("/Filter /FlateDecode", z.Bytes()))
	return pdf(w, objs...)
}

func pdf2MChars(w io.Writer) error {
	var content bytes.Buffer
	// 2,000 lines of 1,000 characters on a 200-inch page (PDF's largest),
	// lines apart so no tool merges them as overlapping text.
	content.WriteString("BT /F1 6 Tf 7 TL 20 14390 Td\n")
	line := "(" + strings.Repeat("a", 1000) + ") '\n"
	for i := 0; i < 2000; i++ {
		content.WriteString(line)
	}
	content.WriteString("ET")
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	zw.Write(content.Bytes())
	zw.Close()
	objs := pdfPage(0)
	objs[2] = bytes.Replace(objs[2], []byte("[0 0 612 792]"), []byte("[0 0 14400 14400]"), 1)
	objs = append(objs, stream("/Filter /FlateDecode", z.Bytes()))
	return pdf(w, objs...)
}

// mdTableWide is a GFM table 100,000 columns wide: "|a" per column in the
// header, the delimiter row and 50 body rows (10 MB).
func mdTableWide(w io.Writer) error {
	for _, cell := range []string{"|a", "|-"} {
		repeat(w, cell, 100000)
		io.WriteString(w, "|\n")
	}
	for range 50 {
		repeat(w, "|a", 100000)
		if _, err := io.WriteString(w, "|\n"); err != nil {
			return err
		}
	}
	return nil
}

// mdListDeep nests 2,000 list items by indentation alone: item i is 2i
// spaces in, one level inside the item above it (4 MB).
func mdListDeep(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for i := range 2000 {
		bw.WriteString(strings.Repeat("  ", i))
		bw.WriteString("- item\n")
	}
	return bw.Flush()
}

// mdBackticks is code span openers that never close: runs of 1 to 4,000
// backticks, each followed by "a " (8 MB in one paragraph).
func mdBackticks(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for k := 1; k <= 4000; k++ {
		bw.WriteString(strings.Repeat("`", k))
		bw.WriteString("a ")
	}
	return bw.Flush()
}
