package library

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/finder"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// finderSession opens the corpus library with Finder and an MCP client
// session on it, and waits for the index.
func finderSession(t *testing.T, opt Options) (*Library, *mcp.ClientSession) {
	t.Helper()
	lib, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lib.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := lib.Finder().Wait(ctx); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	if _, err := lib.Server().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return lib, cs
}

func callFind(t *testing.T, cs *mcp.ClientSession, args map[string]any) (finder.FindResult, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: finder.ToolFind, Arguments: args})
	if err != nil {
		t.Fatalf("find %v: %v", args, err)
	}
	var out finder.FindResult
	if !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("find %v: structured content: %v", args, err)
		}
	}
	return out, res
}

func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestFinderCorpus(t *testing.T) {
	_, cs := finderSession(t, Options{Finder: &FinderOptions{Memory: true}})
	const annual = "dpe://io.github.dpetui.library/reports/annual-operations-2026.md"

	for _, tc := range []struct {
		name, query, uri string
		page             int
		category         string
		snippetHas       string
	}{
		{"phrase on page 7", `"answer a call"`, annual, 7, "NarrativeText", "answer a call"},
		{"CJK phrase", "社区图书馆", "dpe://io.github.dpetui.library/notes/cjk-notes.md", 1, "NarrativeText", "社区图书馆"},
		{"Japanese phrase", "週末の開館時間", "dpe://io.github.dpetui.library/notes/cjk-notes.md", 2, "NarrativeText", "開館時間"},
		{"table cell", "ClampCo", "dpe://io.github.dpetui.library/data/parts-inventory.tsv", 1, "Table", "ClampCo"},
		{"table cell in a report", "Discoloured", annual, 7, "Table", "Discoloured"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, res := callFind(t, cs, map[string]any{"query": tc.query, "limit": 5})
			if res.IsError || len(got.Hits) == 0 {
				t.Fatalf("no hits for %s: %s", tc.query, toolText(res))
			}
			h := got.Hits[0]
			if h.URI != tc.uri || h.Page != tc.page || h.Category != tc.category {
				t.Fatalf("top hit %+v, want %s page %d %s", h, tc.uri, tc.page, tc.category)
			}
			if !strings.HasPrefix(h.ElementID, "p") || h.ElementID == "" {
				t.Fatalf("element id %q", h.ElementID)
			}
			if !strings.Contains(h.Snippet, tc.snippetHas) || len(h.Match) == 0 {
				t.Fatalf("snippet %q (match %v) lacks %q", h.Snippet, h.Match, tc.snippetHas)
			}
			m := []rune(h.Snippet)[h.Match[0].Start:h.Match[0].End]
			if len(m) == 0 {
				t.Fatalf("empty match span in %q", h.Snippet)
			}
			if !got.Indexed.Complete || got.Indexed.Indexed != got.Indexed.Total || got.Indexed.Total < 15 {
				t.Fatalf("indexed %+v", got.Indexed)
			}
			if !strings.Contains(toolText(res), "indexed: ") {
				t.Fatalf("text content %q lacks the indexed line", toolText(res))
			}
		})
	}
	// The hit's element is really on that page of the document.
	got, _ := callFind(t, cs, map[string]any{"query": `"answer a call"`})
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: annual})
	if err != nil {
		t.Fatal(err)
	}
	doc := decodeAll(t, rr.Contents[0].Text)
	found := false
	for _, e := range doc.Pages[got.Hits[0].Page-1].Elements {
		if e.ID == got.Hits[0].ElementID && strings.Contains(e.Text, "answer a call") {
			found = true
		}
	}
	if !found {
		t.Fatalf("element %s is not on page %d with the phrase", got.Hits[0].ElementID, got.Hits[0].Page)
	}
}

func TestFinderFiltersAndPaging(t *testing.T) {
	_, cs := finderSession(t, Options{Finder: &FinderOptions{Memory: true}})

	// file_type: "water" appears in Markdown reports and in data files.
	all, _ := callFind(t, cs, map[string]any{"query": "valve", "limit": 100})
	csv, _ := callFind(t, cs, map[string]any{"query": "valve", "file_type": "tsv", "limit": 100})
	if len(all.Hits) == 0 || len(csv.Hits) == 0 || len(csv.Hits) >= len(all.Hits) {
		t.Fatalf("file_type filter: %d of %d hits", len(csv.Hits), len(all.Hits))
	}
	for _, h := range csv.Hits {
		if !strings.HasSuffix(h.URI, ".tsv") && !strings.HasSuffix(h.URI, ".csv") {
			t.Fatalf("file_type tsv returned %s", h.URI)
		}
	}
	// keywords and dates: the CJK notes carry keyword "cjk" and were
	// modified on 2026-03-21.
	kw, _ := callFind(t, cs, map[string]any{"query": "图书馆", "keywords": []string{"CJK"}})
	none, _ := callFind(t, cs, map[string]any{"query": "图书馆", "keywords": []string{"no-such-keyword"}})
	if len(kw.Hits) == 0 || len(none.Hits) != 0 {
		t.Fatalf("keywords filter: %d hits with cjk, %d with a missing keyword", len(kw.Hits), len(none.Hits))
	}
	after, _ := callFind(t, cs, map[string]any{"query": "图书馆", "modified_after": "2026-03-01"})
	before, _ := callFind(t, cs, map[string]any{"query": "图书馆", "modified_before": "2026-03-21"})
	if len(after.Hits) == 0 || len(before.Hits) != 0 {
		t.Fatalf("date filters: %d after, %d before", len(after.Hits), len(before.Hits))
	}

	// Cursor paging walks every hit once.
	seen := map[string]bool{}
	cursor, pages := "", 0
	for {
		args := map[string]any{"query": "water", "limit": 3}
		if cursor != "" {
			args["cursor"] = cursor
		}
		page, res := callFind(t, cs, args)
		if res.IsError {
			t.Fatal(toolText(res))
		}
		pages++
		for _, h := range page.Hits {
			k := h.URI + "#" + h.ElementID
			if seen[k] {
				t.Fatalf("hit %s on two pages", k)
			}
			seen[k] = true
		}
		if page.NextCursor == "" {
			if len(seen) != page.Total {
				t.Fatalf("paged %d hits, total %d", len(seen), page.Total)
			}
			break
		}
		cursor = page.NextCursor
		if pages > 100 {
			t.Fatal("cursor never ends")
		}
	}
	if pages < 3 {
		t.Fatalf("only %d pages of 3 hits for water", pages)
	}
	// A cursor of one query is refused for another.
	first, _ := callFind(t, cs, map[string]any{"query": "water", "limit": 1})
	_, res := callFind(t, cs, map[string]any{"query": "pressure", "cursor": first.NextCursor})
	if !res.IsError || !strings.Contains(toolText(res), "cursor") {
		t.Fatalf("foreign cursor accepted: %s", toolText(res))
	}
	// A query the engine rejects names the syntax problem.
	_, res = callFind(t, cs, map[string]any{"query": `"unclosed phrase`})
	if !res.IsError || !strings.Contains(toolText(res), "query syntax: parse error: unterminated quote") {
		t.Fatalf("bad query: %v %s", res.IsError, toolText(res))
	}
}

func TestFinderListDocuments(t *testing.T) {
	_, cs := finderSession(t, Options{Finder: &FinderOptions{Memory: true}})
	list := func(args map[string]any) finder.ListResult {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: finder.ToolListDocuments, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("list_documents %v: %v %s", args, err, toolText(res))
		}
		var out finder.ListResult
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	big := list(map[string]any{"sort": "page_count", "order": "desc", "limit": 1})
	if len(big.Documents) != 1 || big.Documents[0].Name != LargeDocRef || big.NextCursor == "" {
		t.Fatalf("largest document: %+v", big)
	}
	var names []string
	cursor := ""
	for {
		args := map[string]any{"filter": "code/", "limit": 4}
		if cursor != "" {
			args["cursor"] = cursor
		}
		p := list(args)
		for _, d := range p.Documents {
			names = append(names, d.Name)
		}
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if len(names) != 6 || names[0] != "code/checksum.rs" || names[5] != "code/tokenizer.py" {
		t.Fatalf("code/ documents by name: %v", names)
	}
	recent := list(map[string]any{"sort": "lastModified", "order": "desc", "limit": 100})
	for i := 1; i < len(recent.Documents); i++ {
		if recent.Documents[i-1].LastModified < recent.Documents[i].LastModified {
			t.Fatalf("not sorted by lastModified desc at %d", i)
		}
	}
	// Both tools publish input and output schemas.
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Fatalf("tool %s lacks a schema", tl.Name)
		}
	}
}

// TestFinderFolderChanges: the folder poll finds a file added, changed and
// removed, and each time the Finder indexes it again: find sees the new
// file, then its new content only, then nothing of it.
func TestFinderFolderChanges(t *testing.T) {
	dir := t.TempDir()
	putFile(t, filepath.Join(dir, "a.md"), []byte("# Alpha\n\nThe heron nests here.\n"))
	lib, cs := finderSession(t, Options{Dir: dir, Host: "org.example.poll", Finder: &FinderOptions{Memory: true, Rescan: 50 * time.Millisecond}})
	uri := "dpe://org.example.poll/b.md"
	// until waits for find q to give b.md that many hits, with the index
	// complete over docs documents.
	until := func(what, q string, hits, docs int) {
		t.Helper()
		deadline := testbudget.Until(t, 30*time.Second)
		for {
			res, _ := callFind(t, cs, map[string]any{"query": q})
			n := 0
			for _, h := range res.Hits {
				if h.URI == uri {
					n++
				}
			}
			st := lib.Finder().Status()
			if n == hits && st.Complete && st.Total == docs && res.Indexed.String() == fmt.Sprintf("indexed: %d/%d documents", docs, docs) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: find %q: %d hit(s) of b.md, %s, want %d of %d documents", what, q, n, res.Indexed, hits, docs)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	until("before", "kingfisher", 0, 1)
	putFile(t, filepath.Join(dir, "b.md"), []byte("# Birds\n\nA kingfisher on the weir.\n"))
	until("added", "kingfisher", 1, 2)

	p := filepath.Join(dir, "b.md")
	putFile(t, p, []byte("# Birds\n\nAn osprey over the reservoir, no other bird.\n"))
	later := time.Now().Add(2 * time.Second) // a new mtime even on a coarse clock
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	until("changed", "osprey", 1, 2)
	until("changed: old content", "kingfisher", 0, 2)

	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	until("removed", "osprey", 0, 1)
	if res, _ := callFind(t, cs, map[string]any{"query": "heron"}); len(res.Hits) != 1 {
		t.Fatalf("the unchanged file: %+v", res)
	}
}

// TestFinderListsReadPageCount: a PDF is listed with one page until it
// is read; once the index has read it, list_documents reports (and sorts
// by) its real page count.
func TestFinderListsReadPageCount(t *testing.T) {
	dir := t.TempDir()
	pdf, err := os.ReadFile("/usr/share/doc/libtasn1-doc/libtasn1.pdf")
	if err != nil {
		t.Skip("libtasn1-doc is not installed:", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "libtasn1.pdf"), pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "short.md"), []byte("# One\n\nA page.\n\n# Two\n\nAnother.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, cs := finderSession(t, Options{Dir: dir, Host: "org.example.docs", Finder: &FinderOptions{Memory: true, Rescan: -1}})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: finder.ToolListDocuments,
		Arguments: map[string]any{"sort": "page_count", "order": "desc"}})
	if err != nil || res.IsError {
		t.Fatalf("list_documents: %v %s", err, toolText(res))
	}
	var out finder.ListResult
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Documents) != 2 || out.Documents[0].Name != "libtasn1.pdf" || out.Documents[0].PageCount != 36 {
		t.Fatalf("by page_count: %+v", out.Documents)
	}
	// resources/list too: the conversion the index made refined it.
	lr, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range lr.Resources {
		if r.URI == "dpe://org.example.docs/libtasn1.pdf" {
			if pc, _ := r.Meta["page_count"].(float64); pc != 36 {
				t.Errorf("resources/list _meta.page_count %v, want 36", r.Meta["page_count"])
			}
		}
	}
}
