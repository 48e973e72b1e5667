package finder

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/blevesearch/vellum/levenshtein"
)

// A query's cost is not its length: a 4,095-byte query of `*o*` ×1,024
// expanded every pattern over the whole term dictionary, 117 s of CPU
// over 100,000 documents, and four of them in parallel held both cores.
// So a query is bounded three ways, the same for every caller (MCP, an
// SMCP tool_call, the TUI, which all reach Find through the find tool):
//
//   - a deadline (QueryLimits.Timeout), checked by bleve's collector and
//     every checkEvery dictionary terms while a pattern expands
//     (patternSearcher);
//   - a cap on pattern clauses (wildcard, regexp, prefix, fuzzy) and on the
//     terms each one expands to, charged as the terms match, before bleve
//     builds a searcher per term;
//   - a cap on the queries one client (MCP session) runs at once.
//
// Past any of them the answer is a BudgetError, which says so.
type QueryLimits struct {
	// Timeout bounds one query; default 2s.
	Timeout time.Duration
	// MaxPatterns caps the pattern clauses of one query; default 16.
	MaxPatterns int
	// MaxExpansion caps the dictionary terms one pattern matches; default
	// 10,000.
	MaxExpansion int
	// MaxConcurrent caps the queries one client runs at once; default 2.
	MaxConcurrent int
}

// DefaultQueryTimeout is QueryLimits.Timeout's default.
const DefaultQueryTimeout = 2 * time.Second

// DefaultMaxExpansion is QueryLimits.MaxExpansion's default.
const DefaultMaxExpansion = 10_000

const (
	defaultMaxPatterns   = 16
	defaultMaxConcurrent = 2
)

func (l QueryLimits) timeout() time.Duration {
	if l.Timeout > 0 {
		return l.Timeout
	}
	return DefaultQueryTimeout
}

func (l QueryLimits) maxPatterns() int {
	if l.MaxPatterns > 0 {
		return l.MaxPatterns
	}
	return defaultMaxPatterns
}

func (l QueryLimits) maxExpansion() int {
	if l.MaxExpansion > 0 {
		return l.MaxExpansion
	}
	return DefaultMaxExpansion
}

func (l QueryLimits) maxConcurrent() int {
	if l.MaxConcurrent > 0 {
		return l.MaxConcurrent
	}
	return defaultMaxConcurrent
}

// BudgetError is a query stopped by a QueryLimits bound.
type BudgetError struct {
	Limit string // what ran out
	Got   string // how much the query wanted, when known
	Max   string
}

func (e *BudgetError) Error() string {
	if e.Got == "" {
		return fmt.Sprintf("query over budget: %s (limit %s)", e.Limit, e.Max)
	}
	return fmt.Sprintf("query over budget: %s: %s, the limit is %s", e.Limit, e.Got, e.Max)
}

// countPatterns counts the pattern clauses of q.
func countPatterns(q query.Query) int {
	switch q := q.(type) {
	case *query.BooleanQuery:
		n := 0
		for _, c := range []query.Query{q.Must, q.Should, q.MustNot, q.Filter} {
			if c != nil {
				n += countPatterns(c)
			}
		}
		return n
	case *query.ConjunctionQuery:
		n := 0
		for _, c := range q.Conjuncts {
			n += countPatterns(c)
		}
		return n
	case *query.DisjunctionQuery:
		n := 0
		for _, c := range q.Disjuncts {
			n += countPatterns(c)
		}
		return n
	case *constScore:
		return countPatterns(q.q)
	case *budgeted:
		return countPatterns(q.q)
	case *query.WildcardQuery, *query.RegexpQuery, *query.PrefixQuery, *query.FuzzyQuery:
		return 1
	case *query.MatchQuery:
		if q.Fuzziness > 0 {
			return 1
		}
	}
	return 0
}

// expansionKey carries the per-pattern cap to the searchers of one query.
type expansionKey struct{}

// checkExpansion refuses a fuzzy term whose dictionary expansion passes
// the cap in ctx, before bleve builds a searcher for each term. It stops
// counting at the cap, and at the deadline. (Wildcards, regexps and
// prefixes expand in patternSearcher, which charges the cap itself.)
func checkExpansion(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, q query.Query) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	max, _ := ctx.Value(expansionKey{}).(int)
	if max <= 0 {
		return nil
	}
	field := func(f string) string {
		if f == "" {
			return m.DefaultSearchField()
		}
		return f
	}
	switch q := q.(type) {
	case *query.FuzzyQuery:
		return checkFuzzy(ctx, i, field(q.FieldVal), []string{q.Term}, q.Fuzziness, q.Prefix, max)
	case *query.MatchQuery:
		// word~2 is a match query with a fuzziness: each of its words
		// expands (lowercased as the text analyzers do).
		return checkFuzzy(ctx, i, field(q.FieldVal), strings.Fields(strings.ToLower(q.Match)), q.Fuzziness, q.Prefix, max)
	}
	return nil
}

func checkFuzzy(ctx context.Context, i index.IndexReader, field string, terms []string, fuzziness, prefix, max int) error {
	r, ok := i.(index.IndexReaderFuzzy)
	if !ok || fuzziness <= 0 {
		return nil
	}
	for _, t := range terms {
		pfx := ""
		if prefix > 0 && prefix <= len(t) {
			pfx = t[:prefix]
		}
		d, err := r.FieldDictFuzzy(field, t, fuzziness, pfx)
		if errors.Is(err, levenshtein.ErrTooManyStates) {
			// A long term's automaton passed vellum's own cap (built
			// in bounded time): a budget, not a syntax error.
			return &BudgetError{Limit: "a fuzzy term's automaton", Got: fmt.Sprintf("%d bytes of term", len(t)), Max: "10000 states"}
		}
		if err != nil {
			return nil // the searcher reports it
		}
		if err := countTerms(ctx, d, max); err != nil {
			return err
		}
	}
	return nil
}

// countTerms reads d (and closes it) up to max terms.
func countTerms(ctx context.Context, d index.FieldDict, max int) error {
	defer func() { _ = d.Close() }()
	for n := 0; ; n++ {
		e, err := d.Next()
		if err != nil || e == nil {
			return nil
		}
		if n >= max {
			return &BudgetError{Limit: "terms one pattern matches", Max: fmt.Sprint(max)}
		}
		if n%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
}

// budgeted checks a scored pattern (fuzzy) as constScore checks the
// unscored ones, then runs it unchanged.
type budgeted struct{ q query.Query }

func (b *budgeted) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, o search.SearcherOptions) (search.Searcher, error) {
	if err := checkExpansion(ctx, i, m, b.q); err != nil {
		return nil, err
	}
	return b.q.Searcher(ctx, i, m, o)
}

func (b *budgeted) Validate() error {
	if v, ok := b.q.(query.ValidatableQuery); ok {
		return v.Validate()
	}
	return nil
}

// overBudget turns a query stopped by its deadline into a BudgetError; a
// caller that went away keeps its own error.
func overBudget(parent context.Context, err error, timeout time.Duration) error {
	var be *BudgetError
	switch {
	case errors.As(err, &be):
		return be
	case parent.Err() != nil:
		return parent.Err()
	case errors.Is(err, context.DeadlineExceeded):
		return &BudgetError{Limit: "the query ran past its deadline", Max: timeout.String()}
	}
	return nil
}

// clients counts the queries each client runs.
type clients struct {
	mu      sync.Mutex
	running map[any]int
}

// admit takes a slot for client, or refuses past max.
func (c *clients) admit(client any, max int) (release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running == nil {
		c.running = map[any]int{}
	}
	if c.running[client] >= max {
		return nil, &BudgetError{Limit: "queries running at once for this client", Got: fmt.Sprint(c.running[client] + 1), Max: fmt.Sprint(max)}
	}
	c.running[client]++
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.running[client]--; c.running[client] <= 0 {
			delete(c.running, client)
		}
	}, nil
}
