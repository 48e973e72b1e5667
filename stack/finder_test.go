package stack

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/library"
	"github.com/dpe-tui/dpe-tui/search"
	"github.com/dpe-tui/dpe-tui/ui"
)

// finderQuery matches the demo on both computers: "valve" in alpha's
// library, "generated" in every generated note (beta's archive, gamma).
const finderQuery = "valve OR generated"

// gate is what gamma's Finder waits for; a test arms a new one.
type gate struct {
	mu  sync.Mutex
	ch  chan struct{}
	rel func()
}

// arm replaces the gate with a closed-later one and returns its release.
func (g *gate) arm() func() {
	g.mu.Lock()
	defer g.mu.Unlock()
	ch := make(chan struct{})
	g.ch, g.rel = ch, sync.OnceFunc(func() { close(ch) })
	return g.rel
}

// release opens the current gate.
func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rel()
}

func (g *gate) wait() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ch
}

// gatedLibrary is a library with Finder whose tools/call waits for the
// gate (or the call's end): a slow Finder made slow at the MCP layer, so
// the computer and the server in between are the real ones.
func gatedLibrary(t *testing.T, host string, g *gate) *mcp.Server {
	t.Helper()
	lib, err := library.Open(library.Options{FS: emptyFS{}, Host: host, Name: "shelf", Generated: 4, PageSize: PageSize,
		Finder: &library.FinderOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lib.Close() })
	srv := lib.Server()
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				select {
				case <-g.wait():
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return next(ctx, method, req)
		}
	})
	return srv
}

// plainLibrary is a library without Finder.
func plainLibrary(t *testing.T, host string) *mcp.Server {
	t.Helper()
	lib, err := library.Open(library.Options{FS: emptyFS{}, Host: host, Name: "plain", Generated: 3, PageSize: PageSize})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lib.Close() })
	return lib.Server()
}

// finderOffice is the demo plus gamma (a Finder that answers when the
// gate is released) and delta (no Finder).
func finderOffice(t *testing.T) (*Stack, *gate) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, 60*time.Second))
	defer cancel()
	// The server's cap and the computers' MCP calls outlast the agents'
	// request timeouts, so gamma's silence is the agent's to report.
	long := testbudget.Left(t, 60*time.Second).Truncate(time.Second) // whole seconds: it is sent as "timeout"
	st, err := Start(ctx, Options{MaxRequestTimeout: long, ComputerRequestTimeout: long})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	g := &gate{}
	g.arm()
	startExtraComputer(t, st, st.Office, "gamma", nil, map[string]*mcp.Server{"shelf": gatedLibrary(t, "io.github.dpetui.gamma", g)})
	startExtraComputer(t, st, st.Office, "delta", nil, map[string]*mcp.Server{"plain": plainLibrary(t, "io.github.dpetui.delta")})
	// Runs before the computers close: a call still waiting ends now.
	t.Cleanup(g.release)
	return st, g
}

// waitIndexed waits until alpha's and beta's Finders report a complete
// index (they build in the background from start-up), and says how long
// the slowest of the searches that asked took.
func waitIndexed(t *testing.T, c *client.Client) (slowest time.Duration) {
	t.Helper()
	deadline := testbudget.Until(t, 2*time.Minute)
	for {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		t0 := time.Now()
		rs, err := search.Run(ctx, c, search.Query{Text: "valve", Computers: []string{ComputerAlpha, ComputerBeta}}, nil)
		slowest = max(slowest, time.Since(t0))
		cancel()
		complete := err == nil && len(rs) == 2
		for _, r := range rs {
			complete = complete && r.State == search.OK && r.Complete
		}
		if complete {
			return slowest
		}
		if time.Now().After(deadline) {
			t.Fatalf("Finder indexes not complete: %v %+v", err, rs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// probeSlowest runs wait (waitIndexed or waitAlphaIndexed) on an agent
// of its own with a long request timeout, and leaves the office to the
// test's agent (an office has one agent) once it is done.
func probeSlowest(t *testing.T, st *Stack, wait func(*testing.T, *client.Client) time.Duration) time.Duration {
	t.Helper()
	probe := dialAgent(t, st.URL, st.Office, "finder-probe", testbudget.Left(t, 30*time.Second))
	slowest := wait(t, probe)
	_ = probe.Close()
	return slowest
}

// silentTimeout is the request timeout of a test that waits for a silent
// computer to time out while others answer: 20 times the slowest search
// that answered on this machine now, at least 4 s, and no more than a
// quarter of what is left of the test's deadline. A fixed 2 or 4 s let
// answered requests time out on a loaded 2-core machine.
func silentTimeout(t *testing.T, slowest time.Duration) time.Duration {
	d := min(max(4*time.Second, 20*slowest), testbudget.Left(t, 4*time.Second)/4).Round(time.Second)
	t.Logf("slowest search %s: request timeout %s", slowest.Round(time.Millisecond), d)
	return d
}

// TestFinder_AcrossComputers: the office's four computers are searched in
// parallel; gamma's Finder answers only once the other three have been
// reported, and delta is "no Finder" without delaying anyone. Then gamma
// never answers and fails alone with the request timeout.
func TestFinder_AcrossComputers(t *testing.T) {
	st, g := finderOffice(t)
	t.Run("slow one last", func(t *testing.T) { testSlowOneLast(t, st, g) })
	// The office's one agent has left; the next joins with a short timeout.
	t.Run("silent one bounded", func(t *testing.T) { testSilentBounded(t, st, g) })
}

func testSlowOneLast(t *testing.T, st *Stack, g *gate) {
	release := g.arm()
	agent := dialAgent(t, st.URL, st.Office, "finder-agent", testbudget.Left(t, 30*time.Second))
	waitIndexed(t, agent)
	var order []string
	ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, time.Minute))
	defer cancel()
	results, err := search.Run(ctx, agent, search.Query{Text: finderQuery, Limit: 50}, func(r search.Result) {
		order = append(order, r.Computer)
		if len(order) == 3 {
			release()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 4 || order[3] != "gamma" {
		t.Fatalf("arrival order %v, want alpha, beta and delta before gamma", order)
	}
	states := map[string]search.Result{}
	for _, r := range results {
		states[r.Computer] = r
	}
	for _, name := range []string{ComputerAlpha, ComputerBeta, "gamma"} {
		if r := states[name]; r.State != search.OK || len(r.Hits) == 0 || !strings.HasPrefix(r.Indexed, "indexed: ") {
			t.Errorf("%s: state %v, %d hits, %q, err %v", name, r.State, len(r.Hits), r.Indexed, r.Err)
		}
	}
	if r := states["delta"]; r.State != search.NoFinder {
		t.Errorf("delta: state %v (err %v), want NoFinder", r.State, r.Err)
	}
	hosts := map[string]string{ComputerAlpha: HostLibrary, ComputerBeta: HostArchive, "gamma": "io.github.dpetui.gamma"}
	merged := search.Merge(results, 20)
	from := map[string]bool{}
	for _, h := range merged {
		from[h.Computer] = true
		if !strings.HasPrefix(h.URI, "dpe://"+hosts[h.Computer]+"/") {
			t.Errorf("hit %s from %s: not on that computer's host", h.URI, h.Computer)
		}
	}
	if !from[ComputerAlpha] || !from[ComputerBeta] || !from["gamma"] {
		t.Errorf("merged hits come from %v, want alpha, beta and gamma", from)
	}

	// A hit opens at its page and element through the normal get_dpe path.
	var h search.Hit
	for _, x := range merged {
		if x.Computer == ComputerBeta {
			h = x
			break
		}
	}
	opener := &dpe.Opener{Resolver: agent.Resolver(h.Computer), Fetcher: &dpe.Fetcher{MaxBytes: 1 << 20, Timeout: 30 * time.Second},
		Limits: dpe.DefaultLimits()}
	op, err := opener.Open(ctx, h.URI)
	if err != nil {
		t.Fatalf("open %s: %v", h.URI, err)
	}
	doc := op.Doc
	if doc == nil || h.Page > len(doc.Pages) {
		t.Fatalf("open %s: no page %d", h.URI, h.Page)
	}
	if err := opener.LoadPageInto(ctx, op, h.Page-1); err != nil {
		t.Fatalf("open %s page %d: %v", h.URI, h.Page, err)
	}
	found := false
	for _, e := range doc.Pages[h.Page-1].Elements {
		found = found || e.ID == h.ElementID
	}
	if !found {
		var ids []string
		for _, e := range doc.Pages[h.Page-1].Elements {
			ids = append(ids, e.ID)
		}
		t.Logf("page %d decoded=%v ids %v", h.Page, doc.Pages[h.Page-1].Decoded, ids)
		t.Fatalf("element %s is not on page %d of %s", h.ElementID, h.Page, h.URI)
	}
}

// testSilentBounded: gamma never answers; it fails with the request
// timeout while the others' results arrive first.
func testSilentBounded(t *testing.T, st *Stack, g *gate) {
	g.arm() // never released by this test
	slowest := probeSlowest(t, st, waitIndexed)
	agent := dialAgent(t, st.URL, st.Office, "finder-agent-2", silentTimeout(t, slowest))
	var order []string
	// ctx only bounds a hang: gamma's error below says its request
	// timeout ended the wait, and the others answered before it.
	ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, time.Minute))
	defer cancel()
	results, err := search.Run(ctx, agent, search.Query{Text: finderQuery}, func(r search.Result) { order = append(order, r.Computer) })
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 4 || order[3] != "gamma" {
		t.Fatalf("arrival order %v, want gamma last", order)
	}
	last := results[3]
	if last.State != search.Failed || last.Err == nil || !strings.Contains(last.Err.Error(), "no answer within") {
		t.Fatalf("gamma: state %v, err %v; want a timeout", last.State, last.Err)
	}
	if hits := search.Merge(results, 0); len(hits) == 0 || hits[0].Computer == "gamma" {
		t.Fatalf("merged hits %+v", hits)
	}
}

// TestFinder_TUIAcrossTheDemo drives the real browser (ui.New on a real
// client) against the embedded demo: beta serves its archive without
// Finder, alpha's Finder is held. The Finder screen shows "beta: no
// Finder" while alpha is still searching, then alpha's hits; enter opens
// the annual report at page 7 with the hit's element selected and on
// screen. A second query that alpha never answers fails alpha alone,
// within the request timeout.
//
// The request timeout is a ratio of this machine's speed now
// (silentTimeout), not a fixed figure.
func TestFinder_TUIAcrossTheDemo(t *testing.T) {
	g := &gate{}
	hold := func(ctx context.Context, computer string) error {
		if computer != ComputerAlpha {
			return nil
		}
		ch := g.wait()
		if ch == nil {
			return nil // not armed: answer at once
		}
		select {
		case <-ch:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, 60*time.Second))
	defer cancel()
	// The server's cap and the computers' MCP calls outlast the agent's
	// request timeout, so alpha's silence is the agent's to report.
	long := testbudget.Left(t, 60*time.Second).Truncate(time.Second) // whole seconds: it is sent as "timeout"
	st, err := Start(ctx, Options{NoFinder: []string{ComputerBeta}, HoldFinder: hold, MaxRequestTimeout: long, ComputerRequestTimeout: long})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	slowest := probeSlowest(t, st, waitAlphaIndexed)
	requestTimeout := silentTimeout(t, slowest)
	agent := dialAgent(t, st.URL, st.Office, "tui", requestTimeout)

	release := g.arm()
	t.Cleanup(g.release) // a call still held ends before the stack closes
	m := ui.New(ui.Options{Agent: agent, Theme: "dark", Width: 100, Height: 30, StatusTimeout: -1, RequestTimeout: requestTimeout})
	tm := teatest.NewTestModel(t, probe{m}, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	frame := func() string {
		t.Helper()
		reply := make(chan string, 1)
		tm.Send(probeMsg{reply: reply})
		select {
		case f := <-reply:
			return f
		case <-time.After(testbudget.Left(t, 10*time.Second)):
			t.Fatal("no frame")
		}
		return ""
	}
	wait := func(what string, ok func(string) bool) {
		t.Helper()
		deadline := testbudget.Until(t, 45*time.Second)
		for {
			f := frame()
			if ok(f) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s; the screen is:\n%s", what, f)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	has := func(s string) func(string) bool { return func(f string) bool { return strings.Contains(f, s) } }
	key := func(r rune) { tm.Send(tea.KeyPressMsg{Code: r, Text: string(r)}) }
	typeText := func(s string) {
		for _, r := range s {
			key(r)
		}
	}

	wait("office", has(ComputerBeta))
	key('F')
	wait("prompt", has("search /"))
	typeText(`"answer a call"`)
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("beta: no Finder", has("beta: no Finder"))
	// Alpha is held: beta is reported without waiting for it.
	if strings.Contains(frame(), "alpha: ") {
		t.Fatalf("alpha reported before its Finder answered:\n%s", frame())
	}
	release()
	wait("alpha's hits", has("alpha: 1"))
	wait("the hit", has("p7"))
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("page 7", has("page 7/"))
	wait("the element on screen", func(f string) bool {
		for _, l := range strings.Split(f, "\n") {
			if strings.Contains(l, "answer a call") && strings.Contains(l, "▌") {
				return true
			}
		}
		return false
	})

	// Alpha never answers this one: beta first, alpha fails alone.
	g.arm()
	// Esc leaves the innermost thing first (the status message, then the
	// hit's search), and then the document, back to the Finder: each esc
	// changes the screen, and at most three reach the Finder.
	for range 3 {
		before := frame()
		if strings.Contains(before, "Finder ·") {
			break
		}
		tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
		wait("esc to change the screen", func(f string) bool { return f != before })
	}
	wait("finder again", has("Finder ·"))
	key('/')
	typeText(" OR valve")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("alpha's timeout", has("no answer within"))
	if !strings.Contains(frame(), "beta: no Finder") {
		t.Fatalf("beta's state is not shown with alpha's timeout:\n%s", frame())
	}
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.WaitFinished(t, teatest.WithFinalTimeout(testbudget.Left(t, 10*time.Second)))
}

// waitAlphaIndexed waits until alpha's Finder reports a complete index,
// and says how long the slowest of the searches that asked took.
func waitAlphaIndexed(t *testing.T, c *client.Client) (slowest time.Duration) {
	t.Helper()
	deadline := testbudget.Until(t, 2*time.Minute)
	for {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		t0 := time.Now()
		rs, err := search.Run(ctx, c, search.Query{Text: "valve", Computers: []string{ComputerAlpha}}, nil)
		slowest = max(slowest, time.Since(t0))
		cancel()
		if err == nil && len(rs) == 1 && rs[0].State == search.OK && rs[0].Complete {
			return slowest
		}
		if time.Now().After(deadline) {
			t.Fatalf("alpha's Finder index not complete: %v %+v", err, rs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// probe answers probeMsg with the current screen, as plain text.
type probe struct{ ui.Model }

type probeMsg struct{ reply chan string }

func (p probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if pm, ok := msg.(probeMsg); ok {
		pm.reply <- ansi.Strip(p.Model.View().Content)
		return p, nil
	}
	m, cmd := p.Model.Update(msg)
	return probe{m.(ui.Model)}, cmd
}
