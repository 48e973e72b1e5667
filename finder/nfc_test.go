package finder

import (
	"errors"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// TestFind_NFCAndNFDMatch: query text, list filters and indexed text are
// all NFC, so "café" typed in either form finds content in either form.
func TestFind_NFCAndNFDMatch(t *testing.T) {
	nfc, nfd := "café", norm.NFD.String("café")
	if nfc == nfd {
		t.Fatal("the test needs two forms")
	}
	docs := []Doc{
		testDoc("dpe://t.example/nfc", "Menu "+nfc, "md", "2024-01-01T00:00:00Z", nil, page{{"a1", "The " + nfc + " opens at nine"}}),
		testDoc("dpe://t.example/nfd", "Carte "+nfd, "md", "2024-01-01T00:00:00Z", nil, page{{"b1", "Le " + nfd + " ferme à minuit"}}),
	}
	f := newFinder(t, Options{Source: staticSource(docs)})
	for _, q := range []string{nfc, nfd} {
		res := find(t, f, FindParams{Query: q})
		got := map[string]bool{}
		for _, h := range res.Hits {
			got[h.URI] = true
		}
		if !got["dpe://t.example/nfc"] || !got["dpe://t.example/nfd"] {
			t.Errorf("query %+q: hits %+v, want both documents", q, res.Hits)
		}
	}
	for _, filter := range []string{"é", norm.NFD.String("é")} {
		res, err := f.ListDocuments(t.Context(), ListParams{Filter: filter})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Documents) != 2 {
			t.Errorf("filter %+q: %d documents, want 2", filter, len(res.Documents))
		}
	}
}

// TestFind_SyntaxErrorNamesTheProblem: what the parser only calls a
// "syntax error" is named, and a regexp Go refuses by its problem.
func TestFind_SyntaxErrorNamesTheProblem(t *testing.T) {
	f := newFinder(t, Options{Source: staticSource(corpus())})
	for q, want := range map[string]string{
		"title:":         "query syntax: field title: needs a value",
		"+":              "query syntax: + needs a term after it",
		"revenue -":      "query syntax: - needs a term after it",
		`"Lantern Creek`: "query syntax: parse error: unterminated quote", // the parser's own words
		// Go's problem alone: the engine's anchoring ("[)$") is not the
		// user's text.
		"/[/":        "query syntax: regexp: missing closing ]",
		"title:/a(/": "query syntax: regexp: missing closing )",
	} {
		_, err := f.Find(t.Context(), FindParams{Query: q})
		var se *SyntaxError
		if !errors.As(err, &se) || err.Error() != want {
			t.Errorf("query %q: %v, want %q", q, err, want)
		}
	}
}

// TestFind_CJKPhraseHighlightsThePhraseOnly: a CJK query marks its whole
// phrase in the snippet, not a lone character of it elsewhere.
func TestFind_CJKPhraseHighlightsThePhraseOnly(t *testing.T) {
	docs := []Doc{testDoc("dpe://t.example/ar", "年报", "md", "2024-01-01T00:00:00Z", nil,
		page{{"a1", "二〇二五年的年度报告已发布。"}})}
	f := newFinder(t, Options{Source: staticSource(docs)})
	res := find(t, f, FindParams{Query: "年度报告"})
	if len(res.Hits) != 1 {
		t.Fatalf("hits %+v", res.Hits)
	}
	h := res.Hits[0]
	r := []rune(h.Snippet)
	var marked []string
	for _, m := range h.Match {
		marked = append(marked, string(r[m.Start:m.End]))
	}
	if len(marked) != 1 || marked[0] != "年度报告" {
		t.Errorf("marked %q in %q, want only the phrase", marked, h.Snippet)
	}
}
