package identity

import "github.com/dpe-tui/dpe-tui/dpe"

// OfJSON is the identity of a whole DPE document given as its JSON (what
// a converter writes): decoded within limits, every page decoded, then
// mapped and computed. `hash FILE` and the browser's inspector on a
// converted file both hash a document this way. The Result may still
// hold Problems; err is a document that does not decode.
func OfJSON(body []byte, limits dpe.Limits) (*Result, *dpe.Document, error) {
	doc, err := dpe.Decode(body, limits)
	if err != nil {
		return nil, nil, err
	}
	for i := range doc.Pages {
		if err := doc.EnsurePage(i, limits); err != nil {
			return nil, nil, err
		}
	}
	return Compute(Map(body, doc)), doc, nil
}
