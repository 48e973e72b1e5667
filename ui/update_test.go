package ui

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// newTestModel returns the inner model for synchronous driving.
func newTestModel(t *testing.T, f *fakeAgent) *model {
	t.Helper()
	f.noEvents = true
	return New(testOptions(f)).m
}

// guard fails the test instead of hanging when fn does not return: it is
// how "Update never blocks" is checked.
func guard(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not return: Update blocked", what)
	}
}

// run executes cmd (and batches) and feeds the results back into Update
// until nothing is left, skipping spinner ticks. It is the synchronous
// stand-in for tea.Program in unit tests.
func run(t *testing.T, m *model, cmd tea.Cmd) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 10000 {
			t.Fatal("command loop did not settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		var msg tea.Msg
		guard(t, "command", func() { msg = c() })
		switch msg := msg.(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case spinner.TickMsg, nil:
		default:
			var next tea.Cmd
			guard(t, "Update", func() { next = m.update(msg) })
			queue = append(queue, next)
		}
	}
}

func press(t *testing.T, m *model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		run(t, m, m.update(keyMsg(k)))
	}
}

func frame(m *model) string { return ansi.Strip(m.view().Content) }

func TestEsc_CancelsInFlightRequestAndDropsItsAnswer(t *testing.T) {
	f := newFakeAgent(t)
	f.block = true // every call waits for its context
	m := newTestModel(t, f)
	cmd := m.loadComputers()
	if !m.ops.busy() {
		t.Fatal("listing computers should be in flight")
	}
	if !strings.Contains(frame(m), "esc cancels") {
		t.Fatalf("a wait must show that esc cancels it:\n%s", frame(m))
	}
	got := make(chan tea.Msg, 1)
	go func() { got <- cmd() }()
	guard(t, "Update(esc)", func() { m.update(keyMsg("esc")) })
	if m.ops.busy() {
		t.Fatal("esc left the request in flight")
	}
	if !strings.Contains(m.status.text, "cancelled: listing computers") {
		t.Fatalf("status = %q, want the cancelled request named", m.status.text)
	}
	// The cancelled command returns once its context is done; its answer
	// must not change the screen.
	msg := <-got
	m.update(msg)
	if !strings.Contains(m.status.text, "cancelled") || m.office.loaded {
		t.Fatalf("a cancelled answer changed the screen: status %q", m.status.text)
	}
}

func TestUpdate_NeverBlocksWhenTheAgentHangsForever(t *testing.T) {
	f := newFakeAgent(t)
	f.block, f.ignoreCtx = true, true // ignores cancellation too
	t.Cleanup(func() { close(f.release) })
	m := newTestModel(t, f)
	m.office.setComputers(m, f.computers) // rows without configs
	var cmds []tea.Cmd
	for _, k := range []string{"down", "enter", "r", "esc", "o", "x", "esc", "?", "?", "esc", "r", "esc"} {
		guard(t, "Update("+k+")", func() { cmds = append(cmds, m.update(keyMsg(k))) })
		guard(t, "View", func() { _ = m.view() })
	}
	// Commands are allowed to block (they run off the loop); starting them
	// in goroutines shows they do, while Update above returned.
	for _, c := range cmds {
		if c != nil {
			go c()
		}
	}
}

func TestCommand_PanicIsShownAsErrorAndProgramKeepsRunning(t *testing.T) {
	f := newFakeAgent(t)
	f.panics = true
	m := newTestModel(t, f)
	run(t, m, m.loadComputers())
	if !strings.Contains(m.status.text, "internal error: fake agent exploded") {
		t.Fatalf("status = %q, want the panic as a one-line error", m.status.text)
	}
	if m.ops.busy() {
		t.Fatal("the panicked op is still in flight")
	}
	f.panics = false
	press(t, m, "r")
	if len(m.office.rows) != 2 {
		t.Fatalf("after the panic, r should list the office again; rows = %d", len(m.office.rows))
	}
}

func TestResources_RepeatedCursorStopsLoadAllWithMessage(t *testing.T) {
	f := newFakeAgent(t)
	f.pages["loop"] = map[string]*client.ResourcePage{
		"":  {Resources: []client.Resource{res("dpe://h/a", "a", "", nil)}, NextCursor: "x"},
		"x": {Resources: []client.Resource{res("dpe://h/b", "b", "", nil)}, NextCursor: "x"},
	}
	m := newTestModel(t, f)
	m.screen = screenResources
	m.res = newResourcesView("laptop", "loop")
	run(t, m, m.res.loadNext(m, false))
	if got := m.res.counter(m); !strings.Contains(got, "1 loaded · 1 dpe · more available") {
		t.Fatalf("counter after one page = %q", got)
	}
	press(t, m, "M")
	if !strings.Contains(m.res.stop, `repeated cursor "x"`) {
		t.Fatalf("stop = %q, want the repeated cursor named", m.res.stop)
	}
	if got := m.res.counter(m); !strings.Contains(got, "2 loaded · 2 dpe · stopped") {
		t.Fatalf("counter = %q: the list must not look complete", got)
	}
}

func TestResources_LoadAllReachesTheEnd(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.screen = screenResources
	m.res = newResourcesView("laptop", "library")
	run(t, m, m.res.loadNext(m, true))
	if got := m.res.counter(m); !strings.HasPrefix(got, "6 loaded · 5 dpe · end") {
		t.Fatalf("counter = %q", got)
	}
}

func TestResources_FuzzyFilterMatchesKeywordsAndSchemeToggle(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.screen = screenResources
	m.res = newResourcesView("laptop", "library")
	run(t, m, m.res.loadNext(m, true))
	tests := []struct {
		filter  string
		showAll bool
		want    []string
	}{
		{"", false, []string{"Annual report 2026", "Meeting notes", "README", "Logo", "Budget Q3 report"}},
		{"", true, []string{"Annual report 2026", "Meeting notes", "raw.bin", "README", "Logo", "Budget Q3 report"}},
		{"finance", false, []string{"Annual report 2026", "Budget Q3 report"}}, // keyword
		{"xlsx", false, []string{"Annual report 2026"}},                        // file_type
		{"raw", true, []string{"raw.bin"}},
	}
	for _, tt := range tests {
		m.res.filter, m.res.showAll = tt.filter, tt.showAll
		m.res.refilter()
		var got []string
		for _, i := range m.res.visible {
			got = append(got, m.res.all[i].Name)
		}
		sort.Strings(got) // fuzzy ranks by score; the set is what matters here
		sort.Strings(tt.want)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("filter %q all=%v: got %v, want %v", tt.filter, tt.showAll, got, tt.want)
		}
	}
}

func TestOffice_NotifyEventsUpdateRowsLive(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	run(t, m, m.loadComputers())
	run(t, m, m.update(agentEventMsg{ev: client.NotifyEvent{Name: protocol.NotifyLeaveOffice, Computer: "laptop"}}))
	if len(m.office.rows) != 1 || !strings.Contains(m.status.text, "computer laptop left the office") {
		t.Fatalf("after leave: rows %d, status %q", len(m.office.rows), m.status.text)
	}
	f.computers = append(f.computers, protocol.SessionInfo{Name: "gpu-box", Role: protocol.RoleComputer, A2CVersion: "0.2.0"})
	f.configs["gpu-box"] = &client.Config{}
	run(t, m, m.update(agentEventMsg{ev: client.NotifyEvent{Name: protocol.NotifyEnterOffice, Computer: "gpu-box"}}))
	if !strings.Contains(frame(m), "gpu-box") || !strings.Contains(m.status.text, "gpu-box entered") {
		t.Fatalf("after enter: status %q\n%s", m.status.text, frame(m))
	}
}

func TestConnection_ReconnectedRefreshesTheScreen(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	run(t, m, m.update(agentEventMsg{ev: &client.StateEvent{State: client.Reconnecting, Attempt: 2}}))
	if !strings.Contains(frame(m), "reconnecting 2…") {
		t.Fatalf("header should show the attempt:\n%s", frame(m))
	}
	run(t, m, m.update(agentEventMsg{ev: client.StateEvent{State: client.Connected}}))
	if !m.office.loaded || m.status.text != "reconnected" {
		t.Fatalf("after reconnect the office should be listed again; status %q", m.status.text)
	}
}

func TestCmdBar_ValidatesURIAsYouTypeAndRefusesInvalid(t *testing.T) {
	tests := []struct {
		input, hint string
		ok          bool
	}{
		{"", "type or paste a dpe:// URI", false},
		{"http://x/y", "", false},
		{"dpe://host", "doc-ref is empty", false},
		{"dpe://host/a?b", "query not allowed", false},
		{"dpe://io.github.dpetui.library/notes", "valid dpe URI", true},
	}
	for _, tt := range tests {
		f := newFakeAgent(t)
		m := newTestModel(t, f)
		m.bar.open(m, barOpen, "")
		m.bar.input.SetValue(tt.input)
		m.bar.validate(m)
		if m.bar.hintOK != tt.ok || !strings.Contains(m.bar.hint, tt.hint) {
			t.Errorf("%q: hint %q ok=%v, want %q ok=%v", tt.input, m.bar.hint, m.bar.hintOK, tt.hint, tt.ok)
		}
		run(t, m, m.update(keyMsg("enter")))
		if m.bar.active == tt.ok {
			t.Errorf("%q: enter should %s", tt.input, map[bool]string{true: "open", false: "keep the bar open"}[tt.ok])
		}
	}
}

func TestEscapeInjection_NamesURIsAndErrorsAreSanitized(t *testing.T) {
	hostile := "evil\x1b[2J\x1b]0;title\x07\x1b]52;c;cHduZWQ=\x07\x9b31m\u202Eexe.txt\xff"
	f := newFakeAgent(t)
	f.computers[0].Name = hostile
	f.configs[hostile] = &client.Config{Servers: []client.ServerConfig{{Name: hostile, Type: hostile}}}
	f.pages[hostile] = map[string]*client.ResourcePage{"": {Resources: []client.Resource{
		res("dpe://h/"+hostile, hostile, hostile, map[string]any{"keywords": []string{hostile}, "file_type": hostile}),
	}}}
	m := newTestModel(t, f)
	m.opt.Theme, m.opt.NoColor = "notty", true
	m.setTheme("notty")
	run(t, m, m.loadComputers())
	check := func(where string) {
		t.Helper()
		out := m.view().Content
		for _, bad := range []string{"\x1b[2J", "\x1b]", "\x9b", "\u202E", "\x07", "\xff"} {
			if strings.Contains(out, bad) {
				t.Fatalf("%s: %q reached the screen", where, bad)
			}
		}
		if !strings.Contains(out, "<U+202E>") {
			t.Fatalf("%s: the bidi override should be shown visibly", where)
		}
	}
	check("office")
	m.servers = serversView{computer: hostile}
	m.screen = screenServers
	run(t, m, m.loadConfig(hostile))
	check("servers")
	m.screen = screenResources
	m.res = newResourcesView(hostile, hostile)
	run(t, m, m.res.loadNext(m, false))
	m.res.showAll = true
	m.res.refilter()
	check("resources")
	run(t, m, m.setErr("get_dpe", context.DeadlineExceeded))
	m.setStatus(statusErr, hostile)
	check("status")
}

func TestDocument_KeysMovePagesTablesAndSearch(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	run(t, m, m.openDPE(reportURI, nil))
	if m.doc == nil {
		t.Fatalf("document did not open; status %q", m.status.text)
	}
	d := m.doc
	press(t, m, "t")
	if el := d.selected(); el == nil || el.ID != "tb1" {
		t.Fatalf("t should select the table, got %+v", el)
	}
	press(t, m, "i")
	if el := d.selected(); el == nil || el.ID != "i1" {
		t.Fatalf("i should select the image")
	}
	press(t, m, "}")
	if d.page != 1 {
		t.Fatalf("} should move to the next Title (page 2), page = %d", d.page+1)
	}
	press(t, m, ":")
	m.bar.input.SetValue("3")
	m.bar.validate(m)
	run(t, m, m.update(keyMsg("enter")))
	if d.page != 2 || !d.pages[2].loaded {
		t.Fatalf(":3 should load and show the manifest page; page %d loaded %v err %q", d.page+1, d.pages[2].loaded, d.pages[2].err)
	}
	run(t, m, d.startSearch(m, "REVENUE"))
	if len(d.search.hits) != 5 {
		t.Fatalf("search hits = %d, want 5 across all pages", len(d.search.hits))
	}
	press(t, m, "N")
	if h := d.search.hits[d.search.cur]; h.page != d.page {
		t.Fatalf("N should show the last hit's page")
	}
	press(t, m, "g", "enter")
	if m.overlay != overlayInspector {
		t.Fatal("enter should open the inspector")
	}
}

func TestDocument_SaveImageWritesDecodedBytesNamedFromURI(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.opt.SaveDir = t.TempDir()
	run(t, m, m.openDPE(reportURI, nil))
	press(t, m, "i", "s")
	if !m.bar.active || m.bar.mode != barSaveImage {
		t.Fatal("s on an image should ask for a file name")
	}
	name := m.bar.input.Value()
	if !strings.HasSuffix(name, ".png") || !strings.HasPrefix(name, "i1") {
		t.Fatalf("proposed name %q, want i1….png (name from the URI, extension from the mime type)", name)
	}
	run(t, m, m.update(keyMsg("enter")))
	if !strings.Contains(m.status.text, "image written to "+m.opt.SaveDir) {
		t.Fatalf("status = %q, want where it was written", m.status.text)
	}
}

func TestKeys_EscFollowedQuicklyByKeyIsNotLost(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	run(t, m, m.openDPE(reportURI, nil))
	press(t, m, "enter")
	if m.overlay != overlayInspector {
		t.Fatal("enter should open the inspector")
	}
	// "\x1bx" arrives as alt+x: close the inspector, then open the trace.
	run(t, m, m.update(tea.KeyPressMsg{Code: 'x', Text: "x", Mod: tea.ModAlt}))
	if m.overlay != overlayTrace {
		t.Fatalf("overlay = %d, want the trace after esc+x", m.overlay)
	}
}

func TestConformance_EnterJumpsToTheFindingsElement(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	run(t, m, m.openDPE(reportURI, nil))
	press(t, m, "c")
	if m.overlay != overlayConformance || len(m.doc.findings) == 0 {
		t.Fatalf("c should show findings; overlay %d, %d findings", m.overlay, len(m.doc.findings))
	}
	var want int = -1
	for i, x := range m.doc.findings {
		if x.Page >= 0 && x.Element >= 0 {
			want = i
			break
		}
	}
	if want < 0 {
		t.Fatal("fixture should have a finding about an element")
	}
	m.conf.list.cur = want
	x := m.doc.findings[want]
	press(t, m, "enter")
	if m.overlay != overlayNone || m.doc.page != x.Page || m.doc.sel != x.Element {
		t.Fatalf("enter should jump to page %d element %d; at page %d element %d", x.Page+1, x.Element+1, m.doc.page+1, m.doc.sel+1)
	}
}

func TestSearch_HighlightKeepsWidthAndMarksEveryHit(t *testing.T) {
	st := newStyles("dark")
	line := st.row.Render("Revenue grew; revenue ") + st.title.Render("REVENUE") + " end"
	got := highlight(line, "revenue", st, true)
	if ansi.StringWidth(got) != ansi.StringWidth(line) || ansi.Strip(got) != ansi.Strip(line) {
		t.Fatalf("highlight changed the text or width:\n%q\n%q", ansi.Strip(got), ansi.Strip(line))
	}
	if strings.Count(got, st.hitCur.Render("revenue")) != 1 || !strings.Contains(got, st.hitCur.Render("REVENUE")) {
		t.Fatalf("every hit should be styled: %q", got)
	}
}

func TestConnection_FirstConnectIsNotCalledAReconnect(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.status.text = ""
	run(t, m, m.update(agentEventMsg{ev: client.StateEvent{State: client.Connecting}}))
	run(t, m, m.update(agentEventMsg{ev: client.StateEvent{State: client.Connected}}))
	if strings.Contains(m.status.text, "reconnected") {
		t.Fatalf("initial connect reported as %q", m.status.text)
	}
}

func TestJumpCategory_NoMatchReturnsToWhereTheJumpStarted(t *testing.T) {
	raw := []byte(`{"doc_ref":"d","title":"Two pages","page_count":2,"pages":[
		{"page_index":0,"title":"One","elements":[{"element_id":"a","category":"Title","text":"One"},{"element_id":"b","category":"NarrativeText","text":"first"}]},
		{"page_index":1,"title":"Two","elements":[{"element_id":"c","category":"NarrativeText","text":"second"}]}]}`)
	d, err := dpe.Decode(raw, dpe.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if err := d.EnsurePage(0, dpe.DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	m := openForBench(t, 100, 30, &dpe.Opened{Kind: dpe.KindDocument, Doc: d, Body: raw})
	press(t, m, "t")
	f := frame(m)
	if !strings.Contains(f, "page 1/2") || !strings.Contains(m.status.text, "no Table after this element") {
		t.Fatalf("a jump with no match should stay on page 1 and say so (status %q):\n%s", m.status.text, f)
	}
}

func TestUpdate_PanicBecomesOneLineErrorAndProgramKeepsRunning(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	// An opened message without a document is a bug in a producer; it
	// panics inside update.
	bad := openedMsg{opID: m.ops.add("open", 0).id}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the malformed message no longer panics; pick another to exercise the guard")
			}
		}()
		m.update(bad)
	}()
	mm := Model{m: m}
	var cmd tea.Cmd
	guard(t, "Update", func() { _, cmd = mm.Update(openedMsg{opID: m.ops.add("open", 0).id}) })
	_ = cmd
	if !strings.Contains(m.status.text, "internal error") {
		t.Fatalf("status %q, want a one-line internal error", m.status.text)
	}
	press(t, m, "?")
	if !strings.Contains(frame(m), "quit") {
		t.Fatal("the program should still respond after a caught panic")
	}
}
