package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGet_MarkdownKeepsLinks: get --format md writes a document's links
// (ele_metadata link_urls, link_texts) as Markdown links where their text
// is, in paragraphs and list items alike, with a destination
// that stays one destination (spaces and parentheses encoded).
func TestGet_MarkdownKeepsLinks(t *testing.T) {
	src := filepath.Join(t.TempDir(), "links.md")
	md := "# Links\n\n" +
		"See [the spec](https://example.com/spec?a=1) and [other file](other.md) and [a section](#second).\n\n" +
		"- an item with [dpe](dpe://local/foo)\n\n" +
		"Odd [target](<https://example.com/a b(c)>).\n"
	if err := os.WriteFile(src, []byte(md), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "get", src, "--format", "md")
	if code != 0 {
		t.Fatalf("get: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"See [the spec](https://example.com/spec?a=1) and [other file](other.md) and [a section](#second).",
		"- an item with [dpe](dpe://local/foo)",
		"Odd [target](https://example.com/a%20b%28c%29).",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("get --format md lacks %q:\n%s", want, out)
		}
	}
}

// TestGet_LinksOfEveryFormat: the same links as pandoc writes them to
// DOCX, ODT, HTML and EPUB (links.md: two web links, one in a list
// item, and one to a heading of the document) are kept by get --format
// md in each, with their text: ODT, HTML and EPUB recorded no
// link_texts, so their links were dropped, and DOCX's link to the
// heading's bookmark (w:anchor) was dropped whole. The link to the
// heading is "#checks" in each, which the browser follows to the
// heading (EPUB's ch002.xhtml#checks is a chapter of the same book).
func TestGet_LinksOfEveryFormat(t *testing.T) {
	want := []string{
		"Read [the manual](https://example.org/manual) before the shift, then see [the checks](#checks) below.",
		"- Report to [the duty desk](https://example.org/desk) by noon.",
		"Each check is in [the register](https://example.org/register).",
	}
	for _, f := range []string{"links.docx", "links.odt", "links.html", "links.epub"} {
		t.Run(f, func(t *testing.T) {
			code, out, errOut := runCLI(t, "get", filepath.Join(realFixtures, f), "--format", "md")
			if code != exitOK {
				t.Fatalf("get: exit %d: %s", code, errOut)
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("get --format md lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
