package convert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// The Markdown, CSV/TSV, source-code and plain-text readers. Their
// whole-document goldens are pinned where the demo corpus is served
// (library/testdata/golden, through this package); these tests name the
// rules one by one.

// tDoc is the Document JSON with ele_metadata as plain values.
type tDoc struct {
	DocRef    string   `json:"doc_ref"`
	URI       string   `json:"uri"`
	FileType  string   `json:"file_type"`
	Title     string   `json:"title"`
	PageCount int      `json:"page_count"`
	Keywords  []string `json:"keywords"`
	Pages     []tPage  `json:"pages"`
}

type tPage struct {
	PageIndex int        `json:"page_index"`
	Title     string     `json:"title"`
	Elements  []tElement `json:"elements"`
}

type tElement struct {
	ElementID string         `json:"element_id"`
	Category  string         `json:"category"`
	Text      string         `json:"text"`
	Metadata  map[string]any `json:"ele_metadata"`
}

// textConvert converts through the registry (sniffing included) with an
// optional asset reader, as the library does.
func textConvert(t testing.TB, name string, data []byte, uri, docRef string, assets AssetReader) ([]byte, error) {
	t.Helper()
	c := testConverter(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if assets != nil {
		ctx = WithAssets(ctx, assets)
	}
	src := BytesSource(name, data)
	src.URI, src.DocRef = uri, docRef
	return c.ConvertJSON(ctx, src)
}

// fsAssets reads assets from fsys (the tests' stand-in for the library's
// os.Root reads).
func fsAssets(fsys fs.FS) AssetReader {
	return func(p string, limit int64) ([]byte, error) {
		data, err := fs.ReadFile(fsys, p)
		if err == nil && int64(len(data)) > limit {
			return nil, errors.New("too large")
		}
		return data, err
	}
}

// edgeAssets is the folder of edge-cases.md served at a/b/c.md: one image
// inside it, and a secret one level up that "../" must not reach.
func edgeAssets() AssetReader {
	return fsAssets(fstest.MapFS{"secret.png": {Data: []byte("\x89PNG secret")}})
}

func toStrings(v any) []string {
	var out []string
	if a, ok := v.([]any); ok {
		for _, x := range a {
			s, _ := x.(string)
			out = append(out, s)
		}
	}
	return out
}

// TestConvert_MarkdownStructure checks the Markdown rules one by one on the
// edge-case file (the golden pins the whole output; this names the rules).
func TestConvert_MarkdownStructure(t *testing.T) {
	data, err := os.ReadFile("testdata/text/edge-cases.md")
	if err != nil {
		t.Fatal(err)
	}
	var d tDoc
	raw, err := textConvert(t, "edge-cases.md", data, "dpe://h.example.x/a/b%2Fc.md", "a/b/c.md", edgeAssets())
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if d.DocRef != "a/b/c.md" || d.URI != "dpe://h.example.x/a/b%2Fc.md" {
		t.Errorf("doc_ref %q uri %q", d.DocRef, d.URI)
	}
	if len(d.Pages) != 3 || d.PageCount != 3 {
		t.Fatalf("pages = %d, want 3 (preamble + two H2 sections)", len(d.Pages))
	}
	find := func(pred func(tElement) bool) *tElement {
		for _, p := range d.Pages {
			for i := range p.Elements {
				if pred(p.Elements[i]) {
					return &p.Elements[i]
				}
			}
		}
		return nil
	}
	byText := func(s string) *tElement {
		return find(func(e tElement) bool { return strings.Contains(e.Text, s) })
	}
	tests := []struct {
		rule string
		ok   func() bool
	}{
		{"preamble is page 0", func() bool { return d.Pages[0].Elements[0].Text == "Text before any heading goes on page 0." }},
		{"H2 splits pages and titles them", func() bool { return d.Pages[1].Title == "First section" && d.Pages[2].Title == "Second section" }},
		{"Title depth is level-1", func() bool {
			e := byText("Deep heading")
			return e != nil && e.Category == "Title" && e.Metadata["category_depth"] == float64(3)
		}},
		{"links collected", func() bool {
			e := byText("A paragraph with a link")
			return e != nil && len(toStrings(e.Metadata["link_urls"])) == 2
		}},
		{"hard break kept", func() bool { e := byText("Line one"); return e != nil && strings.Contains(e.Text, "\nline two") }},
		{"task items are CheckBox with checked", func() bool {
			a, b := byText("nested task"), byText("nested done")
			return a != nil && b != nil && a.Category == "CheckBox" && a.Metadata["checked"] == false && b.Metadata["checked"] == true
		}},
		{"nested list depth and parent", func() bool {
			parent, child := byText("ordered"), byText("nested task")
			return parent != nil && child != nil && child.Metadata["category_depth"] == float64(1) && child.Metadata["parent_id"] == parent.ElementID
		}},
		{"code in list item has language and parent", func() bool {
			e := byText("echo code inside")
			p := byText("nested done")
			return e != nil && e.Category == "CodeSnippet" && e.Metadata["language"] == "sh" && e.Metadata["parent_id"] == p.ElementID
		}},
		{"table has escaped text_as_html", func() bool {
			e := find(func(e tElement) bool { return e.Category == "Table" })
			return e != nil && strings.Contains(e.Metadata["text_as_html"].(string), "a &lt; b &amp; &#34;y&#34;")
		}},
		{"$$ block is Formula", func() bool {
			e := byText("E = mc^2")
			return e != nil && e.Category == "Formula" && e.Text == "E = mc^2"
		}},
		{"invalid data URI has no image data", func() bool {
			e := byText("broken data")
			return e != nil && e.Category == "Image" && e.Metadata["image_base64"] == nil
		}},
		{"remote image is image_path", func() bool {
			e := byText("remote")
			return e != nil && e.Metadata["image_path"] == "https://example.org/i.png"
		}},
		{"image title is FigureCaption", func() bool {
			img, cap := byText("missing local"), byText("Caption of a missing image")
			return img != nil && cap != nil && cap.Category == "FigureCaption" && slices.Equal(toStrings(cap.Metadata["related_ids"]), []string{img.ElementID})
		}},
		{"path escape is not read", func() bool { e := byText("escape"); return e != nil && e.Metadata["image_base64"] == nil }},
		{"HTML block without visible text (a script) is left out", func() bool {
			return find(func(e tElement) bool {
				h, _ := e.Metadata["text_as_html"].(string)
				return strings.Contains(h, "<script>")
			}) == nil
		}},
		{"thematic break is PageBreak", func() bool {
			last := d.Pages[2].Elements[len(d.Pages[2].Elements)-1]
			return last.Category == "PageBreak"
		}},
	}
	for _, tt := range tests {
		if !tt.ok() {
			t.Errorf("rule failed: %s", tt.rule)
		}
	}
}

func TestConvert_FrontMatterOnlyWhenWellFormed(t *testing.T) {
	tests := []struct {
		name, src, title string
		pages            int
	}{
		{"front matter", "---\ntitle: T\nkeywords: a, b\n---\n# H\n", "T", 1},
		{"thematic break first", "---\n\n# H\n\ntext\n", "H", 1},
		{"unclosed", "---\ntitle: T\n# H\n", "H", 1},
		{"empty", "", "x.md", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := textConvert(t, "x.md", []byte(tt.src), "", "", nil)
			if err != nil {
				t.Fatal(err)
			}
			var d tDoc
			if err := json.Unmarshal(raw, &d); err != nil {
				t.Fatal(err)
			}
			if d.Title != tt.title || len(d.Pages) != tt.pages {
				t.Errorf("title %q pages %d, want %q %d", d.Title, len(d.Pages), tt.title, tt.pages)
			}
		})
	}
}

func TestConvert_CSVChunksRowsAndRepeatsHeader(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("id,name\n")
	for i := 0; i < 2*csvRowsPerPage+1; i++ {
		sb.WriteString(strconv.Itoa(i) + ",n\n")
	}
	raw, err := textConvert(t, "t.csv", []byte(sb.String()), "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var d tDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Pages) != 3 {
		t.Fatalf("pages = %d, want 3", len(d.Pages))
	}
	for i, p := range d.Pages {
		e := p.Elements[0]
		if e.Category != "Table" || !strings.HasPrefix(e.Text, "id\tname\n") || !strings.HasPrefix(e.Metadata["text_as_html"].(string), "<table><thead><tr><th>id</th>") {
			t.Errorf("page %d: header not repeated: %.40q", i, e.Text)
		}
		if (i > 0) != (e.Metadata["is_continuation"] == true) {
			t.Errorf("page %d: is_continuation = %v", i, e.Metadata["is_continuation"])
		}
	}
	if last := d.Pages[2].Elements[0].Text; strings.Count(last, "\n") != 1 {
		t.Errorf("last page holds %d rows, want 1", strings.Count(last, "\n"))
	}
}

func TestConvert_CodeSplitsLongFilesWithLanguage(t *testing.T) {
	src := strings.Repeat("x = 1\n", codeLinesPerPage*2+5)
	raw, err := textConvert(t, "pkg/m.py", []byte(src), "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var d tDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Pages) != 3 || d.FileType != "py" {
		t.Fatalf("pages %d file_type %q", len(d.Pages), d.FileType)
	}
	for i, p := range d.Pages {
		e := p.Elements[0]
		if e.Category != "CodeSnippet" || e.Metadata["language"] != "python" || e.Metadata["line_start"] != float64(i*codeLinesPerPage+1) {
			t.Errorf("page %d: %s %v", i, e.Category, e.Metadata)
		}
	}
}

func TestMarkdown_DisplayMathKeepsSubscriptUnderscores(t *testing.T) {
	raw, err := textConvert(t, "m.md", []byte("# M\n\n$$ Q_{night} > \\bar{Q}_{28} + 3\\sigma_{28} $$\n"), "dpe://h.example.docs/m.md", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `Q_{night} > \\bar{Q}_{28} + 3\\sigma_{28}`
	if !strings.Contains(string(raw), want) || !strings.Contains(string(raw), `"Formula"`) {
		t.Fatalf("formula lost its source text:\n%s", raw)
	}
}

func TestText_UnsupportedExtensionIsAnError(t *testing.T) {
	if _, err := textConvert(t, "image.bin", []byte("plain words"), "", "", nil); err == nil || !errors.Is(err, ErrUnsupported) {
		t.Errorf("err = %v, want unsupported", err)
	}
}

func TestText_FileTypesAreLowercaseAndKnownByName(t *testing.T) {
	c := testConverter(t)
	for name, want := range map[string]string{"A.MD": "md", "B.CSV": "csv", "c.TSV": "tsv", "D.GO": "go", "f.TXT": "txt", "g.Rs": "rs", "h.log": "txt", "i.tab": "tsv"} {
		if !c.SupportedName(name) {
			t.Errorf("%s not supported", name)
			continue
		}
		raw, err := textConvert(t, name, []byte("a\tb\n1\t2\n"), "", "", nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var d tDoc
		if err := json.Unmarshal(raw, &d); err != nil || d.FileType != want {
			t.Errorf("%s: file_type %q, want %q (%v)", name, d.FileType, want, err)
		}
	}
	if c.SupportedName("x/y.bin") {
		t.Error("bin supported")
	}
}

func TestText_KeywordsFromDocRefFoldersOnly(t *testing.T) {
	for _, tc := range []struct {
		name, docRef string
		want         []string
	}{
		{"../far/away/n.txt", "", []string{"txt"}},
		{"n.txt", "notes/daily/n.txt", []string{"notes", "daily", "txt"}},
		{"code/x.ts", "code/x.ts", []string{"code", "ts", "typescript"}},
	} {
		raw, err := textConvert(t, tc.name, []byte("x\n"), "", tc.docRef, nil)
		if err != nil {
			t.Fatal(err)
		}
		var d tDoc
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.Keywords, tc.want) {
			t.Errorf("%s (doc_ref %q): keywords %q, want %q", tc.name, tc.docRef, d.Keywords, tc.want)
		}
	}
}

func TestMarkdown_ImagesOnlyThroughTheAssetReader(t *testing.T) {
	png, err := os.ReadFile("testdata/src/figure.png")
	if err != nil {
		t.Fatal(err)
	}
	src := []byte("# Doc\n\n![fig](img/f.png)\n\n![up](../secret.png)\n")
	var asked []string
	assets := func(p string, limit int64) ([]byte, error) {
		asked = append(asked, p)
		if p == "img/f.png" {
			return png, nil
		}
		return nil, fs.ErrNotExist
	}
	for _, withAssets := range []bool{false, true} {
		var a AssetReader
		if withAssets {
			a = assets
		}
		raw, err := textConvert(t, "doc.md", src, "", "doc.md", a)
		if err != nil {
			t.Fatal(err)
		}
		var d tDoc
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		var embedded int
		for _, e := range d.Pages[0].Elements {
			if e.Category == "Image" && e.Metadata["image_base64"] != nil {
				embedded++
				if e.Text != "fig" || e.Metadata["image_mime_type"] != "image/png" {
					t.Errorf("embedded %q %v", e.Text, e.Metadata["image_mime_type"])
				}
			}
		}
		if want := map[bool]int{false: 0, true: 1}[withAssets]; embedded != want {
			t.Errorf("assets %v: %d images embedded, want %d", withAssets, embedded, want)
		}
	}
	if !slices.Equal(asked, []string{"img/f.png"}) {
		t.Errorf("asset reader asked for %q: a path leaving the folder must never be asked for", asked)
	}
}

// The Markdown pre-check is what keeps goldmark linear: a big document of
// real shape (links, emphasis, nested lists and quotes in every
// paragraph) passes it, while the shapes goldmark spends the square on,
// each under the per-paragraph '[' cap, are refused with the limit
// named. The check itself is one pass, so its cost is the file's size.
func TestMarkdownPrecheck_RealPassesSuperLinearRefused(t *testing.T) {
	var real strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&real, "Para %d has [a link](https://example.com/p/%d \"t\"), *stress*, _more_ and ~~gone~~ text, `code` and <https://x.example/%d>.\n\n", i, i, i)
		if i%50 == 0 {
			real.WriteString("> quoted\n> - item\n>   - nested [ref][r]\n\n1. one\n   2. two\n\n[r]: https://example.com/r\n\n")
		}
	}
	if err := markdownPrecheck([]byte(real.String()), DefaultMaxDepth); err != nil {
		t.Fatalf("a %d-byte document of real shape: %v", real.Len(), err)
	}
	// Real nesting, tables and code spans at the edge of the caps pass.
	for name, src := range map[string]string{
		"lists 256 deep":           indentedList(DefaultMaxDepth),
		"a list back out and in":   strings.Repeat(indentedList(200)+"\n", 20),
		"siblings":                 strings.Repeat("- a\n  - b\n    - c\n", 5000),
		"a table of 200,000 cells": "|a|b|c|d|\n|-|:-:|-:|-|\n" + strings.Repeat("|1|`x`|3|4|\n", 50000),
		"code spans everywhere":    strings.Repeat(strings.Repeat("`a` and ``b`` then ```c``` ", 200)+"\n\n", 2000),
		"1,024 footnotes":          strings.Repeat("text[^n] and [^n]\n\n[^n]: a note\n\n", 1024),
	} {
		if err := markdownPrecheck([]byte(src), DefaultMaxDepth); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, tc := range []struct{ name, src, what string }{
		{"link paragraphs", strings.Repeat(strings.Repeat("[x](", 4000)+"\n\n", 75), "bytes scanned for link destinations"},
		{"link paragraphs, <", strings.Repeat(strings.Repeat("[x](<", 3000)+"\n\n", 75), "bytes scanned for link destinations"},
		{"emphasis", strings.Repeat(strings.Repeat("*a ", 16000)+"\n\n", 20), "emphasis delimiter pairs"},
		{"quotes and lists", strings.Repeat("> - 1. ", 1000) + "x\n", "block quote nesting depth"},
		{"lists by indentation", indentedList(300), "list nesting depth"},
		{"lists by indentation, lazy lines between", strings.ReplaceAll(indentedList(300), "- x\n", "- x\nlazy\n"), "list nesting depth"},
		{"wide table", strings.Repeat("|a", 30000) + "|\n" + strings.Repeat("|-", 30000) + "|\n" + strings.Repeat(strings.Repeat("|a", 30000)+"|\n", 10), "table cell count"},
		{"table in a list item", "- |a|\n  |" + strings.Repeat("-|", 1000) + "\n" + strings.Repeat("  |a|\n", 300), "table cell count"},
		{"footnotes", strings.Repeat("text[^n]\n\n> [^n]: a note\n\n", 1025), "footnote definitions"},
		{"code span openers", func() string {
			var sb strings.Builder
			for k := 1; k <= 2000; k++ {
				sb.WriteString(strings.Repeat("`", k) + "a ")
			}
			return sb.String()
		}(), "bytes scanned for code span ends"},
	} {
		err := markdownPrecheck([]byte(tc.src), DefaultMaxDepth)
		var le *dpe.LimitError
		if !errors.As(err, &le) || le.What != tc.what || le.Got <= le.Limit {
			t.Errorf("%s: %v, want a %q LimitError", tc.name, err, tc.what)
		}
	}
}

// indentedList is n list items, each 2 spaces inside the one above it:
// n levels of nesting with one marker a line.
func indentedList(n int) string {
	var sb strings.Builder
	for i := range n {
		sb.WriteString(strings.Repeat("  ", i) + "- x\n")
	}
	return sb.String()
}
