package finder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// page is one page of a test document: element id → text, in order.
type page [][2]string

func docJSON(uri, title string, pages ...page) []byte {
	type el struct {
		ID   string `json:"element_id"`
		Cat  string `json:"category"`
		Text string `json:"text"`
	}
	type pg struct {
		Index    int  `json:"page_index"`
		Elements []el `json:"elements"`
	}
	d := struct {
		DocRef    string `json:"doc_ref"`
		URI       string `json:"uri"`
		Title     string `json:"title"`
		PageCount int    `json:"page_count"`
		Pages     []pg   `json:"pages"`
	}{DocRef: "d", URI: uri, Title: title, PageCount: len(pages)}
	for i, p := range pages {
		q := pg{Index: i, Elements: []el{}}
		for _, e := range p {
			q.Elements = append(q.Elements, el{ID: e[0], Cat: "NarrativeText", Text: e[1]})
		}
		d.Pages = append(d.Pages, q)
	}
	b, err := json.Marshal(d)
	if err != nil {
		panic(err)
	}
	return b
}

func testDoc(uri, title, fileType, modified string, kws []string, pages ...page) Doc {
	data := docJSON(uri, title, pages...)
	return Doc{URI: uri, Name: uri[strings.LastIndex(uri, "/")+1:], Title: title, FileType: fileType, Keywords: kws,
		LastModified: modified, PageCount: len(pages), Key: fmt.Sprintf("%x", len(data)) + uri,
		Load: func() ([]byte, error) { return data, nil }}
}

// corpus is three small documents: English prose over three pages, a
// Chinese notice, and a CSV-like table.
func corpus() []Doc {
	return []Doc{
		testDoc("dpe://t.example/report", "Annual report", "pdf", "2024-03-01T00:00:00Z", []string{"Finance", "annual"},
			page{{"p1e1", "Introduction to the year"}},
			page{{"p2e1", "Revenue grew in every region"}, {"p2e2", "The Lantern Creek intake was commissioned in May"}},
			page{{"p3e1", "Outlook for the coming years"}}),
		testDoc("dpe://t.example/notice", "通知", "markdown", "2025-01-10T00:00:00Z", []string{"notice"},
			page{{"n1", "本公司将于下周召开年度股东大会，请各位股东准时出席。"}}),
		testDoc("dpe://t.example/table", "Stations", "csv", "2023-06-30T00:00:00Z", nil,
			page{{"t1", "station\tflow\nriverbend\t12\nquarry\t7"}}),
	}
}

func newFinder(t *testing.T, opt Options) *Finder {
	t.Helper()
	f, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, time.Minute))
	defer cancel()
	if err := f.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	return f
}

func staticSource(docs []Doc) Source {
	return func(context.Context) ([]Doc, error) { return docs, nil }
}

func find(t *testing.T, f *Finder, p FindParams) *FindResult {
	t.Helper()
	res, err := f.Find(context.Background(), p)
	if err != nil {
		t.Fatalf("Find(%+v): %v", p, err)
	}
	return res
}

func TestFind_HitOpensAtItsPlace(t *testing.T) {
	f := newFinder(t, Options{Source: staticSource(corpus())})
	cases := []struct {
		name, query, uri, element string
		page                      int
		match                     string
	}{
		{"phrase on page 2", `"Lantern Creek intake"`, "dpe://t.example/report", "p2e2", 2, "Lantern"},
		{"stemmed English", "commissioning", "dpe://t.example/report", "p2e2", 2, "commissioned"},
		{"CJK bigrams", "股东大会", "dpe://t.example/notice", "n1", 1, "股东"},
		{"table cell", "riverbend", "dpe://t.example/table", "t1", 1, "riverbend"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := find(t, f, FindParams{Query: tc.query})
			if len(res.Hits) == 0 {
				t.Fatalf("no hits for %q", tc.query)
			}
			h := res.Hits[0]
			if h.URI != tc.uri || h.Page != tc.page || h.ElementID != tc.element {
				t.Fatalf("first hit %s p.%d %s, want %s p.%d %s", h.URI, h.Page, h.ElementID, tc.uri, tc.page, tc.element)
			}
			if len(h.Match) == 0 {
				t.Fatalf("hit has no match spans: %+v", h)
			}
			r := []rune(h.Snippet)
			m := h.Match[0]
			if m.Start < 0 || m.End > len(r) || !strings.HasPrefix(tc.match, string(r[m.Start:m.End])) && !strings.HasPrefix(string(r[m.Start:m.End]), tc.match) {
				t.Errorf("first span %v of %q is %q, want it to cover %q", m, h.Snippet, string(r[m.Start:min(m.End, len(r))]), tc.match)
			}
			if res.Indexed.String() != "indexed: 3/3 documents" || !res.Indexed.Complete {
				t.Errorf("indexed = %+v", res.Indexed)
			}
		})
	}
}

func TestFind_TableWhitespaceFoldedInSnippet(t *testing.T) {
	f := newFinder(t, Options{Source: staticSource(corpus())})
	h := find(t, f, FindParams{Query: "quarry"}).Hits[0]
	if strings.ContainsAny(h.Snippet, "\t\n") {
		t.Fatalf("snippet keeps tabs/newlines: %q", h.Snippet)
	}
	r := []rune(h.Snippet)
	if got := string(r[h.Match[0].Start:h.Match[0].End]); got != "quarry" {
		t.Fatalf("span after folding covers %q, want quarry (snippet %q)", got, h.Snippet)
	}
}

func TestFind_Filters(t *testing.T) {
	f := newFinder(t, Options{Source: staticSource(corpus())})
	// "year" is in the report only; "the" is a stop word in en but not std.
	all := func(p FindParams) map[string]bool {
		out := map[string]bool{}
		for _, h := range find(t, f, p).Hits {
			out[h.URI] = true
		}
		return out
	}
	if got := all(FindParams{Query: "riverbend OR year", FileType: "PDF"}); len(got) != 1 || !got["dpe://t.example/report"] {
		t.Errorf("file_type pdf: %v", got)
	}
	if got := all(FindParams{Query: "riverbend OR year", FileType: "csv"}); len(got) != 1 || !got["dpe://t.example/table"] {
		t.Errorf("file_type csv: %v", got)
	}
	if got := all(FindParams{Query: "riverbend OR year", Keywords: []string{"finance"}}); len(got) != 1 || !got["dpe://t.example/report"] {
		t.Errorf("keywords finance: %v", got)
	}
	if got := all(FindParams{Query: "riverbend OR year OR 股东", ModifiedAfter: "2024-01-01"}); len(got) != 2 || got["dpe://t.example/table"] {
		t.Errorf("modified_after 2024-01-01: %v", got)
	}
	if got := all(FindParams{Query: "riverbend OR year OR 股东", ModifiedBefore: "2024-03-01T00:00:00Z"}); len(got) != 1 || !got["dpe://t.example/table"] {
		t.Errorf("modified_before (exclusive) 2024-03-01: %v", got)
	}
	if _, err := f.Find(context.Background(), FindParams{Query: "year", ModifiedAfter: "last tuesday"}); err == nil || !strings.Contains(err.Error(), "modified_after") {
		t.Errorf("bad modified_after: %v", err)
	}
}

// manyDocs is n one-page documents that all contain "common".
func manyDocs(n int) []Doc {
	docs := make([]Doc, n)
	for i := range docs {
		uri := fmt.Sprintf("dpe://t.example/doc%03d", i)
		docs[i] = testDoc(uri, fmt.Sprintf("Doc %d", i), "markdown", "", nil, page{{"e1", fmt.Sprintf("common word number %d", i)}})
	}
	return docs
}

func TestFind_CursorPagingAndMisuse(t *testing.T) {
	f := newFinder(t, Options{Source: staticSource(manyDocs(25))})
	seen := map[string]bool{}
	p := FindParams{Query: "common", Limit: 10}
	pages := 0
	for {
		res := find(t, f, p)
		pages++
		if res.Total != 25 {
			t.Fatalf("total %d, want 25", res.Total)
		}
		for _, h := range res.Hits {
			if seen[h.URI] {
				t.Fatalf("%s seen on two pages", h.URI)
			}
			seen[h.URI] = true
		}
		if res.NextCursor == "" {
			break
		}
		p.Cursor = res.NextCursor
	}
	if pages != 3 || len(seen) != 25 {
		t.Fatalf("%d pages, %d distinct hits; want 3 pages, 25 hits", pages, len(seen))
	}

	first := find(t, f, FindParams{Query: "common", Limit: 10})
	misuse := []struct {
		name string
		p    FindParams
		want string
	}{
		{"garbage", FindParams{Query: "common", Cursor: "!!not base64"}, "invalid cursor"},
		{"json but negative", FindParams{Query: "common", Cursor: encodeCursor(cursor{Offset: -5, Hash: hashOf("common", "", "", "", "")})}, "invalid cursor"},
		{"beyond the cap", FindParams{Query: "common", Cursor: encodeCursor(cursor{Offset: maxOffset + 1, Hash: hashOf("common", "", "", "", "")})}, "invalid cursor"},
		{"another query", FindParams{Query: "word", Cursor: first.NextCursor}, "another request"},
		{"another filter", FindParams{Query: "common", FileType: "pdf", Cursor: first.NextCursor}, "another request"},
		{"a list_documents cursor", FindParams{Query: "common", Cursor: mustList(t, f, ListParams{Limit: 1}).NextCursor}, "another request"},
	}
	for _, tc := range misuse {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.Find(context.Background(), tc.p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	// A find cursor is no list_documents cursor either.
	if _, err := f.ListDocuments(context.Background(), ListParams{Limit: 1, Cursor: first.NextCursor}); err == nil {
		t.Error("list_documents accepted a find cursor")
	}
}

func mustList(t *testing.T, f *Finder, p ListParams) *ListResult {
	t.Helper()
	res, err := f.ListDocuments(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestFind_Caps(t *testing.T) {
	long := strings.Repeat("ü", 70<<10) // 140 KiB of text in one element
	docs := append(manyDocs(120),
		testDoc("dpe://t.example/long", strings.Repeat("T", 1000), "txt", "", nil, page{{"big", "needle " + long + " tailword"}}))
	f := newFinder(t, Options{Source: staticSource(docs)})

	res := find(t, f, FindParams{Query: "common", Limit: 1000})
	if len(res.Hits) != MaxLimit || res.Total != 120 {
		t.Errorf("limit 1000: %d hits of %d, want %d of 120", len(res.Hits), res.Total, MaxLimit)
	}
	if res := find(t, f, FindParams{Query: "common"}); len(res.Hits) != DefaultLimit {
		t.Errorf("default limit: %d hits", len(res.Hits))
	}

	h := find(t, f, FindParams{Query: "needle"}).Hits[0]
	if n := utf8.RuneCountInString(h.Snippet); n > snippetRunes+2 {
		t.Errorf("snippet is %d runes, cap %d", n, snippetRunes)
	}
	if n := utf8.RuneCountInString(h.Title); n > maxTitleRunes+1 {
		t.Errorf("title is %d runes, cap %d", n, maxTitleRunes)
	}
	// Text past maxElementText is not indexed.
	if res := find(t, f, FindParams{Query: "tailword"}); len(res.Hits) != 0 {
		t.Errorf("a word after %d bytes of one element was indexed", maxElementText)
	}

	if _, err := f.Find(context.Background(), FindParams{Query: "   "}); err == nil {
		t.Error("empty query accepted")
	}
	if _, err := f.Find(context.Background(), FindParams{Query: strings.Repeat("a ", maxQueryBytes)}); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("oversized query: %v", err)
	}
}

func TestFind_SyntaxError(t *testing.T) {
	f := newFinder(t, Options{Source: staticSource(corpus())})
	for _, q := range []string{`"unterminated`, `/[/`, `word~9`, `+`} {
		_, err := f.Find(context.Background(), FindParams{Query: q})
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: err = %v, want a SyntaxError", q, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), "query syntax: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %q is not one line starting with \"query syntax: \"", q, err)
		}
	}
}

func TestListDocuments_SortFilterPage(t *testing.T) {
	f := newFinder(t, Options{Source: staticSource(corpus())})
	names := func(r *ListResult) string {
		var s []string
		for _, d := range r.Documents {
			s = append(s, d.Name)
		}
		return strings.Join(s, ",")
	}
	if got := names(mustList(t, f, ListParams{})); got != "notice,report,table" {
		t.Errorf("by name: %s", got)
	}
	if got := names(mustList(t, f, ListParams{Sort: "lastModified", Order: "desc"})); got != "notice,report,table" {
		t.Errorf("by lastModified desc: %s", got)
	}
	if got := names(mustList(t, f, ListParams{Sort: "page_count", Order: "desc"})); got != "report,notice,table" {
		t.Errorf("by page_count desc: %s", got)
	}
	if got := names(mustList(t, f, ListParams{Filter: "STAT"})); got != "table" {
		t.Errorf("filter on the title: %s", got)
	}
	if got := names(mustList(t, f, ListParams{FileType: "markdown"})); got != "notice" {
		t.Errorf("file_type: %s", got)
	}
	p1 := mustList(t, f, ListParams{Limit: 2})
	p2 := mustList(t, f, ListParams{Limit: 2, Cursor: p1.NextCursor})
	if names(p1) != "notice,report" || names(p2) != "table" || p2.NextCursor != "" || p1.Total != 3 {
		t.Errorf("paging: %q then %q (next %q)", names(p1), names(p2), p2.NextCursor)
	}
	if _, err := f.ListDocuments(context.Background(), ListParams{Sort: "size"}); err == nil {
		t.Error("unknown sort accepted")
	}
	if _, err := f.ListDocuments(context.Background(), ListParams{Order: "sideways"}); err == nil {
		t.Error("unknown order accepted")
	}
	if _, err := f.ListDocuments(context.Background(), ListParams{Limit: 2, Sort: "page_count", Cursor: p1.NextCursor}); err == nil {
		t.Error("a cursor of another sort accepted")
	}
}

// TestFind_AnswersWhileIndexing: find answers from the part indexed so far
// and says how much that is.
func TestFind_AnswersWhileIndexing(t *testing.T) {
	const batch = 200
	docs := manyDocs(3 * batch / 2)
	gate := make(chan struct{})
	var loads atomic.Int64
	for i := range docs {
		load := docs[i].Load
		docs[i].Load = func() ([]byte, error) {
			if loads.Add(1) > batch {
				<-gate // the second batch waits until the test has looked
			}
			return load()
		}
	}
	f, err := New(Options{Source: staticSource(docs), batch: batch})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	deadline := testbudget.Until(t, time.Minute)
	for f.Status().Indexed < batch && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	res := find(t, f, FindParams{Query: "common"})
	want := fmt.Sprintf("indexed: %d/%d documents", batch, len(docs))
	if res.Indexed.String() != want || res.Indexed.Complete || res.Total != batch {
		t.Fatalf("mid-build: %s complete=%v total=%d, want %s, incomplete, total %d", res.Indexed, res.Indexed.Complete, res.Total, want, batch)
	}
	close(gate)
	ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, time.Minute))
	defer cancel()
	if err := f.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if res := find(t, f, FindParams{Query: "common"}); res.Total != len(docs) || !res.Indexed.Complete {
		t.Fatalf("after build: total %d, %s", res.Total, res.Indexed)
	}
}

// TestIndexOnDisk_RestartReindexesOnlyChanges: a second Finder on the same
// directory loads no unchanged document, and a rescan drops a removed one.
func TestIndexOnDisk_RestartReindexesOnlyChanges(t *testing.T) {
	dir := t.TempDir() + "/idx"
	docs := corpus()
	var loads atomic.Int64
	counted := func(ds []Doc) []Doc {
		out := append([]Doc(nil), ds...)
		for i := range out {
			load := out[i].Load
			out[i].Load = func() ([]byte, error) { loads.Add(1); return load() }
		}
		return out
	}
	f := newFinder(t, Options{Source: staticSource(counted(docs)), Dir: dir})
	if loads.Load() != 3 {
		t.Fatalf("first build loaded %d documents, want 3", loads.Load())
	}
	_ = f.Close()

	loads.Store(0)
	changed := counted(docs)
	changed[2] = counted([]Doc{testDoc("dpe://t.example/table", "Stations", "csv", "", nil, page{{"t1", "station\nmillpond\t3"}})})[0]
	changed[2].Key = "new-key"
	var src atomic.Pointer[[]Doc]
	src.Store(&changed)
	f2 := newFinder(t, Options{Source: func(context.Context) ([]Doc, error) { return *src.Load(), nil }, Dir: dir})
	if loads.Load() != 1 {
		t.Fatalf("restart loaded %d documents, want only the changed one", loads.Load())
	}
	if res := find(t, f2, FindParams{Query: "millpond"}); len(res.Hits) != 1 {
		t.Fatalf("changed document not re-indexed: %+v", res)
	}
	if res := find(t, f2, FindParams{Query: "riverbend"}); len(res.Hits) != 0 {
		t.Fatalf("old content of the changed document still found")
	}
	if res := find(t, f2, FindParams{Query: `"Lantern Creek"`}); len(res.Hits) != 1 {
		t.Fatalf("unchanged document lost on restart")
	}

	fewer := changed[:2]
	src.Store(&fewer)
	f2.Rescan()
	deadline := testbudget.Until(t, time.Minute)
	for time.Now().Before(deadline) {
		if st := f2.Status(); st.Total == 2 && st.Complete && len(find(t, f2, FindParams{Query: "millpond"}).Hits) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("rescan did not drop the removed document: %s", f2.Status())
}

// TestTools_SchemasAndErrors drives find and list_documents over MCP.
func TestTools_SchemasAndErrors(t *testing.T) {
	f := newFinder(t, Options{Source: staticSource(corpus())})
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
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var findTool *mcp.Tool
	for _, tl := range tools.Tools {
		if tl.Name == ToolFind {
			findTool = tl
		}
	}
	if findTool == nil || findTool.OutputSchema == nil {
		t.Fatalf("find not listed with an output schema: %+v", tools.Tools)
	}
	b, _ := json.Marshal(findTool.InputSchema)
	var schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	for prop, typ := range map[string]string{"query": "string", "cursor": "string", "limit": "integer", "file_type": "string",
		"modified_after": "string", "modified_before": "string", "keywords": "array"} {
		if got := fmt.Sprint(schema.Properties[prop].Type); !strings.Contains(got, typ) {
			t.Errorf("input schema: %s is %s, want %q (schema %s)", prop, got, typ, b)
		}
	}
	if len(schema.Required) != 1 || schema.Required[0] != "query" {
		t.Errorf("required = %v, want [query]", schema.Required)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolFind, Arguments: map[string]any{"query": `"open`}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || len(res.Content) == 0 || !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "query syntax: ") {
		t.Fatalf("syntax error result: %+v", res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolFind, Arguments: map[string]any{"query": "riverbend"}})
	if err != nil || res.IsError {
		t.Fatalf("find: %v %+v", err, res)
	}
	b, _ = json.Marshal(res.StructuredContent)
	var fr FindResult
	if err := json.Unmarshal(b, &fr); err != nil || len(fr.Hits) != 1 || fr.Hits[0].ElementID != "t1" {
		t.Fatalf("structured content %s: %v", b, err)
	}
	if txt := res.Content[0].(*mcp.TextContent).Text; txt != "1 hit of 1; indexed: 3/3 documents" {
		t.Errorf("text content %q", txt)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolListDocuments, Arguments: map[string]any{"sort": "page_count", "order": "desc", "limit": 1}})
	if err != nil || res.IsError {
		t.Fatalf("list_documents: %v %+v", err, res)
	}
	b, _ = json.Marshal(res.StructuredContent)
	var lr ListResult
	if err := json.Unmarshal(b, &lr); err != nil || len(lr.Documents) != 1 || lr.Documents[0].Name != "report" || lr.NextCursor == "" {
		t.Fatalf("list_documents structured content %s: %v", b, err)
	}
}

// TestFind_CJKPhrasePrecision: a CJK query term is one phrase, not a bag
// of its character pairs. The corpus has CJK documents that share pairs
// with the query (股东, 大会, 会议) but not the phrase: none of them is a hit.
func TestFind_CJKPhrasePrecision(t *testing.T) {
	docs := append(corpus(),
		testDoc("dpe://t.example/minutes", "会议纪要", "markdown", "2025-02-01T00:00:00Z", nil,
			page{{"m1", "大会议室今天下午维修，股东代表改在三楼见面。"}}),
		testDoc("dpe://t.example/sports", "运动会", "markdown", "2025-02-02T00:00:00Z", nil,
			page{{"s1", "秋季运动大会将在体育场举行。"}}),
		testDoc("dpe://t.example/jp", "お知らせ", "markdown", "2025-02-03T00:00:00Z", nil,
			page{{"j1", "株主総会は来週開催されます。"}}),
	)
	f := newFinder(t, Options{Source: staticSource(docs)})
	for _, tc := range []struct{ query, phrase, uri string }{
		{"股东大会", "股东大会", "dpe://t.example/notice"},
		{"株主総会", "株主総会", "dpe://t.example/jp"},
		{"运动大会", "运动大会", "dpe://t.example/sports"},
	} {
		res := find(t, f, FindParams{Query: tc.query, Limit: MaxLimit})
		if len(res.Hits) != 1 || res.Total != 1 {
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.URI+" "+h.Snippet)
			}
			t.Errorf("%s: %d hits (total %d), want exactly %s:\n%s", tc.query, len(res.Hits), res.Total, tc.uri, strings.Join(got, "\n"))
			continue
		}
		if h := res.Hits[0]; h.URI != tc.uri || !strings.Contains(h.Snippet, tc.phrase) {
			t.Errorf("%s: hit %s %q", tc.query, h.URI, h.Snippet)
		}
	}
	// Two CJK terms are two phrases, either of which may match.
	res := find(t, f, FindParams{Query: "股东大会 株主総会", Limit: MaxLimit})
	if res.Total != 2 {
		t.Errorf("two CJK phrases: %d hits, want 2", res.Total)
	}
}

// A snippet is cut around the densest run of matches, not the first one,
// and its ends fall between words.
func TestSnippet_DensestMatchesAndWordBoundaries(t *testing.T) {
	text := "The pump was checked. " + strings.Repeat("Nothing else of note happened that week at all. ", 8) +
		"The pump house, the pump seals and the spare pump were replaced after the flood. " +
		strings.Repeat("Afterwards the crews wrote their reports carefully. ", 8)
	var spans [][2]int
	for i := 0; ; {
		j := strings.Index(text[i:], "pump")
		if j < 0 {
			break
		}
		spans = append(spans, [2]int{i + j, i + j + 4})
		i += j + 4
	}
	snip, match := snippet(text, spans)
	if !strings.Contains(snip, "pump house, the pump seals and the spare pump") || len(match) < 3 {
		t.Fatalf("the snippet is not around the three close matches: %q %v", snip, match)
	}
	r := []rune(snip)
	for _, m := range match {
		if got := string(r[m.Start:m.End]); got != "pump" {
			t.Fatalf("span %v covers %q in %q", m, got, snip)
		}
	}
	if !strings.HasPrefix(snip, "…") || !strings.HasSuffix(snip, "…") {
		t.Fatalf("cut ends are not marked: %q", snip)
	}
	body := strings.TrimSuffix(strings.TrimPrefix(snip, "…"), "…")
	words := strings.Fields(text)
	sw := strings.Fields(body)
	if !slices.Contains(words, sw[0]) || !slices.Contains(words, sw[len(sw)-1]) {
		t.Fatalf("a word is cut at an end: first %q, last %q in %q", sw[0], sw[len(sw)-1], snip)
	}
	if n := utf8.RuneCountInString(snip); n > snippetRunes+2 {
		t.Fatalf("snippet is %d runes", n)
	}
	// A text shorter than the window is whole, without marks.
	if s, m := snippet("one pump here", [][2]int{{4, 8}}); s != "one pump here" || m[0] != (Span{4, 8}) {
		t.Fatalf("short text: %q %v", s, m)
	}
}
