package finder

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp/syntax"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"golang.org/x/text/unicode/norm"
)

// Bounds of one answer.
const (
	DefaultLimit  = 20
	MaxLimit      = 100
	maxOffset     = 10000
	snippetRunes  = 200
	maxTitleRunes = 300
	maxQueryBytes = 4096
)

// FindParams are the arguments of find.
type FindParams struct {
	Query          string   `json:"query" jsonschema:"bleve query string: words, \"a phrase\", +must, -not, field:value (fields: title, category, element_id)"`
	FileType       string   `json:"file_type,omitempty" jsonschema:"only documents of this file_type (pdf, markdown, csv …)"`
	Keywords       []string `json:"keywords,omitempty" jsonschema:"only documents that have every one of these keywords"`
	ModifiedAfter  string   `json:"modified_after,omitempty" jsonschema:"only documents last modified at or after this time (RFC 3339 or YYYY-MM-DD)"`
	ModifiedBefore string   `json:"modified_before,omitempty" jsonschema:"only documents last modified before this time (RFC 3339 or YYYY-MM-DD)"`
	Limit          int      `json:"limit,omitempty" jsonschema:"hits per page, 1-100 (default 20)"`
	Cursor         string   `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// Span is a match inside a snippet, in runes, end exclusive.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Hit is one matching element.
type Hit struct {
	URI       string  `json:"uri" jsonschema:"dpe:// URI of the document"`
	Title     string  `json:"title"`
	Page      int     `json:"page" jsonschema:"1-based page number"`
	ElementID string  `json:"element_id"`
	Category  string  `json:"category"`
	Snippet   string  `json:"snippet"`
	Match     []Span  `json:"match,omitempty" jsonschema:"matched ranges of the snippet, in runes"`
	Score     float64 `json:"score"`
}

// FindResult is the answer of find.
type FindResult struct {
	Hits       []Hit  `json:"hits"`
	Total      int    `json:"total" jsonschema:"matching elements in the part indexed so far"`
	NextCursor string `json:"next_cursor,omitempty"`
	Indexed    Status `json:"indexed"`
}

// SyntaxError is a query the engine rejects.
type SyntaxError struct{ Err error }

func (e *SyntaxError) Error() string { return "query syntax: " + oneLine(e.Err.Error()) }
func (e *SyntaxError) Unwrap() error { return e.Err }

// explainSyntax names the problem of a query the parser rejected with
// only "syntax error": a field with no value, an operator with no term,
// an open quote or regexp, and a regexp Go does not take by its problem
// alone. Anything else keeps the parser's words.
func explainSyntax(q string, err error) error {
	var re *syntax.Error
	if errors.As(err, &re) {
		// The engine anchors the user's /…/ as "…)$"; that text is not
		// theirs, so only the problem is said.
		return fmt.Errorf("regexp: %s", re.Code)
	}
	if !strings.Contains(err.Error(), "syntax error") {
		return err // the parser named it ("unterminated quote")
	}
	var quoted, inRegexp bool
	var tok strings.Builder
	var toks []string
	for _, r := range q {
		switch {
		case r == '"' && !inRegexp:
			quoted = !quoted
		case r == '/' && !quoted && (inRegexp || tok.Len() == 0 || strings.HasSuffix(tok.String(), ":")):
			inRegexp = !inRegexp
		case (r == ' ' || r == '\t' || r == '\n') && !quoted && !inRegexp:
			if tok.Len() > 0 {
				toks = append(toks, tok.String())
				tok.Reset()
			}
			continue
		}
		tok.WriteRune(r)
	}
	if tok.Len() > 0 {
		toks = append(toks, tok.String())
	}
	switch {
	case quoted:
		return errors.New("a quote \" is not closed")
	case inRegexp:
		return errors.New("a regexp /… is not closed")
	}
	for _, t := range toks {
		f := strings.TrimLeft(t, "+-")
		switch {
		case f == "":
			return fmt.Errorf("%s needs a term after it", clip(t, 8))
		case strings.HasSuffix(f, ":"):
			return fmt.Errorf("field %s needs a value", clip(f, 64))
		case strings.HasPrefix(f, ":"):
			return fmt.Errorf("%s: a value needs a field name before the colon", clip(f, 64))
		}
	}
	return err
}

// cursor is opaque to callers: the offset of the next page and a hash of
// the request it belongs to, so a cursor is not replayed on another query.
type cursor struct {
	Offset int    `json:"o"`
	Hash   uint64 `json:"h"`
}

func encodeCursor(c cursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string, hash uint64) (int, error) {
	if s == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	var c cursor
	if err != nil || json.Unmarshal(b, &c) != nil || c.Offset < 0 || c.Offset > maxOffset {
		return 0, errors.New("invalid cursor")
	}
	if c.Hash != hash {
		return 0, errors.New("cursor belongs to another request")
	}
	return c.Offset, nil
}

func hashOf(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// Find searches the part of the index built so far.
func (f *Finder) Find(ctx context.Context, p FindParams) (*FindResult, error) {
	f.inflight.Add(1)
	defer f.inflight.Add(-1)
	// NFC, as the index is: a query typed in NFD (macOS file names,
	// some input methods) matches NFC text.
	q := strings.TrimSpace(norm.NFC.String(p.Query))
	switch {
	case q == "":
		return nil, errors.New("query is empty")
	case len(q) > maxQueryBytes:
		return nil, fmt.Errorf("query is %d bytes, the limit is %d", len(q), maxQueryBytes)
	}
	limit := p.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	parsed, err := query.NewQueryStringQuery(q).Parse()
	if err != nil {
		return nil, &SyntaxError{Err: explainSyntax(q, err)}
	}
	parsed = expandOne(parsed)
	lim := f.opt.Limits
	if n := countPatterns(parsed); n > lim.maxPatterns() {
		return nil, &BudgetError{Limit: "pattern terms (wildcard, regexp, prefix, fuzzy)", Got: fmt.Sprint(n), Max: fmt.Sprint(lim.maxPatterns())}
	}
	match := f.newMatcher(parsed)
	conj := []query.Query{parsed}
	if p.FileType != "" {
		conj = append(conj, filter(term("file_type", lower(p.FileType))))
	}
	for _, k := range p.Keywords {
		conj = append(conj, filter(term("keywords", lower(k))))
	}
	after, err := parseTime("modified_after", p.ModifiedAfter)
	if err != nil {
		return nil, err
	}
	before, err := parseTime("modified_before", p.ModifiedBefore)
	if err != nil {
		return nil, err
	}
	if after != "" || before != "" {
		incl, excl := true, false
		r := query.NewTermRangeInclusiveQuery(after, before, &incl, &excl)
		r.SetField("modified")
		conj = append(conj, filter(r))
	}
	hash := hashOf(q, lower(p.FileType), strings.Join(p.Keywords, "\x01"), p.ModifiedAfter, p.ModifiedBefore)
	offset, err := decodeCursor(p.Cursor, hash)
	if err != nil {
		return nil, err
	}
	req := bleve.NewSearchRequestOptions(query.NewConjunctionQuery(conj), limit, offset, false)
	req.Fields = []string{"std", "ref"}
	// Ties in score keep the index's order (stable for one snapshot):
	// a tie-break on _id would load the id of every matching element.
	st := f.Status()
	qctx, cancel := context.WithTimeout(context.WithValue(ctx, expansionKey{}, lim.maxExpansion()), lim.timeout())
	defer cancel()
	res, err := f.idx.SearchInContext(qctx, req)
	if err == nil && qctx.Err() != nil {
		err = qctx.Err() // bleve may hand back what it collected by the deadline
	}
	if err != nil {
		if be := overBudget(ctx, err, lim.timeout()); be != nil {
			return nil, be
		}
		// Errors that surface only when the query runs (a bad regexp,
		// a fuzziness out of range) are syntax problems too.
		return nil, &SyntaxError{Err: explainSyntax(q, err)}
	}
	out := &FindResult{Hits: make([]Hit, 0, len(res.Hits)), Total: int(res.Total), Indexed: st}
	for _, h := range res.Hits {
		out.Hits = append(out.Hits, f.toHit(h, match))
	}
	if next := offset + len(res.Hits); len(res.Hits) == limit && uint64(next) < res.Total && next <= maxOffset {
		out.NextCursor = encodeCursor(cursor{Offset: next, Hash: hash})
	}
	return out, nil
}

// filter is a clause that selects without scoring: a file type shared by
// every element would otherwise add the same to every score, at a cost.
func filter(q query.Query) query.Query { return &constScore{q: q} }

func term(field, v string) query.Query {
	t := query.NewTermQuery(v)
	t.SetField(field)
	return t
}

// parseTime is the modified term (modifiedTerm) of a filter bound.
func parseTime(name, s string) (string, error) {
	if s == "" {
		return "", nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return modifiedTerm(t), nil
		}
	}
	return "", fmt.Errorf("%s %q: want RFC 3339 or YYYY-MM-DD", name, clip(s, 64))
}

// textFields are the fields an unqualified term is searched in, each with
// its own analyzer (see the package comment).
var textFields = [...]string{"std", "cjk"}

// expand rewrites, in place, every match and phrase query without a field
// into a disjunction over the text fields, and multi-term clauses into
// constant-score ones (constScore).
func expand(q query.Query) {
	switch q := q.(type) {
	case *query.BooleanQuery:
		q.Must = expandOne(q.Must)
		q.Should = expandOne(q.Should)
		q.MustNot = expandOne(q.MustNot)
		q.Filter = expandOne(q.Filter)
	case *query.ConjunctionQuery:
		for i, c := range q.Conjuncts {
			q.Conjuncts[i] = expandOne(c)
		}
	case *query.DisjunctionQuery:
		for i, c := range q.Disjuncts {
			q.Disjuncts[i] = expandOne(c)
		}
	}
}

func expandOne(q query.Query) query.Query {
	switch m := q.(type) {
	case nil:
		return nil
	case *query.MatchQuery:
		if m.FieldVal != "" {
			return m
		}
		if hasCJK(m.Match) {
			// CJK text has no spaces: one query term is a phrase of
			// several words (bigrams in "cjk", ideographs in "std"), and
			// matching any one of them finds every CJK document that
			// shares a character pair. A CJK term is therefore matched
			// as a phrase: its words in order, adjacent.
			ds := make([]query.Query, 0, len(textFields))
			for _, f := range textFields {
				p := query.NewMatchPhraseQuery(m.Match)
				p.SetField(f)
				if m.BoostVal != nil {
					p.SetBoost(m.BoostVal.Value())
				}
				ds = append(ds, p)
			}
			return query.NewDisjunctionQuery(ds)
		}
		ds := make([]query.Query, 0, len(textFields))
		for _, f := range textFields {
			c := *m
			c.FieldVal = f
			if c.Fuzziness > 0 {
				ds = append(ds, &budgeted{q: &c})
				continue
			}
			ds = append(ds, &c)
		}
		return query.NewDisjunctionQuery(ds)
	case *query.MatchPhraseQuery:
		if m.FieldVal != "" {
			return m
		}
		ds := make([]query.Query, 0, len(textFields))
		for _, f := range textFields {
			c := *m
			c.FieldVal = f
			ds = append(ds, &c)
		}
		return query.NewDisjunctionQuery(ds)
	case *query.WildcardQuery:
		return newConstScore(m, m.BoostVal)
	case *query.PrefixQuery:
		return newConstScore(m, m.BoostVal)
	case *query.RegexpQuery:
		return newConstScore(m, m.BoostVal)
	case *query.FuzzyQuery:
		return &budgeted{q: m}
	}
	expand(q)
	return q
}

func (f *Finder) toHit(h *search.DocumentMatch, m *matcher) Hit {
	str := func(k string) string { s, _ := h.Fields[k].(string); return s }
	page, elementID, category := decodeRef(str("ref"))
	uri := uriOf(h.ID)
	text := str("std")
	snip, match := snippet(text, f.spans(m, text))
	return Hit{
		URI: uri, Title: clipRunes(f.title(uri), maxTitleRunes), Page: page,
		ElementID: elementID, Category: category,
		Snippet: snip, Match: match, Score: h.Score,
	}
}

// snippet cuts a window of about snippetRunes around the densest run of
// matches (where most of them fit in one window, not merely the first)
// and returns the matches inside it as rune offsets. Its ends fall on
// word boundaries when one is near, so no word is cut in half. Whitespace
// runs are folded to one space (tables are tab-separated), so offsets are
// computed after folding.
func snippet(text string, spans [][2]int) (string, []Span) {
	start, anchorEnd := 0, 0
	if len(spans) > 0 {
		a := densest(spans, snippetRunes*2/3)
		start = spans[a][0]
		// Back up about a third of the window, to a rune boundary, then
		// on to the start of a word, never past the match.
		back := 0
		for start > 0 && back < snippetRunes/3 {
			_, sz := utf8.DecodeLastRuneInString(text[:start])
			start -= sz
			back++
		}
		if start > 0 && !isSpaceByte(text, start-1) {
			for i, r := range text[start:spans[a][0]] {
				if i >= 4*wordSlack {
					break
				}
				if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
					start += i + 1
					break
				}
			}
		}
		anchorEnd = spans[a][1]
	}
	var fr []rune // the folded text from start, up to the cut and a word more
	var out []Span
	inSpace := false
	si := 0
	cur := -1
	lead := 0
	if start > 0 {
		fr = append(fr, '…')
		lead = 1
	}
	anchorRunes := lead // folded runes up to the anchor's end
	more := false       // text follows what fr holds
	for i, r := range text[start:] {
		pos := start + i
		for si < len(spans) && spans[si][1] <= pos {
			if cur >= 0 {
				out = append(out, Span{cur, len(fr)})
				cur = -1
			}
			si++
		}
		if si < len(spans) && pos == spans[si][0] && cur < 0 {
			cur = len(fr)
		}
		if pos <= anchorEnd {
			anchorRunes = len(fr)
		}
		if len(fr) >= snippetRunes+wordSlack {
			more = true
			break
		}
		if r == '\t' || r == '\n' || r == '\r' || r == ' ' {
			if inSpace {
				continue
			}
			r, inSpace = ' ', true
		} else {
			inSpace = false
		}
		fr = append(fr, r)
	}
	if cur >= 0 {
		out = append(out, Span{cur, len(fr)})
	}
	n := len(fr)
	if n > snippetRunes {
		more, n = true, snippetRunes
		if fr[n-1] != ' ' && fr[n] != ' ' {
			// Mid-word: end at the last space, if it is near and keeps
			// the match.
			for k := n - 1; k > n-wordSlack && k > anchorRunes; k-- {
				if fr[k] == ' ' {
					n = k
					break
				}
			}
		}
	}
	for n > lead && fr[n-1] == ' ' && more {
		n--
	}
	snip := string(fr[:n])
	if more {
		snip += "…"
	}
	var kept []Span
	for _, sp := range out {
		if sp.Start >= n {
			break
		}
		kept = append(kept, Span{sp.Start, min(sp.End, n)})
	}
	return snip, kept
}

// wordSlack is how far, in runes, a snippet's end moves back to a word
// boundary (a longer word is cut).
const wordSlack = 16

func isSpaceByte(s string, i int) bool {
	c := s[i]
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// densest is the index of the span that starts the window of width bytes
// holding the most spans (the first such), spans sorted by start.
func densest(spans [][2]int, width int) int {
	best, bestN := 0, 0
	j := 0
	for i := range spans {
		if j < i {
			j = i
		}
		for j < len(spans) && spans[j][1]-spans[i][0] <= width {
			j++
		}
		if n := j - i; n > bestN {
			best, bestN = i, n
		}
	}
	return best
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// ListParams are the arguments of list_documents.
type ListParams struct {
	Filter   string `json:"filter,omitempty" jsonschema:"case-insensitive substring of the name, title or URI"`
	FileType string `json:"file_type,omitempty" jsonschema:"only documents of this file_type"`
	Sort     string `json:"sort,omitempty" jsonschema:"name (default), lastModified or page_count"`
	Order    string `json:"order,omitempty" jsonschema:"asc (default) or desc"`
	Limit    int    `json:"limit,omitempty" jsonschema:"documents per page, 1-100 (default 20)"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// DocInfo is one listed document.
type DocInfo struct {
	URI          string   `json:"uri"`
	Name         string   `json:"name"`
	Title        string   `json:"title"`
	FileType     string   `json:"file_type"`
	PageCount    int      `json:"page_count"`
	LastModified string   `json:"last_modified,omitempty"`
	Keywords     []string `json:"keywords"`
	// PartlyIndexed: the document's text is over the Finder's budget and
	// only its first IndexedPages pages are searched (its title and
	// metadata are, whole).
	PartlyIndexed bool `json:"partly_indexed,omitempty"`
	IndexedPages  int  `json:"indexed_pages,omitempty" jsonschema:"pages whose text is searched, when partly_indexed"`
}

// ListResult is the answer of list_documents.
type ListResult struct {
	Documents  []DocInfo `json:"documents"`
	Total      int       `json:"total" jsonschema:"documents that pass the filter"`
	NextCursor string    `json:"next_cursor,omitempty"`
	Indexed    Status    `json:"indexed"`
}

// ListDocuments filters and sorts every document of the last listing.
func (f *Finder) ListDocuments(_ context.Context, p ListParams) (*ListResult, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	var less func(a, b *Doc) int
	switch p.Sort {
	case "", "name":
		less = func(a, b *Doc) int { return strings.Compare(a.Name, b.Name) }
	case "lastModified", "last_modified":
		less = func(a, b *Doc) int { return strings.Compare(a.LastModified, b.LastModified) }
	case "page_count":
		less = func(a, b *Doc) int { return a.PageCount - b.PageCount }
	default:
		return nil, fmt.Errorf("sort %q: want name, lastModified or page_count", clip(p.Sort, 64))
	}
	desc := false
	switch p.Order {
	case "", "asc":
	case "desc":
		desc = true
	default:
		return nil, fmt.Errorf("order %q: want asc or desc", clip(p.Order, 64))
	}
	hash := hashOf("list", p.Filter, lower(p.FileType), p.Sort, p.Order)
	offset, err := decodeCursor(p.Cursor, hash)
	if err != nil {
		return nil, err
	}
	st := f.Status()
	needle := strings.ToLower(norm.NFC.String(p.Filter))
	var sel []Doc
	for _, d := range f.Documents() {
		if p.FileType != "" && lower(d.FileType) != lower(p.FileType) {
			continue
		}
		if needle != "" && !strings.Contains(strings.ToLower(norm.NFC.String(d.Name+"\x00"+d.Title+"\x00"+d.URI)), needle) {
			continue
		}
		sel = append(sel, d)
	}
	sort.SliceStable(sel, func(i, j int) bool {
		c := less(&sel[i], &sel[j])
		if c == 0 {
			c = strings.Compare(sel[i].URI, sel[j].URI)
			return c < 0
		}
		if desc {
			return c > 0
		}
		return c < 0
	})
	out := &ListResult{Documents: []DocInfo{}, Total: len(sel), Indexed: st}
	for i := offset; i < len(sel) && i < offset+limit; i++ {
		d := sel[i]
		kws := d.Keywords
		if kws == nil {
			kws = []string{}
		}
		out.Documents = append(out.Documents, DocInfo{URI: d.URI, Name: d.Name, Title: clipRunes(d.Title, maxTitleRunes),
			FileType: d.FileType, PageCount: d.PageCount, LastModified: d.LastModified, Keywords: kws,
			PartlyIndexed: d.Partial})
		if d.Partial {
			out.Documents[len(out.Documents)-1].IndexedPages = d.IndexedPages
		}
	}
	if next := offset + limit; next < len(sel) {
		out.NextCursor = encodeCursor(cursor{Offset: next, Hash: hash})
	}
	return out, nil
}
