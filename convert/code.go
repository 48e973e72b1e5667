package convert

import (
	"context"
	"fmt"
	"path"
	"strings"
)

// KindCode is a source file; its file_type is its extension ("go", "py")
// and its language is in every CodeSnippet.
const KindCode Kind = "code"

// codeLinesPerPage splits long source files into pages of about this many
// lines, so a page is one screenful-sized unit for an agent.
const codeLinesPerPage = 120

// sourceLanguage maps a lowercase file extension to a language name that
// chroma knows. A switch rather than a map keeps the package free of
// mutable globals.
func sourceLanguage(ext string) (string, bool) {
	switch ext {
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
	case ".xml":
		return "xml", true
	case ".proto":
		return "protobuf", true
	case ".zig":
		return "zig", true
	}
	return "", false
}

// openCode emits one CodeSnippet per page of about codeLinesPerPage lines,
// with ele_metadata.language and the first line number.
func openCode(ctx context.Context, src *Source, env *Env) (Pages, error) {
	data, err := textBytes(src)
	if err != nil {
		return nil, err
	}
	ext := path.Ext(strings.ToLower(src.Name))
	lang, _ := sourceLanguage(ext)
	fileType := strings.TrimPrefix(ext, ".")
	name := baseName(src)
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	text = strings.TrimSuffix(text, "\n")
	lines := strings.Split(text, "\n")
	book := NewBook(env)
	for start := 0; start < len(lines); start += codeLinesPerPage {
		if start/codeLinesPerPage%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		end := min(start+codeLinesPerPage, len(lines))
		b := book.StartPage(fmt.Sprintf("%s (lines %d–%d)", name, start+1, end))
		m := Meta{"language": lang, "line_start": start + 1}
		if start > 0 {
			m["is_continuation"] = true
		}
		b.Add("CodeSnippet", strings.Join(lines[start:end], "\n")+"\n", m)
		if book.Len() > env.Limits.MaxPages {
			break // Err names the page-count limit
		}
	}
	if err := book.Err(); err != nil {
		return nil, err
	}
	kws := pathKeywords(src, fileType)
	if lang != fileType {
		kws = append(kws, lang)
	}
	return book.Pages(Info{Title: name, Keywords: kws, FileType: fileType}), nil
}
