// Package finder is the Finder MCP server: the tools find and list_documents
// over a bleve index of every element of every document a library serves.
//
// One bleve record per element holds its text, with its page, element id
// and category in one stored "ref" field; its id is the document URI and
// the element's ordinal (uri#n), so a hit opens at its place. Records are
// built directly (Batch.IndexAdvanced), not through the mapping; the
// mapping describes them so that queries analyze each field as it was
// indexed.
//
// Languages: the text is indexed once in field "std" with one analyzer
// (textAnalyzer): words (UAX #29 rules, done by hand for ASCII text),
// English possessives, lower case, English stop words, and each word's
// Porter stem added at the word's position when it differs, so one field
// answers exact words, prefixes, phrases and stemmed forms. Elements that
// hold Han, Kana or Hangul are indexed a second time in field "cjk"
// (bleve's cjk analyzer: width folding and bigrams). A query term that
// names no field is searched in both and the best match wins, so a
// document that mixes scripts is found by any of its parts.
//
// Cost: positions (term vectors) are kept only on the text fields, where
// phrases need them; the match ranges of a snippet are computed from the
// stored text of the returned hits, not gathered by the search for every
// matching element. Prefix, wildcard and regexp clauses and the filters
// are constant-score (see constScore). Fields have no doc values.
//
// The index is built in the background (Finder.Status says how far); find
// answers from what is indexed so far. Options.Start holds the build until
// the server is up and Options.Background makes it yield to the rest of
// the process. A persistent index (Options.Dir) remembers each document's
// content key, so a restart re-indexes only the documents whose content
// changed, and Finder.Rescan (called by whoever owns the source when it
// changes) picks up documents added, changed or removed since.
package finder
