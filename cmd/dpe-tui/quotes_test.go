package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Footnotes and block quotes written by pandoc to GFM, DOCX and ODT: get
// --format md keeps each note as "[n] text" after a "[n]" reference, the
// quoted paragraphs behind ">" (the nested one behind "> >" where the
// format can say so), a raw <img>'s alt text as an image, and Markdown's
// bold and italic.
func TestGet_FootnotesAndQuotes(t *testing.T) {
	for _, file := range []string{"pandoc-quotes.md", "pandoc-quotes.docx", "pandoc-quotes.odt"} {
		t.Run(file, func(t *testing.T) {
			code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, file))
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			want := []string{"A claim that needs a source.[1] The count was checked twice.[2]",
				"\n[1] The duty roster, page 4.\n", "\n[2] Once by each officer.\n",
				"\n> The shift ends at six. Nobody leaves early.\n"}
			if strings.HasSuffix(file, ".md") {
				// Bold and italic are kept where the reader records them
				// (emphasized_text_contents): Markdown's does.
				want = append(want, "\nThe pump is **off** and the valve *open*; the **off** switch stays down.\n", "\n> > A nested remark from the desk.\n", "![Readings by hour](figure.png)", "![a warning sign](figure.png)")
			} else {
				want = append(want, "\n> A nested remark from the desk.\n")
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("%q missing in:\n%s", w, out)
				}
			}
			if strings.Contains(out, "[^") {
				t.Errorf("a footnote stayed literal:\n%s", out)
			}
		})
	}
}
