package convert

import (
	"context"
	"errors"
)

func openXLSX(ctx context.Context, src *Source, env *Env) (Pages, error) {
	return nil, errors.New("XLSX reader not written yet")
}
