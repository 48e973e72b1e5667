package library

// DocumentJSON is the Document layer of DPE content JSON as this library
// writes it (dpe.md §Document JSON). Field order is the order on the wire, so
// goldens stay stable.
type DocumentJSON struct {
	DocRef       string     `json:"doc_ref"`
	URI          string     `json:"uri"`
	FileURI      string     `json:"file_uri,omitempty"`
	FileType     string     `json:"file_type"`
	Title        string     `json:"title"`
	Summary      string     `json:"summary,omitempty"`
	PageCount    int        `json:"page_count"`
	Keywords     []string   `json:"keywords"`
	LastModified string     `json:"last_modified,omitempty"`
	Pages        []PageJSON `json:"pages"`
}

// PageJSON is one inline page (dpe.md §Page 对象, mode A).
type PageJSON struct {
	PageIndex int           `json:"page_index"`
	Title     string        `json:"title,omitempty"`
	DocRef    string        `json:"doc_ref"`
	Elements  []ElementJSON `json:"elements"`
}

// ElementJSON is one element (dpe.md §Element 对象). Metadata is
// ele_metadata; encoding/json writes map keys sorted, so output is
// deterministic.
type ElementJSON struct {
	ElementID string         `json:"element_id"`
	Category  string         `json:"category"`
	Text      string         `json:"text"`
	DocRef    string         `json:"doc_ref"`
	PageIndex int            `json:"page_index"`
	Metadata  map[string]any `json:"ele_metadata"`
}

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
