package library

// The category list is a test fixture: the library writes categories, it
// never enumerates them.

// StandardCategories lists the 19 standard categories in proposal order.
func StandardCategories() []string {
	return []string{catText, catTitle, catNarrativeText, catListItem, catAddress,
		catEmailAddress, catCompositeElement, catCodeSnippet, catFigureCaption,
		catPageNumber, catFormula, catImage, catPageBreak, catTable, catTableChunk,
		catHeader, catFooter, catFormKeysValues, catCheckBox}
}
