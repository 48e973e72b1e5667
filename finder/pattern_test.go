package finder

import (
	"context"
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// globRegexp is the wildcard as bleve read it (a regexp of the whole
// term): the meaning glob must keep.
func globRegexp(w string) *regexp.Regexp {
	var b strings.Builder
	for _, r := range w {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return regexp.MustCompile("^(?:" + b.String() + ")$")
}

func TestGlob_MatchesAsTheRegexp(t *testing.T) {
	cases := []struct {
		w, s string
		want bool
	}{
		{"*", "", true}, {"", "", true}, {"", "a", false}, {"a*", "abc", true}, {"*c", "abc", true},
		{"a*c", "abc", true}, {"a*c", "abcd", false}, {"?", "é", true}, {"??", "é", false},
		{"*o*o*", "foo", true}, {"*o*o*", "fo", false}, {"a?c*", "abcd", true}, {"*ab*ab", "abab", true},
		{"*ab*ab", "aab", false}, {"*a?", "aaé", true}, {"日*本", "日本", true}, {"日?本", "日x本", true},
		{strings.Repeat("*o*", 1024), strings.Repeat("o", 1023), false},
		{strings.Repeat("*o*", 1024), strings.Repeat("o", 1024), true},
	}
	for _, c := range cases {
		if got := newGlob(c.w).match(c.s); got != c.want || globRegexp(c.w).MatchString(c.s) != c.want {
			t.Errorf("%.20q on %.20q: %v, want %v", c.w, c.s, got, c.want)
		}
	}
	// Random patterns over a small alphabet, where stars and repeats meet.
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(alpha string, n int) string {
		r := []rune(alpha)
		var b strings.Builder
		for range rng.IntN(n) {
			b.WriteRune(r[rng.IntN(len(r))])
		}
		return b.String()
	}
	for range 20000 {
		w, s := pick("ab*?é", 7), pick("abé", 8)
		if got, want := newGlob(w).match(s), globRegexp(w).MatchString(s); got != want {
			t.Fatalf("%q on %q: %v, the regexp says %v", w, s, got, want)
		}
	}
}

func FuzzGlob(f *testing.F) {
	f.Add("*o*o*", "foo")
	f.Add("a?c*", "abcd")
	f.Fuzz(func(t *testing.T, w, s string) {
		// Terms and queries are UTF-8 (the index and Find normalise
		// them); the regexp reads a bad byte as U+FFFD, so any two alike.
		if len(w) > 64 || len(s) > 64 || !utf8.ValidString(w) || !utf8.ValidString(s) {
			return
		}
		if got, want := newGlob(w).match(s), globRegexp(w).MatchString(s); got != want {
			t.Fatalf("%q on %q: %v, the regexp says %v", w, s, got, want)
		}
	})
}

// TestFind_OnePatternFloodWithinDeadline: `*o*` 1,024 times in one word is
// one wildcard (under the pattern cap), which bleve compiled into an
// automaton for minutes before the deadline was looked at. Through the
// find tool it is answered within the query's deadline, with the hits it
// has (none: no word holds 1,024 o's), and a shorter one still finds.
func TestFind_OnePatternFloodWithinDeadline(t *testing.T) {
	lim := QueryLimits{Timeout: 2 * time.Second}
	f := newFinder(t, Options{Source: staticSource(wordyCorpus()), Limits: lim})
	_, control := callFind(t, f, "wordaao7")
	q := strings.Repeat("*o*", 1024)
	res, took := callFind(t, f, q)
	text := res.Content[0].(*mcp.TextContent).Text
	if bound := answerBound(lim, control); took > bound {
		t.Errorf("answered after %s, past the query's %s deadline (bound %s)", took, lim.timeout(), bound)
	}
	if res.IsError && !strings.Contains(text, "over budget") || !res.IsError && !strings.HasPrefix(text, "0 hits of 0") {
		t.Errorf("the flood: %q (error %v), want no hits or over budget", text, res.IsError)
	}
	if res, _ := callFind(t, f, "*?ao4?"); res.IsError || !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "10 hits of 10") {
		t.Errorf("a narrower wildcard: %+v", res.Content[0])
	}
	// A regexp whose program is past the cap is refused before it runs.
	_, err := f.Find(context.Background(), FindParams{Query: "/(.*o){1000}/"})
	var be *BudgetError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "regexp's program") {
		t.Errorf("a huge regexp: %v", err)
	}
	// A fuzzy term too long for its automaton is over budget too.
	if _, err := f.Find(context.Background(), FindParams{Query: strings.Repeat("o", 4000) + "~2"}); !errors.As(err, &be) || !strings.Contains(err.Error(), "fuzzy term's automaton") {
		t.Errorf("a 4,000-byte fuzzy term: %v", err)
	}
	if got := find(t, f, FindParams{Query: "/word[ab]ao4[0-9]/"}); got.Total != 2 {
		t.Errorf("a regexp: %d hits, want 2", got.Total)
	}
}

// countingPattern matches every term and counts the calls, running hook
// on each.
type countingPattern struct {
	calls int
	hook  func()
}

func (c *countingPattern) match(string) bool { c.calls++; c.hook(); return true }

// TestExpandTerms_StopsAsItGoes: the dictionary walk looks at the deadline
// every checkEvery terms and charges the cap as terms match, so neither
// waits for the whole dictionary (about 10,000 terms here).
func TestExpandTerms_StopsAsItGoes(t *testing.T) {
	f := newFinder(t, Options{Source: staticSource(wordyCorpus())})
	ix, err := f.idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := ix.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()

	all, err := expandTerms(context.Background(), r, "std", "", &countingPattern{hook: func() {}}, 0)
	if err != nil || len(all) < 10*checkEvery {
		t.Fatalf("the whole dictionary: %d terms, %v", len(all), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := &countingPattern{hook: cancel}
	if _, err := expandTerms(ctx, r, "std", "", p, 0); !errors.Is(err, context.Canceled) || p.calls > checkEvery {
		t.Errorf("cancelled at the first term: %v after %d terms", err, p.calls)
	}
	p = &countingPattern{hook: func() {}}
	var be *BudgetError
	if _, err := expandTerms(context.Background(), r, "std", "", p, 5); !errors.As(err, &be) || p.calls != 6 {
		t.Errorf("a cap of 5: %v after %d terms", err, p.calls)
	}
}

// TestFind_CallerGoneStopsTheQuery: a client that goes away (an MCP
// request cancelled: the TUI's q, a closed session) ends its query's work
// then, not at the query's deadline.
func TestFind_CallerGoneStopsTheQuery(t *testing.T) {
	lim := QueryLimits{Timeout: 10 * time.Minute, MaxPatterns: 4096, MaxExpansion: 1 << 30}
	f := newFinder(t, Options{Source: staticSource(wordyCorpus()), Limits: lim})
	srv := mcp.NewServer(&mcp.Implementation{Name: "finder-test"}, nil)
	f.AddTools(srv)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ss.Close() }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close() }()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolFind, Arguments: map[string]any{"query": oQuery}})
		done <- err
	}()
	for f.inflight.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	start := time.Now()
	<-done
	// Within a small part of the deadline: only the pattern being
	// expanded finishes.
	for f.inflight.Load() != 0 {
		if time.Since(start) > lim.Timeout/10 {
			t.Fatalf("the query still runs %s after its caller went away", time.Since(start))
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("stopped %s after the cancel", time.Since(start))
}
