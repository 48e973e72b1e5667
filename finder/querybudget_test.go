package finder

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// oQuery is the 4,095-byte query of the report: `*o*` 1,024 times.
var oQuery = strings.TrimSpace(strings.Repeat("*o* ", 1024))

// wordyCorpus has many distinct terms with an "o" in them, so that each
// `*o*` expands to thousands of terms.
func wordyCorpus() []Doc {
	var docs []Doc
	for d := range 10 {
		var p page
		for e := range 20 {
			var b strings.Builder
			for w := range 50 {
				fmt.Fprintf(&b, "word%c%co%d ", 'a'+d, 'a'+e, w)
			}
			p = append(p, [2]string{fmt.Sprintf("e%d", e), b.String()})
		}
		docs = append(docs, testDoc(fmt.Sprintf("dpe://t.example/w%d", d), "Words", "markdown", "2024-01-01T00:00:00Z", nil, p))
	}
	return docs
}

func callFind(t *testing.T, f *Finder, q string) (*mcp.CallToolResult, time.Duration) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "finder-test"}, nil)
	f.AddTools(srv)
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ss.Close() }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close() }()
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolFind, Arguments: map[string]any{"query": q}})
	if err != nil {
		t.Fatal(err)
	}
	return res, time.Since(start)
}

// answerBound is how long a query with limits lim may take to be answered
// through the find tool: its deadline, plus 20 times what a plain query
// took through the same tool just before (the round trip and the one
// pattern being expanded at the deadline, on this machine now: a loaded
// 2-core machine under -race is many times slower than an idle one).
func answerBound(lim QueryLimits, control time.Duration) time.Duration {
	return lim.timeout() + 20*control
}

// TestFind_PatternFloodIsOverBudget: the `*o*` ×1,024 query is answered
// "over budget" through the find tool (the path MCP, SMCP tool_call and the
// TUI share), within the query's own deadline, and plain queries still work.
func TestFind_PatternFloodIsOverBudget(t *testing.T) {
	if len(oQuery) != 4095 {
		t.Fatalf("query is %d bytes", len(oQuery))
	}
	lim := QueryLimits{Timeout: 3 * time.Second}
	f := newFinder(t, Options{Source: staticSource(wordyCorpus()), Limits: lim})
	plain, control := callFind(t, f, "wordaao7")
	if plain.IsError {
		t.Errorf("a plain word: %+v", plain.Content[0])
	}
	res, took := callFind(t, f, oQuery)
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "over budget") || !strings.Contains(text, "1024") {
		t.Fatalf("answer %q (error %v), want over budget naming the 1024 patterns", text, res.IsError)
	}
	if bound := answerBound(lim, control); took > bound {
		t.Errorf("answered after %s, past the query's %s deadline (bound %s)", took, lim.timeout(), bound)
	}
}

// TestFind_DeadlineAndExpansionCaps: with the pattern cap out of the way,
// the deadline stops the flood (each pattern checks it before it expands),
// and one pattern matching more terms than the cap is refused.
func TestFind_DeadlineAndExpansionCaps(t *testing.T) {
	docs := wordyCorpus()
	lim := QueryLimits{Timeout: 300 * time.Millisecond, MaxPatterns: 4096, MaxExpansion: 1 << 30}
	f := newFinder(t, Options{Source: staticSource(docs), Limits: lim})
	start := time.Now()
	_, err := f.Find(context.Background(), FindParams{Query: oQuery})
	took := time.Since(start)
	var be *BudgetError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("flood with a %s deadline: %v", lim.timeout(), err)
	}
	// A ratio of the deadline, not a wall-clock budget: past it only the
	// pattern being expanded finishes.
	if took > 10*lim.timeout() {
		t.Errorf("stopped after %s, deadline %s", took, lim.timeout())
	}

	g := newFinder(t, Options{Source: staticSource(docs), Limits: QueryLimits{MaxExpansion: 5}})
	for _, q := range []string{"*o*", "/word.*/", "word*", "wordaao7~2"} {
		_, err := g.Find(context.Background(), FindParams{Query: q})
		if !errors.As(err, &be) || !strings.Contains(err.Error(), "terms one pattern matches") {
			t.Errorf("%s with 5 terms allowed: %v", q, err)
		}
	}
	if res := find(t, g, FindParams{Query: "wordaao49*"}); res.Total == 0 {
		t.Errorf("a narrow prefix under the cap found nothing")
	}
	// The caller's own cancellation is not a budget.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.Find(ctx, FindParams{Query: "*o*"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled by the caller: %v", err)
	}
}

func TestClients_ConcurrentQueriesPerClient(t *testing.T) {
	var c clients
	a, b := new(int), new(int)
	r1, err1 := c.admit(a, 2)
	_, err2 := c.admit(a, 2)
	_, err3 := c.admit(a, 2)
	if err1 != nil || err2 != nil || err3 == nil || !strings.Contains(err3.Error(), "over budget") {
		t.Fatalf("third query of one client: %v %v %v", err1, err2, err3)
	}
	if _, err := c.admit(b, 2); err != nil {
		t.Errorf("another client: %v", err)
	}
	r1()
	if _, err := c.admit(a, 2); err != nil {
		t.Errorf("after one answer: %v", err)
	}
}
