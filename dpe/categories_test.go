package dpe

// The category lists are test fixtures: the product normalises categories
// (NormalizeCategory) and never enumerates them.

// StandardCategories lists the 19 standard categories in proposal order.
func StandardCategories() []string {
	return []string{
		CategoryText, CategoryTitle, CategoryNarrativeText, CategoryListItem, CategoryAddress,
		CategoryEmailAddress, CategoryCompositeElement, CategoryCodeSnippet, CategoryFigureCaption,
		CategoryPageNumber, CategoryFormula, CategoryImage, CategoryPageBreak, CategoryTable,
		CategoryTableChunk, CategoryHeader, CategoryFooter, CategoryFormKeysValues, CategoryCheckBox,
	}
}

// V01Categories lists the lowercase v0.1 set (dpe.md §元素类型).
func V01Categories() []string {
	return []string{
		"text", "heading", "list", "code", "table", "pivot_table", "chart", "diagram", "image",
		"formula", "link", "annotation", "header", "footer", "separator", "audio", "video", "form", "widget",
	}
}
