package library

import (
	"embed"
	"io/fs"
)

//go:embed corpus
var corpusFS embed.FS

// Corpus is the embedded sample corpus (library/corpus): documents written
// for this project covering every standard element category. The generated
// members (large manual, hostile strings) are not files; New adds them when
// it serves the corpus.
func Corpus() fs.FS {
	sub, err := fs.Sub(corpusFS, "corpus")
	if err != nil {
		panic(err) // "corpus" is a constant, valid path
	}
	return sub
}

// Doc refs of the generated corpus members.
const (
	LargeDocRef   = "generated/station-operations-manual"
	HostileDocRef = "hostile/terminal-escapes"
)

// addGeneratedCorpus registers the documents that are cheaper to generate
// than to store: the large manual (generated once here to learn its size,
// and again on read) and the hostile-strings document.
func (l *library) addGeneratedCorpus(opt Options) error {
	largeURI := escapeDocRef(opt.Host, LargeDocRef)
	data, err := LargeDocument(largeURI, LargeDocRef, largeManualPages)
	if err != nil {
		return err
	}
	c, err := checkDPE(LargeDocRef, data)
	if err != nil {
		return err
	}
	l.add(largeURI, LargeDocRef, c.Info, fileURIOf(opt.FileRoot, LargeDocRef+".pdf"), int64(len(data)),
		func() ([]byte, error) { return LargeDocument(largeURI, LargeDocRef, largeManualPages) })

	hostileURI := escapeDocRef(opt.Host, HostileDocRef)
	hdata, info, err := hostileDocument(hostileURI, HostileDocRef)
	if err != nil {
		return err
	}
	l.add(hostileURI, newHostileStrings().name(), info, fileURIOf(opt.FileRoot, HostileDocRef+".dpe.json"), int64(len(hdata)),
		func() ([]byte, error) {
			d, _, err := hostileDocument(hostileURI, HostileDocRef)
			return d, err
		})
	return nil
}
