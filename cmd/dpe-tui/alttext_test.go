package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// get keeps a picture's alternative text from the file (Writer's svg:desc
// in ODT, pandoc's figure caption in PPTX and in Impress's ODP of it,
// which keeps pandoc's descr "fig: figure.png" as svg:desc: the caption,
// a FigureCaption, is the alternative text; it read "fig: figure.png")
// and the text of Impress's custom shapes.
func TestGet_AltTextAndShapeText(t *testing.T) {
	for file, want := range map[string][]string{
		"soffice.odt": {"![A gradient figure](Pictures/"},
		"soffice.odp": {"![A gradient figure](Pictures/", ")\n\n*A gradient figure*\n"},
		"pandoc.pptx": {"![A gradient figure](ppt/media/"},
	} {
		code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, file))
		if code != exitOK || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", file, code, errOut)
		}
		if strings.Contains(out, "fig:") {
			t.Errorf("%s: pandoc's descr shown:\n%s", file, out)
		}
		at := 0
		for _, w := range want {
			i := strings.Index(out[at:], w)
			if i < 0 {
				t.Fatalf("%s: %q missing (or out of order) in:\n%s", file, w, out)
			}
			at += i + len(w)
		}
	}
}
