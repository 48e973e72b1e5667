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
