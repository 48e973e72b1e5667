package convert

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/hostilefiles"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/render"
)

func TestXLSXGolden(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "openpyxl.xlsx")
	if doc.FileType != "xlsx" || doc.PageCount != 2 || doc.Title != "Quarterly sales" {
		t.Fatalf("file_type %q, page_count %d, title %q", doc.FileType, doc.PageCount, doc.Title)
	}
	// LibreOffice's round trip stores openpyxl's "sales, quarterly" as one
	// space-separated keyword string.
	if len(doc.Keywords) == 0 || !strings.Contains(strings.Join(doc.Keywords, " "), "sales") {
		t.Errorf("keywords %q", doc.Keywords)
	}
	if doc.Pages[0].Title != "Sales" || doc.Pages[1].Title != "Notes" {
		t.Errorf("page titles %q %q", doc.Pages[0].Title, doc.Pages[1].Title)
	}
	tables := elementsOf(doc, "Table")
	if len(tables) != 2 {
		t.Fatalf("%d tables, want 2", len(tables))
	}
	html0, html1 := string(tables[0].Metadata["text_as_html"]), string(tables[1].Metadata["text_as_html"])
	for _, want := range []string{`<td colspan=\"3\">All regions</td><td>39</td>`, `<td>22</td><td>2024-03-31</td>`, `<td>2024-07-01 09:30</td>`} {
		if !strings.Contains(html0, want) {
			t.Errorf("Sales table lacks %s:\n%s", want, html0)
		}
	}
	if !strings.Contains(html1, `<td rowspan=\"2\">Merged note spanning two rows</td><td>x</td></tr><tr><td>y</td>`) {
		t.Errorf("Notes table lacks the row span:\n%s", html1)
	}
	md := render.Markdown(doc)
	if !strings.Contains(md, "| North | 10 | 12 | 22 | 2024-03-31 |") {
		t.Errorf("markdown export:\n%s", md)
	}
}

func TestXLSXSofficeAndNoCache(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "soffice.xlsx")
	if len(elementsOf(doc, "Table")) == 0 {
		t.Errorf("soffice.xlsx: no table:\n%s", render.Markdown(doc))
	}
	// openpyxl without a recalculation has no cached values: those cells
	// show their formula, listed as uncached; with LibreOffice's cached
	// values they show the value and keep the formula beside it.
	doc = convertFixture(t, c, "openpyxl-nocache.xlsx")
	tbl := elementsOf(doc, "Table")[0]
	if md := render.Markdown(doc); !strings.Contains(md, "| North | 10 | 12 | =B2+C2 |") ||
		string(tbl.Metadata["formulas_uncached"]) != `["D2","D3","D4"]` ||
		string(tbl.Metadata["formulas"]) != `{"D2":"=B2+C2","D3":"=B3+C3","D4":"=D2+D3"}` {
		t.Errorf("uncached formulas: %s %s\n%s", tbl.Metadata["formulas"], tbl.Metadata["formulas_uncached"], md)
	}
	doc = convertFixture(t, c, "openpyxl.xlsx")
	tbl = elementsOf(doc, "Table")[0]
	if md := render.Markdown(doc); !strings.Contains(md, "| North | 10 | 12 | 22 |") ||
		tbl.Metadata["formulas_uncached"] != nil || string(tbl.Metadata["formulas"]) != `{"D2":"=B2+C2","D3":"=B3+C3","D4":"=D2+D3"}` {
		t.Errorf("cached formulas: %s %s\n%s", tbl.Metadata["formulas"], tbl.Metadata["formulas_uncached"], md)
	}
}

// Fractions and [Red] sections as LibreOffice shows them (its own CSV
// export "as shown" of this file gives " 3/8", "1 1/2", "2 11/16",
// " 2/8", "-1 1/4", "2    ", "-3.50", "3.50"; cells are trimmed here),
// the SUM's cached value with its formula, and the hidden sheet flagged.
func TestXLSXFractionsFormulasHiddenSheet(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "openpyxl-formats.xlsx")
	md := render.Markdown(doc)
	for _, want := range []string{"| three eighths | 3/8 |", "| one and a half | 1 1/2 |", "| two and eleven sixteenths | 2 11/16 |",
		"| in eighths | 2/8 |", "| negative | -1 1/4 |", "| whole | 2 |", "| red negative | -3.50 |", "| red, no sign | 3.50 |", "| sum | 5.6125 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q:\n%s", want, md)
		}
	}
	if f := string(elementsOf(doc, "Table")[0].Metadata["formulas"]); f != `{"B10":"=SUM(B2:B7)"}` {
		t.Errorf("formulas %s", f)
	}
	if doc.PageCount != 2 || strings.Contains(string(doc.Pages[0].Extra["metadata"]), "sheet_state") ||
		!strings.Contains(string(doc.Pages[1].Extra["metadata"]), `"sheet_state":"hidden"`) ||
		metaString(elementsOf(doc, "Table")[1], "sheet_state") != "hidden" {
		t.Errorf("hidden sheet not flagged: %s / %s", doc.Pages[0].Extra["metadata"], doc.Pages[1].Extra["metadata"])
	}
}

// A shared formula (as Excel writes a filled-down column: the text in the
// first cell, t="shared" si="0" alone in the others) reads in every cell
// with its relative references moved; absolute ones, strings and function
// names stay.
func TestXLSXSharedFormulas(t *testing.T) {
	sheet := `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
		`<row r="1"><c r="A1" t="inlineStr"><is><t>n</t></is></c><c r="B1" t="inlineStr"><is><t>f</t></is></c></row>` +
		`<row r="2"><c r="A2"><v>1</v></c><c r="B2"><f t="shared" ref="B2:B4" si="0">A2*$A$2+LOG10(A2)&amp;"A1"</f><v>1</v></c></row>` +
		`<row r="3"><c r="A3"><v>2</v></c><c r="B3"><f t="shared" si="0"/><v>2.3</v></c></row>` +
		`<row r="4"><c r="A4"><v>3</v></c><c r="B4"><f t="shared" si="0"/></c></row>` +
		`</sheetData></worksheet>`
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	doc, err := convertBytes(t, c, "shared.xlsx", xlsxWithSheet(t, sheet))
	if err != nil {
		t.Fatal(err)
	}
	tbl := elementsOf(doc, "Table")[0]
	want := `{"B2":"=A2*$A$2+LOG10(A2)&\"A1\"","B3":"=A3*$A$2+LOG10(A3)&\"A1\"","B4":"=A4*$A$2+LOG10(A4)&\"A1\""}`
	if got := string(tbl.Metadata["formulas"]); got != want {
		t.Errorf("formulas\n got %s\nwant %s", got, want)
	}
	if got := string(tbl.Metadata["formulas_uncached"]); got != `["B4"]` || !strings.Contains(tbl.Text, `=A4*$A$2+LOG10(A4)&"A1"`) {
		t.Errorf("uncached %s, text %q", got, tbl.Text)
	}
	for _, tc := range []struct {
		f      string
		dr, dc int
		want   string
	}{{"SUM(B2:B7)", 1, 1, "SUM(C3:C8)"}, {"Sheet2!A1+$B1+B$1", 2, 1, "Sheet2!B3+$B3+C$1"}, {"A1-1", -1, 0, "#REF!-1"}, {"'My A1'!A1", 0, 1, "'My A1'!B1"}} {
		if got := shiftFormula(tc.f, tc.dr, tc.dc); got != tc.want {
			t.Errorf("shiftFormula(%q, %d, %d) = %q, want %q", tc.f, tc.dr, tc.dc, got, tc.want)
		}
	}
}

// zipBomb is an XLSX-shaped zip whose sheet inflates to size bytes.
func zipBomb(t testing.TB, size int) []byte {
	t.Helper()
	const x = `<?xml version="1.0"?><x/>`
	return bombZip(t, "xl/worksheets/sheet1.xml", size, "[Content_Types].xml", x, "xl/workbook.xml", x)
}

func TestXLSXZipBomb(t *testing.T) {
	c := New(Options{Limits: Limits{MaxDecompressed: 8 << 20}, CacheDir: "-"})
	defer c.Close()
	bomb := zipBomb(t, 64<<20)
	_, err := c.Convert(context.Background(), BytesSource("bomb.xlsx", bomb))
	var le *dpe.LimitError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "bomb.xlsx: decompressed size over the limit") {
		t.Fatalf("error %v, want the decompressed size limit", err)
	}
}

func TestXLSXChunksBigSheet(t *testing.T) {
	big := os.Getenv("DPE_BIG_FIXTURES")
	if big == "" {
		t.Skip("DPE_BIG_FIXTURES not set (scripts/make-fixtures --big DIR makes rows-100k.xlsx)")
	}
	c := testConverter(t)
	d, err := c.OpenFile(context.Background(), big+"/rows-100k.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p, err := d.Page(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Elements) != 101 || p.Elements[0].Category != "TableChunk" {
		t.Fatalf("%d elements, first %s; want 101 TableChunks", len(p.Elements), p.Elements[0].Category)
	}
}

func TestXLSXNumberFormats(t *testing.T) {
	cases := []struct {
		v    float64
		code string
		want string
	}{
		{45383, "yyyy-mm-dd", "2024-04-01"},
		{45383, `yyyy\-mm\-dd`, "2024-04-01"},
		{45474.395833333336, `yyyy\-mm\-dd\ hh:mm`, "2024-07-01 09:30"},
		{45383, "mm-dd-yy", "04-01-24"},
		{45383, "d-mmm-yy", "1-Apr-24"},
		{45383, "dddd, mmmm d", "Monday, April 1"},
		{0.75, "h:mm AM/PM", "6:00 PM"},
		{1.5, "[h]:mm:ss", "36:00:00"},
		{1234.5, "#,##0.00", "1,234.50"},
		{-1234.5, "#,##0.00;(#,##0.00)", "(1,234.50)"},
		{0.125, "0.0%", "12.5%"},
		{1500, "0.00E+00", "1.50E+03"},
		{7, `"No. "0`, "No. 7"},
		{3.14159, "0.00", "3.14"},
		{0.1 + 0.2, "General", "0.3"},
		{100000, "General", "100000"},
		// Rounding edges of LibreOffice's half away from zero, and values
		// no cell should hold but a file can say.
		{9.995, "0.00", "10.00"},
		{0.0004, "0.000", "0.000"},
		{1e20, "0", "100000000000000000000"},
		{99500, "0.0E+00", "1.0E+05"},
		{math.Inf(1), "0.00", "+Inf"},
		{math.NaN(), "0.0E+00", "NaN"},
	}
	for _, c := range cases {
		nf := xlsxFormat{code: c.code, date: isDateFormat(c.code)}
		if got := formatNumber(c.v, nf, false); got != c.want {
			t.Errorf("%v as %q: %q, want %q", c.v, c.code, got, c.want)
		}
	}
}

// FuzzXLSX drives the XLSX reader itself (not the registry, which would
// hand mutated "%PDF-" inputs to PDFium): any bytes give pages or an
// error, never a panic or a hang, within the fuzz limits.
func FuzzXLSX(f *testing.F) {
	for _, name := range []string{"openpyxl.xlsx", "openpyxl-nocache.xlsx", "soffice.xlsx"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runReader(t, "fuzz.xlsx", data, openXLSX)
	})
}

// FuzzXLSXSheet mutates the sheet XML inside a valid workbook, where
// the row and cell parser (not the zip checksum) meets the bytes.
func FuzzXLSXSheet(f *testing.F) {
	fuzzPart(f, "openpyxl.xlsx", "xl/worksheets/sheet1.xml", "fuzz.xlsx", openXLSX)
}

// FuzzXLSXStyles does the same for the number formats.
func FuzzXLSXStyles(f *testing.F) {
	fuzzPart(f, "openpyxl.xlsx", "xl/styles.xml", "fuzz.xlsx", openXLSX)
}

// A sheet whose XML is one element nested deeper than the limit fails on
// the nesting depth, in the sheet's own page.
func TestXLSXDeepNesting(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	put := func(n, s string) { w, _ := zw.Create(n); w.Write([]byte(s)) }
	put("[Content_Types].xml", `<Types/>`)
	put("xl/workbook.xml", `<workbook xmlns:r="r"><sheets><sheet name="Deep" r:id="rId1"/></sheets></workbook>`)
	put("xl/_rels/workbook.xml.rels", `<Relationships><Relationship Id="rId1" Type="x/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`)
	put("xl/worksheets/sheet1.xml", "<worksheet><sheetData>"+strings.Repeat("<row>", 5000)+"</sheetData></worksheet>")
	zw.Close()
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	_, err := c.Convert(context.Background(), BytesSource("deep.xlsx", buf.Bytes()))
	var le *dpe.LimitError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "deep.xlsx: page 1: nesting depth over the limit") {
		t.Fatalf("error %v, want the nesting depth limit", err)
	}
}

// A cell at column XFD in each of 20,000 rows keeps its rows sparse: the
// empty run before it is one cell with a colspan, so the sheet converts to
// a few megabytes (padded, it asked for 1.7 GB and met the budget). A
// merged cell inside a long run keeps that run a cell per column, so the
// merge stays where it is.
func TestXLSXFarColumnsStaySparse(t *testing.T) {
	var far hostilefiles.File
	for _, f := range hostilefiles.All() {
		if f.Name == "xlsx-far-column.xlsx" {
			far = f
		}
	}
	var buf bytes.Buffer
	if err := far.Write(&buf); err != nil {
		t.Fatal(err)
	}
	c := testConverter(t)
	data, err := c.ConvertJSON(context.Background(), BytesSource(far.Name, buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 8<<20 {
		t.Errorf("%d bytes of JSON for 20,000 cells", len(data))
	}
	if !strings.Contains(string(data), `<tr><td colspan=\"16383\"></td><td>1</td></tr>`) {
		t.Errorf("the far cell is not after one colspan: %.600s", data)
	}

	sheet := `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
		`<row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c><c r="Z1" t="inlineStr"><is><t>z</t></is></c></row>` +
		`<row r="2"><c r="A2" t="inlineStr"><is><t>b</t></is></c><c r="C2" t="inlineStr"><is><t>m</t></is></c><c r="Z2" t="inlineStr"><is><t>y</t></is></c></row>` +
		`</sheetData><mergeCells count="1"><mergeCell ref="C2:D2"/></mergeCells></worksheet>`
	doc, err := c.Convert(context.Background(), BytesSource("merge.xlsx", xlsxWithSheet(t, sheet)))
	if err != nil {
		t.Fatal(err)
	}
	got := string(elementsOf(doc, "Table")[0].Metadata["text_as_html"])
	for _, want := range []string{
		`<tr><th>a</th><th colspan=\"24\"></th><th>z</th></tr>`,
		`<tr><td>b</td><td></td><td colspan=\"2\">m</td><td></td>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %s:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "<td></td>"); n != 22 {
		t.Errorf("%d empty cells in row 2, want the 22 beside the merge:\n%s", n, got)
	}
}

// xlsxWithSheet is a minimal workbook of one sheet.
func xlsxWithSheet(t *testing.T, sheet string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string]string{
		"[Content_Types].xml":        `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
		"_rels/.rels":                `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml":            `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml":   sheet,
	} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A shared string table of 5,000,000 entries of which a cell shows two
// costs a scan of its bytes, not a string each: the conversion makes
// fewer allocations than a tenth of the entries (decoded whole it made
// more than one per entry: 14 s and 450 MB) and shows both strings, the
// first and the last. The deadline is the test's own.
func TestXLSXUnusedSharedStringsCostAScan(t *testing.T) {
	if testbudget.Race {
		// A single-goroutine scan of 100 MB, minutes under the race
		// detector on a loaded machine; CI runs every convert test
		// without it on the fresh fixtures.
		t.Skip("allocations and the scan of 5,000,000 entries are measured without the race detector")
	}
	var f hostilefiles.File
	for _, h := range hostilefiles.All() {
		if h.Name == "xlsx-unused-shared-strings.xlsx" {
			f = h
		}
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if dl, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-10*time.Second))
		defer cancel()
	}
	c := testConverter(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	data, err := c.ConvertJSON(ctx, BytesSource(f.Name, buf.Bytes()))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"text":"s0\ts4999999"`) {
		t.Errorf("the two used strings are not shown: %.600s", data)
	}
	if n := after.Mallocs - before.Mallocs; n > 500_000 {
		t.Errorf("%d allocations for a sheet of two cells over 5,000,000 shared strings", n)
	}
	// The table's bytes, its index and the JSON, not a string per entry.
	if b := after.TotalAlloc - before.TotalAlloc; b > 512<<20 {
		t.Errorf("%d MiB allocated", b>>20)
	}
}

// The shared-string scan reads what the XML decoder read: rich runs,
// entities, phonetic guides left out, prefixed names, <si/>, preserved
// spaces, CRLF normalised, CDATA, and markup in comments and CDATA that
// is not an entry; a table in UTF-16 is transcoded first.
func TestXLSXSharedStringForms(t *testing.T) {
	const main = `http://schemas.openxmlformats.org/spreadsheetml/2006/main`
	entries := `<si><t>plain</t></si>` +
		`<si><r><t>ri</t></r><r><t>ch</t></r></si>` +
		`<si><t>a &amp; b &lt;c&gt;</t></si>` +
		`<si><t>kanji</t><rPh><t>reading</t></rPh></si>` +
		`<!-- <si><t>not an entry</t></si> -->` +
		`<x:si><x:t>prefixed</x:t></x:si>` +
		`<si/>` +
		`<si><t xml:space="preserve">  spaced  </t></si>` +
		"<si><t>line\r\nend</t></si>" +
		`<si><t><![CDATA[<si>cdata</si>]]></t></si>`
	want := []string{"plain", "rich", "a & b <c>", "kanji", "prefixed", "", "  spaced  ", "line\nend", "<si>cdata</si>"}
	utf8 := `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="` + main + `" xmlns:x="` + main + `">` + entries + `</sst>`
	utf16 := []byte{0xFF, 0xFE}
	for _, r := range `<?xml version="1.0" encoding="UTF-16"?><sst xmlns="` + main + `" xmlns:x="` + main + `">` + entries + `</sst>` {
		utf16 = append(utf16, byte(r), byte(r>>8)) // ASCII only: one unit each
	}
	var row strings.Builder
	row.WriteString(`<row r="1">`)
	for i := range want {
		fmt.Fprintf(&row, `<c r="%c1" t="s"><v>%d</v></c>`, 'A'+i, i)
	}
	row.WriteString(`</row>`)
	sheet := `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="` + main + `"><sheetData>` + row.String() + `</sheetData></worksheet>`
	c := testConverter(t)
	for name, sst := range map[string][]byte{"utf-8": []byte(utf8), "utf-16": utf16} {
		doc, err := c.Convert(context.Background(), BytesSource("s.xlsx", xlsxWithShared(t, sheet, sst)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got string
		for _, e := range doc.Pages[0].Elements {
			if e.Category == "Table" {
				got = e.Text
			}
		}
		if w := strings.Join(want, "\t"); got != w && got != strings.TrimRight(w, "\t") {
			t.Errorf("%s: %q\nwant %q", name, got, w)
		}
	}
}

// xlsxWithShared is xlsxWithSheet with a shared string table.
func xlsxWithShared(t *testing.T, sheet string, sst []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(xlsxWithSheet(t, sheet)), int64(len(xlsxWithSheet(t, sheet))))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(rc)
		rc.Close()
		if f.Name == "xl/_rels/workbook.xml.rels" {
			body = bytes.Replace(body, []byte(`</Relationships>`), []byte(`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`), 1)
		}
		w, _ := zw.Create(f.Name)
		w.Write(body)
	}
	w, _ := zw.Create("xl/sharedStrings.xml")
	w.Write(sst)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
