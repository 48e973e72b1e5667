package library

import (
	"fmt"
	"strings"
)

// codeLinesPerPage splits long source files into pages of about this many
// lines, so a page is one screenful-sized unit for an agent.
const codeLinesPerPage = 120

// languageFor maps a file extension to a language name that chroma knows.
// A switch rather than a map keeps the package free of mutable globals.
func languageFor(ext string) (string, bool) {
	switch strings.ToLower(ext) {
	case ".go":
		return "go", true
	case ".py":
		return "python", true
	case ".js", ".mjs":
		return "javascript", true
	case ".ts":
		return "typescript", true
	case ".tsx":
		return "tsx", true
	case ".rs":
		return "rust", true
	case ".java":
		return "java", true
	case ".c", ".h":
		return "c", true
	case ".cc", ".cpp", ".hpp":
		return "cpp", true
	case ".sh", ".bash":
		return "bash", true
	case ".sql":
		return "sql", true
	case ".rb":
		return "ruby", true
	case ".kt":
		return "kotlin", true
	case ".swift":
		return "swift", true
	case ".lua":
		return "lua", true
	case ".yaml", ".yml":
		return "yaml", true
	case ".toml":
		return "toml", true
	case ".json":
		return "json", true
	case ".css":
		return "css", true
	case ".html", ".htm":
		return "html", true
	case ".xml":
		return "xml", true
	case ".proto":
		return "protobuf", true
	case ".zig":
		return "zig", true
	}
	return "", false
}

// convertCode emits one CodeSnippet per page of about codeLinesPerPage
// lines, with ele_metadata.language and the first line number.
func convertCode(b *docBuilder, data []byte, lang, name string) {
	src := strings.ReplaceAll(string(data), "\r\n", "\n")
	src = strings.TrimSuffix(src, "\n")
	lines := strings.Split(src, "\n")
	for start := 0; start < len(lines); start += codeLinesPerPage {
		end := min(start+codeLinesPerPage, len(lines))
		b.startPage(fmt.Sprintf("%s (lines %d–%d)", name, start+1, end))
		m := map[string]any{"language": lang, "line_start": start + 1}
		if start > 0 {
			m["is_continuation"] = true
		}
		b.add(catCodeSnippet, strings.Join(lines[start:end], "\n")+"\n", m)
	}
}
