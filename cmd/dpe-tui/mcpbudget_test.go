package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/search"
)

// costlyDocs writes a folder whose 8,000 distinct words all hold an "o":
// each `*o*` expands to all of them (under the Finder's 10,000-term cap),
// so eight of them (half the pattern cap) are a query that is slow without
// passing any count: about a second of CPU.
func costlyDocs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for d := range 20 {
		var b strings.Builder
		fmt.Fprintf(&b, "# Part %d\n\n", d)
		for p := range 16 {
			for w := range 25 {
				fmt.Fprintf(&b, "w%co%c%d ", 'a'+p, 'a'+w, d)
			}
			b.WriteString("\n\n")
		}
		writeFile(t, filepath.Join(dir, fmt.Sprintf("part%02d.md", d)), b.String())
	}
	return dir
}

// costlyQuery is eight `*o*`, each at its full expansion over costlyDocs.
var costlyQuery = strings.TrimSpace(strings.Repeat("*o* ", 8))

// startCostlyMCP runs `mcp --http` over costlyDocs with ARGS and waits for
// its index to hold every document.
func startCostlyMCP(t *testing.T, args ...string) string {
	t.Helper()
	url, stderr := startMCPHTTP(t, append([]string{"--docs", costlyDocs(t)}, args...)...)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		stderr.mu.Lock()
		all := strings.Join(stderr.lines, "\n")
		stderr.mu.Unlock()
		if strings.Contains(all, "Finder index ready: 20 documents") {
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("no Finder ready line:\n%s", all)
		}
	}
}

func mcpClient(t *testing.T, ctx context.Context, url string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// findAnswer is what the find tool said: its text and whether it is an
// error.
type findAnswer struct {
	text    string
	isError bool
}

func callFindTool(t *testing.T, ctx context.Context, cs *mcp.ClientSession, q string) findAnswer {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find", Arguments: map[string]any{"query": q}})
	if err != nil {
		return findAnswer{text: "call failed: " + err.Error(), isError: true}
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return findAnswer{text: b.String(), isError: res.IsError}
}

const tooManyQueries = "query over budget: queries running at once for this client: 3, the limit is 2"

// answered: a query admitted and run, to its hits or, on a loaded machine
// (-race), to the deadline that holds the slot no longer than 5s.
func answered(a findAnswer) bool {
	return a.text == "20 hits of 320; indexed: 20/20 documents" ||
		a.isError && a.text == "query over budget: the query ran past its deadline (limit 5s)"
}

// TestMCP_ConcurrentQueriesPerClient: through `mcp --http`, one client
// sending three costly queries at once gets two answers with hits and one
// "over budget" naming the per-client limit; another client's query at the
// same time is its own and is answered; once the queries are done the
// client is admitted again.
func TestMCP_ConcurrentQueriesPerClient(t *testing.T) {
	url := startCostlyMCP(t, "--find-timeout", "5s")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	one, other := mcpClient(t, ctx, url), mcpClient(t, ctx, url)

	answers := make([]findAnswer, 4)
	var wg sync.WaitGroup
	for i := range answers {
		cs := one
		if i == 3 {
			cs = other
		}
		wg.Go(func() { answers[i] = callFindTool(t, ctx, cs, costlyQuery) })
	}
	wg.Wait()
	refused := 0
	for i, a := range answers {
		switch {
		case a.isError && a.text == tooManyQueries && i < 3:
			refused++
		case !answered(a):
			t.Errorf("query %d answered %q, want every paragraph", i, a.text)
		}
	}
	if refused != 1 {
		t.Fatalf("%d of the client's 3 queries refused, want 1: %+v", refused, answers)
	}
	if a := callFindTool(t, ctx, one, costlyQuery); !answered(a) {
		t.Errorf("after its queries ended the client was refused: %q", a.text)
	}
}

// TestMCP_FindTimeoutIsTheDeadline: `mcp --find-timeout` is each query's
// deadline: the costly query stops there and says so; the `*o*` ×1,024
// flood is over budget before it runs; a plain word is answered.
func TestMCP_FindTimeoutIsTheDeadline(t *testing.T) {
	// A deadline no machine meets for the costly query: at 200 ms a quiet
	// machine sometimes answered it in time.
	const timeout = time.Millisecond
	url := startCostlyMCP(t, "--find-timeout", timeout.String())
	ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, time.Minute))
	defer cancel()
	cs := mcpClient(t, ctx, url)
	if a := callFindTool(t, ctx, cs, costlyQuery); !a.isError || a.text != "query over budget: the query ran past its deadline (limit 1ms)" {
		t.Errorf("costly query with a %s deadline: %+v", timeout, a)
	}
	// The flood is refused by its count of patterns, before any search
	// starts: within the deadline by construction, and the answer says
	// which bound it passed (not the deadline's words).
	flood := strings.TrimSpace(strings.Repeat("*o* ", 1024))
	if a := callFindTool(t, ctx, cs, flood); !a.isError || a.text != "query over budget: pattern terms (wildcard, regexp, prefix, fuzzy): 1024, the limit is 16" {
		t.Errorf("the flood: %+v", a)
	}
	// One word of 1,024 `*o*` passes every count; it is matched against
	// the dictionary term by term, and answered, not stopped. Whether it
	// fits in 200 ms depends on the machine's load, not on the rule, so it
	// is asked of a server whose deadline is the test's own.
	patient := testbudget.Left(t, time.Minute) / 2
	pcs := mcpClient(t, ctx, startCostlyMCP(t, "--find-timeout", patient.Round(time.Second).String()))
	if a := callFindTool(t, ctx, pcs, strings.Repeat("*o*", 1024)); a.isError || a.text != "0 hits of 0; indexed: 20/20 documents" {
		t.Errorf("the one-word flood: %+v", a)
	}
	if a := callFindTool(t, ctx, pcs, "wbod3"); a.isError || !strings.HasPrefix(a.text, "1 hit of 1") {
		t.Errorf("a plain word: %+v", a)
	}
}

// TestFind_SMCPConcurrentQueriesAndDeadline: the same bounds through SMCP
// client:tool_call, an agent asking computer alpha's Finder through the
// server the way find does (search.Run). Alpha reaches its Finder over one
// MCP session, so every query of its office shares that client's limit: of
// three sent at once, one is told the Finder is over budget, the others
// get hits. With --find-timeout the costly query is stopped at its
// deadline, in words, through the find command.
func TestFind_SMCPConcurrentQueriesAndDeadline(t *testing.T) {
	docs := costlyDocs(t)
	url := startServe(t, "--docs", docs, "--find-timeout", "5s")
	waitFinders(t, url, "alpha")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// One office holds one agent: the three queries are one agent's.
	c, err := client.Dial(ctx, client.Options{URL: url, Office: "demo", Name: "agent", ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	q := search.Query{Text: costlyQuery, Computers: []string{"alpha"}}
	results := make([]search.Result, 3)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			rs, err := search.Run(ctx, c, q, nil)
			switch {
			case err != nil:
				results[i] = search.Result{State: search.Failed, Err: err}
			case len(rs) != 1:
				results[i] = search.Result{State: search.Failed, Err: fmt.Errorf("%d results, want alpha's", len(rs))}
			default:
				results[i] = rs[0]
			}
		})
	}
	wg.Wait()
	refused := 0
	for i, r := range results {
		switch {
		case r.State == search.Failed && strings.Contains(r.Err.Error(), "queries running at once for this client: 3, the limit is 2"):
			refused++
		case r.State == search.Failed && strings.Contains(r.Err.Error(), "the query ran past its deadline (limit 5s)"): // a loaded machine
		case r.State != search.OK || len(r.Hits) != 20 || r.Total != 320:
			t.Errorf("query %d: state %v, %d hits of %d, err %v", i, r.State, len(r.Hits), r.Total, r.Err)
		}
	}
	if refused != 1 {
		var said []string
		for _, r := range results {
			said = append(said, fmt.Sprintf("%v: %d hits, %v", r.State, len(r.Hits), r.Err))
		}
		t.Fatalf("%d of 3 queries told over budget, want 1: %q", refused, said)
	}
	// Once they are done, the agent is admitted again.
	if rs, err := search.Run(ctx, c, q, nil); err != nil || len(rs) != 1 || rs[0].State != search.OK && !strings.Contains(rs[0].Err.Error(), "deadline") {
		t.Errorf("after its queries ended: %v %+v", err, rs)
	}
	_ = c.Close()

	url = startServe(t, "--docs", docs, "--find-timeout", "1ms") // no machine meets it
	waitFinders(t, url, "alpha")
	code, out, errOut := runCLI(t, "find", costlyQuery, "--url="+url, "--computer", "alpha")
	if code == exitOK || !strings.Contains(errOut, "query over budget: the query ran past its deadline (limit 1ms)") || out != "" {
		t.Errorf("costly query with a 1ms deadline: exit %d\n%s%s", code, out, errOut)
	}
}
