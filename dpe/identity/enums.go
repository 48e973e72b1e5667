package identity

import "slices"

// The closed enums of contract 1. A value outside them is rejected, never
// hashed under a fallback rule (contract §4, core §2.5). They are
// functions, not package variables, so nothing can change them.

type categoryKind int

const (
	kindText  categoryKind = iota // text
	kindHTML                      // text, text_as_html
	kindImage                     // text, blob, mime_type
)

// ContentFields is contract §4.1's table: the content fields category c
// allows besides category and metadata (all optional), and whether c is
// in the closed category set at all. It is the manifest's
// category_content_fields.
func ContentFields(c string) ([]string, bool) {
	kind, ok := categoryOf(c)
	if !ok {
		return nil, false
	}
	switch kind {
	case kindImage:
		return []string{"text", "blob", "mime_type"}, true
	case kindHTML:
		return []string{"text", "text_as_html"}, true
	}
	return []string{"text"}, true
}

// categoryOf is contract §4.1.
func categoryOf(c string) (categoryKind, bool) {
	switch c {
	case "Image":
		return kindImage, true
	case "Table", "Formula":
		return kindHTML, true
	case "UncategorizedText", "CheckBox", "CompositeElement", "FigureCaption", "NarrativeText",
		"ListItem", "Title", "Address", "EmailAddress", "PageBreak", "TableChunk", "Header",
		"Footer", "CodeSnippet", "PageNumber", "FormKeysValues", "tfchat":
		return kindText, true
	}
	return 0, false
}

// FileTypes returns the closed file_type enum of core §2.5 (also
// vectors/manifest.json "file_types"), in the contract's order.
func FileTypes() []string {
	return []string{
		"bmp", "csv", "doc", "docx", "eml", "epub", "heic", "html", "jpg", "json", "md", "msg",
		"ndjson", "odt", "org", "pdf", "png", "ppt", "pptx", "rst", "rtf", "tiff", "tsv", "txt",
		"wav", "xls", "xlsx", "xml", "zip", "java_repo", "python_repo", "javascript_repo",
		"typescript_repo", "unk", "empty", "tfchat", "jira_project", "jira_issue",
	}
}

// FileTypeKnown reports whether s is in the file_type enum.
func FileTypeKnown(s string) bool { return slices.Contains(FileTypes(), s) }
