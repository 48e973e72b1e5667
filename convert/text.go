package convert

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// textParagraphsPerPage caps a plain-text page; a form feed also starts a
// new page, as it did on paper.
const textParagraphsPerPage = 100

// openText splits plain text into NarrativeText paragraphs at blank lines
// and into pages at form feeds.
func openText(ctx context.Context, src *Source, env *Env) (Pages, error) {
	data, err := textBytes(src)
	if err != nil {
		return nil, err
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	book := NewBook(env)
	for i, sheet := range strings.Split(text, "\f") {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if book.Len() > env.Limits.MaxPages {
			break // Err names the page-count limit
		}
		b := book.StartPage(fmt.Sprintf("Page %d", i+1))
		n := 0
		for _, para := range strings.Split(sheet, "\n\n") {
			para = strings.TrimSpace(para)
			if para == "" {
				continue
			}
			if n == textParagraphsPerPage {
				b = book.StartPage(fmt.Sprintf("Page %d (continued)", i+1))
				n = 0
			}
			b.Add("NarrativeText", para, nil)
			n++
		}
	}
	if err := book.Err(); err != nil {
		return nil, err
	}
	return book.Pages(Info{Title: baseName(src), Keywords: pathKeywords(src, KindText.FileType())}), nil
}

// baseName is the file's base name: the title of a document that has none
// of its own.
func baseName(src *Source) string { return path.Base(filepath.ToSlash(src.Name)) }

// pathKeywords are the folder names of the document's doc_ref plus its
// file type: cheap, honest keywords for files without their own. Without
// an explicit DocRef (a file named on a command line) the folders of the
// path say nothing about the document, so only the file type is given.
func pathKeywords(src *Source, fileType string) []string {
	var kws []string
	if src.DocRef != "" {
		for _, d := range strings.Split(path.Dir(src.DocRef), "/") {
			if d != "." && d != "" && d != ".." {
				kws = append(kws, d)
			}
		}
	}
	return append(kws, fileType)
}
