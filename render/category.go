package render

import (
	"strings"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// Renderer keys: the standard categories (dpe-standardization-proposal
// §3.3.1) plus three v0.1 kinds (dpe.md) that deserve more than plain text.
const (
	catText           = dpe.CategoryText
	catTitle          = dpe.CategoryTitle
	catNarrative      = dpe.CategoryNarrativeText
	catListItem       = dpe.CategoryListItem
	catAddress        = dpe.CategoryAddress
	catEmail          = dpe.CategoryEmailAddress
	catComposite      = dpe.CategoryCompositeElement
	catCode           = dpe.CategoryCodeSnippet
	catFigureCaption  = dpe.CategoryFigureCaption
	catPageNumber     = dpe.CategoryPageNumber
	catFormula        = dpe.CategoryFormula
	catImage          = dpe.CategoryImage
	catPageBreak      = dpe.CategoryPageBreak
	catTable          = dpe.CategoryTable
	catTableChunk     = dpe.CategoryTableChunk
	catHeader         = dpe.CategoryHeader
	catFooter         = dpe.CategoryFooter
	catFormKeysValues = dpe.CategoryFormKeysValues
	catCheckBox       = dpe.CategoryCheckBox

	catLink   = "link"   // text plus its target, shown as text
	catMedia  = "media"  // audio, video: what and where
	catWidget = "widget" // text with a tag: it is not document prose
)

// normalizeCategory returns the renderer key for a category: the standard
// name from dpe.NormalizeCategory (which also maps the v0.1 lowercase set),
// refined for the v0.1 kinds that dpe folds into Text, and "" for unknown
// categories (text renderer with a tag; dpe.md: an unrecognised category is
// a generic TextElement).
func normalizeCategory(c string) string {
	switch strings.ToLower(c) {
	case "link":
		return catLink
	case "audio", "video":
		return catMedia
	case "widget":
		return catWidget
	case "annotation":
		return catFigureCaption
	}
	if !dpe.IsKnownCategory(c) {
		return ""
	}
	return dpe.NormalizeCategory(c)
}
