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
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
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
func guard(t testing.TB, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(testbudget.Left(t, 30*time.Second)):
		t.Fatalf("%s did not return: Update blocked", what)
	}
}

// run executes cmd (and batches) and feeds the results back into Update
// until nothing is left, skipping spinner ticks. It is the synchronous
// stand-in for tea.Program in unit tests.
func run(t testing.TB, m *model, cmd tea.Cmd) {
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

func press(t testing.TB, m *model, keys ...string) {
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
	cmd := m.officeS().load()
	if !m.e.ops.busy() {
		t.Fatal("listing computers should be in flight")
	}
	if !strings.Contains(frame(m), "esc cancels") {
		t.Fatalf("a wait must show that esc cancels it:\n%s", frame(m))
	}
	got := make(chan tea.Msg, 1)
	go func() { got <- cmd() }()
	guard(t, "Update(esc)", func() { m.update(keyMsg("esc")) })
	if m.e.ops.busy() {
		t.Fatal("esc left the request in flight")
	}
	if !strings.Contains(m.e.status.text, "cancelled: listing computers") {
		t.Fatalf("status = %q, want the cancelled request named", m.e.status.text)
	}
	// The cancelled command returns once its context is done; its answer
	// must not change the screen.
	msg := <-got
	m.update(msg)
	if !strings.Contains(m.e.status.text, "cancelled") || m.officeS().loaded {
		t.Fatalf("a cancelled answer changed the screen: status %q", m.e.status.text)
	}
}

func TestUpdate_NeverBlocksWhenTheAgentHangsForever(t *testing.T) {
	f := newFakeAgent(t)
	f.block, f.ignoreCtx = true, true // ignores cancellation too
	t.Cleanup(func() { close(f.release) })
	m := newTestModel(t, f)
	m.officeS().setComputers(f.computers) // rows without configs
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
	listOffice(t, m)
	if !strings.Contains(m.e.status.text, "internal error: fake agent exploded") {
		t.Fatalf("status = %q, want the panic as a one-line error", m.e.status.text)
	}
	if m.e.ops.busy() {
		t.Fatal("the panicked op is still in flight")
	}
	f.panics = false
	press(t, m, "r")
	if len(m.officeS().rows) != 2 {
		t.Fatalf("after the panic, r should list the office again; rows = %d", len(m.officeS().rows))
	}
}

func TestResources_RepeatedCursorStopsLoadAllWithMessage(t *testing.T) {
	f := newFakeAgent(t)
	f.pages["loop"] = map[string]*client.ResourcePage{
		"":  {Resources: []client.Resource{res("dpe://h/a", "a", "", nil)}, NextCursor: "x"},
		"x": {Resources: []client.Resource{res("dpe://h/b", "b", "", nil)}, NextCursor: "x"},
	}
	m := newTestModel(t, f)
	m.stack = append(m.stack, newResourcesScreen(m.e, "laptop", "loop", "loop"))
	run(t, m, m.resS().loadNext(false))
	if got := m.resS().counter(); !strings.Contains(got, "1 loaded · 1 dpe · more available") {
		t.Fatalf("counter after one page = %q", got)
	}
	press(t, m, "M")
	if !strings.Contains(m.resS().stop, `repeated cursor "x"`) {
		t.Fatalf("stop = %q, want the repeated cursor named", m.resS().stop)
	}
	if got := m.resS().counter(); !strings.Contains(got, "2 loaded · 2 dpe · stopped") {
		t.Fatalf("counter = %q: the list must not look complete", got)
	}
}

func TestResources_LoadAllReachesTheEnd(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.stack = append(m.stack, newResourcesScreen(m.e, "laptop", "library", "library"))
	run(t, m, m.resS().loadNext(true))
	if got := m.resS().counter(); !strings.HasPrefix(got, "6 loaded · 5 dpe · end") {
		t.Fatalf("counter = %q", got)
	}
}

func TestResources_FuzzyFilterMatchesKeywordsAndSchemeToggle(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.stack = append(m.stack, newResourcesScreen(m.e, "laptop", "library", "library"))
	run(t, m, m.resS().loadNext(true))
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
		m.resS().list.filter, m.resS().showAll = tt.filter, tt.showAll
		m.resS().refilter()
		var got []string
		for _, i := range m.resS().visible {
			got = append(got, m.resS().all[i].Name)
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
	listOffice(t, m)
	run(t, m, m.update(agentEventMsg{ev: client.NotifyEvent{Name: protocol.NotifyLeaveOffice, Computer: "laptop"}}))
	if len(m.officeS().rows) != 1 || !strings.Contains(m.e.status.text, "computer laptop left the office") {
		t.Fatalf("after leave: rows %d, status %q", len(m.officeS().rows), m.e.status.text)
	}
	f.computers = append(f.computers, protocol.SessionInfo{Name: "gpu-box", Role: protocol.RoleComputer, A2CVersion: "0.2.0"})
	f.configs["gpu-box"] = &client.Config{}
	run(t, m, m.update(agentEventMsg{ev: client.NotifyEvent{Name: protocol.NotifyEnterOffice, Computer: "gpu-box"}}))
	if !strings.Contains(frame(m), "gpu-box") || !strings.Contains(m.e.status.text, "gpu-box entered") {
		t.Fatalf("after enter: status %q\n%s", m.e.status.text, frame(m))
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
	if !m.officeS().loaded || m.e.status.text != "reconnected" {
		t.Fatalf("after reconnect the office should be listed again; status %q", m.e.status.text)
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
		// typed raw, sent percent-encoded (as get does)
		{"dpe://io.github.dpetui.library/café menu.md", "valid dpe URI", true},
		{"dpe://io.github.dpetui.library/a b?x", "query not allowed", false},
	}
	for _, tt := range tests {
		f := newFakeAgent(t)
		m := newTestModel(t, f)
		m.bar.open(m, promptMsg{mode: barOpen})
		m.bar.input.SetValue(tt.input)
		m.bar.refresh()
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
	m.e.opt.Theme, m.e.opt.NoColor = "notty", true
	m.setTheme("notty")
	listOffice(t, m)
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
	pushServers(t, m, hostile)
	check("servers")
	pushResources(t, m, hostile, hostile)
	m.resS().showAll = true
	m.resS().refilter()
	check("resources")
	run(t, m, m.e.setErr("get_dpe", context.DeadlineExceeded))
	m.e.setStatus(statusErr, hostile)
	check("status")
}

func TestDocument_KeysMovePagesTablesAndSearch(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	run(t, m, m.openDPE(openURIMsg{uri: reportURI}))
	if m.docS() == nil {
		t.Fatalf("document did not open; status %q", m.e.status.text)
	}
	d := m.docS()
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
	m.bar.refresh()
	run(t, m, m.update(keyMsg("enter")))
	if d.page != 2 || !d.pages[2].loaded() {
		t.Fatalf(":3 should load and show the manifest page; page %d loaded %v err %q", d.page+1, d.pages[2].loaded(), d.pages[2].err)
	}
	run(t, m, d.startSearch("REVENUE"))
	if len(d.search.hits) != 5 {
		t.Fatalf("search hits = %d, want 5 across all pages", len(d.search.hits))
	}
	press(t, m, "N")
	if h := d.search.hits[d.search.cur]; h.page != d.page {
		t.Fatalf("N should show the last hit's page")
	}
	press(t, m, "g", "enter")
	if !overlayIs[*inspector](m) {
		t.Fatal("enter should open the inspector")
	}
}

// The save name is the image's alternative text (the element id is a
// converter's, often a hash), the extension from its mime type.
func TestDocument_SaveImageWritesDecodedBytesNamedFromItsText(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.e.opt.SaveDir = t.TempDir()
	run(t, m, m.openDPE(openURIMsg{uri: reportURI}))
	press(t, m, "i", "s")
	if !m.bar.active || m.bar.mode != barSaveImage {
		t.Fatal("s on an image should ask for a file name")
	}
	name := m.bar.input.Value()
	if name != "Regional-revenue-chart.png" {
		t.Fatalf("proposed name %q, want Regional-revenue-chart.png (the alt text, the mime type's extension)", name)
	}
	run(t, m, m.update(keyMsg("enter")))
	if !strings.Contains(m.e.status.text, "image written to "+m.e.opt.SaveDir) {
		t.Fatalf("status = %q, want where it was written", m.e.status.text)
	}
}

func TestKeys_EscFollowedQuicklyByKeyIsNotLost(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	run(t, m, m.openDPE(openURIMsg{uri: reportURI}))
	press(t, m, "enter")
	if !overlayIs[*inspector](m) {
		t.Fatal("enter should open the inspector")
	}
	// "\x1bx" arrives as alt+x: close the inspector, then open the trace.
	run(t, m, m.update(tea.KeyPressMsg{Code: 'x', Text: "x", Mod: tea.ModAlt}))
	if !overlayIs[*traceOverlay](m) {
		t.Fatalf("overlay = %T, want the trace after esc+x", m.overlay)
	}
}

func TestConformance_EnterJumpsToTheFindingsElement(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	run(t, m, m.openDPE(openURIMsg{uri: reportURI}))
	press(t, m, "c")
	if !overlayIs[*conformanceOverlay](m) || len(m.docS().findings) == 0 {
		t.Fatalf("c should show findings; overlay %T, %d findings", m.overlay, len(m.docS().findings))
	}
	var want int = -1
	for i, x := range m.docS().findings {
		if x.Page >= 0 && x.Element >= 0 {
			want = i
			break
		}
	}
	if want < 0 {
		t.Fatal("fixture should have a finding about an element")
	}
	m.overlay.(*conformanceOverlay).list.cur = want
	x := m.docS().findings[want]
	press(t, m, "enter", "enter") // the finding's detail, then its jump
	if m.overlay != nil || m.docS().page != x.Page || m.docS().sel != x.Element {
		t.Fatalf("enter should jump to page %d element %d; at page %d element %d", x.Page+1, x.Element+1, m.docS().page+1, m.docS().sel+1)
	}
}

func TestConnection_FirstConnectIsNotCalledAReconnect(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.e.status.text = ""
	run(t, m, m.update(agentEventMsg{ev: client.StateEvent{State: client.Connecting}}))
	run(t, m, m.update(agentEventMsg{ev: client.StateEvent{State: client.Connected}}))
	if strings.Contains(m.e.status.text, "reconnected") {
		t.Fatalf("initial connect reported as %q", m.e.status.text)
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
	if !strings.Contains(f, "page 1/2") || !strings.Contains(m.e.status.text, "no Table after this element") {
		t.Fatalf("a jump with no match should stay on page 1 and say so (status %q):\n%s", m.e.status.text, f)
	}
}

func TestUpdate_PanicBecomesOneLineErrorAndProgramKeepsRunning(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	// An opened message without a document is a bug in a producer; it
	// panics inside update.
	bad := openedMsg{id: m.e.ops.add("open", 0).id}
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
	guard(t, "Update", func() { _, cmd = mm.Update(openedMsg{id: m.e.ops.add("open", 0).id}) })
	_ = cmd
	if !strings.Contains(m.e.status.text, "internal error") {
		t.Fatalf("status %q, want a one-line internal error", m.e.status.text)
	}
	press(t, m, "?")
	if !strings.Contains(frame(m), "quit") {
		t.Fatal("the program should still respond after a caught panic")
	}
}

// / on the resource list starts a new filter (the old one is a ↑ away),
// instead of editing the last one.
func TestResources_SlashStartsANewFilterWithTheOldInHistory(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.stack = append(m.stack, newResourcesScreen(m.e, "laptop", "library", "library"))
	run(t, m, m.resS().loadNext(true))
	press(t, m, "/", "x", "l", "s", "x", "enter")
	if m.resS().list.filter != "xlsx" || len(m.resS().visible) != 1 {
		t.Fatalf("filter %q shows %d", m.resS().list.filter, len(m.resS().visible))
	}
	press(t, m, "/")
	if got := m.bar.input.Value(); got != "" || m.resS().list.filter != "" || len(m.resS().visible) < 2 {
		t.Fatalf("/ opened with %q, filter %q, %d shown; want a new, empty filter", got, m.resS().list.filter, len(m.resS().visible))
	}
	press(t, m, "up")
	if got := m.bar.input.Value(); got != "xlsx" {
		t.Fatalf("↑ in the new filter gives %q, want the last one", got)
	}
}
