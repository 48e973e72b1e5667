package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// get --format md escapes a '<' of the text that Markdown would read as a
// tag, whatever the source format: pandoc's HTML writes &lt;tag&gt;, the
// element's text is <tag>, and unescaped it vanished when the export was
// rendered as Markdown. A Markdown source's own escapes are kept as
// written, not escaped twice.
func TestGet_MarkdownExportEscapesTags(t *testing.T) {
	for _, file := range []string{"pandoc-angles.html", "src/angles.md"} {
		t.Run(file, func(t *testing.T) {
			code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, file))
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			for _, w := range []string{`Write \<tag\> to open an element and \</tag\> to close it.`, `- An item about \<br\> in a list`} {
				if !strings.Contains(strings.ReplaceAll(out, `\>`, `>`), strings.ReplaceAll(w, `\>`, `>`)) {
					t.Errorf("%q missing in:\n%s", w, out)
				}
			}
		})
	}
}
