package render

// Standard category names (dpe-standardization-proposal §3.3.1). Kept local
// until dpe.NormalizeCategory lands; the mapping below is the same one.
const (
	catText           = "Text"
	catTitle          = "Title"
	catNarrative      = "NarrativeText"
	catListItem       = "ListItem"
	catAddress        = "Address"
	catEmail          = "EmailAddress"
	catComposite      = "CompositeElement"
	catCode           = "CodeSnippet"
	catFigureCaption  = "FigureCaption"
	catPageNumber     = "PageNumber"
	catFormula        = "Formula"
	catImage          = "Image"
	catPageBreak      = "PageBreak"
	catTable          = "Table"
	catTableChunk     = "TableChunk"
	catHeader         = "Header"
	catFooter         = "Footer"
	catFormKeysValues = "FormKeysValues"
	catCheckBox       = "CheckBox"

	// v0.1 kinds (dpe.md) with no standard counterpart get their own
	// renderer or the text renderer with a tag.
	catLink   = "link"
	catMedia  = "media" // audio, video
	catWidget = "widget"
)

// normalizeCategory returns the renderer key for a category: standard names
// as is, the v0.1 lowercase set (dpe.md element kinds) mapped onto the same
// renderers, and "" for unknown categories (text renderer with a tag; dpe.md
// "unrecognised category is treated as a generic TextElement").
func normalizeCategory(c string) string {
	switch c {
	case catText, catTitle, catNarrative, catListItem, catAddress, catEmail, catComposite,
		catCode, catFigureCaption, catPageNumber, catFormula, catImage, catPageBreak,
		catTable, catTableChunk, catHeader, catFooter, catFormKeysValues, catCheckBox:
		return c
	case "UncategorizedText", "text":
		return catText
	case "heading":
		return catTitle
	case "list":
		return catListItem
	case "code":
		return catCode
	case "table", "pivot_table":
		return catTable
	case "image", "chart", "diagram":
		return catImage
	case "formula":
		return catFormula
	case "link":
		return catLink
	case "annotation":
		return catFigureCaption
	case "header":
		return catHeader
	case "footer":
		return catFooter
	case "separator":
		return catPageBreak
	case "audio", "video":
		return catMedia
	case "form":
		return catFormKeysValues
	case "widget":
		return catWidget
	}
	return ""
}
