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
