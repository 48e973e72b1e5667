package identity

// The closed category enum of contract 1 (a value outside it is
// rejected, never hashed under a fallback rule, contract §4) and the
// syntax of the open file_type (core §2.5). They are functions, not
// package variables, so nothing can change them.

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

// ValidFileType is core §2.5's rule for file_type: an open value whose
// only constraint is its syntax, ^[a-z0-9][a-z0-9_]{0,31}$ matched on the
// whole string (so "md\n" is not "md"). A receiver must not refuse a
// value for not being in the recommended registry: "markdown" and "md"
// are two valid values, with no alias between them.
//
// Source: upstream A2C-SMCP/dpe-protocol, vectors/file_type_open_values.json
// at 49862b1e29461d17e13822b198431b4e22f2bcd1 (its sha256 is the one
// vectors/manifest.json @ 99d763aca15d810a7cdf6055d787c23e244d4858 lists)
// and sdk/python/packages/dpe-hash/src/dpe_hash/file_type.py at
// 24dd9b9a9d23bb3b7700b0081ecdaae8aebb4bf9. The newest stored
// spec/core.md (4c25829d3953947ebc37add66d99159223b8aef1) still has the
// closed enum; the vector set of record is newer and says open.
func ValidFileType(s string) bool {
	if len(s) == 0 || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '_' && i > 0:
		default:
			return false
		}
	}
	return true
}

// fileTypeProblem says why s is not a file_type.
func fileTypeProblem(s string) string {
	return "file_type " + quote(s) + " is not a file_type: 1 to 32 of a-z, 0-9 and _, not starting with _"
}
