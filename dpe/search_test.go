package dpe

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// naiveFind is the reference: leftmost rune-aligned start whose next
// len(q) runes equal q under strings.EqualFold.
func naiveFind(s, q string, from int) (int, int) {
	n := utf8.RuneCountInString(q)
	for i := from; i < len(s); {
		j, k := i, 0
		for k < n && j < len(s) {
			_, size := utf8.DecodeRuneInString(s[j:])
			j += size
			k++
		}
		if k == n && strings.EqualFold(s[i:j], q) {
			return i, j
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return -1, -1
}

func TestSearch_MatcherAgreesWithEqualFold(t *testing.T) {
	tests := []struct{ text, q string }{
		{"Hello World", "world"}, {"HELLO", "hello"}, {"no match here", "zebra"},
		{"ſtop the KELVIN \u212Aelvin", "stop"}, {"\u212Aelvin", "kelvin"}, {"Été ÉTÉ été", "été"},
		{"aaa", "aa"}, {"xyzXYZ", "Z"}, {"日本語テキスト", "テキ"}, {"ΣΊΣΥΦΟΣ σίσυφος", "σίσυφοσ"},
		{"a\u0130b", "i"}, {"quiz QUIZ", "qu"}, {"", "a"}, {"ab", "abc"},
	}
	for _, tt := range tests {
		m := newMatcher(tt.q)
		for from := 0; from <= len(tt.text); from++ {
			if from < len(tt.text) && !utf8.RuneStart(tt.text[from]) {
				continue
			}
			gs, ge := m.find(tt.text, from)
			ws, we := naiveFind(tt.text, tt.q, from)
			if gs != ws || ge != we {
				t.Errorf("find(%q, %q, %d) = %d,%d want %d,%d", tt.text, tt.q, from, gs, ge, ws, we)
			}
		}
	}
}

// TestSearch_OnlyKAndSFoldOutOfASCII guards the anchor choice: within the
// query's ASCII prefix without k/s, a match has the query's byte layout.
func TestSearch_OnlyKAndSFoldOutOfASCII(t *testing.T) {
	for c := rune(0); c < utf8.RuneSelf; c++ {
		for r := unicode.SimpleFold(c); r != c; r = unicode.SimpleFold(r) {
			if r >= utf8.RuneSelf && !strings.ContainsRune("kKsS", c) {
				t.Errorf("%q folds to non-ASCII %q", c, r)
			}
		}
	}
}

func searchDoc(t *testing.T, texts ...[]string) *Document {
	t.Helper()
	type el struct {
		ID   string `json:"element_id"`
		Cat  string `json:"category"`
		Text string `json:"text"`
	}
	type pg struct {
		Index int  `json:"page_index"`
		Els   []el `json:"elements"`
	}
	var pages []pg
	for i, tx := range texts {
		p := pg{Index: i}
		for j, s := range tx {
			p.Els = append(p.Els, el{fmt.Sprintf("p%d-e%d", i, j), "NarrativeText", s})
		}
		pages = append(pages, p)
	}
	data, err := json.Marshal(map[string]any{"page_count": len(pages), "pages": pages})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSearch_FindsHitsCaseInsensitivelyAcrossPages(t *testing.T) {
	d := searchDoc(t, []string{"alpha", "The Quokka"}, []string{"nothing"}, []string{"quokka quokka", "<b>&QUOKKA</b>"})
	hits, err := Search(context.Background(), d, "quokka", Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Hit{{0, 1, 4, 10}, {2, 0, 0, 6}, {2, 0, 7, 13}, {2, 1, 4, 10}}
	if fmt.Sprint(hits) != fmt.Sprint(want) {
		t.Fatalf("hits = %v, want %v", hits, want)
	}
	for _, p := range d.Pages {
		if p.Decoded {
			t.Fatal("Search without a loader must not modify the document")
		}
	}
}

func TestSearch_LoadsOnlyPagesThatMayMatch(t *testing.T) {
	d := searchDoc(t, []string{"alpha"}, []string{"beta zebra"}, []string{"gamma"})
	var loaded []int
	load := func(i int) error {
		loaded = append(loaded, i)
		return d.EnsurePage(i, Limits{})
	}
	hits, err := Search(context.Background(), d, "ZEBRA", Limits{}, load)
	if err != nil || len(hits) != 1 || hits[0].Page != 1 {
		t.Fatalf("hits=%v err=%v", hits, err)
	}
	if fmt.Sprint(loaded) != "[1]" {
		t.Fatalf("loaded pages %v, want only [1]", loaded)
	}
}

// TestSearch_EscapedTextIsStillFound: the raw pre-check must never rule a
// page out when JSON escapes spell the word (Python ensure_ascii, \/ …).
func TestSearch_EscapedTextIsStillFound(t *testing.T) {
	tests := []struct{ raw, q string }{
		{`"caf\u00e9 au lait"`, "café"},
		{`"\u0041pple"`, "apple"},
		{`"a\/b path"`, "a/b"},
		{`"say \"hi\""`, `"hi"`},
		{`"line1\nline2"`, "1\nl"},
		{`"\u212Aelvin"`, "kelvin"},
		{`"\u017Ftop"`, "stop"},
		{`"\u00c9T\u00c9"`, "été"},
		{`"x \u003cb\u003e"`, "<b>"},
	}
	for _, tt := range tests {
		data := `{"pages":[{"page_index":0,"elements":[{"text":` + tt.raw + `}]}]}`
		d, err := Decode([]byte(data), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		hits, err := Search(context.Background(), d, tt.q, Limits{}, nil)
		if err != nil || len(hits) != 1 {
			t.Errorf("search %q in %s: hits=%v err=%v", tt.q, tt.raw, hits, err)
		}
	}
}

func TestSearch_ManifestPagesUseLoaderOrReportError(t *testing.T) {
	d, err := Decode([]byte(`{"pages":[{"page_index":0,"uri":"p0.json"},{"page_index":1,"elements":[{"text":"needle"}]}]}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := Search(context.Background(), d, "needle", Limits{}, nil)
	if len(hits) != 1 || err == nil || !strings.Contains(err.Error(), "search page 0: manifest page not loaded") {
		t.Fatalf("hits=%v err=%v", hits, err)
	}
	load := func(i int) error {
		p := d.Pages[i]
		if !p.Decoded && p.URI != "" {
			np, err := DecodePage([]byte(`{"elements":[{"text":"a needle"}]}`), Limits{})
			if err != nil {
				return err
			}
			p.Elements, p.Decoded = np.Elements, true
			return nil
		}
		return d.EnsurePage(i, Limits{})
	}
	hits, err = Search(context.Background(), d, "needle", Limits{}, load)
	if err != nil || len(hits) != 2 || hits[0] != (Hit{0, 0, 2, 8}) {
		t.Fatalf("hits=%v err=%v", hits, err)
	}
}

func TestSearch_CancelledContextStops(t *testing.T) {
	d := searchDoc(t, []string{"a"}, []string{"a"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Search(ctx, d, "a", Limits{}, nil); err != context.Canceled {
		t.Fatalf("err = %v", err)
	}
}

func FuzzSearchRawPrecheck(f *testing.F) {
	f.Add("Café ſtop <b>&amp;</b> \u212A", "STOP", false)
	f.Add("a/b \"q\"\n", "/B", true)
	f.Fuzz(func(t *testing.T, text, q string, asciiOnly bool) {
		if q == "" || !utf8.ValidString(text) || !utf8.ValidString(q) {
			return
		}
		raw, err := json.Marshal(text)
		if err != nil {
			return
		}
		if asciiOnly { // Python's json.dumps(ensure_ascii=True) style
			var b strings.Builder
			for _, r := range string(raw) {
				if r < 0x80 {
					b.WriteRune(r)
				} else if r > 0xFFFF {
					r1, r2 := utf16Pair(r)
					fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
				} else {
					fmt.Fprintf(&b, `\u%04X`, r)
				}
			}
			raw = []byte(b.String())
		}
		data := []byte(`{"pages":[{"page_index":0,"elements":[{"text":` + string(raw) + `}]}]}`)
		d, err := Decode(data, Limits{})
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		m := newMatcher(q)
		if ws, _ := naiveFind(text, q, 0); ws >= 0 && m.rulesOut(d.Pages[0]) {
			t.Fatalf("raw pre-check ruled out %q in %s", q, raw)
		}
		gs, ge := m.find(text, 0)
		ws, we := naiveFind(text, q, 0)
		if gs != ws || ge != we {
			t.Fatalf("find(%q,%q) = %d,%d want %d,%d", text, q, gs, ge, ws, we)
		}
	})
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}

func TestSearch_MatchesOnlyElementTextNotKeysOrMetadata(t *testing.T) {
	d, err := Decode([]byte(`{"pages":[{"page_index":0,"title":"needle","elements":[{"element_id":"needle","category":"needle","text":"hay","ele_metadata":{"needle":"needle"}}]}]}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var loaded int
	hits, err := Search(context.Background(), d, "needle", Limits{}, func(i int) error { loaded++; return d.EnsurePage(i, Limits{}) })
	if err != nil || len(hits) != 0 || loaded != 0 {
		t.Fatalf("hits=%v loaded=%d err=%v: only text is searched, and the text index rules the page out", hits, loaded, err)
	}
}

// TestSearch_BigramFilterHasEveryTextBigramAtEverySize: folding the
// filter must never lose a bigram (no false negatives).
func TestSearch_BigramFilterHasEveryTextBigramAtEverySize(t *testing.T) {
	text := []byte("The Quick brown FOX jumps over the lazy dog; 日本語 テキスト 0123456789 !@#$%^&*()")
	for n := 2; n <= len(text); n += 7 {
		var sc bigramScratch
		sc.add(text[:n])
		sc.bytes = n * 40 // pretend more text so sizes vary
		for _, extra := range []int{0, n * 40, 1 << 20} {
			sc.bytes = n + extra
			f := sc.filter()
			for i := 1; i < n; i++ {
				if !f.has(bigramHash(lowerASCII(text[i-1]), lowerASCII(text[i]))) {
					t.Fatalf("size %d bits: bigram %q missing", len(f)*64, text[i-1:i+1])
				}
			}
		}
	}
}

func TestSearch_QueryBigramsSkipCaseUnstableRunes(t *testing.T) {
	tests := map[string]int{
		"abc":    2, // ab bc
		"Kelvin": 4, // el lv vi in (K may be U+212A in the text)
		"mass":   1, // ma
		"日本":     5, // the 6 UTF-8 bytes give 5 pairs
		"été":    0, // é has case variants, t alone
	}
	for q, want := range tests {
		if got := len(queryBigrams([]rune(q))); got != want {
			t.Errorf("queryBigrams(%q) = %d pairs, want %d", q, got, want)
		}
	}
}

func TestMatcher_PageByPageAgreesWithSearch(t *testing.T) {
	d := searchDoc(t, []string{"alpha"}, []string{"Beta ZEBRA zebra"}, []string{"gamma"})
	m := NewMatcher("zebra")
	var hits []Hit
	for i, p := range d.Pages {
		if !m.PageMayMatch(p) {
			continue
		}
		if err := d.EnsurePage(i, Limits{}); err != nil {
			t.Fatal(err)
		}
		for j, el := range p.Elements {
			for s, e := m.Find(el.Text, 0); s >= 0; s, e = m.Find(el.Text, e) {
				hits = append(hits, Hit{i, j, s, e})
			}
		}
	}
	if fmt.Sprint(hits) != "[{1 0 5 10} {1 0 11 16}]" || d.Pages[0].Decoded || d.Pages[2].Decoded {
		t.Fatalf("hits %v; pages without the word must not be decoded", hits)
	}
}
