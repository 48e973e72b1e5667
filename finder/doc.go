// Package finder is the Finder MCP server: the tools find and list_documents
// over a bleve index of every element of every document a library serves.
//
// One bleve document per element holds its text with the document URI,
// title, 1-based page, element id and category, so a hit opens at its
// place. Languages are handled with a multi-field mapping rather than
// per-document detection: every element's text is indexed three times, in
// field "en" (bleve's English analyzer: stemming, stop words), "cjk"
// (bleve's cjk analyzer: width folding and bigrams for Han, Kana and
// Hangul) and "std" (the standard analyzer, the fallback for every other
// script). A query term that names no field is searched in all three, each
// with its own analyzer, and the best match wins. Documents that mix
// scripts — a Chinese notice with a Japanese section and English headings —
// are then found by any of their parts, which per-document detection would
// lose.
//
// The index is built in the background (Finder.Status says how far); find
// answers from what is indexed so far. A persistent index (Options.Dir)
// remembers each document's content key, so a restart re-indexes only the
// documents whose content changed, and a rescan (Options.Rescan) picks up
// files added, changed or removed since.
package finder
