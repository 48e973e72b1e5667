package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/computer"
	"github.com/dpe-tui/dpe-tui/finder"
	"github.com/dpe-tui/dpe-tui/internal/hostilefiles"
	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/library"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/search"
)

// findQuery matches the demo on both computers: "valve" in alpha's
// library, "generated" in every generated note (beta's archive, gamma).
const findQuery = "valve OR generated"

// lineWriter collects stderr lines in arrival order and calls on with
// each complete line (under its lock).
type lineWriter struct {
	mu    sync.Mutex
	buf   []byte
	lines []string
	on    func(lines []string)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.lines = append(w.lines, string(w.buf[:i]))
		w.buf = w.buf[i+1:]
		if w.on != nil {
			w.on(w.lines)
		}
	}
}

// joinComputer joins one of our computers to office at url, serving srvs.
func joinComputer(t *testing.T, url, office, name string, srvs map[string]*mcp.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := computer.New(computer.Options{URL: url, Office: office, Name: name, ConnectTimeout: 20 * time.Second})
	t.Cleanup(func() { c.Close() })
	for sname, srv := range srvs {
		cfg := protocol.MCPServerConfig{Name: sname, Type: protocol.ServerTypeStdio, ForbiddenTools: []string{}, ToolMeta: map[string]protocol.ToolMeta{}}
		if err := c.AddInProcess(ctx, cfg, srv); err != nil {
			t.Fatalf("computer %s: add %s: %v", name, sname, err)
		}
	}
	if err := c.Start(ctx); err != nil {
		t.Fatalf("computer %s: start: %v", name, err)
	}
}

func openLibrary(t *testing.T, opt library.Options) *library.Library {
	t.Helper()
	lib, err := library.Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lib.Close() })
	return lib
}

// slowFinder is a library with Finder whose tools/call waits for gate.
func slowFinder(t *testing.T, gate <-chan struct{}) *mcp.Server {
	lib := openLibrary(t, library.Options{FS: fstest.MapFS{}, Host: "io.github.dpetui.gamma", Name: "shelf", Generated: 4,
		Finder: &library.FinderOptions{}})
	srv := lib.Server()
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				select {
				case <-gate:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return next(ctx, method, req)
		}
	})
	return srv
}

// floodBound is how long a flood query through the office may take to be
// answered: four times the Finder's deadline (two computers, each query
// and round trip bounded by it) plus ten times what a plain find took
// just before, so a loaded machine's slowness is not called a hang.
func floodBound(control time.Duration) time.Duration {
	return 4*finder.DefaultQueryTimeout + 10*control
}

// waitFinders runs `find` until every computer in want reports a full
// index ("indexed: n/n documents"), and says how long the last find (the
// one that saw them full) took.
func waitFinders(t *testing.T, url string, want ...string) (took time.Duration) {
	t.Helper()
	deadline := testbudget.Until(t, 2*time.Minute)
	for {
		start := time.Now()
		_, _, errOut := runCLI(t, append([]string{"find", "valve", "--url=" + url}, computersFlag(want)...)...)
		took = time.Since(start)
		full := 0
		for _, l := range strings.Split(errOut, "\n") {
			if _, rest, ok := strings.Cut(l, "; indexed: "); ok {
				var a, b int
				if n, _ := fmt.Sscanf(rest, "%d/%d", &a, &b); n == 2 && a == b && a > 0 {
					full++
				}
			}
		}
		if full == len(want) {
			return took
		}
		if time.Now().After(deadline) {
			t.Fatalf("Finder indexes of %v not complete:\n%s", want, errOut)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func computersFlag(names []string) []string {
	if len(names) == 1 {
		return []string{"--computer", names[0]}
	}
	return nil
}

// TestFind_AcrossComputers: `dpe-tui find` against the embedded demo
// stack plus gamma (a Finder that answers only after the others have been
// printed) and delta (no Finder).
func TestFind_AcrossComputers(t *testing.T) {
	st := startStack(t, "http")
	gate := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	joinComputer(t, st.URL, st.Office, "gamma", map[string]*mcp.Server{"shelf": slowFinder(t, gate)})
	delta := openLibrary(t, library.Options{FS: fstest.MapFS{}, Host: "io.github.dpetui.delta", Name: "plain", Generated: 2})
	joinComputer(t, st.URL, st.Office, "delta", map[string]*mcp.Server{"plain": delta.Server()})
	t.Cleanup(release)
	waitFinders(t, st.URL, "alpha")
	waitFinders(t, st.URL, "beta")

	stderr := &lineWriter{on: func(lines []string) {
		if len(lines) == 3 {
			release() // gamma answers once alpha, beta and delta are printed
		}
	}}
	var stdout bytes.Buffer
	code := run([]string{"find", findQuery, "--url=" + st.URL, "--limit", "30"}, &stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), strings.Join(stderr.lines, "\n"))
	}
	lines := stderr.lines
	if len(lines) != 4 || !strings.HasPrefix(lines[3], "gamma: ") {
		t.Fatalf("stderr status lines %q, want gamma's last of 4", lines)
	}
	got := map[string]string{}
	for _, l := range lines {
		name, rest, _ := strings.Cut(l, ": ")
		got[name] = rest
	}
	if got["delta"] != "no Finder" {
		t.Errorf("delta: %q, want \"no Finder\"", got["delta"])
	}
	for _, name := range []string{"alpha", "beta", "gamma"} {
		if !(strings.Contains(got[name], " hits of ") || strings.Contains(got[name], " hit of ")) || !strings.Contains(got[name], "; indexed: ") {
			t.Errorf("%s: %q", name, got[name])
		}
	}
	from := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 6 || !strings.HasPrefix(f[1], "dpe://") || !strings.HasPrefix(f[2], "p.") {
			t.Fatalf("hit line %q: want computer, uri, p.N, element, title, snippet", l)
		}
		from[f[0]]++
	}
	if from["alpha"] == 0 || from["beta"] == 0 || from["gamma"] == 0 || from["delta"] != 0 {
		t.Errorf("hits per computer %v", from)
	}
	assertNoControls(t, stdout.String())

	// --json: JSON Lines, one hit each, with the computer.
	code, out, errOut := runCLI(t, "find", "generated", "--url="+st.URL, "--computer", "beta", "--json", "--limit", "3")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	jl := strings.Split(strings.TrimSpace(out), "\n")
	if len(jl) != 3 {
		t.Fatalf("--json --limit 3 printed %d lines", len(jl))
	}
	for i, l := range jl {
		var h search.Hit
		if err := json.Unmarshal([]byte(l), &h); err != nil || h.Computer != "beta" || h.Page < 1 || h.ElementID == "" {
			t.Fatalf("JSON line %q: %v", l, err)
		}
		// rank is the 1-based place (what --open takes), score the engine's.
		var place struct {
			Rank  json.RawMessage `json:"rank"`
			Score *float64        `json:"score"`
		}
		if err := json.Unmarshal([]byte(l), &place); err != nil || string(place.Rank) != strconv.Itoa(i+1) || place.Score == nil || *place.Score <= 0 {
			t.Fatalf("JSON line %d: rank %s, score %v, want rank %d and the score: %q", i+1, place.Rank, place.Score, i+1, l)
		}
	}

	// --open 1 prints the hit's page through get_dpe.
	code, out, errOut = runCLI(t, "find", "generated", "--url="+st.URL, "--computer", "beta", "--limit", "1", "--open", "1")
	if code != 0 || !strings.Contains(out, "\ndpe://io.github.dpetui.archive/") || !strings.Contains(out, "This is generated note") {
		t.Fatalf("--open 1: exit %d\n%s\n%s", code, out, errOut)
	}

	// A query the engine rejects: one line naming the syntax problem.
	code, _, errOut = runCLI(t, "find", `"unterminated`, "--url="+st.URL, "--computer", "alpha")
	if code != exitRuntime || errOut != "dpe-tui: query syntax: parse error: unterminated quote\n" {
		t.Fatalf("syntax error: exit %d, stderr %q", code, errOut)
	}
}

// TestFind_SilentComputerBounded: gamma never answers; `find` prints the
// others' hits and gamma's timeout, within the request timeout.
func TestFind_SilentComputerBounded(t *testing.T) {
	st := startStack(t, "http")
	// The demo indexes in the background at low priority: wait (bounded
	// by the test's deadline) until alpha and beta answer with hits, so
	// what is checked below is gamma's bound, not a loaded machine.
	for {
		code, out, _ := runBounded(t, "find", findQuery, "--url="+st.URL, "--timeout=10s")
		if code == 0 && (strings.Contains(out, "alpha\t") || strings.Contains(out, "beta\t")) {
			break
		}
		if d, ok := t.Deadline(); ok && time.Until(d) < time.Minute {
			t.Fatalf("alpha and beta never answered with hits (exit %d)", code)
		}
		time.Sleep(time.Second)
	}
	never := make(chan struct{})
	joinComputer(t, st.URL, st.Office, "gamma", map[string]*mcp.Server{"shelf": slowFinder(t, never)})
	t.Cleanup(func() { close(never) })
	// Bounded against a hang; gamma's own line below says it was its 2 s
	// request timeout that ended the wait, not the test's.
	code, out, errOut := runBounded(t, "find", findQuery, "--url="+st.URL, "--timeout=2s")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
		// The closing note when alpha is still indexing: not a
		// computer's state.
		if !strings.HasPrefix(l, "dpe-tui: answered from an incomplete index on ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 3 || !strings.HasPrefix(lines[2], "gamma: error: ") || !strings.Contains(lines[2], "no answer within 2s") {
		t.Fatalf("stderr %q, want gamma's timeout last", lines)
	}
	if !strings.Contains(out, "alpha\t") && !strings.Contains(out, "beta\t") {
		t.Fatalf("no hits from the others:\n%s", out)
	}
}

// TestMCP_NodeSDKClient: `dpe-tui mcp --docs DIR` on stdio, driven by the
// official Node MCP SDK client (interop/peers/mcp_client.mjs).
func TestMCP_NodeSDKClient(t *testing.T) {
	node, _ := interoptest.NodeModules(t, "@modelcontextprotocol/sdk")
	bin := buildBinary(t)
	docs := t.TempDir()
	writeFile(t, filepath.Join(docs, "intake.md"), "# Intake\n\nThe Lantern Creek intake opens in May.\n\n# Budget\n\nNothing about rivers.\n")
	writeFile(t, filepath.Join(docs, "stations.csv"), "station,flow\nriverbend,12\nquarry,7\n")
	script := filepath.Join(interoptest.RepoRoot(t), "interop", "peers", "mcp_client.mjs")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, bin, "mcp", "--docs", docs, "--index-dir", filepath.Join(t.TempDir(), "idx"))
	cmd.Env = append(os.Environ(), "FIND_QUERY=riverbend")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, stderr.String())
	}
	var got struct {
		Resources []string `json:"resources"`
		Tools     []string `json:"tools"`
		Find      struct {
			IsError    bool `json:"isError"`
			Structured struct {
				Hits []search.Hit `json:"hits"`
			} `json:"structuredContent"`
		} `json:"find"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	want := map[string]bool{"dpe://" + library.DefaultHost + "/intake.md": false, "dpe://" + library.DefaultHost + "/stations.csv": false}
	for _, u := range got.Resources {
		if _, ok := want[u]; ok {
			want[u] = true
		}
	}
	for u, seen := range want {
		if !seen {
			t.Errorf("resources/list lacks %s: %v", u, got.Resources)
		}
	}
	if !strings.Contains(strings.Join(got.Tools, ","), "find") || !strings.Contains(strings.Join(got.Tools, ","), "list_documents") {
		t.Errorf("tools %v", got.Tools)
	}
	hits := got.Find.Structured.Hits
	if got.Find.IsError || len(hits) == 0 || hits[0].URI != "dpe://"+library.DefaultHost+"/stations.csv" || hits[0].Page != 1 {
		t.Fatalf("find riverbend: %+v\nstderr %s", got.Find, stderr.String())
	}
}

// TestFind_ReferenceServer: through a server that routes only tool_call
// and get_tools (interop/peers/refserver.py), `find` works and opening a
// hit says why it cannot.
func TestFind_ReferenceServer(t *testing.T) {
	url := startRefServer(t)
	lib := openLibrary(t, library.Options{FS: fstest.MapFS{}, Host: "io.github.dpetui.ref", Name: "shelf", Generated: 5, Finder: &library.FinderOptions{}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := lib.Finder().Wait(ctx); err != nil {
		t.Fatal(err)
	}
	joinComputer(t, url, "ref", "gamma", map[string]*mcp.Server{"shelf": lib.Server()})

	code, out, errOut := runCLI(t, "find", "generated", "--url="+url, "--office", "ref", "--limit", "3")
	if code != 0 || len(strings.Split(strings.TrimSpace(out), "\n")) != 3 || !strings.HasPrefix(out, "gamma\tdpe://io.github.dpetui.ref/") {
		t.Fatalf("find through the reference server: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.HasPrefix(errOut, "gamma: 3 hits of 5; indexed: 5/5 documents\n") {
		t.Errorf("stderr %q", errOut)
	}
	code, out, errOut = runCLI(t, "find", "generated", "--url="+url, "--office", "ref", "--limit", "1", "--open", "1", "--timeout=10s")
	want := "dpe-tui: cannot open the hit: this server does not route client:get_dpe (the python-sdk reference server and A2C-SMCP 0.3 do not); search works through client:tool_call, opening needs get_dpe\n"
	if code != exitRuntime || !strings.HasSuffix(errOut, want) || !strings.HasPrefix(out, "gamma\t") {
		t.Fatalf("--open through the reference server: exit %d\nstdout %q\nstderr %q\nwant last line %q", code, out, errOut, want)
	}
}

func startRefServer(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		interoptest.Need(t, "reference server: %s not found", py)
	}
	if out, err := exec.Command(py, "-c", "import socketio, aiohttp").CombinedOutput(); err != nil {
		interoptest.Need(t, "reference server: python3-socketio / python3-aiohttp missing: %s", bytes.TrimSpace(out))
	}
	cmd := exec.Command(py, filepath.Join(interoptest.RepoRoot(t), "interop", "peers", "refserver.py"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuf
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("refserver stderr:\n%s", stderr.String())
		}
	})
	portc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if p, ok := strings.CutPrefix(sc.Text(), "PORT "); ok {
				select {
				case portc <- p:
				default:
				}
			}
		}
	}()
	select {
	case p := <-portc:
		return "http://127.0.0.1:" + p
	case <-exited:
		t.Fatalf("refserver exited:\n%s", stderr.String())
	case <-time.After(testbudget.Left(t, 20*time.Second)):
		t.Fatalf("refserver printed no port by the test's deadline:\n%s", stderr.String())
	}
	return ""
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestFind_MatchPastColumn80: in find's text output the snippet of a long
// paragraph whose match sits far past column 80 (in English, and in
// double-width Chinese) is a window of at most findSnippetCols columns
// that shows the match, cut on both sides.
func TestFind_MatchPastColumn80(t *testing.T) {
	st := startStack(t, "http")
	lead := strings.Repeat("The overflow channel carries water past the old mill when the weir is closed. ", 5)
	cjkLead := strings.Repeat("水库在雨季之前放水以便腾出库容。", 8)
	long := "# Long\n\n" + lead + "Then the zephyrquill gauge reads the level. " + lead + "\n\n" +
		"# 长段\n\n" + cjkLead + "闸门调度员记录水位。" + cjkLead + "\n"
	for _, prefix := range []string{lead, cjkLead} {
		if w := ansi.StringWidth(prefix); w <= 200 {
			t.Fatalf("the match is at column %d, want far past 80", w)
		}
	}
	lib := openLibrary(t, library.Options{FS: fstest.MapFS{"long.md": {Data: []byte(long)}}, Host: "io.github.dpetui.long", Name: "shelf",
		Finder: &library.FinderOptions{}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := lib.Finder().Wait(ctx); err != nil {
		t.Fatal(err)
	}
	joinComputer(t, st.URL, st.Office, "gamma", map[string]*mcp.Server{"shelf": lib.Server()})
	waitFinders(t, st.URL, "gamma")

	for _, c := range []struct{ query, match string }{
		{"zephyrquill", "zephyrquill"},
		{`"闸门调度员"`, "闸门调度员"},
	} {
		code, out, errOut := runCLI(t, "find", c.query, "--url="+st.URL, "--computer", "gamma")
		if code != 0 {
			t.Fatalf("find %s: exit %d\n%s", c.query, code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		f := strings.Split(lines[0], "\t")
		if len(lines) != 1 || len(f) != 6 || f[1] != "dpe://io.github.dpetui.long/long.md" {
			t.Fatalf("find %s: %q, want one hit line of long.md", c.query, out)
		}
		snip := f[5]
		if !strings.Contains(snip, c.match) || ansi.StringWidth(snip) > findSnippetCols ||
			!strings.HasPrefix(snip, "…") || !strings.HasSuffix(snip, "…") {
			t.Fatalf("find %s: snippet %q (%d columns), want %q within %d columns, cut on both sides",
				c.query, snip, ansi.StringWidth(snip), c.match, findSnippetCols)
		}
		assertNoControls(t, out)
	}
}

// TestMCP_FinderReadyLine: `dpe-tui mcp` on stdio says on stderr when the
// background index build is done, and how many documents it holds; the
// protocol on stdout stays clean, and closing stdin ends the server.
func TestMCP_FinderReadyLine(t *testing.T) {
	docs := t.TempDir()
	writeFile(t, filepath.Join(docs, "intake.md"), "# Intake\n\nThe Lantern Creek intake opens in May.\n")
	writeFile(t, filepath.Join(docs, "stations.csv"), "station,flow\nriverbend,12\n")
	ready := make(chan string, 1)
	stderr := &lineWriter{on: func(lines []string) {
		if l := lines[len(lines)-1]; strings.Contains(l, "Finder index") {
			select {
			case ready <- l:
			default:
			}
		}
	}}
	pr, pw := io.Pipe()
	var stdout syncBuf
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	exit := make(chan int, 1)
	go func() {
		exit <- runIO(ctx, []string{"mcp", "--docs", docs, "--index-dir", filepath.Join(t.TempDir(), "idx")}, pr, &stdout, stderr)
	}()
	var line string
	select {
	case line = <-ready:
	case code := <-exit:
		t.Fatalf("mcp exited %d before its index was ready:\n%s", code, strings.Join(stderr.lines, "\n"))
	case <-ctx.Done():
		t.Fatal("no Finder ready line")
	}
	_ = pw.Close()
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("mcp exit %d after stdin closed:\n%s", code, strings.Join(stderr.lines, "\n"))
		}
	case <-ctx.Done():
		t.Fatal("mcp did not end when stdin closed")
	}
	if want := "dpe-tui mcp: Finder index ready: 2 documents"; line != want {
		t.Fatalf("stderr line %q, want %q", line, want)
	}
	if stdout.String() != "" {
		t.Fatalf("stdout (the protocol) got %q with no request", stdout.String())
	}
}

// TestFind_PatternFloodSaysOverBudget: the 4,095-byte `*o*` ×1,024 query,
// sent by the find command through the office (SMCP tool_call to each
// computer's Finder), is answered by every Finder with "over budget", not
// minutes of CPU.
func TestFind_PatternFloodSaysOverBudget(t *testing.T) {
	st := startStack(t, "http")
	waitFinders(t, st.URL, "alpha")
	q := strings.TrimSpace(strings.Repeat("*o* ", 1024))
	code, out, errOut := runBounded(t, "find", q, "--url="+st.URL)
	if strings.Count(errOut, "over budget") < 2 || strings.TrimSpace(out) != "" {
		t.Fatalf("exit %d; stdout %q; stderr:\n%s\nwant each computer's Finder to say over budget", code, out, errOut)
	}
}

// TestFind_OneWordFloodAnsweredInTime: `*o*` 1,024 times in one word is
// one wildcard, under every count; its automaton took each computer's
// Finder past find's 30 s wait (and kept the process busy after). Through
// the office each Finder now answers it, with no hits, well within the
// query deadline it would otherwise be stopped at.
func TestFind_OneWordFloodAnsweredInTime(t *testing.T) {
	st := startStack(t, "http")
	control := waitFinders(t, st.URL, "alpha")
	start := time.Now()
	code, out, errOut := runBounded(t, "find", strings.Repeat("*o*", 1024), "--url="+st.URL)
	took := time.Since(start)
	if strings.Count(errOut, ": 0 hits of 0;") < 2 || strings.TrimSpace(out) != "" {
		t.Fatalf("exit %d; stdout %q; stderr:\n%s\nwant each computer's Finder to answer no hits", code, out, errOut)
	}
	// Both computers' queries and the office round trips, each bounded by
	// the Finder's deadline, plus ten times a plain find's round trip on
	// this machine now (a loaded machine is slower, not the query longer).
	if bound := floodBound(control); took > bound {
		t.Errorf("answered after %s, past %s (the Finder's deadline is %s)", took, bound, finder.DefaultQueryTimeout)
	}
}

// find over a folder of files that cannot be converted indexes the ones it
// can and says which it skipped and why: the count beside the indexed
// ones, each name with its limit or damage, not "indexed: 0/4".
func TestFind_IndexesWhatItCanAndNamesWhatItSkipped(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "guide.md"), "# Guide\n\nStill here.\n")
	writeFile(t, filepath.Join(dir, "broken.docx"), "PK\x03\x04 not a zip after all")
	want := map[string]string{"broken.docx": "damaged zip archive"}
	for _, f := range hostilefiles.All() {
		switch f.Name {
		case "csv-ragged.csv", "md-link-openers.md":
			if err := hostilefiles.WriteFile(filepath.Join(dir, f.Name), f); err != nil {
				t.Fatal(err)
			}
			want[f.Name] = f.Limit
		}
	}
	code, out, errOut := runCLI(t, "find", "still", "--docs", dir, "--timeout", "2m")
	if code != exitOK || !strings.Contains(out, "guide.md") {
		t.Fatalf("find: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "; indexed: 1/4 documents; skipped 3 that cannot be read: ") {
		t.Errorf("find does not count the skipped documents:\n%s", errOut)
	}
	for name, why := range want {
		if !strings.Contains(errOut, name+" (") || !strings.Contains(errOut, why) {
			t.Errorf("find does not name %s and %q:\n%s", name, why, errOut)
		}
	}
}
