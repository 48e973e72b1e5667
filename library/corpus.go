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
// than to store: the large manual and the hostile-strings document. The
// manual is generated on read only (it is most of what the embedded demo
// would cost at start-up): it is listed from largeInfo, without a size
// until its first read, which refines the listing with it.
func (l *library) addGeneratedCorpus(opt Options) error {
	largeURI := escapeDocRef(opt.Host, LargeDocRef)
	var s *source
	s = l.add(largeURI, LargeDocRef, largeInfo(largeManualPages), fileURIOf(opt.FileRoot, LargeDocRef+".pdf"), 0,
		func() ([]byte, error) {
			data, err := LargeDocument(largeURI, LargeDocRef, largeManualPages)
			if err == nil {
				l.refineSize(s, int64(len(data)))
			}
			return data, err
		})

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
