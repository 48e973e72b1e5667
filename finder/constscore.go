package finder

import (
	"context"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// constScore runs a multi-term query (prefix, wildcard, regexp) unscored
// and gives every hit the same score, as Lucene rewrites such queries: a
// prefix of a common syllable expands to hundreds of terms that match
// most elements, and scoring each hit over a heap of that many postings
// is what made such a query slow. Unscored, bleve ORs the postings
// bitmaps instead.
type constScore struct {
	q     query.Query
	score float64
}

func newConstScore(q query.Query, boost *query.Boost) *constScore {
	s := 1.0
	if boost != nil {
		s = boost.Value()
	}
	return &constScore{q: q, score: s}
}

func (c *constScore) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, o search.SearcherOptions) (search.Searcher, error) {
	o.Score = "none"
	o.IncludeTermVectors = false
	o.Explain = false
	s, ok, err := patternSearcher(ctx, i, m, c.q, o)
	if !ok {
		s, err = c.q.Searcher(ctx, i, m, o)
	}
	if err != nil {
		return nil, err
	}
	return &constSearcher{Searcher: s, score: c.score}, nil
}

// Validate lets the search reject a bad pattern before it runs.
func (c *constScore) Validate() error {
	if v, ok := c.q.(query.ValidatableQuery); ok {
		return v.Validate()
	}
	return nil
}

type constSearcher struct {
	search.Searcher
	score float64
}

func (s *constSearcher) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	d, err := s.Searcher.Next(ctx)
	if d != nil {
		d.Score = s.score
	}
	return d, err
}

func (s *constSearcher) Advance(ctx *search.SearchContext, id index.IndexInternalID) (*search.DocumentMatch, error) {
	d, err := s.Searcher.Advance(ctx, id)
	if d != nil {
		d.Score = s.score
	}
	return d, err
}
