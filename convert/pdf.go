package convert

import (
	"context"
	"errors"
)

// pdfEngine is the PDFium WebAssembly pool, started on first use.
type pdfEngine struct {
	cacheDir string
}

func (e *pdfEngine) open(ctx context.Context, src *Source, env *Env) (Pages, error) {
	return nil, errors.New("PDF reader not written yet")
}

func (e *pdfEngine) close() error { return nil }
