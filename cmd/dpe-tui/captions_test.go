package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGet_FigureCaptionOnceInEveryFormat: a picture whose alternative text
// is its caption (pandoc writes both, as img alt and figcaption in HTML
// and EPUB, as descr and a caption paragraph in DOCX) shows the caption
// once in get --format md and text, in every format; Markdown keeps the
// alternative text as the image's alt.
func TestGet_FigureCaptionOnceInEveryFormat(t *testing.T) {
	for _, file := range []string{"review.docx", "review.html", "review.epub"} {
		for _, format := range []string{"md", "text"} {
			t.Run(file+"/"+format, func(t *testing.T) {
				code, out, errOut := runCLI(t, "get", "--format", format, filepath.Join(realFixtures, file))
				if code != exitOK {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				if n := strings.Count(shownText(out), "The new pump on its frame"); n != 1 {
					t.Errorf("the caption is shown %d times:\n%s", n, out)
				}
				if format == "md" && !strings.Contains(out, "![The new pump on its frame](") {
					t.Errorf("the image lost its alt:\n%s", out)
				}
			})
		}
	}
}

// mdImageAlt is the alt of Markdown's image syntax, which is not shown
// as text where the image is.
var mdImageAlt = regexp.MustCompile(`!\[[^\]]*\]\(`)

// shownText is an export without the alt texts of its Markdown images.
func shownText(out string) string { return mdImageAlt.ReplaceAllString(out, "![](") }
