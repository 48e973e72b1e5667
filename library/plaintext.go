package library

import (
	"fmt"
	"strings"
)

// textParagraphsPerPage caps a plain-text page; a form feed also starts a
// new page, as it did on paper.
const textParagraphsPerPage = 100

// convertText splits plain text into NarrativeText paragraphs at blank
// lines and into pages at form feeds.
func convertText(b *docBuilder, data []byte) {
	src := strings.ReplaceAll(string(data), "\r\n", "\n")
	for i, sheet := range strings.Split(src, "\f") {
		if i > 0 || len(b.pages) == 0 {
			b.startPage(fmt.Sprintf("Page %d", i+1))
		}
		n := 0
		for _, para := range strings.Split(sheet, "\n\n") {
			para = strings.TrimSpace(para)
			if para == "" {
				continue
			}
			if n == textParagraphsPerPage {
				b.startPage(fmt.Sprintf("Page %d (continued)", i+1))
				n = 0
			}
			b.add(catNarrativeText, para, nil)
			n++
		}
	}
}
