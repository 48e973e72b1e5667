package dpe

import "encoding/json"

// NoTextLayer reports whether the page's metadata says it has no text
// layer ("no_text_layer": true): a scanned page, shown by its images,
// whose words cannot be read or searched.
func (p *Page) NoTextLayer() bool {
	raw, ok := p.Extra["metadata"]
	if !ok {
		return false
	}
	var m struct {
		NoTextLayer bool `json:"no_text_layer"`
	}
	return json.Unmarshal(raw, &m) == nil && m.NoTextLayer
}

// SheetState is a spreadsheet page's sheet state from its metadata
// ("sheet_state": "hidden" or "veryHidden"); "" for a visible sheet or a
// page that is none.
func (p *Page) SheetState() string {
	raw, ok := p.Extra["metadata"]
	if !ok {
		return ""
	}
	var m struct {
		SheetState string `json:"sheet_state"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	return m.SheetState
}
