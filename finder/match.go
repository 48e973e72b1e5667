package finder

import (
	"sort"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Bounds of the match ranges computed for one answer.
const (
	maxMatchPatterns = 64 // prefixes and patterns per field
)

// matcher holds what a query looks for in each text field, so that the
// match ranges of a hit are computed from its stored text at answer time,
// for the returned hits only: asking the search for term locations would
// gather them for every matching element.
type matcher struct {
	std, cjk fieldMatch
	// cjkRuns are the runs of CJK characters of the query's text: a CJK
	// query term is searched as one phrase, so only the whole run is
	// highlighted, never a lone character or pair of it found elsewhere.
	cjkRuns []string
}

type fieldMatch struct {
	terms    map[string]bool
	prefixes []string
	patterns []termPattern
}

func (m *fieldMatch) empty() bool {
	return len(m.terms) == 0 && len(m.prefixes) == 0 && len(m.patterns) == 0
}

func (m *fieldMatch) term(t string) {
	if m.terms == nil {
		m.terms = map[string]bool{}
	}
	m.terms[t] = true
}

func (m *fieldMatch) matches(term []byte) bool {
	if m.terms[string(term)] {
		return true
	}
	for _, p := range m.prefixes {
		if strings.HasPrefix(string(term), p) {
			return true
		}
	}
	for _, re := range m.patterns {
		if re.match(string(term)) {
			return true
		}
	}
	return false
}

// newMatcher walks the query (after expand) and collects the terms,
// prefixes and patterns of its positive clauses.
func (f *Finder) newMatcher(q query.Query) *matcher {
	m := &matcher{}
	f.collect(m, q)
	return m
}

func (m *matcher) field(name string) *fieldMatch {
	switch name {
	case "", "std":
		return &m.std
	case "cjk":
		return &m.cjk
	}
	return nil
}

func (f *Finder) collect(m *matcher, q query.Query) {
	analyze := func(field, text string) {
		fm := m.field(field)
		if fm == nil {
			return
		}
		if len(m.cjkRuns) < maxMatchPatterns {
			m.cjkRuns = append(m.cjkRuns, cjkRuns(text)...)
		}
		an := f.an.text
		if field == "cjk" {
			an = f.an.cjk
		}
		for _, t := range an.Analyze([]byte(text)) {
			fm.term(string(t.Term))
		}
	}
	switch q := q.(type) {
	case *query.BooleanQuery:
		for _, c := range []query.Query{q.Must, q.Should, q.Filter} {
			if c != nil {
				f.collect(m, c)
			}
		}
	case *query.ConjunctionQuery:
		for _, c := range q.Conjuncts {
			f.collect(m, c)
		}
	case *query.DisjunctionQuery:
		for _, c := range q.Disjuncts {
			f.collect(m, c)
		}
	case *constScore:
		f.collect(m, q.q)
	case *budgeted:
		f.collect(m, q.q)
	case *query.MatchQuery:
		analyze(q.FieldVal, q.Match)
	case *query.MatchPhraseQuery:
		analyze(q.FieldVal, q.MatchPhrase)
	case *query.TermQuery:
		if fm := m.field(q.FieldVal); fm != nil {
			fm.term(q.Term)
		}
	case *query.FuzzyQuery:
		if fm := m.field(q.FieldVal); fm != nil {
			fm.term(q.Term)
		}
	case *query.PhraseQuery:
		if fm := m.field(q.FieldVal); fm != nil {
			for _, t := range q.Terms {
				fm.term(t)
			}
		}
	case *query.MultiPhraseQuery:
		if fm := m.field(q.FieldVal); fm != nil {
			for _, ts := range q.Terms {
				for _, t := range ts {
					fm.term(t)
				}
			}
		}
	case *query.PrefixQuery:
		if fm := m.field(q.FieldVal); fm != nil && len(fm.prefixes) < maxMatchPatterns {
			fm.prefixes = append(fm.prefixes, q.Prefix)
		}
	case *query.WildcardQuery:
		if fm := m.field(q.FieldVal); fm != nil && len(fm.patterns) < maxMatchPatterns {
			fm.patterns = append(fm.patterns, newGlob(q.Wildcard))
		}
	case *query.RegexpQuery:
		if fm := m.field(q.FieldVal); fm != nil && len(fm.patterns) < maxMatchPatterns {
			// The same matcher as the search's (patternSearcher).
			if re, _, err := newRegexp(q.Regexp); err == nil {
				fm.patterns = append(fm.patterns, re)
			}
		}
	}
}

// spans are the byte ranges of text that the query matched, sorted and
// with overlaps (CJK bigrams) merged.
func (f *Finder) spans(m *matcher, text string) [][2]int {
	var out [][2]int
	mark := func(an analysis.Analyzer, fm *fieldMatch) {
		for _, t := range an.Analyze([]byte(text)) {
			if len(m.cjkRuns) > 0 && hasCJK(string(t.Term)) {
				continue // CJK is marked by whole runs below
			}
			if fm.matches(t.Term) && t.Start < t.End && t.End <= len(text) {
				out = append(out, [2]int{t.Start, t.End})
			}
		}
	}
	if !m.std.empty() {
		mark(f.an.text, &m.std)
	}
	if len(m.cjkRuns) > 0 {
		for _, run := range m.cjkRuns {
			for i := 0; i < len(text); {
				j := strings.Index(text[i:], run)
				if j < 0 {
					break
				}
				out = append(out, [2]int{i + j, i + j + len(run)})
				i += j + len(run)
			}
		}
	} else if !m.cjk.empty() && hasCJK(text) {
		mark(f.an.cjk, &m.cjk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	merged := out[:0]
	for _, s := range out {
		if n := len(merged); n > 0 && s[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], s[1])
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// cjkRuns are the maximal runs of CJK characters in s.
func cjkRuns(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if hasCJK(string(r)) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}
