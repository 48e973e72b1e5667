package dpe

import (
	"context"
	"errors"
	"fmt"
	"iter"
)

// Search and SearchSeq are the whole-document search the tests compare the
// UI's page-by-page Matcher path against; the product searches stepwise
// through Matcher (ui/doc_search.go), so they live with the tests.

// Search finds query case-insensitively (Unicode simple folding) in the
// text of every element, in document order, loading pages as needed. It
// collects SearchSeq; page errors do not stop it and come back joined.
func Search(ctx context.Context, d *Document, query string, lim Limits, load func(i int) error) ([]Hit, error) {
	var hits []Hit
	var errs []error
	for h, err := range SearchSeq(ctx, d, query, lim, load) {
		if err != nil {
			if ctx.Err() != nil {
				return hits, ctx.Err()
			}
			errs = append(errs, err)
			continue
		}
		hits = append(hits, h)
	}
	return hits, errors.Join(errs...)
}

// SearchSeq yields hits as it finds them (the UI shows the first ones
// while the rest of a huge document is searched). A page that cannot be
// searched yields (Hit{Page: i, Element: -1}, err) and the search goes on;
// a cancelled ctx yields its error once and stops.
//
// Pages are handled so that a rare word costs about one memchr pass over
// the document (docs/performance.md, P5): an undecoded inline page is first checked on
// its raw bytes, and decoded only when the word may be in it. That check
// is exact unless JSON escapes could hide the word (see rawMayMatch).
// Pages that must be decoded go through load(i) when load is non-nil (the
// UI's loader, which caches); with load nil, inline pages are decoded
// transiently and d is not modified, and manifest pages that are not
// loaded are reported as errors.
func SearchSeq(ctx context.Context, d *Document, query string, lim Limits, load func(i int) error) iter.Seq2[Hit, error] {
	return func(yield func(Hit, error) bool) {
		if query == "" || d == nil {
			return
		}
		m := newMatcher(query)
		for i, p := range d.Pages {
			if err := ctx.Err(); err != nil {
				yield(Hit{Page: i, Element: -1}, err)
				return
			}
			elems := p.Elements
			if !p.Decoded {
				if p.hasElements && m.rulesOut(p) {
					continue
				}
				var err error
				switch {
				case load != nil:
					if err = load(i); err == nil {
						if !p.Decoded {
							err = errors.New("loader did not decode the page")
						}
						elems = p.Elements
					}
				case p.hasElements:
					var q *Page
					if q, err = decodeInline(p, lim); err == nil {
						elems = q.Elements
					}
				default:
					err = fmt.Errorf("manifest page not loaded")
				}
				if err != nil {
					if !yield(Hit{Page: i, Element: -1}, fmt.Errorf("search page %d: %w", p.Index, err)) {
						return
					}
					continue
				}
			}
			for j, el := range elems {
				from := 0
				for {
					s, e := m.find(el.Text, from)
					if s < 0 {
						break
					}
					if !yield(Hit{Page: i, Element: j, Start: s, End: e}, nil) {
						return
					}
					from = e
				}
			}
		}
	}
}
