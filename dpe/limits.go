package dpe

import (
	"errors"
	"fmt"
	"strings"
)

// Limits bound what a document may cost (SECURITY.md, Limits). A zero field
// takes its default.
type Limits struct {
	MaxBytes           int64
	MaxPages           int
	MaxElementsPerPage int
	MaxDepth           int
}

// Defaults: 256 MiB, 100000 pages, 200000 elements per page,
// nesting depth 64.
const (
	DefaultMaxBytes           = 256 << 20
	DefaultMaxPages           = 100000
	DefaultMaxElementsPerPage = 200000
	DefaultMaxDepth           = 64
)

// DefaultLimits returns the defaults.
func DefaultLimits() Limits {
	return Limits{
		MaxBytes:           DefaultMaxBytes,
		MaxPages:           DefaultMaxPages,
		MaxElementsPerPage: DefaultMaxElementsPerPage,
		MaxDepth:           DefaultMaxDepth,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxPages <= 0 {
		l.MaxPages = d.MaxPages
	}
	if l.MaxElementsPerPage <= 0 {
		l.MaxElementsPerPage = d.MaxElementsPerPage
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	return l
}

// LimitError reports a limit that was hit. What names the limit ("document
// size", "pages", "elements on page 3", "JSON nesting depth", "fetch
// size"); Got is what was seen, or at least that much (a stream is not read
// past the limit).
type LimitError struct {
	What  string
	Limit int64
	Got   int64
}

func (e *LimitError) Error() string {
	unit := ""
	if strings.HasSuffix(e.What, " size") {
		unit = " bytes"
	}
	return fmt.Sprintf("%s over the limit: %d%s > %d%s", e.What, e.Got, unit, e.Limit, unit)
}

// ErrNotDocument is wrapped by errors for valid JSON that is not a DPE
// document (an array, no "pages", "pages" not an array …).
var ErrNotDocument = errors.New("not a DPE document")

// ErrManifestPage is wrapped by EnsurePage for a page that has no inline
// elements, only a uri: it must be fetched (Opener.LoadPage).
var ErrManifestPage = errors.New("page is in manifest mode (load it by its uri)")

func notDocument(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrNotDocument, fmt.Sprintf(format, a...))
}
