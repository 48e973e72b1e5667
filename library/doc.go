// Package library is an MCP server (modelcontextprotocol/go-sdk) that
// exposes a folder of documents as dpe:// resources, plus the sample corpus
// the demo office and the tests browse.
//
// Each file becomes one resource dpe://<host>/<path> (every path segment
// percent-escaped on its own, dpe.md §校验规则 4) whose resources/read answer
// is DPE Document JSON with mimeType application/vnd.a2c.dpe-inline+json
// (dpe.md §DPE 文档读取的两种形态). Every file package convert supports
// (convert.Converter.SupportedName: PDF, Office Open XML, OpenDocument,
// HTML, EPUB, e-mail, images, Markdown, CSV/TSV, source code, plain text)
// is listed and converted by it — the one conversion path of this program;
// *.dpe.json files are validated minimally and served as they are. Listing
// metadata (_meta.keywords, file_type, page_count, file_uri;
// annotations.audience and lastModified) follows seed 000 §DPE Resource
// 元数据, which keeps _meta.file_uri.
//
// Conversion happens on the first read, not when the folder is walked: the
// walk only probes a file (convert.Converter.Probe: metadata and page
// count; a PDF's from its page tree, so the PDF engine starts only when a
// PDF is first read). Results are cached by path + size + mtime. A read
// that learns more than the probe (a PDF's title, the exact size of the
// Document JSON) replaces the listing entry, and clients get
// notifications/resources/list_changed. A file that cannot be converted
// (truncated PDF, a zip that is no document, a limit hit) is listed with
// its one-line cause in the description and _meta.error, and reading it
// fails with that cause; it never stops the listing.
//
// A folder served with Dir is watched by polling, not fsnotify: the
// Finder (Options.Finder) walks it again every FinderOptions.Rescan
// (default 10 s), unchanged files (same size and mtime) are not read
// again, and added, changed or removed files send list_changed. Polling
// works the same on every filesystem (network mounts, containers) and
// costs one stat per file per rescan.
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
// Every file a walk leaves out (hidden files aside) is in
// Library.Skipped, bounded to the first MaxSkippedListed plus a count,
// with a short reason ("over 64 MiB", "FIFO, not a regular file",
// "symlink loop", "permission denied", "unsupported file type"), and
// Skipped.Summary says it in one line for a command or screen to show.
//
// A resources/read of a dpe:// URI that names no resource exactly is
// matched by its NFC form (a name typed on a keyboard) against the NFC
// forms of the folder's files (a name macOS wrote in NFD): an exact match
// always wins, an NFC match is used only when exactly one file has it, and
// several such files with no exact match is not found, saying why. The
// answer carries the URI the listing shows.
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
// images/gradient.dpe.json (a real 16×16 PNG, also served as
// images/gradient-16.png),
// mail/thread-2026-01-15.dpe.json, and real/: files made by tools nobody
// here wrote (LibreOffice PDF, pandoc DOCX, PPTX and EPUB, openpyxl XLSX,
// a Python email message), copied from convert/testdata and converted on
// first read like any file. New adds two generated members when it
// serves the corpus: generated/station-operations-manual (300 pages, over 2
// MB, for manifest mode) and hostile/terminal-escapes (escape sequences, C1,
// bidi, lone surrogates, 10,000-character names), and always
// window://<host>/status (text/plain).
package library
