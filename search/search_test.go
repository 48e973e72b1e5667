package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// finderSchema is the input schema our Finder's find has (as the go-sdk
// infers it from finder.FindParams).
const finderSchema = `{"type":"object","required":["query"],"properties":{
	"query":{"type":"string"},"file_type":{"type":"string"},"keywords":{"type":["null","array"],"items":{"type":"string"}},
	"modified_after":{"type":"string"},"modified_before":{"type":"string"},"limit":{"type":"integer"},"cursor":{"type":"string"}}}`

func tool(name, schema string) protocol.SMCPTool {
	return protocol.SMCPTool{Name: name, ParamsSchema: json.RawMessage(schema)}
}

// fake is a Caller whose computers answer from tables; a computer in gate
// answers its tool_call only when its channel is closed.
type fake struct {
	computers []string
	tools     map[string][]protocol.SMCPTool
	toolErr   map[string]error
	results   map[string]string // computer → CallToolResult JSON
	gate      map[string]chan struct{}

	mu    sync.Mutex
	calls []string // "computer tool params"
}

func (f *fake) Computers(context.Context) ([]protocol.SessionInfo, error) {
	var out []protocol.SessionInfo
	for _, c := range f.computers {
		out = append(out, protocol.SessionInfo{Name: c, Role: "computer"})
	}
	return out, nil
}

func (f *fake) GetTools(_ context.Context, c string) ([]protocol.SMCPTool, error) {
	if err := f.toolErr[c]; err != nil {
		return nil, err
	}
	return f.tools[c], nil
}

func (f *fake) ToolCall(ctx context.Context, c, name string, params map[string]any) (json.RawMessage, error) {
	b, _ := json.Marshal(params)
	f.mu.Lock()
	f.calls = append(f.calls, c+" "+name+" "+string(b))
	f.mu.Unlock()
	if g := f.gate[c]; g != nil {
		select {
		case <-g:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return json.RawMessage(f.results[c]), nil
}

func findResult(total int, hits ...string) string {
	return fmt.Sprintf(`{"content":[{"type":"text","text":"x"}],"structuredContent":{"hits":[%s],"total":%d,"indexed":{"documents_indexed":3,"documents_total":4,"complete":false}}}`,
		strings.Join(hits, ","), total)
}

func hit(uri string, page int, el string, score float64) string {
	return fmt.Sprintf(`{"uri":%q,"title":"T","page":%d,"element_id":%q,"category":"NarrativeText","snippet":"a match here","match":[{"start":2,"end":7}],"score":%v}`, uri, page, el, score)
}

func TestIsFinder_NameAndSchema(t *testing.T) {
	cases := []struct {
		name string
		t    protocol.SMCPTool
		want bool
	}{
		{"our find", tool("find", finderSchema), true},
		{"type as a list", tool("find", `{"required":["query"],"properties":{"query":{"type":["string"]},"cursor":{"type":["string","null"]},"limit":{"type":"integer"},"file_type":{"type":"string"}}}`), true},
		{"another name", tool("search", finderSchema), false},
		{"find of a file finder", tool("find", `{"type":"object","required":["path"],"properties":{"path":{"type":"string"},"name":{"type":"string"}}}`), false},
		{"query not required", tool("find", `{"properties":{"query":{"type":"string"},"cursor":{"type":"string"},"limit":{"type":"integer"},"file_type":{"type":"string"}}}`), false},
		{"query not a string", tool("find", `{"required":["query"],"properties":{"query":{"type":"object"},"cursor":{"type":"string"},"limit":{"type":"integer"},"file_type":{"type":"string"}}}`), false},
		{"limit a string", tool("find", `{"required":["query"],"properties":{"query":{"type":"string"},"cursor":{"type":"string"},"limit":{"type":"string"},"file_type":{"type":"string"}}}`), false},
		{"no cursor", tool("find", `{"required":["query"],"properties":{"query":{"type":"string"},"limit":{"type":"integer"},"file_type":{"type":"string"}}}`), false},
		{"schema not JSON", tool("find", `{"required":`), false},
		{"no schema", tool("find", ``), false},
	}
	for _, tc := range cases {
		if got := IsFinder(tc.t); got != tc.want {
			t.Errorf("%s: IsFinder = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRun_StatesAndArrivalOrder: a computer whose find is a different tool
// is "no Finder", a slow one arrives last, and the fast ones are not held
// back by it.
func TestRun_StatesAndArrivalOrder(t *testing.T) {
	slow := make(chan struct{})
	f := &fake{
		computers: []string{"alpha", "beta", "gamma", "files"},
		tools: map[string][]protocol.SMCPTool{
			"alpha": {tool("echo", `{}`), tool("find", finderSchema)},
			"beta":  {tool("find", finderSchema)},
			"gamma": {tool("find", finderSchema)},
			"files": {tool("find", `{"type":"object","required":["path"],"properties":{"path":{"type":"string"}}}`)},
		},
		results: map[string]string{
			"alpha": findResult(2, hit("dpe://a.x/one", 2, "e1", 4), hit("dpe://a.x/two", 1, "e9", 2)),
			"beta":  findResult(1, hit("dpe://b.x/three", 7, "e3", 0.5)),
			"gamma": findResult(1, hit("dpe://g.x/four", 1, "e4", 100)),
		},
		gate: map[string]chan struct{}{"gamma": slow},
	}
	var order []string
	results, err := Run(context.Background(), f, Query{Text: "match", FileType: "pdf", Limit: 5}, func(r Result) {
		order = append(order, r.Computer)
		if len(order) == 3 {
			close(slow) // gamma answers only after the other three arrived
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 4 || order[3] != "gamma" {
		t.Fatalf("arrival order %v, want gamma last", order)
	}
	byName := map[string]Result{}
	for _, r := range results {
		byName[r.Computer] = r
	}
	if r := byName["files"]; r.State != NoFinder {
		t.Errorf("files: state %v, want NoFinder (a find with another schema)", r.State)
	}
	if r := byName["alpha"]; r.State != OK || r.Total != 2 || r.Indexed != "indexed: 3/4 documents" || r.Complete {
		t.Errorf("alpha: %+v", r)
	}
	for _, c := range f.calls {
		if !strings.Contains(c, `"file_type":"pdf"`) || !strings.Contains(c, `"limit":5`) || !strings.Contains(c, " find ") {
			t.Errorf("tool_call %s: want find with file_type and limit", c)
		}
		if strings.HasPrefix(c, "files ") {
			t.Errorf("the tool of a computer without Finder was called: %s", c)
		}
	}

	// Ranks are per computer: gamma's 100, alpha's 4 and beta's 0.5 are
	// all rank 1; ties go by place in the answer, then computer.
	merged := Merge(results, 10)
	var got []string
	for _, h := range merged {
		got = append(got, fmt.Sprintf("%s:%s:%.2f", h.Computer, h.URI, h.Rank))
	}
	want := []string{"alpha:dpe://a.x/one:1.00", "beta:dpe://b.x/three:1.00", "gamma:dpe://g.x/four:1.00", "alpha:dpe://a.x/two:0.50"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("merge:\n got %v\nwant %v", got, want)
	}
	if n := len(Merge(results, 2)); n != 2 {
		t.Errorf("Merge limit 2 kept %d", n)
	}
}

// TestMerge_Ties: equal ranks interleave the computers by place in their
// answers; raw scores of different indexes are not compared.
func TestMerge_Ties(t *testing.T) {
	body := func(hits ...string) string { return findResult(len(hits), hits...) }
	f := &fake{
		computers: []string{"a", "b"},
		tools:     map[string][]protocol.SMCPTool{"a": {tool("find", finderSchema)}, "b": {tool("find", finderSchema)}},
		results: map[string]string{
			// a's index scores everything 9; b's scores 1.
			"a": body(hit("dpe://x/a1", 1, "e1", 9), hit("dpe://x/a2", 1, "e1", 9), hit("dpe://x/a3", 1, "e1", 9), hit("dpe://x/a4", 2, "e1", 4.5)),
			"b": body(hit("dpe://x/b1", 1, "e1", 1), hit("dpe://x/b2", 1, "e1", 1)),
		},
	}
	results, err := Run(context.Background(), f, Query{Text: "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range Merge(results, 0) {
		got = append(got, h.URI[len("dpe://x/"):])
	}
	if want := "a1 b1 a2 b2 a3 a4"; strings.Join(got, " ") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	rs := []Result{{Hits: []Hit{
		{Computer: "a", URI: "dpe://x/b", Page: 1, ElementID: "e1", Rank: 1},
		{Computer: "a", URI: "dpe://x/a", Page: 3, ElementID: "e1", Rank: 1},
		{Computer: "a", URI: "dpe://x/a", Page: 2, ElementID: "e9", Rank: 1},
		{Computer: "a", URI: "dpe://x/a", Page: 2, ElementID: "e1", Rank: 1},
		{Computer: "0", URI: "dpe://x/z", Page: 9, ElementID: "e1", Rank: 1},
	}}}
	got = nil
	for _, h := range Merge(rs, 0) {
		got = append(got, fmt.Sprintf("%s%s/%d/%s", h.Computer, h.URI[len("dpe://x"):], h.Page, h.ElementID))
	}
	if want := "0/z/9/e1 a/a/2/e1 a/a/2/e9 a/a/3/e1 a/b/1/e1"; strings.Join(got, " ") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

// TestRun_MalformedIsThatComputersError: every kind of malformed answer
// fails only its computer, with one error and no hits.
func TestRun_MalformedIsThatComputersError(t *testing.T) {
	many := make([]string, maxHits+1)
	for i := range many {
		many[i] = hit("dpe://m.x/d", 1, fmt.Sprint("e", i), 1)
	}
	bad := map[string]string{
		"not-json":      `{"content":`,
		"no-structured": `{"content":[{"type":"text","text":"12 hits"}]}`,
		"hits-a-string": `{"structuredContent":{"hits":"lots","total":1}}`,
		"http-uri":      findResult(1, hit("https://evil.example/x", 1, "e1", 1)),
		"page-zero":     findResult(1, hit("dpe://m.x/d", 0, "e1", 1)),
		"no-element":    findResult(1, hit("dpe://m.x/d", 1, "", 1)),
		"too-many-hits": findResult(len(many), many...),
		"a-number":      `42`,
	}
	f := &fake{tools: map[string][]protocol.SMCPTool{}, results: map[string]string{}}
	for name, body := range bad {
		f.computers = append(f.computers, name)
		f.tools[name] = []protocol.SMCPTool{tool("find", finderSchema)}
		f.results[name] = body
	}
	f.computers = append(f.computers, "good")
	f.tools["good"] = []protocol.SMCPTool{tool("find", finderSchema)}
	f.results["good"] = findResult(1, hit("dpe://g.x/ok", 3, "e1", 2))

	results, err := Run(context.Background(), f, Query{Text: "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Computer == "good" {
			if r.State != OK || len(r.Hits) != 1 {
				t.Errorf("good: %+v", r)
			}
			continue
		}
		if r.State != Failed || r.Err == nil || len(r.Hits) != 0 {
			t.Errorf("%s: state %v, err %v, %d hits; want Failed with no hits", r.Computer, r.State, r.Err, len(r.Hits))
			continue
		}
		if msg := r.Err.Error(); !strings.HasPrefix(msg, "malformed Finder result: ") || strings.Count(msg, "malformed") != 1 || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q, want one line saying malformed once", r.Computer, msg)
		}
	}
	if hits := Merge(results, 0); len(hits) != 1 || hits[0].Computer != "good" {
		t.Errorf("merge of good and malformed: %+v", hits)
	}
}

func TestRun_CapsOnFields(t *testing.T) {
	long := strings.Repeat("é", 5000)
	body := fmt.Sprintf(`{"structuredContent":{"hits":[{"uri":"dpe://c.x/%s","title":%q,"page":1,"element_id":%q,"category":%q,"snippet":%q,
		"match":[{"start":-1,"end":3},{"start":5,"end":2},{"start":0,"end":999999},{"start":1,"end":4}],"score":1}],"total":1}}`,
		strings.Repeat("u", 5000), long, long, long, long)
	f := &fake{computers: []string{"c"}, tools: map[string][]protocol.SMCPTool{"c": {tool("find", finderSchema)}}, results: map[string]string{"c": body}}
	results, err := Run(context.Background(), f, Query{Text: "x"}, nil)
	if err != nil || len(results) != 1 || results[0].State != OK {
		t.Fatalf("%v %+v", err, results)
	}
	h := results[0].Hits[0]
	for name, s := range map[string]string{"uri": h.URI, "title": h.Title, "element_id": h.ElementID, "snippet": h.Snippet} {
		if len(s) > maxField+len("…") || !utf8.ValidString(s) {
			t.Errorf("%s: %d bytes (valid UTF-8 %v), cap %d", name, len(s), utf8.ValidString(s), maxField)
		}
	}
	if len(h.Category) > 64+len("…") {
		t.Errorf("category %d bytes", len(h.Category))
	}
	if len(h.Match) != 1 || h.Match[0] != (Span{1, 4}) {
		t.Errorf("spans outside the snippet were kept: %v", h.Match)
	}
}

func TestRun_ToolErrorsAndSyntax(t *testing.T) {
	syntax := `{"isError":true,"content":[{"type":"text","text":"query syntax: parse error:\n unterminated quote"}]}`
	f := &fake{
		computers: []string{"a", "b", "down"},
		tools:     map[string][]protocol.SMCPTool{"a": {tool("find", finderSchema)}, "b": {tool("find", finderSchema)}},
		toolErr:   map[string]error{"down": &client.TimeoutError{Event: "client:get_tools", Computer: "down", After: time.Second}},
		results:   map[string]string{"a": syntax, "b": syntax},
	}
	results, err := Run(context.Background(), f, Query{Text: `"x`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	se := Syntax(results)
	if se == nil || se.Msg != "query syntax: parse error: unterminated quote" {
		t.Fatalf("Syntax = %v, want the one-line engine message", se)
	}
	for _, r := range results {
		if r.Computer == "down" && (r.State != Failed || !strings.Contains(r.Err.Error(), "no answer within")) {
			t.Errorf("down: %+v", r)
		}
	}
	// One Finder that answers makes it no syntax error.
	f.results["b"] = findResult(0)
	results, _ = Run(context.Background(), f, Query{Text: `"x`}, nil)
	if se := Syntax(results); se != nil {
		t.Errorf("Syntax with one OK result = %v", se)
	}
	// A tool failure that is not syntax is that computer's error, with its text.
	f.results["b"] = `{"isError":true,"content":[{"type":"text","text":"index is locked"}]}`
	results, _ = Run(context.Background(), f, Query{Text: `x`}, nil)
	for _, r := range results {
		if r.Computer == "b" && (r.State != Failed || r.Err.Error() != "index is locked") {
			t.Errorf("b: %+v", r)
		}
	}
}

func TestStart_EmptyQueryAndCancel(t *testing.T) {
	if _, err := Start(context.Background(), &fake{}, Query{Text: "  "}); err == nil {
		t.Error("empty query accepted")
	}
	never := make(chan struct{})
	f := &fake{computers: []string{"stuck"}, tools: map[string][]protocol.SMCPTool{"stuck": {tool("find", finderSchema)}},
		gate: map[string]chan struct{}{"stuck": never}}
	s, err := Start(context.Background(), f, Query{Text: "x", Limit: 1000, Computers: []string{"stuck"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 1 {
		t.Fatalf("Len %d", s.Len())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := s.Next(ctx); ok {
		t.Fatal("Next on a cancelled context returned a result")
	}
	s.Cancel()
	r, ok := s.Next(context.Background())
	if !ok || r.State != Failed || !errors.Is(r.Err, context.Canceled) {
		t.Fatalf("after Cancel: %+v %v", r, ok)
	}
	if _, ok := s.Next(context.Background()); ok {
		t.Fatal("Next after the last computer returned a result")
	}
	if !strings.Contains(f.calls[0], `"limit":100`) {
		t.Errorf("limit not capped at 100: %s", f.calls[0])
	}
}

func TestOpenError(t *testing.T) {
	nr := fmt.Errorf("open dpe://h.x/d: %w", &client.NotRoutedError{Event: "client:get_dpe", Computer: "c"})
	err := OpenError(nr)
	want := "cannot open the hit: this server does not route client:get_dpe (the python-sdk reference server and A2C-SMCP 0.3 do not); search works through client:tool_call, opening needs get_dpe"
	if err.Error() != want {
		t.Fatalf("OpenError:\n got %q\nwant %q", err, want)
	}
	if !errors.Is(err, client.ErrNotRouted) {
		t.Error("OpenError lost the cause")
	}
	other := errors.New("open dpe://h.x/d: no such document")
	if OpenError(other) != other {
		t.Error("other errors are changed")
	}
}

// A Finder's note that a document is indexed only in part is carried: in
// the state line (Indexed) and alone (Note), one line, bounded.
func TestRun_PartlyIndexedNote(t *testing.T) {
	body := `{"structuredContent":{"hits":[],"total":0,"indexed":{"documents_indexed":1,"documents_total":1,"complete":true,` +
		`"documents_partial":1,"note":"partly indexed: big.dpe.json,\nthe first 296 of 2,000 pages"}}}`
	f := &fake{computers: []string{"c"}, tools: map[string][]protocol.SMCPTool{"c": {tool("find", finderSchema)}}, results: map[string]string{"c": body}}
	results, err := Run(context.Background(), f, Query{Text: "x"}, nil)
	if err != nil || len(results) != 1 || results[0].State != OK {
		t.Fatalf("%v %+v", err, results)
	}
	r := results[0]
	const note = "partly indexed: big.dpe.json, the first 296 of 2,000 pages"
	if !r.Complete || !r.Partial || r.Note != note || r.Indexed != "indexed: 1/1 documents; "+note {
		t.Errorf("complete %v partial %v note %q indexed %q", r.Complete, r.Partial, r.Note, r.Indexed)
	}
}

// Hits of identical copies (same title, page, element, snippet; another
// URI or computer) are one row with copies, in the merged order.
func TestGroup_IdenticalCopiesAreOneRow(t *testing.T) {
	h := func(computer, uri, title string, page int, snip string) Hit {
		return Hit{Computer: computer, URI: uri, Title: title, Page: page, ElementID: "e1", Snippet: snip}
	}
	hits := []Hit{
		h("alpha", "dpe://a/report.md", "Report", 2, "pump replaced"),
		h("alpha", "dpe://a/notes.md", "Notes", 1, "pump noted"),
		h("beta", "dpe://b/copy-of-report.md", "Report", 2, "pump replaced"),
		h("alpha", "dpe://a/old/report.md", "Report", 2, "pump replaced"),
		h("alpha", "dpe://a/report.md", "Report", 3, "pump replaced"), // another page: its own row
	}
	g := Group(hits)
	if len(g) != 3 {
		t.Fatalf("%d rows, want 3: %+v", len(g), g)
	}
	if g[0].URI != "dpe://a/report.md" || len(g[0].Copies) != 2 || g[0].Copies[0].Computer != "beta" || g[0].Copies[1].URI != "dpe://a/old/report.md" {
		t.Fatalf("first row: %+v", g[0])
	}
	if g[1].Title != "Notes" || len(g[1].Copies) != 0 || g[2].Page != 3 {
		t.Fatalf("order or grouping lost: %+v", g)
	}
}
