package convert

import (
	"strings"
	"testing"
)

func TestPPTXGolden(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "pandoc.pptx")
	if doc.FileType != "pptx" || doc.PageCount != 5 {
		t.Fatalf("file_type %q, page_count %d:\n%s", doc.FileType, doc.PageCount, structure(doc))
	}
	// Slide 2 repeats the document heading as body text, untitled.
	if doc.Pages[0].Title != "Fixture Corpus" || doc.Pages[2].Title != "Introduction" {
		t.Errorf("slide titles %q %q", doc.Pages[0].Title, doc.Pages[2].Title)
	}
	wantInOrder(t, "headings", headings(doc), "0 Fixture Corpus", "0 Introduction", "0 Conclusion")
	if d := listDepths(doc); len(d) < 5 || d[0] != 0 || d[2] != 1 || d[3] != 2 || d[4] != 0 {
		t.Errorf("list depths %v", d)
	}
	if len(elementsOf(doc, "Table")) != 1 || !embeddedImage(doc) {
		t.Errorf("table or image missing:\n%s", structure(doc))
	}
	if code := elementsOf(doc, "CodeSnippet"); len(code) != 1 || !strings.Contains(code[0].Text, "def greet(name):") {
		t.Errorf("code %v", code)
	}
	golden(t, "pandoc.pptx", doc)
}

func TestPPTXSoffice(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "soffice.pptx")
	if doc.PageCount != 5 || len(elementsOf(doc, "Table")) != 1 || !embeddedImage(doc) {
		t.Errorf("soffice.pptx:\n%s", structure(doc))
	}
}

const pptNS = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`

func pptxWith(t *testing.T, slide string, extra ...string) []byte {
	files := append([]string{
		"[Content_Types].xml", `<Types/>`,
		"ppt/presentation.xml", `<?xml version="1.0"?><p:presentation ` + pptNS + `><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`,
		"ppt/_rels/presentation.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/></Relationships>`,
		"ppt/slides/slide1.xml", slide,
	}, extra...)
	return zipOf(t, files...)
}

// pandoc's PPTX writer drops cell spans, so the spans and notes are
// checked on a slide written to the PresentationML schema.
func TestPPTXSpansAndNotes(t *testing.T) {
	slide := `<?xml version="1.0"?><p:sld ` + pptNS + `><p:cSld><p:spTree>` +
		`<p:sp><p:nvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>Spans</a:t></a:r></a:p></p:txBody></p:sp>` +
		`<p:graphicFrame><a:graphic><a:graphicData><a:tbl>` +
		`<a:tr><a:tc gridSpan="2"><a:txBody><a:p><a:r><a:t>wide</a:t></a:r></a:p></a:txBody></a:tc><a:tc hMerge="1"/><a:tc rowSpan="2"><a:txBody><a:p><a:r><a:t>tall</a:t></a:r></a:p></a:txBody></a:tc></a:tr>` +
		`<a:tr><a:tc><a:txBody><a:p><a:r><a:t>a</a:t></a:r></a:p></a:txBody></a:tc><a:tc><a:txBody><a:p><a:r><a:t>b</a:t></a:r></a:p></a:txBody></a:tc><a:tc vMerge="1"/></a:tr>` +
		`</a:tbl></a:graphicData></a:graphic></p:graphicFrame></p:spTree></p:cSld></p:sld>`
	notes := `<?xml version="1.0"?><p:notes ` + pptNS + `><p:cSld><p:spTree><p:sp><p:nvSpPr><p:nvPr><p:ph type="body" idx="1"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>Say this.</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:notes>`
	data := pptxWith(t, slide,
		"ppt/slides/_rels/slide1.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rN" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide" Target="../notesSlides/notesSlide1.xml"/></Relationships>`,
		"ppt/notesSlides/notesSlide1.xml", notes)
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	doc, err := convertBytes(t, c, "spans.pptx", data)
	if err != nil {
		t.Fatal(err)
	}
	if !anyTableHTML(doc, `<tr><td colspan="2">wide</td><td rowspan="2">tall</td></tr><tr><td>a</td><td>b</td></tr>`) {
		t.Errorf("spans:\n%s", structure(doc))
	}
	n := elementsOf(doc, "NarrativeText")
	if len(n) != 1 || n[0].Text != "Say this." || string(n[0].Metadata["slide_notes"]) != "true" {
		t.Errorf("notes %v:\n%s", n, structure(doc))
	}
	if doc.Pages[0].Title != "Spans" {
		t.Errorf("slide title %q", doc.Pages[0].Title)
	}
}

func TestPPTXHostile(t *testing.T) {
	deep := `<?xml version="1.0"?><p:sld ` + pptNS + `><p:cSld><p:spTree>` + strings.Repeat("<p:grpSp>", 400) + strings.Repeat("</p:grpSp>", 400) + `</p:spTree></p:cSld></p:sld>`
	bomb := bombZip(t, "ppt/slides/slide1.xml", 64<<20,
		"[Content_Types].xml", `<Types/>`,
		"ppt/presentation.xml", `<?xml version="1.0"?><p:presentation `+pptNS+`><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`,
		"ppt/_rels/presentation.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/></Relationships>`)
	runHostile(t, []hostileCase{
		{"bomb.pptx", bomb, "decompressed size over the limit"},
		{"laughs.pptx", pptxWith(t, laughs+`<p:sld `+pptNS+`><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>&lol9;</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`), "entities"},
		{"deep.pptx", pptxWith(t, deep), "nesting depth over the limit"},
		{"notppt.pptx", zipOf(t, "[Content_Types].xml", "<Types/>", "ppt/other.xml", "<x/>"), "not"},
	})
}
