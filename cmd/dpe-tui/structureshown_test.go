package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGet_NavigationIsNoPage: pandoc's table of contents (a <nav> before
// the first heading) is navigation, not content: get --format md of the
// page with it reads as the page without it. It made a page of its own,
// a list of links to the headings.
func TestGet_NavigationIsNoPage(t *testing.T) {
	code, plain, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, "links.html"))
	if code != exitOK {
		t.Fatalf("get links.html: exit %d: %s", code, errOut)
	}
	code, toc, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, "links-toc.html"))
	if code != exitOK {
		t.Fatalf("get links-toc.html: exit %d: %s", code, errOut)
	}
	if toc != plain || strings.Contains(toc, "- [Checks](#checks)") {
		t.Errorf("with a table of contents:\n%s\nwithout:\n%s", toc, plain)
	}
}

// TestGet_ODTHeadingThroughAnAutomaticStyle: LibreOffice Writer's ODT of
// pandoc's HTML writes the title <h1> as a text:p whose automatic style's
// parent is Heading 1; it is a heading (one "#" in md, the page's
// title), not a paragraph under an untitled page.
func TestGet_ODTHeadingThroughAnAutomaticStyle(t *testing.T) {
	code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, "soffice-weights.odt"))
	if code != exitOK {
		t.Fatalf("get: exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "<!-- Page 1: Weights -->\n\n# Weights\n\n| Fruit and weight |") {
		t.Errorf("get --format md:\n%s", out)
	}
}
