package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTUI_OpenShowsTextMarkdownWouldEat: `dpe-tui open FILE` of a text
// whose paragraphs look like Markdown to the renderer (emphasis stars,
// an XML sample) shows every word the document holds; Markdown drops raw
// HTML, so "plain *** text <tag> end" showed as "plain *** text  end"
// while `get --format text` printed it whole.
func TestTUI_OpenShowsTextMarkdownWouldEat(t *testing.T) {
	file := filepath.Join(t.TempDir(), "stars.txt")
	body := "plain *** text <tag> end\n\n" +
		"**Example** <?xml version=\"1.0\"?> <mime-info xmlns=\"http://www.freedesktop.org/standards/shared-mime-info\">\n\n" +
		"no stars <tag> end\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	l, _, done := startOpenTUI(t, file, 120, 24)
	defer done()
	l.waitFor("plain *** text <tag> end", "<?xml version=\"1.0\"?> <mime-info", "no stars <tag> end")
	l.quit()
}
