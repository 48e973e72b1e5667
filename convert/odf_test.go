package convert

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
)

func TestODTGolden(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "pandoc.odt")
	if doc.FileType != "odt" || doc.PageCount != 3 {
		t.Fatalf("file_type %q, page_count %d; want odt, 3", doc.FileType, doc.PageCount)
	}
	wantInOrder(t, "headings", headings(doc), "0 Introduction", "1 Lists", "1 Table", "1 Code", "1 Image", "0 Conclusion")
	if d := listDepths(doc); len(d) < 5 || d[2] != 1 || d[3] != 2 || d[4] != 0 {
		t.Errorf("list depths %v", d)
	}
	// pandoc writes no covered-table-cell after a spanned cell; the grid
	// must still line up.
	if !anyTableHTML(doc, `<td colspan="2">Total (merged)</td><td>39</td>`) {
		t.Errorf("merged cell lost:\n%s", structure(doc))
	}
	if !embeddedImage(doc) {
		t.Errorf("no embedded image:\n%s", structure(doc))
	}
	if code := elementsOf(doc, "CodeSnippet"); len(code) != 1 || !strings.Contains(code[0].Text, "def greet(name):\n    return") {
		t.Errorf("code %v", code)
	}
	if len(elementsOf(doc, "Footer")) != 0 {
		t.Errorf("a page-number footer is layout, not content:\n%s", structure(doc))
	}
	golden(t, "pandoc.odt", doc)
}

func TestODTNotesMath(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "pandoc-notes.odt")
	s := structure(doc)
	if !strings.Contains(s, `"Body text with a footnote.[1]`) || !strings.Contains(s, `NarrativeText "[1] The footnote text."`) {
		t.Errorf("footnote:\n%s", s)
	}
	// The superscript stays one (E=mc2 read as a different formula); the
	// formula stays in the sentence it is inline in.
	if s, lines, tex := inlineFormulas(t, doc); s != "NarrativeText Inline math: E=mc²" || len(lines) != 1 || lines[0] != "E=mc²" ||
		len(tex) != 1 || tex[0] != "E=mc^{2}" || len(elementsOf(doc, "Formula")) != 0 {
		t.Errorf("inline formula %q %q %q, display %v", s, lines, tex, elementsOf(doc, "Formula"))
	}
	if e := elementsOf(doc, "EmailAddress"); len(e) != 1 || e[0].Text != "editor@example.com" {
		t.Errorf("email %v", e)
	}
}

// soffice.ods is LibreOffice's conversion of openpyxl.xlsx: two sheets,
// a column span and a row span, covered cells written out.
func TestODSGolden(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "soffice.ods")
	if doc.FileType != "ods" || doc.PageCount != 2 || doc.Pages[0].Title != "Sales" || doc.Pages[1].Title != "Notes" {
		t.Fatalf("file_type %q, pages %d:\n%s", doc.FileType, doc.PageCount, structure(doc))
	}
	if !anyTableHTML(doc, `<td colspan="3">All regions</td><td>39</td>`) || !anyTableHTML(doc, `<td rowspan="2">Merged note spanning two rows</td><td>x</td></tr><tr><td>y</td>`) {
		t.Errorf("spans:\n%s", structure(doc))
	}
	golden(t, "soffice.ods", doc)
}

// soffice.odp is LibreOffice Impress's conversion of pandoc.pptx.
func TestODPGolden(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "soffice.odp")
	if doc.FileType != "odp" || doc.PageCount != 5 {
		t.Fatalf("file_type %q, page_count %d:\n%s", doc.FileType, doc.PageCount, structure(doc))
	}
	wantInOrder(t, "headings", headings(doc), "0 Fixture Corpus", "0 Introduction", "0 Conclusion")
	if len(elementsOf(doc, "Table")) != 1 || !embeddedImage(doc) || len(elementsOf(doc, "CodeSnippet")) != 1 {
		t.Errorf("table, image or code missing:\n%s", structure(doc))
	}
	golden(t, "soffice.odp", doc)
}

// ODF spans, repeated rows and hand-written structure (lists, notes).
func TestODSRepeatedRowsCapped(t *testing.T) {
	content := `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>` +
		`<table:table table:name="S"><table:table-row table:number-rows-repeated="2000000"><table:table-cell office:value-type="string"><text:p>x</text:p></table:table-cell></table:table-row></table:table>` +
		`</office:spreadsheet></office:body></office:document-content>`
	empty := strings.Replace(content, `<text:p>x</text:p>`, ``, 1)
	runHostile(t, []hostileCase{{"rows.ods", odfZip(t, "application/vnd.oasis.opendocument.spreadsheet", content), "cell count on sheet 0 over the limit"}})
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	doc, err := convertBytes(t, c, "empty.ods", odfZip(t, "application/vnd.oasis.opendocument.spreadsheet", empty))
	if err != nil || doc.PageCount != 1 {
		t.Fatalf("a million empty rows: %v", err)
	}
}

func odfZip(t *testing.T, mimetype, content string) []byte {
	return zipOf(t, "mimetype", mimetype, "content.xml", content)
}

func TestODFHostile(t *testing.T) {
	const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"`
	deep := `<?xml version="1.0"?><office:document-content ` + ns + `><office:body><office:text>` + strings.Repeat("<text:section>", 400) + strings.Repeat("</text:section>", 400) + `</office:text></office:body></office:document-content>`
	var cases []hostileCase
	for _, k := range []struct{ ext, mt string }{{"odt", "application/vnd.oasis.opendocument.text"}, {"ods", "application/vnd.oasis.opendocument.spreadsheet"}, {"odp", "application/vnd.oasis.opendocument.presentation"}} {
		cases = append(cases,
			hostileCase{"bomb." + k.ext, bombZip(t, "content.xml", 64<<20, "mimetype", k.mt), "decompressed size over the limit"},
			hostileCase{"laughs." + k.ext, odfZip(t, k.mt, laughs+`<office:document-content `+ns+`><office:body><office:text><text:p>&lol9;</text:p></office:text></office:body></office:document-content>`), "entities"},
			hostileCase{"nocontent." + k.ext, zipOf(t, "mimetype", k.mt, "styles.xml", "<x/>"), "no content.xml"},
		)
	}
	cases = append(cases, hostileCase{"deep.odt", odfZip(t, "application/vnd.oasis.opendocument.text", deep), "nesting depth over the limit"})
	runHostile(t, cases)
}

// Master-page headers and footers repeat on every page; their page
// number fields do not count as text.
func TestODTHeaderFooterAndBreaks(t *testing.T) {
	const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"`
	styles := `<?xml version="1.0"?><office:document-styles ` + ns + `><office:master-styles><style:master-page style:name="Standard"><style:header><text:p>Running head</text:p></style:header><style:footer><text:p>Page <text:page-number>1</text:page-number> · ACME</text:p></style:footer></style:master-page></office:master-styles></office:document-styles>`
	content := `<?xml version="1.0"?><office:document-content ` + ns + `><office:automatic-styles><style:style style:name="P1" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/></style:style></office:automatic-styles><office:body><office:text>` +
		`<text:p>first</text:p><text:p text:style-name="P1">second</text:p></office:text></office:body></office:document-content>`
	data := zipOf(t, "mimetype", "application/vnd.oasis.opendocument.text", "content.xml", content, "styles.xml", styles)
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	doc, err := convertBytes(t, c, "hf.odt", data)
	if err != nil {
		t.Fatal(err)
	}
	s := structure(doc)
	if doc.PageCount != 2 {
		t.Fatalf("page_count %d, want 2 (split at the page break):\n%s", doc.PageCount, s)
	}
	for _, p := range doc.Pages {
		n := len(p.Elements)
		if n < 3 || p.Elements[0].Text != "Running head" || p.Elements[0].Category != "Header" || p.Elements[n-1].Text != "Page  · ACME" || p.Elements[n-1].Category != "Footer" {
			t.Errorf("page %d:\n%s", p.Index, s)
		}
	}
}

// text:s asks for spaces by count; their sum is capped per document.
func TestODTSpacesCapped(t *testing.T) {
	const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"`
	para := `<text:p>a` + strings.Repeat(`<text:s text:c="1000000"/>`, 5000) + `b</text:p>`
	content := `<?xml version="1.0"?><office:document-content ` + ns + `><office:body><office:text>` + para + `</office:text></office:body></office:document-content>`
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	doc, err := convertBytes(t, c, "spaces.odt", odfZip(t, "application/vnd.oasis.opendocument.text", content))
	if err != nil {
		t.Fatal(err)
	}
	n := elementsOf(doc, "NarrativeText")
	if len(n) != 1 || len(n[0].Text) > maxODFSpaces+5000+2 || !strings.HasSuffix(n[0].Text, "b") {
		t.Fatalf("%d elements, text of %d bytes", len(n), len(n[0].Text))
	}
}

// ODP: title frame, outline lists by nesting, speaker notes.
func TestODPListsAndNotes(t *testing.T) {
	const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"`
	content := `<?xml version="1.0"?><office:document-content ` + ns + `><office:body><office:presentation>` +
		`<draw:page draw:name="s1"><draw:frame presentation:class="title"><draw:text-box><text:p>Plan</text:p></draw:text-box></draw:frame>` +
		`<draw:frame presentation:class="outline"><draw:text-box><text:list><text:list-item><text:p>top</text:p><text:list><text:list-item><text:p>inner</text:p></text:list-item></text:list></text:list-item></text:list></draw:text-box></draw:frame>` +
		`<presentation:notes><draw:frame presentation:class="notes"><draw:text-box><text:p>Speak slowly.</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>` +
		`<draw:page draw:name="s2"><draw:frame presentation:class="title"><draw:text-box><text:p>Next</text:p></draw:text-box></draw:frame></draw:page>` +
		`</office:presentation></office:body></office:document-content>`
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	doc, err := convertBytes(t, c, "plan.odp", odfZip(t, "application/vnd.oasis.opendocument.presentation", content))
	if err != nil {
		t.Fatal(err)
	}
	s := structure(doc)
	for _, want := range []string{`page 0 "Plan"`, `Title depth=0 "Plan"`, `ListItem depth=0 "top"`, `ListItem depth=1 "inner"`, `page 1 "Next"`} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s:\n%s", want, s)
		}
	}
	n := elementsOf(doc, "NarrativeText")
	if len(n) != 1 || n[0].Text != "Speak slowly." || string(n[0].Metadata["slide_notes"]) != "true" {
		t.Errorf("notes:\n%s", s)
	}
}

// A table is charged to the output budget once: a sheet of repeated cells
// that builds 60 % of the budget converts (charged while read and again
// when whole, it was refused at 120 %), and one at 140 % is refused with
// the limit and both numbers.
func TestODSRepeatsChargedOnce(t *testing.T) {
	const budget = 4 << 20
	sheet := func(rows int) []byte {
		cell := strings.Repeat("y", 1000)
		content := `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>` +
			fmt.Sprintf(`<table:table table:name="S"><table:table-row table:number-rows-repeated="%d"><table:table-cell table:number-columns-repeated="10" office:value-type="string"><text:p>%s</text:p></table:table-cell></table:table-row></table:table>`, rows, cell) +
			`</office:spreadsheet></office:body></office:document-content>`
		return odfZip(t, "application/vnd.oasis.opendocument.spreadsheet", content)
	}
	c := New(Options{CacheDir: "-", Limits: Limits{MaxOutputBytes: budget}})
	defer c.Close()
	// A row is ten cells of 1,000 bytes, written twice: 20 KB.
	if doc, err := convertBytes(t, c, "fits.ods", sheet(budget*6/10/20000)); err != nil || doc.PageCount != 1 {
		t.Fatalf("60 %% of the budget: %v", err)
	}
	_, err := convertBytes(t, c, "over.ods", sheet(budget*14/10/20000))
	var le *dpe.LimitError
	if !errors.As(err, &le) || le.What != "output size" || le.Limit != budget || le.Got <= budget || !strings.Contains(err.Error(), strconv.FormatInt(le.Got, 10)) {
		t.Fatalf("140 %% of the budget: %v", err)
	}
}

// Alternative text from the file: LibreOffice Writer's svg:desc after the
// image (ODT); pandoc's figure caption after the picture in PPTX, whose
// descr is only pandoc's "fig:" and the file name, and in Impress's ODP
// of it, which keeps that descr as svg:desc; and the
// text of Impress's custom shapes (its text boxes), which held the
// figure's caption.
func TestAltTextAndCustomShapeText(t *testing.T) {
	c := testConverter(t)
	for name, want := range map[string]string{"soffice.odt": "A gradient figure", "soffice.odp": "A gradient figure", "pandoc.pptx": "A gradient figure", "soffice.pptx": "A gradient figure"} {
		doc := convertFixture(t, c, name)
		imgs := elementsOf(doc, "Image")
		if len(imgs) != 1 || imgs[0].Text != want {
			t.Errorf("%s: images %d, alt %q, want %q", name, len(imgs), func() string {
				if len(imgs) > 0 {
					return imgs[0].Text
				}
				return ""
			}(), want)
		}
	}
	doc := convertFixture(t, c, "soffice.odp")
	var after string
	for _, p := range doc.Pages {
		for i, el := range p.Elements {
			if el.Category == "Image" && i+1 < len(p.Elements) {
				after = p.Elements[i+1].Text
			}
		}
	}
	if after != "A gradient figure" {
		t.Errorf("custom shape text after the image: %q\n%s", after, structure(doc))
	}
}

// Empty cells before a cell with text are written (they keep its column),
// charged before they exist; a covered cell under a span from the row
// above takes its column; trailing empty runs cost nothing.
func TestODSEmptyCellsPlaced(t *testing.T) {
	sheet := func(rows string) []byte {
		return odfZip(t, "application/vnd.oasis.opendocument.spreadsheet", `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet><table:table table:name="S">`+
			rows+`</table:table></office:spreadsheet></office:body></office:document-content>`)
	}
	x := func(s string) string {
		return `<table:table-cell office:value-type="string"><text:p>` + s + `</text:p></table:table-cell>`
	}
	empty := func(n int) string { return fmt.Sprintf(`<table:table-cell table:number-columns-repeated="%d"/>`, n) }
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	doc, err := convertBytes(t, c, "covered.ods", sheet(
		`<table:table-row><table:table-cell table:number-rows-spanned="2" office:value-type="string"><text:p>a</text:p></table:table-cell>`+x("b")+empty(16382)+`</table:table-row>`+
			`<table:table-row><table:covered-table-cell/>`+empty(1)+x("c")+empty(16381)+`</table:table-row>`+
			`<table:table-row table:number-rows-repeated="1048570">`+empty(16384)+`</table:table-row>`))
	if err != nil {
		t.Fatal(err)
	}
	tb := elementsOf(doc, "Table")
	if len(tb) != 1 || metaString(tb[0], "text_as_html") != `<table><tr><th rowspan="2">a</th><th>b</th></tr><tr><td></td><td>c</td></tr></table>` {
		t.Fatalf("%+v", tb)
	}
	runHostile(t, []hostileCase{{"gap.ods", sheet(`<table:table-row>` + empty(1<<30) + x("x") + `</table:table-row>`), "cell count on sheet 0 over the limit"}})
}

// OpenFormula text as the XLSX reader writes the same formula: what
// LibreOffice writes for references across sheets, ranges on another
// sheet, and ";" or brackets inside text, which stay as written.
func TestODFFormulaNotation(t *testing.T) {
	for in, want := range map[string]string{
		"of:=[.B2]*[.C2]":                      "=B2*C2",
		"of:=SUM([.B2:.B7])":                   "=SUM(B2:B7)",
		"of:=[.D2]*(1+[$'Tax rates'.$B$1])":    "=D2*(1+'Tax rates'!$B$1)",
		"of:=SUM([$Rates.A1:.A3])":             "=SUM(Rates!A1:A3)",
		"of:=SUM([$Rates.A1:$Other.A3])":       "=SUM(Rates!A1:Other!A3)",
		`of:=IF([.B2]>3;"a;[b]";"say ""hi""")`: `=IF(B2>3,"a;[b]","say ""hi""")`,
		"of:=[$'it''s.here'.A1]":               "='it''s.here'!A1",
		"=1+2":                                 "=1+2",
		"":                                     "",
	} {
		if got := odfFormula(in); got != want {
			t.Errorf("odfFormula(%q) = %q, want %q", in, got, want)
		}
	}
}

// A sheet's formulas count in the output budget: a short cell repeated
// over many rows fits as a constant, and the same rows each naming a long
// formula are refused (the reader charges them as it reads the repeats).
func TestODSRepeatedFormulasCharged(t *testing.T) {
	const budget = 4 << 20
	sheet := func(formula string) []byte {
		content := `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>` +
			`<table:table table:name="S"><table:table-row table:number-rows-repeated="20000"><table:table-cell` + formula + ` office:value="1"><text:p>1</text:p></table:table-cell></table:table-row></table:table>` +
			`</office:spreadsheet></office:body></office:document-content>`
		return odfZip(t, "application/vnd.oasis.opendocument.spreadsheet", content)
	}
	c := New(Options{CacheDir: "-", Limits: Limits{MaxOutputBytes: budget}})
	defer c.Close()
	if doc, err := convertBytes(t, c, "constants.ods", sheet("")); err != nil || doc.PageCount != 1 {
		t.Fatalf("constants: %v", err)
	}
	// 20,000 rows × a 300-byte formula: 6 MB of formulas.
	_, err := convertBytes(t, c, "formulas.ods", sheet(` table:formula="of:=`+strings.Repeat("[.A1]+", 100)+`1"`))
	var le *dpe.LimitError
	if !errors.As(err, &le) || le.What != "output size" {
		t.Fatalf("formulas: %v", err)
	}
}
