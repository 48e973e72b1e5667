package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/computer"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/dpegen"
	"github.com/dpe-tui/dpe-tui/internal/hostilepeer"
	"github.com/dpe-tui/dpe-tui/internal/racebuild"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/stack"
)

// Real inputs the corpus never had, each driven through the real commands
// against our stack or a scripted peer.

func startDocsStack(t *testing.T, dir string, mut func(*stack.Options)) *stack.Stack {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	opt := stack.Options{DocsDir: dir, FinderDir: t.TempDir()}
	if mut != nil {
		mut(&opt)
	}
	st, err := stack.Start(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// runAgent is runBounded for a command that joins the office as its agent.
// The server lets an office have one agent and learns that the previous
// command's agent left only when its socket closes, so a command started
// right after another may be refused for a moment; that race is the
// connection core's, not what these tests are about.
func runAgent(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runAgentFor(t, 2*time.Minute, args...)
}

func runAgentFor(t *testing.T, limit time.Duration, args ...string) (int, string, string) {
	t.Helper()
	for i := 0; ; i++ {
		code, out, errOut := runWithin(t, limit, args...)
		if i == 50 || !strings.Contains(errOut, "already has an agent") {
			return code, out, errOut
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runWithin is runCLI that fails the test instead of hanging: past limit,
// or, when later, shortly before the test binary's own deadline (go test
// -timeout), so a command slowed by a loaded machine is not called hung
// while the run still has time for it.
func runWithin(t *testing.T, limit time.Duration, args ...string) (int, string, string) {
	t.Helper()
	if d, ok := t.Deadline(); ok {
		limit = max(limit, time.Until(d)-10*time.Second)
	}
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		done <- result{code, out.String(), errb.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(limit):
		t.Fatalf("dpe-tui %v did not finish within %v", args, limit)
		return 0, "", ""
	}
}

// lsJSON lists the library server's resources as JSON rows.
func lsJSON(t *testing.T, url string, extra ...string) []map[string]any {
	t.Helper()
	args := append([]string{"ls", "resources", "--url=" + url, "--computer", "alpha", "--server", "library", "--json"}, extra...)
	code, out, errOut := runAgent(t, args...)
	if code != 0 {
		t.Fatalf("ls resources: exit %d: %s", code, errOut)
	}
	var rows []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("ls --json line %q: %v", l, err)
		}
		rows = append(rows, r)
	}
	return rows
}

func TestRealInputs_NonASCIIDocRefsListedThenGot(t *testing.T) {
	// Each name once: the file name, and a word only its content holds.
	names := map[string]string{
		"café.md":           "nfc",
		"cafe\u0301 nfd.md": "nfd",
		"报告.md":             "cjk",
		"party 🎉.md":        "emoji",
		"my notes.md":       "spaces",
		"a%2Fb.md":          "slashescape",
		"100%25.md":         "percentescape",
		"x-y.md":            "hyphen",
	}
	dir := t.TempDir()
	for name, word := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("# Heading\n\nbody word "+word+"marker\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st := startDocsStack(t, dir, nil)
	rows := lsJSON(t, st.URL)
	byWord := map[string]string{}
	for _, r := range rows {
		uri, _ := r["uri"].(string)
		name, _ := r["name"].(string)
		for fn, word := range names {
			if name == fn || strings.HasSuffix(name, fn) {
				byWord[word] = uri
			}
		}
	}
	if len(byWord) != len(names) {
		t.Fatalf("listed %d of %d names: %v", len(byWord), len(names), rows)
	}
	for word, uri := range byWord {
		// The URI exactly as listed: get and check both succeed.
		code, out, errOut := runAgent(t, "get", uri, "--url="+st.URL, "--format", "text")
		if code != 0 || !strings.Contains(out, word+"marker") {
			t.Errorf("get %s (%s): exit %d, stdout %q, stderr %q", uri, word, code, out, errOut)
		}
		code, _, errOut = runAgent(t, "check", uri, "--url="+st.URL)
		if code != 0 && code != exitRuntime || strings.Contains(errOut, "4013") || strings.Contains(errOut, "protocol error") {
			t.Errorf("check %s (%s): exit %d, stderr %q", uri, word, code, errOut)
		}
	}
	// Typed by a person: raw UTF-8 is percent-encoded once, and reaches
	// the same document.
	typed := "dpe://" + stack.HostLibrary + "/café.md"
	code, out, errOut := runAgent(t, "get", typed, "--url="+st.URL, "--format", "text")
	if code != 0 || !strings.Contains(out, "nfcmarker") {
		t.Errorf("typed %s: exit %d, stdout %q, stderr %q", typed, code, out, errOut)
	}
	if want := "caf%C3%A9.md"; !strings.Contains(byWord["nfc"], want) {
		t.Errorf("listed NFC URI %q, want it to contain %s", byWord["nfc"], want)
	}
	typed = "dpe://" + stack.HostLibrary + "/my notes.md"
	if code, out, errOut = runAgent(t, "get", typed, "--url="+st.URL, "--format", "text"); code != 0 || !strings.Contains(out, "spacesmarker") {
		t.Errorf("typed %s: exit %d, stdout %q, stderr %q", typed, code, out, errOut)
	}
	// An escape of an unreserved character is kept as typed, not folded
	// to "-": the server's own spelling is "x-y.md", so this one is not
	// found, and says so.
	typed = "dpe://" + stack.HostLibrary + "/x%2Dy.md"
	if code, _, errOut = runAgent(t, "get", typed, "--url="+st.URL); code == 0 {
		t.Errorf("typed %s: exit 0, want not found (stderr %q)", typed, errOut)
	}
}

// toolsOnlyServer is an MCP server with tools and no resources capability.
func toolsOnlyServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tools-only", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, _ *mcp.CallToolRequest, in struct {
		S string `json:"s"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.S}}}, nil, nil
	})
	return srv
}

func TestRealInputs_ToolsOnlyServerIsSkippedNotFatal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st := startDocsStack(t, dir, nil)
	var alpha *computer.Computer
	for i, n := range st.ComputerNames() {
		if n == stack.ComputerAlpha {
			alpha = st.Computers[i]
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := alpha.AddInProcess(ctx, protocol.MCPServerConfig{Name: "tools"}, toolsOnlyServer()); err != nil {
		t.Fatal(err)
	}
	url := "--url=" + st.URL

	// Every server of alpha: the document servers are listed, the
	// tools-only one is one note, and the run succeeds.
	code, out, errOut := runAgent(t, "ls", "resources", url, "--computer", "alpha")
	if code != 0 || !strings.Contains(out, "dpe://"+stack.HostLibrary+"/a.md") || !strings.Contains(out, "dpe://"+stack.HostNotes+"/") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	want := "dpe-tui: skipped server tools on alpha: 4015 MCP Capability Not Supported: MCP Server does not support 'resources' capability (mcp_server=tools, capability=resources)\n"
	if errOut != want {
		t.Errorf("stderr %q\nwant %q", errOut, want)
	}
	// Only the tools-only server: nothing could be listed.
	code, _, errOut = runAgent(t, "ls", "resources", url, "--server", "tools")
	if code != exitNothingListed || !strings.HasPrefix(errOut, "dpe-tui: skipped server tools on alpha: 4015") ||
		!strings.HasSuffix(errOut, "dpe-tui: nothing could be listed: 1 skipped\n") {
		t.Errorf("--server tools: exit %d, stderr %q", code, errOut)
	}
	// ls servers still lists it.
	if code, out, errOut = runAgent(t, "ls", "servers", url, "--computer", "alpha"); code != 0 || !strings.Contains(out, "tools") {
		t.Errorf("ls servers: exit %d, %q, %q", code, out, errOut)
	}
}

func TestRealInputs_UnknownServerOrOffice(t *testing.T) {
	st := startStack(t, "http")
	url := "--url=" + st.URL
	code, out, errOut := runAgent(t, "ls", "resources", url, "--server", "nope")
	if want := "dpe-tui: server nope not found on any computer of office demo\n"; code != exitRuntime || errOut != want {
		t.Errorf("--server nope: exit %d, stderr %q, want %q", code, errOut, want)
	}
	if strings.Count(out, "\n") > 1 {
		t.Errorf("--server nope printed rows: %q", out)
	}
	code, _, errOut = runAgent(t, "ls", "resources", url, "--computer", "alpha", "--server", "nope")
	if want := "dpe-tui: server nope not found on computer alpha\n"; code != exitRuntime || errOut != want {
		t.Errorf("--computer alpha --server nope: exit %d, stderr %q", code, errOut)
	}
	for _, what := range []string{"computers", "servers", "resources"} {
		code, _, errOut = runAgent(t, "ls", what, url, "--office", "nosuchoffice")
		if want := "dpe-tui: office nosuchoffice has no computers (check --office)\n"; code != exitRuntime || errOut != want {
			t.Errorf("ls %s --office nosuchoffice: exit %d, stderr %q", what, code, errOut)
		}
	}
}

func TestRealInputs_RepeatedCursorAndPageCapExitNonZero(t *testing.T) {
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "evil", Servers: []string{"loop", "fine"},
		Resources: func(server, cursor string) hostilepeer.Reply {
			if server == "fine" {
				return hostilepeer.Page("", hostilepeer.Resource("dpe://org.ok.fine/x", "x"))
			}
			// Page 1 hands out "c1", page 2 hands out "c1" again.
			return hostilepeer.Page("c1", hostilepeer.Resource("dpe://org.evil.loop/"+cursor+"p", "p"))
		},
	}}})
	code, out, errOut := runAgent(t, "ls", "resources", "--url="+srv.URL)
	want := "dpe-tui: resources of loop on evil: the server repeated cursor \"c1\" after 2 pages (2 resources); stopped to avoid a loop\n"
	if code != exitRuntime || errOut != want {
		t.Fatalf("repeated cursor: exit %d, stderr %q\nwant %q", code, errOut, want)
	}
	// The other server was still listed, and so were the loop's pages.
	if !strings.Contains(out, "dpe://org.ok.fine/x") || !strings.Contains(out, "dpe://org.evil.loop/c1p") {
		t.Errorf("stdout:\n%s", out)
	}
	code, _, errOut = runAgent(t, "ls", "resources", "--url="+srv.URL, "--server", "loop", "--max-pages=1")
	if want := "dpe-tui: resources of loop on evil: stopped at the cap of 1 pages (1 resources loaded, more remain)\n"; code != exitRuntime || errOut != want {
		t.Fatalf("page cap: exit %d, stderr %q\nwant %q", code, errOut, want)
	}
}

func TestRealInputs_ListingValidatesWhatItShows(t *testing.T) {
	res := func(uri string, lm any, kw any) map[string]any {
		r := hostilepeer.Resource(uri, "n")
		r["size"] = 1234
		r["annotations"] = map[string]any{"lastModified": lm}
		r["_meta"] = map[string]any{"keywords": kw}
		return r
	}
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "c", Servers: []string{"s"},
		Resources: func(string, string) hostilepeer.Reply {
			return hostilepeer.Page("",
				res("dpe://org.x.s/good", "2026-04-27T12:00:00.5+02:00", []any{"a", "b"}),
				res("dpe://org.x.s/bad", "last tuesday", []any{"a", 7, true}))
		},
	}}})
	code, out, errOut := runAgent(t, "ls", "resources", "--url="+srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var good, bad string
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(l, "/good"):
			good = l
		case strings.Contains(l, "/bad"):
			bad = l
		}
	}
	if !strings.Contains(good, "2026-04-27T12:00:00.5+02:00") || strings.Contains(good, "invalid") || !strings.Contains(good, "1234") {
		t.Errorf("good row %q", good)
	}
	if !strings.Contains(bad, "invalid: last tuesday") {
		t.Errorf("bad row %q: MODIFIED should say invalid", bad)
	}
	for _, w := range []string{
		`dpe-tui: dpe://org.x.s/bad: _meta.keywords: entry 2 is a number, not a string`,
		`dpe-tui: dpe://org.x.s/bad: _meta.keywords: entry 3 is a boolean, not a string`,
		`dpe-tui: dpe://org.x.s/bad: lastModified "last tuesday" is not an ISO 8601 date-time`,
	} {
		if !strings.Contains(errOut, w+"\n") {
			t.Errorf("stderr %q lacks %q", errOut, w)
		}
	}
	code, out, _ = runAgent(t, "ls", "resources", "--url="+srv.URL, "--json")
	if code != 0 {
		t.Fatalf("--json exit %d", code)
	}
	var rows []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	if len(rows) != 2 || rows[0]["lastModified"] != "2026-04-27T12:00:00.5+02:00" || rows[0]["size"] != float64(1234) {
		t.Fatalf("--json rows %v", rows)
	}
	if p, _ := rows[1]["problems"].([]any); len(p) != 3 {
		t.Errorf("--json problems of the bad row: %v", rows[1]["problems"])
	}
}

// manifestStack serves one generated document big enough for the http
// resolver's manifest mode (each page at its own signed URL).
func manifestStack(t *testing.T, o dpegen.Options, mut func(*stack.Options)) (*stack.Stack, string, []byte) {
	t.Helper()
	doc := dpegen.Document(o)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.dpe.json"), doc, 0o600); err != nil {
		t.Fatal(err)
	}
	st := startDocsStack(t, dir, mut)
	return st, "dpe://" + stack.HostLibrary + "/big.dpe.json", doc
}

func TestRealInputs_ManifestDocumentAssembledAsJSON(t *testing.T) {
	o := dpegen.Options{Pages: 60, ElementsPerPage: 40, TextBytes: 360, Seed: 3}
	st, uri, src := manifestStack(t, o, nil)
	if len(src) <= 1<<20 {
		t.Fatalf("document of %d bytes would not be served in manifest mode", len(src))
	}
	code, out, errOut := runAgent(t, "get", uri, "--url="+st.URL, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got, want struct {
		Pages []struct {
			PageIndex int               `json:"page_index"`
			URI       *string           `json:"uri"`
			Elements  []json.RawMessage `json:"elements"`
		} `json:"pages"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not one JSON document: %v", err)
	}
	if err := json.Unmarshal(src, &want); err != nil {
		t.Fatal(err)
	}
	if len(got.Pages) != o.Pages {
		t.Fatalf("%d pages, want %d", len(got.Pages), o.Pages)
	}
	for i, p := range got.Pages {
		if p.URI != nil {
			t.Fatalf("page %d keeps its uri %q", i+1, *p.URI)
		}
		if len(p.Elements) != len(want.Pages[i].Elements) || p.PageIndex != want.Pages[i].PageIndex {
			t.Fatalf("page %d: %d elements (want %d), page_index %d", i+1, len(p.Elements), len(want.Pages[i].Elements), p.PageIndex)
		}
	}
	if strings.Contains(out, "sig=") || strings.Contains(out, "exp=") || strings.Contains(out, "127.0.0.1") {
		t.Error("an access URI (with its signature) reached the output")
	}
	// The document printed is the document served: each element as in
	// the source.
	if !json.Valid([]byte(out)) || string(got.Pages[7].Elements[3]) != string(want.Pages[7].Elements[3]) {
		t.Errorf("page 8 element 4 differs:\n%s\n%s", got.Pages[7].Elements[3], want.Pages[7].Elements[3])
	}

	// One page: that page with its elements.
	code, out, errOut = runAgent(t, "get", uri, "--url="+st.URL, "--format", "json", "--page", "5")
	var page struct {
		PageIndex int               `json:"page_index"`
		URI       *string           `json:"uri"`
		Elements  []json.RawMessage `json:"elements"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &page) != nil || page.URI != nil || len(page.Elements) != len(want.Pages[4].Elements) {
		t.Fatalf("--page 5: exit %d, %d elements, stderr %q", code, len(page.Elements), errOut)
	}
	for _, n := range []string{"0", "-1"} {
		code, _, errOut = runAgent(t, "get", uri, "--url="+st.URL, "--page", n)
		if want := "dpe-tui: --page must be ≥ 1 (pages are numbered from 1), not " + n + " (see 'dpe-tui get --help')\n"; code != exitUsage || errOut != want {
			t.Errorf("--page %s: exit %d, stderr %q", n, code, errOut)
		}
	}
}

// A document too big for one MCP message under go-sdk's default limit
// (16 MiB): 50 MB, 2,000 pages (20 MB under -race), through serve --docs
// (the library hands it to the computer in runs of pages, the http resolver serves it in
// manifest mode), then get, while the library's Finder indexes it; then
// find. The heap is sampled throughout and the peak RSS logged; the heap
// bound is a guard against holding the document in many copies at once,
// and against the Finder indexing it whole in one batch (which peaked at
// about 2.4 GB): the Finder indexes its first pages, up to its
// per-document budget, finds a word on page 1, and answers a word on
// page 1,501 with no hit and a line saying the document is indexed only
// in part and how far.
func TestRealInputs_DocumentOverOneMCPMessageThroughDocs(t *testing.T) {
	o := dpegen.PresetA()
	if racebuild.Enabled {
		// Under -race the 50 MB document took minutes on a loaded 2-core
		// machine, past the computer's 30 s read: 800 pages (20 MB) still
		// cross the 16 MiB limit and the Finder's per-document budget.
		// CI runs the full size without -race (.ci/run).
		o.Pages, o.RarePage = 800, 600
	}
	total := strconv.Itoa(o.Pages)
	if o.Pages >= 1000 {
		total = fmt.Sprintf("%d,%03d", o.Pages/1000, o.Pages%1000)
	}
	// The computer reads the document in runs of pages, one MCP call
	// each, and a run once took longer than its default 30 s on a loaded
	// machine: the budgets of the call, of get_dpe and of get are this
	// test's own, up to its deadline.
	budget := 5 * time.Minute
	if d, ok := t.Deadline(); ok {
		budget = max(budget, time.Until(d)-30*time.Second)
	}
	// Whole seconds: the server forwards its cap as the request's
	// "timeout", which computers read as an integer.
	budget = budget.Truncate(time.Second)
	timeout := "--timeout=" + budget.String()
	stopSampling, peakHeap := sampleHeap()
	defer stopSampling()
	st, uri, src := manifestStack(t, o, func(opt *stack.Options) {
		opt.ComputerRequestTimeout, opt.MaxRequestTimeout = budget, budget
	})
	if len(src) <= 16<<20 {
		t.Fatalf("generated %d bytes, want more than go-sdk's 16 MiB line limit", len(src))
	}
	// The read shares two CPUs with the library's search index being
	// built from the same document.
	start := time.Now()
	code, out, errOut := runAgentFor(t, budget, "get", uri, "--url="+st.URL, "--format", "text", timeout)
	t.Logf("get --format text of %d bytes: %s", len(src), time.Since(start).Round(time.Second))
	if code != 0 {
		t.Fatalf("get %d bytes: exit %d: %s", len(src), code, errOut)
	}
	if !strings.Contains(out, o.RareWord) {
		t.Errorf("the text of page %d (%q) is missing from %d bytes", o.RarePage, o.RareWord, len(out))
	}
	last := strconv.Itoa(o.Pages)
	code, out, errOut = runAgentFor(t, budget, "get", uri, "--url="+st.URL, "--format", "json", "--page", last, timeout)
	var page struct {
		Elements []json.RawMessage `json:"elements"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &page) != nil || len(page.Elements) != o.ElementsPerPage {
		t.Fatalf("--page %s: exit %d, %d elements, stderr %q", last, code, len(page.Elements), errOut)
	}

	// find answers from the index built so far: ask until it is complete.
	start = time.Now()
	deadline := start.Add(4 * time.Minute)
	if d, ok := t.Deadline(); ok {
		deadline = d.Add(-30 * time.Second)
	}
	for {
		code, out, errOut = runAgentFor(t, 2*time.Minute, "find", `"chapter 1"`, "--url="+st.URL)
		if code == 0 && !strings.Contains(errOut, "incomplete") || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("find once the index is complete: %s; %s", time.Since(start).Round(time.Second), strings.TrimSpace(errOut))
	if code != 0 || !strings.Contains(out, "\t"+uri+"\tp.1\t") || strings.Count(out, "\n") != 1 {
		t.Fatalf("find \"chapter 1\": exit %d, stdout %q, stderr %q; want one hit on page 1", code, out, errOut)
	}
	// "alpha: 1 hit of 1; indexed: 1/1 documents; partly indexed:
	// big.dpe.json, the first 296 of 2,000 pages"
	const partly = "; partly indexed: big.dpe.json, the first "
	_, n, _ := strings.Cut(errOut, partly)
	n, ok := strings.CutSuffix(strings.SplitN(n, "\n", 2)[0], " of "+total+" pages")
	if pages, err := strconv.Atoi(n); !ok || err != nil || pages < 1 || pages >= o.RarePage {
		t.Fatalf("find: stderr %q does not say the document is indexed in part, up to a page before %d", errOut, o.RarePage+1)
	}
	line := partly + n + " of " + total + " pages\n"
	code, out, errOut = runAgent(t, "find", o.RareWord, "--url="+st.URL)
	if code != 0 || out != "" || !strings.Contains(errOut, line) {
		t.Errorf("find %s (page %d): exit %d, stdout %q, stderr %q; want no hit and the partial line", o.RareWord, o.RarePage+1, code, out, errOut)
	}
	stopSampling()
	peak := peakHeap()
	t.Logf("%d-byte document: peak live heap over the start %d MiB, peak RSS %s", len(src), peak>>20, peakRSS())
	// 12 bytes of live heap per byte of document, over the stack's own
	// fixed cost (two computers, their libraries and Finder indexes),
	// which does not scale with the document and weighs more at -race's
	// 20 MB. Measured: 401 MiB for 49 MiB, 146 MiB for 19 MiB under -race.
	if limit := uint64(12*len(src)) + 96<<20; peak > limit {
		t.Errorf("peak live heap %d MiB for a %d MiB document (bound %d MiB)", peak>>20, len(src)>>20, limit>>20)
	}
}

// sampleHeap samples the live heap (runtime/metrics /gc/heap/live:bytes:
// what the last collection found reachable) every 20 ms until stop; peak
// is the largest.
//
// The live heap, not HeapInuse: HeapInuse also holds the garbage not yet
// collected, which grows with how far the collector falls behind the
// allocating goroutines, and on a loaded machine it falls further behind
// (with both cores busy the bound was crossed by 2-6 % while the live heap
// was the same). What a document costs is what stays reachable.
//
// peak is over the live heap when sampling starts, after a collection:
// what earlier tests of the process keep (a PDF engine's instances hold
// their memory on the Go heap between conversions) is not this test's.
func sampleHeap() (stop func(), peak func() uint64) {
	var mu sync.Mutex
	var max uint64
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	live := func() uint64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return sample[0].Value.Uint64()
	}
	runtime.GC()
	base := live()
	done := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			v := live()
			mu.Lock()
			max = maxOf(max, v)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	stop = func() { once.Do(func() { close(done); wg.Wait() }) }
	peak = func() uint64 {
		mu.Lock()
		defer mu.Unlock()
		if max < base {
			return 0
		}
		return max - base
	}
	return stop, peak
}

func maxOf(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// peakRSS is the process's VmHWM from /proc (Linux), else "unknown".
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func TestRealInputs_ErrorsPeopleCanRead(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st := startDocsStack(t, dir, func(o *stack.Options) {
		o.WrapResolver = func(r computer.Resolver) computer.Resolver {
			return computer.ResolverFunc(func(ctx context.Context, res protocol.A2CResource, c computer.Contents, h computer.Hint) (protocol.A2CResource, error) {
				if strings.HasSuffix(res.URI, "/a.md") {
					return protocol.A2CResource{}, errors.New("upload to https://store.example/x?X-Signature=SECRET failed")
				}
				return r.Resolve(ctx, res, c, h)
			})
		}
	})
	logFile := filepath.Join(t.TempDir(), "log")

	// A resource the server does not have: not found, not "unavailable".
	nope := "dpe://" + stack.HostLibrary + "/nope.md"
	code, _, errOut := runAgent(t, "get", nope, "--url="+st.URL, "--computer", "alpha", "--log="+logFile)
	want := "dpe-tui: " + nope + ` was not found on computer alpha: MCP server "library" has no such resource (4013)` + "\n"
	if code != exitProtocol || errOut != want {
		t.Errorf("not found: exit %d, stderr %q\nwant %q", code, errOut, want)
	}
	// The resolver failed: one sentence, a retry is offered.
	a := "dpe://" + stack.HostLibrary + "/a.md"
	code, _, errOut = runAgent(t, "get", a, "--url="+st.URL, "--computer", "alpha", "--log="+logFile)
	want = "dpe-tui: " + a + " could not be prepared: the resolver of computer alpha failed; try again (4013 resolver_error)\n"
	if code != exitProtocol || errOut != want {
		t.Errorf("resolver error: exit %d, stderr %q\nwant %q", code, errOut, want)
	}
	// The log has both, with the details the screen leaves out, and no
	// secret.
	logged, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"command failed", "mcp_error", "resolver_exception", "category=resolver_error"} {
		if !strings.Contains(string(logged), w) {
			t.Errorf("--log lacks %q:\n%s", w, logged)
		}
	}
	if strings.Contains(string(logged), "SECRET") {
		t.Errorf("--log shows a secret:\n%s", logged)
	}

	// The client says which errors a retry may fix.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: st.URL, Office: st.Office, Name: "probe"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = (&dpe.Opener{Resolver: c.Resolver("alpha")}).Open(ctx, a)
	if !dpe.Retryable(err) || strings.Count(err.Error(), a) != 1 {
		t.Errorf("resolver_error: Retryable=%v, %q", dpe.Retryable(err), err)
	}
	_, err = (&dpe.Opener{Resolver: c.Resolver("alpha")}).Open(ctx, nope)
	if dpe.Retryable(err) || strings.Count(err.Error(), nope) != 1 {
		t.Errorf("not found: Retryable=%v, %q", dpe.Retryable(err), err)
	}
}

// get_dpe answers whose expires_at is odd: each still opens, and what was
// wrong or done is said on stderr.
func TestRealInputs_ExpiresAtFromTheWire(t *testing.T) {
	const doc = `{"doc_ref":"d","pages":[{"page_index":0,"elements":[{"element_id":"e","category":"Title","text":"hello expiry"}]}]}`
	docs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, doc)
	}))
	t.Cleanup(docs.Close)
	future := time.Now().Add(time.Hour).UTC()
	for _, c := range []struct {
		name, expires string
		wantErr       string // a line stderr must hold; "" = nothing but the "resolved by" line
		resolves      int64
	}{
		{"RFC 3339 with offset and fraction", future.In(time.FixedZone("", 2*3600)).Format("2006-01-02T15:04:05.000-07:00"), "", 1},
		{"no offset", future.Format("2006-01-02T15:04:05"), "", 1},
		{"space and Z", future.Format("2006-01-02 15:04:05Z"), "", 1},
		{"unparseable", "soon", `dpe-tui: conformance: computer c: _meta.expires_at "soon" is not an ISO 8601 date-time; treating the access URI as expiring now`, 1},
		{"both answers expired", "2001-01-01T00:00:00Z", "dpe-tui: dpe://org.x.s/d: the re-resolved access URI also looks expired (expires_at 2001-01-01T00:00:00Z); fetched it anyway", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
				Name: "c", Servers: []string{"s"},
				Resources: func(string, string) hostilepeer.Reply {
					return hostilepeer.Page("", hostilepeer.Resource("dpe://org.x.s/d", "d"))
				},
				GetDPE: func(string) hostilepeer.Reply {
					return hostilepeer.JSON(map[string]any{"uri": docs.URL + "/d.json", "mime_type": "application/json",
						"_meta": map[string]any{"expires_at": c.expires}, "req_id": "r"})
				},
			}}})
			code, out, errOut := runBounded(t, "get", "dpe://org.x.s/d", "--url="+srv.URL, "--computer", "c", "--format", "text")
			if code != 0 || !strings.Contains(out, "hello expiry") {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			if c.wantErr == "" && errOut != "" || c.wantErr != "" && !strings.Contains(errOut, c.wantErr+"\n") {
				t.Errorf("stderr %q, want %q", errOut, c.wantErr)
			}
			if n := srv.CallsTo("c", protocol.EventGetDPE); n != c.resolves {
				t.Errorf("%d get_dpe calls, want %d", n, c.resolves)
			}
		})
	}
}

// What the wire said about a document is held to the rules by check: an
// expires_at that is not ISO 8601 in the get_dpe answer, a lastModified
// that is not ISO 8601 and keywords that are not strings in the listing
// entry, each a finding with its JSON path in that message.
func TestRealInputs_CheckReportsTheWire(t *testing.T) {
	const doc = `{"doc_ref":"d","page_count":1,"pages":[{"page_index":0,"elements":[{"element_id":"e","category":"Title","text":"hello"}]}]}`
	docs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, doc)
	}))
	t.Cleanup(docs.Close)
	entry := hostilepeer.Resource("dpe://org.x.s/d", "d")
	entry["annotations"] = map[string]any{"lastModified": "last tuesday"}
	entry["_meta"] = map[string]any{"keywords": []any{"ok", 7, true}}
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "c", Servers: []string{"s"},
		Resources: func(string, string) hostilepeer.Reply { return hostilepeer.Page("", entry) },
		GetDPE: func(string) hostilepeer.Reply {
			return hostilepeer.JSON(map[string]any{"uri": docs.URL + "/d.json", "mime_type": "application/json",
				"_meta": map[string]any{"expires_at": "soon"}, "req_id": "r"})
		},
	}}})
	code, out, errOut := runBounded(t, "check", "dpe://org.x.s/d", "--url="+srv.URL, "--computer", "c", "--json")
	if code == 0 {
		t.Fatalf("check passed a document with wire violations: %s", out)
	}
	type line struct{ Rule, Path, Value string }
	var got []line
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var x line
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatalf("not JSON Lines: %q (stderr %q)", out, errOut)
		}
		got = append(got, x)
	}
	for _, w := range []line{
		{"DPE-E050", "get_dpe:$._meta.expires_at", "soon"},
		{"DPE-E051", "listing:$.annotations.lastModified", "last tuesday"},
		{"DPE-E052", "listing:$._meta.keywords[1]", "7"},
		{"DPE-E052", "listing:$._meta.keywords[2]", "true"},
	} {
		if !slices.Contains(got, w) {
			t.Errorf("no finding %+v in %+v", w, got)
		}
	}
	// --ignore silences them like any rule.
	code, out, _ = runBounded(t, "check", "dpe://org.x.s/d", "--url="+srv.URL, "--computer", "c", "--ignore", "DPE-E050,DPE-E051,DPE-E052")
	if code != 0 {
		t.Errorf("with the wire rules ignored: exit %d\n%s", code, out)
	}
}
