package library

// Standard element categories (dpe-standardization-proposal §3.3.1).
const (
	catText             = "Text"
	catTitle            = "Title"
	catNarrativeText    = "NarrativeText"
	catListItem         = "ListItem"
	catAddress          = "Address"
	catEmailAddress     = "EmailAddress"
	catCompositeElement = "CompositeElement"
	catCodeSnippet      = "CodeSnippet"
	catFigureCaption    = "FigureCaption"
	catPageNumber       = "PageNumber"
	catFormula          = "Formula"
	catImage            = "Image"
	catPageBreak        = "PageBreak"
	catTable            = "Table"
	catTableChunk       = "TableChunk"
	catHeader           = "Header"
	catFooter           = "Footer"
	catFormKeysValues   = "FormKeysValues"
	catCheckBox         = "CheckBox"
)
