package finder

import (
	"context"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// A wildcard or regexp is never handed to bleve: bleve compiles it into a
// vellum DFA before it reads a single term, all at once and deaf to the
// context, and the DFA of `*o*` ×1,024 took 53 s and gigabytes to build.
// Instead the pattern is matched term by term over the field's
// dictionary, in time linear in the term for a wildcard (glob) and
// bounded by the term times a capped program for a regexp, with the
// deadline checked as the dictionary is read and the expansion cap
// charged as each matching term is found.

// maxRegexpInsts caps the compiled program of one regexp: matching a
// term costs its length times this at worst.
const maxRegexpInsts = 2000

// checkEvery is how many dictionary terms are read between looks at the
// query's deadline.
const checkEvery = 256

// termPattern matches whole dictionary terms.
type termPattern interface {
	match(term string) bool
}

// glob is a wildcard: '*' any run of characters, '?' one character,
// everything else itself. Runs of '*' are one; the pattern is split at
// them into parts, the first anchored at the start, the last at the end,
// and the middle ones found leftmost in order, which is exact for globs
// and never backtracks.
type glob struct {
	parts  [][]globItem // between stars
	lead   bool         // the pattern starts with '*'
	trail  bool         // the pattern ends with '*'
	minLen int          // bytes a matching term has at least
}

// globItem is a literal run, or one '?' when lit is empty.
type globItem struct{ lit string }

func newGlob(w string) *glob {
	g := &glob{lead: strings.HasPrefix(w, "*"), trail: strings.HasSuffix(w, "*")}
	for _, p := range strings.Split(w, "*") {
		if p == "" {
			continue
		}
		var items []globItem
		for i := 0; i < len(p); {
			if p[i] == '?' {
				items = append(items, globItem{})
				g.minLen++
				i++
				continue
			}
			j := strings.IndexByte(p[i:], '?')
			if j < 0 {
				j = len(p) - i
			}
			items = append(items, globItem{lit: p[i : i+j]})
			g.minLen += j
			i += j
		}
		g.parts = append(g.parts, items)
	}
	return g
}

// prefix is the literal start of the pattern, to narrow the dictionary.
func (g *glob) prefix() string {
	if g.lead || len(g.parts) == 0 || g.parts[0][0].lit == "" {
		return ""
	}
	return g.parts[0][0].lit
}

// at matches part at s[i:] and returns the end, or -1.
func at(part []globItem, s string, i int) int {
	for _, it := range part {
		if it.lit == "" {
			if i >= len(s) {
				return -1
			}
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
			continue
		}
		if !strings.HasPrefix(s[i:], it.lit) {
			return -1
		}
		i += len(it.lit)
	}
	return i
}

func (g *glob) match(s string) bool {
	if len(s) < g.minLen {
		return false
	}
	parts := g.parts
	if len(parts) == 0 {
		return g.lead || s == "" // "*" matches anything, "" only ""
	}
	i := 0
	if !g.lead {
		if i = at(parts[0], s, 0); i < 0 {
			return false
		}
		parts = parts[1:]
		if len(parts) == 0 {
			return g.trail || i == len(s)
		}
	}
	last := len(parts)
	if !g.trail {
		last-- // the last part is matched at the end, below
	}
	for _, p := range parts[:last] {
		found := false
		for ; i <= len(s); i++ {
			if e := at(p, s, i); e >= 0 {
				i, found = e, true
				break
			}
			if i < len(s) {
				_, n := utf8.DecodeRuneInString(s[i:])
				i += n - 1
			}
		}
		if !found {
			return false
		}
	}
	if g.trail {
		return true
	}
	// The last part ends the term: try it at each rune start at or past
	// i (a '?' makes its byte length vary), first to last.
	p := parts[last]
	for j := i; j <= len(s); j++ {
		if j > i && j < len(s) && !utf8.RuneStart(s[j]) {
			continue
		}
		if at(p, s, j) == len(s) {
			return true
		}
	}
	return false
}

// anchored is a regexp that must match a whole term.
type anchored struct{ re *regexp.Regexp }

func (a anchored) match(s string) bool { return a.re.MatchString(s) }

// newRegexp compiles a query regexp (the syntax bleve accepts: Perl
// flags, whole-term match), refusing a program past maxRegexpInsts.
func newRegexp(expr string) (anchored, string, error) {
	expr = strings.TrimPrefix(expr, "^") // as bleve: a term is anchored anyway
	full := "^(?:" + expr + ")$"
	re, err := syntax.Parse(full, syntax.Perl)
	if err != nil {
		return anchored{}, "", err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return anchored{}, "", err
	}
	if len(prog.Inst) > maxRegexpInsts {
		return anchored{}, "", &BudgetError{Limit: "size of a regexp's program", Got: fmt.Sprint(len(prog.Inst)), Max: fmt.Sprint(maxRegexpInsts)}
	}
	c, err := regexp.Compile(full)
	if err != nil {
		return anchored{}, "", err
	}
	pfx, _ := c.LiteralPrefix()
	return anchored{re: c}, pfx, nil
}

// patternOf is the term pattern of a wildcard, regexp or prefix query,
// with the literal prefix that narrows the dictionary.
func patternOf(q query.Query) (termPattern, string, bool, error) {
	switch q := q.(type) {
	case *query.WildcardQuery:
		g := newGlob(q.Wildcard)
		return g, g.prefix(), true, nil
	case *query.RegexpQuery:
		a, pfx, err := newRegexp(q.Regexp)
		return a, pfx, true, err
	case *query.PrefixQuery:
		return nil, q.Prefix, true, nil
	}
	return nil, "", false, nil
}

// expandTerms reads the field's dictionary (from prefix on) and returns
// the terms p matches (every term, when p is nil), stopping at the
// deadline and past max terms.
func expandTerms(ctx context.Context, i index.IndexReader, field, prefix string, p termPattern, max int) ([]string, error) {
	var (
		d   index.FieldDict
		err error
	)
	if prefix != "" {
		d, err = i.FieldDictPrefix(field, []byte(prefix))
	} else {
		d, err = i.FieldDict(field)
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = d.Close() }()
	var terms []string
	for n := 0; ; n++ {
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		e, err := d.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			return terms, nil
		}
		if p != nil && !p.match(e.Term) {
			continue
		}
		if max > 0 && len(terms) >= max {
			return nil, &BudgetError{Limit: "terms one pattern matches", Max: fmt.Sprint(max)}
		}
		terms = append(terms, e.Term)
	}
}

// patternSearcher is the searcher of a wildcard, regexp or prefix query:
// its terms expanded by expandTerms, then searched as one disjunction.
func patternSearcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, q query.Query, o search.SearcherOptions) (search.Searcher, bool, error) {
	p, prefix, ok, err := patternOf(q)
	if !ok {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	field := ""
	var boost float64 = 1
	if fq, ok := q.(query.FieldableQuery); ok {
		field = fq.Field()
	}
	if bq, ok := q.(query.BoostableQuery); ok {
		boost = bq.Boost()
	}
	if field == "" {
		field = m.DefaultSearchField()
	}
	max, _ := ctx.Value(expansionKey{}).(int)
	terms, err := expandTerms(ctx, i, field, prefix, p, max)
	if err != nil {
		return nil, true, err
	}
	s, err := searcher.NewMultiTermSearcher(ctx, i, terms, field, boost, o, true)
	return s, true, err
}
