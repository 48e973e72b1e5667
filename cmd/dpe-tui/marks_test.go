package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Bold, italic and code spans that pandoc wrote to HTML (b/strong, i/em,
// code), DOCX (w:b, w:i, the VerbatimChar style) and ODT (spans whose
// style is bold, italic or monospace) are recorded on their paragraph or
// list item (emphasized_text_contents and _tags, as the Markdown reader
// records them) and kept by get --format md, as in the source.
func TestGet_InlineMarksFromHTMLDOCXAndODT(t *testing.T) {
	for _, file := range []string{"marks.html", "marks.docx", "marks.odt"} {
		t.Run(file, func(t *testing.T) {
			code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, file))
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			for _, want := range []string{
				"The **night shift** checks the *intake* and runs `pumpctl status` twice.\n",
				"- Close the **main valve** first\n- Then log it in *the book*\n",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("get --format md lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
