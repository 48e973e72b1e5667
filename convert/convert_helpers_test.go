package convert

import (
	"context"
	"fmt"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// Supports and Convert are test conveniences: the product converts with
// Open (pages on demand) or ConvertJSON (the convert command).

// Supports reports whether a file of this kind has a converter.
func (c *Converter) Supports(k Kind) bool { return c.formats[k] != nil }

// Convert converts a whole file and decodes it.
func (c *Converter) Convert(ctx context.Context, src Source) (*dpe.Document, error) {
	data, err := c.ConvertJSON(ctx, src)
	if err != nil {
		return nil, err
	}
	doc, err := dpe.Decode(data, dpe.Limits{MaxPages: c.opt.Limits.MaxPages, MaxElementsPerPage: c.opt.Limits.MaxElementsPerPage})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name, err)
	}
	for i := range doc.Pages {
		if err := doc.EnsurePage(i, dpe.Limits{MaxElementsPerPage: c.opt.Limits.MaxElementsPerPage}); err != nil {
			return nil, fmt.Errorf("%s: %w", src.Name, err)
		}
	}
	return doc, nil
}
