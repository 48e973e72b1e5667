package convert

import "github.com/dpe-tui/dpe-tui/internal/jsonfast"

// Head is the document layer of a document built in memory with a Book
// (the library's generated and hardening documents) rather than read from
// a file: what Document.JSON takes from the file and its properties.
type Head struct {
	DocRef, URI, FileURI, FileType, Title, Summary string
	Keywords                                       []string
	LastModified                                   string // RFC 3339, or empty
}

// BookWithin starts an empty book within lim (zero fields: the defaults)
// whose elements carry docRef, for a document built in memory.
func BookWithin(lim Limits, docRef string) *Book {
	return &Book{env: newEnv(lim), docRef: docRef}
}

// JSON is the book's Document JSON under head, written by the writer of
// converted files (Document.JSON): the same head, page and element shapes,
// element ids, limits and encoding, so a document built in memory reads
// as a converted one does. The first limit a page hit is the error.
func (k *Book) JSON(head Head) ([]byte, error) {
	if err := k.Err(); err != nil {
		return nil, err
	}
	if len(k.pages) == 0 {
		k.StartPage("")
	}
	kw := head.Keywords
	if kw == nil {
		kw = []string{}
	}
	h := documentHead{DocRef: head.DocRef, URI: head.URI, FileURI: head.FileURI, FileType: head.FileType,
		Title: head.Title, Summary: head.Summary, PageCount: len(k.pages), Keywords: kw, LastModified: head.LastModified,
		Pages: make([]pageJSON, len(k.pages))}
	for i, p := range k.pages {
		h.Pages[i] = p.page(k.titles[i])
	}
	return jsonfast.Marshal(h)
}
