package convert

import (
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func TestHTMLGolden(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "pandoc.html")
	if doc.FileType != "html" || doc.Title != "Fixture Corpus" {
		t.Fatalf("file_type %q, title %q", doc.FileType, doc.Title)
	}
	// A page per section of the top heading level, as DOCX and ODT split:
	// the title block joins the first section's page (this file, made by
	// pandoc from pandoc's own HTML, has a second "Fixture Corpus" h1,
	// which is a section of its own as in pandoc.docx), Introduction with
	// its four h2 sections, Conclusion.
	var titles []string
	for _, p := range doc.Pages {
		titles = append(titles, p.Title)
	}
	if want := "Fixture Corpus|Introduction|Conclusion"; strings.Join(titles, "|") != want {
		t.Errorf("pages %q, want %s", titles, want)
	}
	wantInOrder(t, "headings", headings(doc), "0 Introduction", "1 Lists", "1 Table", "1 Code", "1 Image", "0 Conclusion")
	if d := listDepths(doc); len(d) < 5 || d[0] != 0 || d[2] != 1 || d[3] != 2 || d[4] != 0 {
		t.Errorf("list depths %v", d)
	}
	if !anyTableHTML(doc, `<td colspan="2">Total (merged)</td><td>39</td>`) {
		t.Errorf("merged cell lost:\n%s", structure(doc))
	}
	if !embeddedImage(doc) {
		t.Errorf("the data: image is not embedded:\n%s", structure(doc))
	}
	code := elementsOf(doc, "CodeSnippet")
	if len(code) != 1 || metaString(code[0], "language") != "python" {
		t.Errorf("code %v", code)
	}
	if len(elementsOf(doc, "FigureCaption")) != 1 {
		t.Errorf("figcaption:\n%s", structure(doc))
	}
	golden(t, "pandoc.html", doc)
}

// Everything the HTML reader maps, and what it must not do: run or keep
// scripts, or fetch a remote image.
func TestHTMLElements(t *testing.T) {
	// A listener that fails the test if anything connects: the remote
	// image points at it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	fetched := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			fetched <- struct{}{}
			c.Close()
		}
	}()
	png, err := os.ReadFile("testdata/src/figure.png")
	if err != nil {
		t.Fatal(err)
	}
	page := `<!doctype html><html><head><title>T</title><meta name="keywords" content="a, b"><style>p{color:red}</style><script>alert("x")</script></head><body>
<h1>One</h1><p>Hello <a href="mailto:me@example.com?subject=x">write</a> now.</p>
<pre><code class="language-go">package main</code></pre>
<figure><img src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(png) + `" alt="fig"><figcaption>The figure</figcaption></figure>
<img src="http://` + ln.Addr().String() + `/remote.png" alt="remote">
<address>1 Main St, Springfield</address>
<ol><li>a<ul><li>b</li></ul></li></ol>
<table><tr><th rowspan="2">r</th><th>x</th></tr><tr><td>y</td></tr></table>
<math><mi>x</mi><mo>=</mo><mn>1</mn><annotation encoding="application/x-tex">x=1</annotation></math>
<h1>Two</h1><h2>Still two</h2><p>second page</p><script>document.write("gone")</script></body></html>`
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	doc, err := convertBytes(t, c, "page.html", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	s := structure(doc)
	for _, want := range []string{
		`file_type=html page_count=2 title="T" keywords=["a" "b"]`,
		`NarrativeText "Hello write now."`, `EmailAddress "me@example.com"`,
		`CodeSnippet language=go "package main"`, `Image mime=image/png embedded=true "fig"`, `FigureCaption "The figure"`,
		`Address "1 Main St, Springfield"`, `ListItem depth=0 "a"`, `ListItem depth=1 "b"`,
		`html=<table><tr><th rowspan="2">r</th><th>x</th></tr><tr><td>y</td></tr></table>`, `Formula "x=1"`,
		`page 1 "Two"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s in:\n%s", want, s)
		}
	}
	for _, bad := range []string{"alert", "gone", "color:red"} {
		if strings.Contains(s, bad) {
			t.Errorf("script/style text %q leaked:\n%s", bad, s)
		}
	}
	var remote bool
	for _, el := range elementsOf(doc, "Image") {
		if strings.HasSuffix(metaString(el, "image_path"), "/remote.png") && metaString(el, "image_base64") == "" {
			remote = true
		}
	}
	if !remote {
		t.Errorf("remote image should be an Image with its url only:\n%s", s)
	}
	select {
	case <-fetched:
		t.Error("the converter fetched a remote image")
	default:
	}
}

func TestHTMLHostile(t *testing.T) {
	deep := "<html><body>" + strings.Repeat("<div>", 5000) + "x" + strings.Repeat("</div>", 5000) + "</body></html>"
	runHostile(t, []hostileCase{{"deep.html", []byte(deep), "nesting depth over the limit"}})
	// HTML has no DTD entities: a billion-laughs document stays small text.
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	lol := strings.Replace(laughs, `<?xml version="1.0"?>`, "", 1) + "<html><body><p>&lol9;</p></body></html>"
	doc, err := convertBytes(t, c, "laughs.html", []byte(lol))
	if err != nil {
		t.Fatal(err)
	}
	for _, el := range elementsOf(doc, "NarrativeText") {
		if len(el.Text) > 1000 {
			t.Errorf("entity expanded to %d bytes", len(el.Text))
		}
	}
}

// A few bytes of colspan must not become gigabytes of padded grid.
func TestHTMLTableAreaCapped(t *testing.T) {
	row := `<tr><td colspan="1000">x</td></tr>`
	page := "<table>" + strings.Repeat(row, 5000) + "</table>"
	runHostile(t, []hostileCase{{"wide.html", []byte(page), "table grid cells over the limit"}})
}

// pandoc's footnotes read alike from DOCX, ODT, HTML and EPUB: "[1]" in
// the referring text, apart from the word, and the note a NarrativeText
// "[1] text" with ele_metadata footnote 1, without pandoc's ↩︎ backlink
// (HTML gave "footnote.1" and an ordered list item ending in ↩︎).
func TestFootnotesAlikeAcrossFormats(t *testing.T) {
	c := testConverter(t)
	for _, ext := range []string{"docx", "odt", "html", "epub"} {
		doc := convertFixture(t, c, "pandoc-notes."+ext)
		var ref, note *dpe.Element
		for _, p := range doc.Pages {
			for _, el := range p.Elements {
				if strings.Contains(el.Text, "↩") {
					t.Errorf("%s: backlink kept in %q", ext, el.Text)
				}
				switch {
				case el.Text == "Body text with a footnote.[1] Write to the editor.":
					ref = el
				case el.Text == "[1] The footnote text." && el.Category == "NarrativeText" && metaInt(el, "footnote") == 1:
					note = el
				}
			}
		}
		if ref == nil || note == nil {
			t.Errorf("%s: reference %v, note %v:\n%s", ext, ref != nil, note != nil, structure(doc))
		}
	}
}

// A task list in pandoc's HTML is CheckBoxes with their state (the
// <input> was dropped and the items read as plain list items).
func TestHTMLChecklistState(t *testing.T) {
	doc := convertFixture(t, testConverter(t), "pandoc-checklist.html")
	var got []string
	for _, el := range elementsOf(doc, "CheckBox") {
		got = append(got, fmt.Sprintf("%s=%s", el.Text, el.Metadata["checked"]))
	}
	if strings.Join(got, ", ") != "pumps checked=true, filter 2 backwashed=false, log signed=true" || len(elementsOf(doc, "ListItem")) != 0 {
		t.Errorf("checkboxes %q:\n%s", got, structure(doc))
	}
}

// A page laid out with tables (libxslt's API pages, as Debian ships them:
// the whole page is nested tables) reads as its blocks: every heading,
// code block and list item of the file, counted here from the file's own
// tags, instead of one Table with a 7,000-character cell.
func TestHTMLLayoutTablesReadAsBlocks(t *testing.T) {
	const file = "/usr/share/doc/libxslt1-dev/html/html/libxslt-templates.html"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Skipf("%v (libxslt1-dev not installed)", err)
	}
	root, err := parseHTML(data)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	var count func(n *xhtml.Node)
	count = func(n *xhtml.Node) {
		if n.Type == xhtml.ElementNode {
			switch n.DataAtom {
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				want["Title"]++
			case atom.Pre:
				want["CodeSnippet"]++
			case atom.Li:
				want["ListItem"]++
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			count(c)
		}
	}
	count(root)
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	doc, err := convertBytes(t, c, "libxslt-templates.html", data)
	if err != nil {
		t.Fatal(err)
	}
	for cat, n := range want {
		if got := len(elementsOf(doc, cat)); got != n {
			t.Errorf("%s: %d, the file has %d", cat, got, n)
		}
	}
	for _, el := range elementsOf(doc, "Table") {
		if len(el.Text) > 2000 {
			t.Errorf("a layout table stayed a table (%d characters)", len(el.Text))
		}
	}
}

// Which tables are layout: cells holding headings, lists or code, or
// single-cell rows, without a header row; a DocBook data table (every cell
// a <p>), one with <th>, and a row of one wide cell stay tables.
func TestHTMLLayoutTableRule(t *testing.T) {
	for _, tc := range []struct {
		html   string
		layout bool
	}{
		{`<table><tr><td><h2>Title</h2></td><td><ul><li>menu</li></ul></td></tr></table>`, true},
		{`<table><tr><td>one box</td></tr><tr><td>another box</td></tr></table>`, true},
		{`<table><tr><td><p>file</p></td><td><p>the path</p></td></tr></table>`, false},
		{`<table><tr><th>Name</th></tr><tr><td><pre>code</pre></td></tr></table>`, false},
		{`<table><tr><td colspan="2">wide</td></tr></table>`, false},
		{`<table><tr><td>a</td><td>b</td></tr></table>`, false},
	} {
		root, err := parseHTML([]byte(tc.html))
		if err != nil {
			t.Fatal(err)
		}
		var tbl *xhtml.Node
		var find func(n *xhtml.Node)
		find = func(n *xhtml.Node) {
			if tbl == nil && n.DataAtom == atom.Table {
				tbl = n
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				find(c)
			}
		}
		find(root)
		if got := layoutTable(tbl); got != tc.layout {
			t.Errorf("layoutTable(%s) = %v, want %v", tc.html, got, tc.layout)
		}
	}
}
