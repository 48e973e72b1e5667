package library

import "github.com/dpe-tui/dpe-tui/dpe"

// The category list is a test fixture: the library writes categories, it
// never enumerates them.

// StandardCategories lists the 19 standard categories in proposal order.
func StandardCategories() []string {
	return []string{dpe.CategoryText, dpe.CategoryTitle, dpe.CategoryNarrativeText, dpe.CategoryListItem, dpe.CategoryAddress,
		dpe.CategoryEmailAddress, dpe.CategoryCompositeElement, dpe.CategoryCodeSnippet, dpe.CategoryFigureCaption,
		dpe.CategoryPageNumber, dpe.CategoryFormula, dpe.CategoryImage, dpe.CategoryPageBreak, dpe.CategoryTable, dpe.CategoryTableChunk,
		dpe.CategoryHeader, dpe.CategoryFooter, dpe.CategoryFormKeysValues, dpe.CategoryCheckBox}
}
