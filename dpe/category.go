package dpe

import "strings"

// The 19 standard element categories (dpe-standardization-proposal §3.3.1).
// Text is the generic TextElement; the proposal's appendix B spells its
// category "UncategorizedText", which NormalizeCategory maps to Text.
const (
	CategoryText             = "Text"
	CategoryTitle            = "Title"
	CategoryNarrativeText    = "NarrativeText"
	CategoryListItem         = "ListItem"
	CategoryAddress          = "Address"
	CategoryEmailAddress     = "EmailAddress"
	CategoryCompositeElement = "CompositeElement"
	CategoryCodeSnippet      = "CodeSnippet"
	CategoryFigureCaption    = "FigureCaption"
	CategoryPageNumber       = "PageNumber"
	CategoryFormula          = "Formula"
	CategoryImage            = "Image"
	CategoryPageBreak        = "PageBreak"
	CategoryTable            = "Table"
	CategoryTableChunk       = "TableChunk"
	CategoryHeader           = "Header"
	CategoryFooter           = "Footer"
	CategoryFormKeysValues   = "FormKeysValues"
	CategoryCheckBox         = "CheckBox"
)

// normalizeCategory maps a category (any case) to its standard name. v0.1
// names without a standard counterpart go to the closest renderer: charts
// and diagrams are pictures (Image), a separator breaks the flow
// (PageBreak), and link/annotation/audio/video/widget carry their content
// in text (Text).
func normalizeCategory(c string) (string, bool) {
	switch strings.ToLower(c) {
	case "text", "uncategorizedtext":
		if c == "text" {
			return CategoryNarrativeText, true
		}
		return CategoryText, true
	case "title", "heading":
		return CategoryTitle, true
	case "narrativetext":
		return CategoryNarrativeText, true
	case "listitem", "list":
		return CategoryListItem, true
	case "address":
		return CategoryAddress, true
	case "emailaddress":
		return CategoryEmailAddress, true
	case "compositeelement":
		return CategoryCompositeElement, true
	case "codesnippet", "code":
		return CategoryCodeSnippet, true
	case "figurecaption":
		return CategoryFigureCaption, true
	case "pagenumber":
		return CategoryPageNumber, true
	case "formula":
		return CategoryFormula, true
	case "image", "chart", "diagram":
		return CategoryImage, true
	case "pagebreak", "separator":
		return CategoryPageBreak, true
	case "table", "pivot_table":
		return CategoryTable, true
	case "tablechunk":
		return CategoryTableChunk, true
	case "header":
		return CategoryHeader, true
	case "footer":
		return CategoryFooter, true
	case "formkeysvalues", "form":
		return CategoryFormKeysValues, true
	case "checkbox":
		return CategoryCheckBox, true
	case "link", "annotation", "audio", "video", "widget":
		return CategoryText, true
	}
	return c, false
}

// NormalizeCategory maps a v0.1 lowercase category (or a standard one in
// any letter case) to its standard name; an unknown category is returned
// as-is (dpe.md: category is an open string; render/ shows it as text).
// v0.1 "text" is body text, so it maps to NarrativeText; the proposal's
// "UncategorizedText" maps to the generic Text.
func NormalizeCategory(c string) string {
	n, _ := normalizeCategory(c)
	return n
}

// IsKnownCategory reports whether c is a standard or v0.1 category (any
// letter case). Unknown categories are legal but rendered as text, and
// Validate lists them.
func IsKnownCategory(c string) bool {
	_, ok := normalizeCategory(c)
	return ok
}
