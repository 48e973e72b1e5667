package finder

import (
	"bytes"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	porterstemmer "github.com/blevesearch/go-porterstemmer"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
)

// Analyzer and filter names of the mapping (see the package comment).
const (
	// textAnalyzer is the one analyzer of field "std": the unicode
	// tokenizer, English possessives, lower case, English stop words, and
	// stemKeepName.
	textAnalyzer = "dpe_text"
	// stemKeepName keeps every token and adds its Porter stem at the same
	// position when the stem differs: one field then answers exact words,
	// prefixes and stemmed forms ("commissioning" finds "commissioned"),
	// which a separate English field would cost a second tokenization and
	// a second set of postings for.
	stemKeepName = "dpe_stem_keep"
	// wordsName is the tokenizer of textAnalyzer: the unicode tokenizer's
	// word rules (UAX #29) done by hand for ASCII text, which is most
	// text and several times faster so; any other text goes to the
	// unicode tokenizer itself.
	wordsName = "dpe_words"
	// maxStemCache bounds the stems one index remembers.
	maxStemCache = 1 << 16
)

// The filter is registered once, the way bleve's own filters are: a
// mapping names its filters and bleve resolves the names in this registry.
func init() {
	if err := registry.RegisterTokenFilter(stemKeepName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return &stemKeep{}, nil
	}); err != nil {
		panic(err)
	}
	if err := registry.RegisterTokenizer(wordsName, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return words{uni: unicodetok.NewUnicodeTokenizer()}, nil
	}); err != nil {
		panic(err)
	}
}

func addAnalyzers(m *mapping.IndexMappingImpl) error {
	return m.AddCustomAnalyzer(textAnalyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     wordsName,
		"token_filters": []any{en.PossessiveName, lowercase.Name, en.StopName, stemKeepName},
	})
}

// stemKeep remembers the stems it computed (the vocabulary of a corpus is
// small next to its text); analysis runs on several goroutines at once.
type stemKeep struct {
	cache sync.Map // term → stem ("" when the stem is the term)
	n     atomic.Int64
}

func (s *stemKeep) stem(term []byte) string {
	if v, ok := s.cache.Load(string(term)); ok {
		return v.(string)
	}
	stem := string(porterstemmer.StemWithoutLowerCasing(bytes.Runes(term)))
	if stem == string(term) {
		stem = ""
	}
	if s.n.Load() < maxStemCache {
		if _, loaded := s.cache.LoadOrStore(string(term), stem); !loaded {
			s.n.Add(1)
		}
	}
	return stem
}

func (s *stemKeep) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := in
	for _, t := range in {
		if t.KeyWord || t.Type != analysis.AlphaNumeric || len(t.Term) < 4 || !asciiLetters(t.Term) {
			continue
		}
		stem := s.stem(t.Term)
		if stem == "" {
			continue
		}
		if len(out) == len(in) {
			out = make(analysis.TokenStream, len(in), len(in)+len(in)/2+1)
			copy(out, in)
		}
		c := *t
		c.Term = []byte(stem)
		out = append(out, &c)
	}
	return out
}

// words is the tokenizer named wordsName.
type words struct{ uni analysis.Tokenizer }

func (w words) Tokenize(input []byte) analysis.TokenStream {
	for _, c := range input {
		if c >= utf8.RuneSelf {
			return w.uni.Tokenize(input)
		}
	}
	// A word is a run of letters, digits and '_', joined across one
	// '.', ':' or '\'' between letters and one '.', ',', ';' or '\''
	// between digits (UAX #29 rules WB6/7 and WB11/12).
	var out analysis.TokenStream
	var toks []analysis.Token
	pos := 1
	for i := 0; i < len(input); {
		if !isWord(input[i]) {
			i++
			continue
		}
		start, numeric := i, true
		for i < len(input) {
			c := input[i]
			if isWord(c) {
				if c < '0' || c > '9' {
					numeric = false
				}
				i++
				continue
			}
			if i+1 < len(input) && i > start && joins(input[i-1], c, input[i+1]) {
				i += 2
				continue
			}
			break
		}
		if len(toks) == cap(toks) {
			toks = make([]analysis.Token, 0, max(16, min(1024, len(input)/6)))
		}
		typ := analysis.AlphaNumeric
		if numeric {
			typ = analysis.Numeric
		}
		toks = append(toks, analysis.Token{Term: input[start:i], Start: start, End: i, Position: pos, Type: typ})
		out = append(out, &toks[len(toks)-1])
		pos++
	}
	return out
}

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// joins: mid between prev and next does not break a word.
func joins(prev, mid, next byte) bool {
	switch {
	case isLetter(prev) && isLetter(next):
		return mid == '.' || mid == ':' || mid == '\''
	case isDigit(prev) && isDigit(next):
		return mid == '.' || mid == ',' || mid == ';' || mid == '\''
	}
	return false
}

// asciiLetters: the Porter stemmer is for English words; digits, mixed
// tokens and other scripts are kept as they are.
func asciiLetters(b []byte) bool {
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// hasCJK reports whether s holds Han, Hiragana, Katakana or Hangul: only
// such elements are indexed in field "cjk" too.
func hasCJK(s string) bool {
	for _, r := range s {
		if r < 0x2E80 {
			continue
		}
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || (r >= 0xFF00 && r <= 0xFFEF) {
			return true
		}
	}
	return false
}
