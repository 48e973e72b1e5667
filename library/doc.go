// Package library is an MCP server (modelcontextprotocol/go-sdk) that
// exposes a folder of documents as dpe:// resources, plus the sample corpus
// the demo office and the tests browse.
//
// Each file becomes one resource dpe://<host>/<path> (every path segment
// percent-escaped on its own, dpe.md §校验规则 4) whose resources/read answer
// is DPE Document JSON with mimeType application/vnd.a2c.dpe-inline+json
// (dpe.md §DPE 文档读取的两种形态). Markdown (goldmark), CSV/TSV
// (encoding/csv), source code and plain text are converted; *.dpe.json files
// are validated minimally and served as they are. Listing metadata
// (_meta.keywords, file_type, page_count, file_uri; annotations.audience and
// lastModified) follows seed 000 §DPE Resource 元数据, which keeps
// _meta.file_uri.
//
// Conversion rules, in short:
//   - Markdown: one page per top-level section (split at H1 when there are
//     several, else at H2). Headings → Title (category_depth = level-1),
//     paragraphs → NarrativeText (link_urls/link_texts), lists → ListItem
//     (category_depth = nesting, parent_id = enclosing item), GFM task items →
//     CheckBox (checked), GFM tables → Table (text tab-separated,
//     text_as_html), fenced code → CodeSnippet (language), ```math and $$…$$
//     → Formula, images → Image (image_base64 + image_mime_type for data: URIs
//     and image files in the same FS, image_path otherwise) with the image
//     title as a FigureCaption, thematic breaks → PageBreak, HTML blocks →
//     Text (text_as_html). A leading "---" block of "key: value" lines sets
//     title, summary, keywords and last_modified.
//   - CSV/TSV: one Table per 200 data rows, header repeated on every page.
//   - Source code: one CodeSnippet per ~120 lines, with language.
//   - Plain text: NarrativeText per paragraph; a form feed starts a page.
//
// A folder on disk is served with Options.Dir, opened with os.OpenRoot:
// every read (the walk, documents, the images Markdown embeds) goes through
// the root, so nothing outside the folder is listed, embedded or readable
// by URI. Symlinks that resolve outside it are skipped with a WARN naming
// the link's path inside the folder (never its target); links to regular
// files inside it are followed, links to directories are not descended.
// FIFOs, devices and sockets are never opened; files above MaxFileBytes are
// skipped with a WARN and no read goes past that size.
//
// Element ids are "p<page>-e<n>": stable and unique per document.
//
// The embedded corpus (Corpus) holds reports/annual-operations-2026.md (11
// pages, many tables), reports/quarterly-ledger.dpe.json (Table and
// TableChunk), guides/field-guide.md (nested lists, checkboxes, images,
// formulas), notes/cjk-notes.md (Chinese and Japanese), notes/shift-rota-memo.txt,
// data/station-readings-wide.csv (34 columns, 260 rows),
// data/parts-inventory.tsv, six source files in code/ (Go, Python,
// TypeScript, Rust, Bash, SQL), forms/visitor-registration.dpe.json,
// images/gradient.dpe.json (a real 16×16 PNG) and
// mail/thread-2026-01-15.dpe.json. New adds two generated members when it
// serves the corpus: generated/station-operations-manual (300 pages, over 2
// MB, for manifest mode) and hostile/terminal-escapes (escape sequences, C1,
// bidi, lone surrogates, 10,000-character names), and always
// window://<host>/status (text/plain).
package library
