// Package library is an MCP server (modelcontextprotocol/go-sdk) that
// exposes a folder of documents as dpe:// resources, plus the sample corpus
// the demo office and the tests browse.
//
// Each file becomes one resource dpe://<host>/<path> whose resources/read
// answer is DPE Document JSON with mimeType
// application/vnd.a2c.dpe-inline+json (dpe.md §DPE 文档读取的两种形态).
// Markdown, CSV/TSV, source code and plain text are converted with real
// parsers (goldmark, encoding/csv); *.dpe.json files are validated minimally
// and served as they are.
//
// Listing metadata (_meta.keywords, file_type, page_count, file_uri;
// annotations.audience and lastModified) follows seed 000 §DPE Resource 元数据.
package library
