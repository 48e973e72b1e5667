package render

import (
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
)

func exportDocFixture(t *testing.T) *dpe.Document {
	p1 := &dpe.Page{Index: 1, Title: "Intro", Decoded: true, Elements: []*dpe.Element{
		el(t, "Title", "Report", nil),
		el(t, "Title", "Section", map[string]any{"category_depth": 1}),
		el(t, "NarrativeText", "Body text.", nil),
		el(t, "ListItem", "point", map[string]any{"category_depth": 1}),
		el(t, "CodeSnippet", "a := \"```\"", map[string]any{"language": "go"}),
		el(t, "Table", "", map[string]any{"text_as_html": "<table><tr><th>k</th><th>v</th></tr><tr><td>a|b</td><td>1</td></tr></table>"}),
		el(t, "CheckBox", "done", map[string]any{"checked": true}),
		el(t, "Formula", "x^2", nil),
		el(t, "FormKeysValues", "Name: Jane", nil),
		el(t, "Image", "", map[string]any{"image_mime_type": "image/png", "caption": "Fig"}),
		el(t, "PageBreak", "", nil),
	}}
	p2 := &dpe.Page{Index: 2, URI: "https://example.com/p2.json"}
	return &dpe.Document{Title: "Doc", Pages: []*dpe.Page{p1, p2}}
}

func TestMarkdown_ExportsElementsAndPipeTables(t *testing.T) {
	got := Markdown(exportDocFixture(t))
	want := "# Doc\n\n---\n\n<!-- Page 1: Intro -->\n\n# Report\n\n## Section\n\nBody text.\n\n- point\n\n" +
		"````go\na := \"```\"\n````\n\n| k | v |\n| --- | --- |\n| a\\|b | 1 |\n\n- [x] done\n\n$$\nx^2\n$$\n\n" +
		"- **Name**: Jane\n\n*[image image/png]* Fig\n\n---\n\n---\n\n<!-- Page 2 -->\n\n(page not loaded)\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestPlainText_ExportsWithoutMarkup(t *testing.T) {
	got := plainText(exportDocFixture(t))
	for _, want := range []string{"Doc\n\n==== Page 1: Intro ====", "\nReport\n", "  ◦ point", "a := \"```\"", "\nk    v\n---  -\na|b  1\n", "[x] done", "Name: Jane", "[image image/png] Fig", "==== Page 2 ===="} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	// Tables are aligned columns, not Markdown's pipes.
	if strings.Contains(got, "##") || strings.Contains(got, "```go") || strings.Contains(got, "| k") {
		t.Errorf("markdown markup in plain text:\n%s", got)
	}
}

func TestPageExports_MatchDocumentPage(t *testing.T) {
	d := exportDocFixture(t)
	if md := PageMarkdown(d.Pages[0]); !strings.HasPrefix(md, "# Report\n") || !strings.Contains(Markdown(d), strings.TrimRight(md, "\n")) {
		t.Errorf("PageMarkdown:\n%s", md)
	}
	if txt := pagePlainText(d.Pages[0]); !strings.HasPrefix(txt, "Report\n") {
		t.Errorf("PagePlainText:\n%s", txt)
	}
}

// plainText and pagePlainText are the plain-text exports with no options,
// as get --format text writes them (furniture left out).
func plainText(d *dpe.Document) string { return Export(d, false, ExportOptions{}) }

func pagePlainText(p *dpe.Page) string { return ExportPage(p, false, ExportOptions{}) }

// A '<' that Markdown would read as a tag is escaped, one already escaped,
// before a space or in a code span is not.
func TestMarkdownExport_EscapesTagsOnly(t *testing.T) {
	for in, want := range map[string]string{
		"Write <tag> and </tag>":      `Write \<tag> and \</tag>`,
		`kept \<tag\> as written`:     `kept \<tag\> as written`,
		"a < b and 2 > 1":             "a < b and 2 > 1",
		"use `<div>` or ``<a>`` here": "use `<div>` or ``<a>`` here",
		"open ` <x>":                  "open ` \\<x>",
	} {
		if got := mdEscapeTags(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
