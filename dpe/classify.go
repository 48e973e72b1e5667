package dpe

import (
	"bytes"
	"net/http"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"
)

// ContentKind is what a fetched body is (a DPE document, or a
// typed non-DPE result the UI shows or offers to save, seed 003).
type ContentKind int

const (
	KindDocument ContentKind = iota // DPE Document JSON (or JSON that must be one)
	KindMarkdown
	KindText
	KindBinary
)

func (k ContentKind) String() string {
	switch k {
	case KindDocument:
		return "document"
	case KindMarkdown:
		return "markdown"
	case KindText:
		return "text"
	}
	return "binary"
}

// Classify decides the kind of a body from its mime type and its bytes.
// JSON (by mime type or because it starts with '{' or '[') is KindDocument:
// an access URI MUST serve DPE JSON (dpe.md §DPE 内容标准格式), so JSON
// that is not a document is reported by Decode ("not a DPE document: …")
// rather than silently shown as text. Text types with NUL bytes or invalid
// UTF-8 are binary whatever the label says.
func Classify(data []byte, mimeType string) ContentKind {
	mt := strings.ToLower(strings.TrimSpace(mimeType))
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	binary := looksBinary(head)
	switch {
	case mt == "application/json" || mt == "text/json" || strings.HasSuffix(mt, "+json"):
		return KindDocument
	case mt == "text/markdown" || mt == "text/x-markdown":
		if binary {
			return KindBinary
		}
		return KindMarkdown
	case strings.HasPrefix(mt, "text/") || mt == "application/xml" || mt == "application/javascript" || mt == "application/x-yaml" || mt == "application/yaml":
		if binary {
			return KindBinary
		}
		return KindText
	case mt != "" && mt != "application/octet-stream" && mt != "binary/octet-stream":
		return KindBinary // image/*, application/pdf, audio, video, archives…
	}
	// No useful label: sniff.
	if binary {
		return KindBinary
	}
	t := bytes.TrimLeft(skipBOMBytes(head), " \t\r\n")
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return KindDocument
	}
	if ct := http.DetectContentType(head); !strings.HasPrefix(ct, "text/") {
		return KindBinary
	}
	if looksMarkdown(head) {
		return KindMarkdown
	}
	return KindText
}

func skipBOMBytes(b []byte) []byte { return b[skipBOM(b):] }

func looksBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	// A multi-byte rune may be cut at the 8 KiB boundary.
	for i := 0; i < 3 && len(head) > 0 && !utf8.Valid(head); i++ {
		head = head[:len(head)-1]
	}
	return !utf8.Valid(head)
}

func looksMarkdown(head []byte) bool {
	score := 0
	for _, line := range strings.Split(string(head), "\n") {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "# "), strings.HasPrefix(l, "## "), strings.HasPrefix(l, "### "),
			strings.HasPrefix(l, "```"), strings.HasPrefix(l, "|") && strings.HasSuffix(l, "|"),
			strings.HasPrefix(l, "> "):
			score += 2
		case strings.HasPrefix(l, "- "), strings.HasPrefix(l, "* "), strings.HasPrefix(l, "1. "):
			score++
		}
		if strings.Contains(l, "](") || strings.Contains(l, "**") {
			score++
		}
	}
	return score >= 2
}

// mimeExt is the fixed mime ↔ extension table (the mime package reads the
// system's mime.types, which differs between machines).
func mimeExt() [][2]string {
	return [][2]string{
		{"application/vnd.a2c.dpe-inline+json", ".dpe.json"},
		{"application/json", ".json"},
		{"text/markdown", ".md"},
		{"text/x-markdown", ".md"},
		{"text/plain", ".txt"},
		{"text/html", ".html"},
		{"text/csv", ".csv"},
		{"text/tab-separated-values", ".tsv"},
		{"text/xml", ".xml"},
		{"application/xml", ".xml"},
		{"application/pdf", ".pdf"},
		{"image/png", ".png"},
		{"image/jpeg", ".jpg"},
		{"image/gif", ".gif"},
		{"image/webp", ".webp"},
		{"image/svg+xml", ".svg"},
		{"application/zip", ".zip"},
		{"application/gzip", ".gz"},
		{"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ".xlsx"},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", ".docx"},
		{"application/vnd.openxmlformats-officedocument.presentationml.presentation", ".pptx"},
		{"audio/mpeg", ".mp3"},
		{"video/mp4", ".mp4"},
		{"application/octet-stream", ".bin"},
	}
}

func extByMime(mt string) string {
	mt = strings.ToLower(strings.TrimSpace(mt))
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	for _, e := range mimeExt() {
		if e[0] == mt {
			return e[1]
		}
	}
	if strings.HasSuffix(mt, "+json") {
		return ".json"
	}
	if strings.HasPrefix(mt, "text/") {
		return ".txt"
	}
	return ""
}

func mimeByExt(ext string) string {
	ext = strings.ToLower(ext)
	switch ext {
	case ".md", ".markdown":
		return "text/markdown"
	case ".yaml", ".yml":
		return "application/yaml"
	}
	for _, e := range mimeExt() {
		if e[1] == ext {
			return e[0]
		}
	}
	return ""
}

// SuggestFileName proposes a file name for saving a non-DPE body (seed
// 003: "the last path segment becomes the file name"; the mime type
// decides the handling and, when the name has none, the extension). The
// result is a bare, safe name: no directories, no leading dots, no control
// characters, at most 255 bytes.
func SuggestFileName(uri, mimeType string) string {
	name := ""
	if u, err := url.Parse(uri); err == nil {
		p := u.Path
		if p == "" {
			p = u.Opaque
		}
		name = path.Base(strings.TrimRight(p, "/"))
	}
	if name == "." || name == "/" {
		name = ""
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError:
		case r == '/' || r == '\\' || r == ':' || r == '*' || r == '?' || r == '"' || r == '<' || r == '>' || r == '|':
			b.WriteByte('_')
		case r == 0x202a || r == 0x202b || r == 0x202c || r == 0x202d || r == 0x202e ||
			(r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c:
			// bidi controls would disguise the extension ("exe.txt" shown reversed)
		default:
			b.WriteRune(r)
		}
	}
	name = strings.TrimLeft(strings.TrimSpace(b.String()), ".")
	if name == "" {
		name = "download"
	}
	ext := path.Ext(name)
	if ext == "" || ext == name {
		if e := extByMime(mimeType); e != "" {
			name += e
			ext = e
		}
	}
	if len(name) > 255 {
		keep := 255 - len(ext)
		if keep < 1 {
			name = name[:255]
		} else {
			cut := name[:keep]
			for !utf8.ValidString(cut) {
				cut = cut[:len(cut)-1]
			}
			name = cut + ext
		}
	}
	return name
}
