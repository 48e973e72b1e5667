package convert

import (
	"strings"
	"testing"
)

func TestDOCXGolden(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "pandoc.docx")
	if doc.FileType != "docx" || doc.PageCount != 3 {
		t.Fatalf("file_type %q, page_count %d; want docx, 3 (front matter, Introduction, Conclusion)", doc.FileType, doc.PageCount)
	}
	if doc.Pages[1].Title != "Introduction" || doc.Pages[2].Title != "Conclusion" {
		t.Errorf("page titles %q %q", doc.Pages[1].Title, doc.Pages[2].Title)
	}
	wantInOrder(t, "headings", headings(doc), "0 Introduction", "1 Lists", "1 Table", "1 Code", "1 Image", "0 Conclusion")
	d := listDepths(doc)
	if len(d) < 5 || d[0] != 0 || d[1] != 0 || d[2] != 1 || d[3] != 2 || d[4] != 0 {
		t.Errorf("list depths %v, want 0 0 1 2 0 first", d)
	}
	if !anyTableHTML(doc, `<td colspan="2">Total (merged)</td><td>39</td>`) {
		t.Errorf("merged cell lost:\n%s", structure(doc))
	}
	if !embeddedImage(doc) {
		t.Errorf("no embedded image:\n%s", structure(doc))
	}
	code := elementsOf(doc, "CodeSnippet")
	if len(code) != 1 || !strings.Contains(code[0].Text, "def greet(name):\n    return") {
		t.Errorf("code %v", code)
	}
	if len(elementsOf(doc, "FigureCaption")) != 1 {
		t.Errorf("figure caption missing:\n%s", structure(doc))
	}
	golden(t, "pandoc.docx", doc)
}

// python-docx writes heading styles, "List Bullet" styles, a merged cell
// and an explicit page break.
func TestDOCXPythonDocx(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "python-docx.docx")
	if doc.PageCount != 2 || len(elementsOf(doc, "PageBreak")) != 1 {
		t.Errorf("page_count %d, %d page breaks:\n%s", doc.PageCount, len(elementsOf(doc, "PageBreak")), structure(doc))
	}
	wantInOrder(t, "headings", headings(doc), "0 Report", "1 Details", "0 Appendix")
	if d := listDepths(doc); len(d) != 2 || d[0] != 0 || d[1] != 1 {
		t.Errorf("list depths %v, want [0 1]", d)
	}
	if !anyTableHTML(doc, `colspan="2"`) {
		t.Errorf("merged cell lost:\n%s", structure(doc))
	}
	golden(t, "python-docx.docx", doc)
}

// Footnotes become "[n]" in the text and "[n] note" at the end; inline
// OOXML math stays in its sentence; a mailto link an EmailAddress.
func TestDOCXNotesMathMail(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "pandoc-notes.docx")
	md := structure(doc)
	if !strings.Contains(md, `NarrativeText "Body text with a footnote.[1]`) || !strings.Contains(md, `NarrativeText "[1] The footnote text."`) {
		t.Errorf("footnote:\n%s", md)
	}
	// The superscript stays one (E=mc2 read as a different formula); the
	// formula stays in the sentence it is inline in.
	if s, lines, tex := inlineFormulas(t, doc); s != "NarrativeText Inline math: E=mc²" || len(lines) != 1 || lines[0] != "E=mc²" ||
		len(tex) != 1 || tex[0] != "E=mc^{2}" || len(elementsOf(doc, "Formula")) != 0 {
		t.Errorf("inline formula %q %q %q, display %v", s, lines, tex, elementsOf(doc, "Formula"))
	}
	e := elementsOf(doc, "EmailAddress")
	if len(e) != 1 || e[0].Text != "editor@example.com" {
		t.Errorf("email %v", e)
	}
	if doc.Title != "Notes and Math" {
		t.Errorf("title %q", doc.Title)
	}
}

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`

func docxWith(t *testing.T, body string, extra ...string) []byte {
	files := append([]string{
		"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"word/document.xml", `<?xml version="1.0"?><w:document ` + wordNS + `><w:body>` + body + `</w:body></w:document>`,
	}, extra...)
	return zipOf(t, files...)
}

// Vertical merges, headers/footers and page breaks without headings.
func TestDOCXMergesHeadersBreaks(t *testing.T) {
	body := `<w:p><w:r><w:t>one</w:t></w:r></w:p><w:p><w:pPr><w:outlineLvl w:val="1"/></w:pPr><w:r><w:t>Direct</w:t></w:r></w:p>` +
		`<w:tbl><w:tr><w:tc><w:tcPr><w:vMerge w:val="restart"/></w:tcPr><w:p><w:r><w:t>tall</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>x</w:t></w:r></w:p></w:tc></w:tr>` +
		`<w:tr><w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc><w:tc><w:p><w:r><w:t>y</w:t></w:r></w:p></w:tc></w:tr></w:tbl>` +
		`<w:p><w:r><w:br w:type="page"/></w:r></w:p><w:p><w:r><w:t>two</w:t></w:r></w:p>` +
		`<w:sectPr><w:headerReference w:type="default" r:id="rH"/><w:footerReference w:type="default" r:id="rF"/></w:sectPr>`
	data := docxWith(t, body,
		"word/_rels/document.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rH" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml"/><Relationship Id="rF" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer" Target="footer1.xml"/></Relationships>`,
		"word/header1.xml", `<?xml version="1.0"?><w:hdr `+wordNS+`><w:p><w:r><w:t>Head</w:t></w:r></w:p></w:hdr>`,
		"word/footer1.xml", `<?xml version="1.0"?><w:ftr `+wordNS+`><w:p><w:r><w:t>Foot</w:t></w:r></w:p></w:ftr>`)
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	doc, err := convertBytes(t, c, "merge.docx", data)
	if err != nil {
		t.Fatal(err)
	}
	s := structure(doc)
	if doc.PageCount != 2 {
		t.Fatalf("page_count %d, want 2 (split at the page break):\n%s", doc.PageCount, s)
	}
	if !strings.Contains(s, `Title depth=1 "Direct"`) {
		t.Errorf("direct outline level:\n%s", s)
	}
	if !anyTableHTML(doc, `<td rowspan="2">tall</td><td>x</td></tr><tr><td>y</td>`) {
		t.Errorf("vertical merge:\n%s", s)
	}
	for _, p := range doc.Pages {
		n := len(p.Elements)
		if n < 2 || p.Elements[0].Category != "Header" || p.Elements[0].Text != "Head" || p.Elements[n-1].Category != "Footer" || p.Elements[n-1].Text != "Foot" {
			t.Errorf("page %d lacks header/footer:\n%s", p.Index, s)
		}
	}
}

func TestDOCXHostile(t *testing.T) {
	deep := strings.Repeat("<w:sdt><w:sdtContent>", 400) + strings.Repeat("</w:sdtContent></w:sdt>", 400)
	runHostile(t, []hostileCase{
		{"bomb.docx", bombZip(t, "word/document.xml", 64<<20, "[Content_Types].xml", "<Types/>"), "decompressed size over the limit"},
		{"laughs.docx", zipOf(t, "[Content_Types].xml", "<Types/>", "word/document.xml", laughs+`<w:document `+wordNS+`><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>`), "entities"},
		{"deep.docx", docxWith(t, deep), "nesting depth over the limit"},
		{"notword.docx", zipOf(t, "[Content_Types].xml", "<Types/>", "word/other.xml", "<x/>"), "not"},
		{"broken.docx", docxWith(t, "<w:p><w:r><w:t>unclosed"), "word/document.xml"},
	})
}
