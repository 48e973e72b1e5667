package convert

import (
	"strings"
	"testing"
)

func TestEPUBGolden(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "pandoc.epub")
	if doc.FileType != "epub" || doc.Title != "Fixture Corpus" || doc.LastModified == "" {
		t.Fatalf("file_type %q, title %q, last_modified %q", doc.FileType, doc.Title, doc.LastModified)
	}
	// One page per spine item, pandoc's title page joining the first
	// chapter (pandoc splits chapters at h1): two pages, as pandoc.docx
	// has after its title.
	if doc.PageCount != 2 {
		t.Fatalf("page_count %d:\n%s", doc.PageCount, structure(doc))
	}
	wantInOrder(t, "headings", headings(doc), "0 Introduction", "1 Lists", "1 Table", "1 Code", "1 Image", "0 Conclusion")
	if d := listDepths(doc); len(d) < 5 || d[0] != 0 || d[2] != 1 || d[3] != 2 || d[4] != 0 {
		t.Errorf("list depths %v", d)
	}
	if !anyTableHTML(doc, `<td colspan="2">Total (merged)</td><td>39</td>`) {
		t.Errorf("merged cell lost:\n%s", structure(doc))
	}
	if !embeddedImage(doc) {
		t.Errorf("the package's image is not embedded:\n%s", structure(doc))
	}
	if code := elementsOf(doc, "CodeSnippet"); len(code) != 1 || metaString(code[0], "language") != "python" {
		t.Errorf("code %v", code)
	}
	golden(t, "pandoc.epub", doc)
}

const containerXML = `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`

const opfXML = `<?xml version="1.0"?><package version="3.0" xmlns="http://www.idpf.org/2007/opf"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>B</dc:title></metadata><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>`

func TestEPUBHostile(t *testing.T) {
	mt := "application/epub+zip"
	runHostile(t, []hostileCase{
		{"bomb.epub", bombZip(t, "OEBPS/c1.xhtml", 64<<20, "mimetype", mt, "META-INF/container.xml", containerXML, "OEBPS/content.opf", opfXML), "decompressed size over the limit"},
		{"laughs.epub", zipOf(t, "mimetype", mt, "META-INF/container.xml", containerXML, "OEBPS/content.opf", laughs+strings.TrimPrefix(strings.Replace(opfXML, "<dc:title>B", "<dc:title>&lol9;", 1), `<?xml version="1.0"?>`)), "entities"},
		{"laughs2.epub", zipOf(t, "mimetype", mt, "META-INF/container.xml", laughs+strings.TrimPrefix(containerXML, `<?xml version="1.0"?>`)), "entities"},
		{"nocontainer.epub", zipOf(t, "mimetype", mt, "OEBPS/content.opf", opfXML), "container.xml"},
		{"deep.epub", zipOf(t, "mimetype", mt, "META-INF/container.xml", containerXML, "OEBPS/content.opf", opfXML, "OEBPS/c1.xhtml", "<html><body>"+strings.Repeat("<div>", 5000)+"</body></html>"), "nesting depth over the limit"},
	})
}
