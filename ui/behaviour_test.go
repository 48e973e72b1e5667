package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
)

// B2: esc during M (load all) resets the loading state: m works again and
// what was loaded stays.
func TestResources_CancelLoadAllThenMWorks(t *testing.T) {
	f := newFakeAgent(t)
	f.resourcesFn = endlessCursors(10, 0)
	m := newTestModel(t, f)
	r := newResourcesScreen(m.e, "laptop", "endless")
	m.stack = append(m.stack, r)
	run(t, m, r.loadNext(false))
	loaded := len(r.all)
	// Start M but cancel before its first answer is installed.
	cmd := m.update(keyMsg("M"))
	if r.loadOp == 0 {
		t.Fatal("M should start loading")
	}
	m.update(keyMsg("esc"))
	run(t, m, cmd) // the cancelled answer is dropped
	if r.loadOp != 0 || r.loadingAll {
		t.Fatalf("after esc the list is still loading (op %d, all %v)", r.loadOp, r.loadingAll)
	}
	press(t, m, "m")
	if len(r.all) != loaded+10 {
		t.Fatalf("m after cancel: %d resources, want %d", len(r.all), loaded+10)
	}
}

// B11: exact and prefix matches on name, keyword and file_type rank first.
func TestResources_FuzzyRankingPrefersExactFields(t *testing.T) {
	f := newFakeAgent(t)
	f.pages["rank"] = map[string]*client.ResourcePage{"": {Resources: []client.Resource{
		res("dpe://h/trust", "Trust deed", "", map[string]any{"keywords": []string{"legal"}, "file_type": "pdf"}),
		res("dpe://h/rusty", "Router setup", "", map[string]any{"keywords": []string{"network"}, "file_type": "md"}),
		res("dpe://h/book", "The book", "", map[string]any{"keywords": []string{"rust", "lang"}, "file_type": "md"}),
		res("dpe://h/sheet", "Expenses", "", map[string]any{"keywords": []string{"x", "l", "s"}, "file_type": "csv"}),
		res("dpe://h/ledger", "Ledger", "", map[string]any{"keywords": []string{"finance"}, "file_type": "xlsx"}),
	}}}
	m := newTestModel(t, f)
	r := pushResources(t, m, "laptop", "rank")
	top := func(q string) string {
		r.filter = q
		r.refilter()
		if len(r.visible) == 0 {
			return ""
		}
		return r.all[r.visible[0]].Name
	}
	if got := top("rust"); got != "The book" {
		t.Errorf(`"rust" ranks %q first, want the resource with keyword rust`, got)
	}
	if got := top("xlsx"); got != "Ledger" {
		t.Errorf(`"xlsx" ranks %q first, want the xlsx ledger`, got)
	}
	r.filter = "xlsx"
	r.refilter()
	for _, i := range r.visible {
		if r.all[i].Name == "Expenses" {
			t.Errorf(`"xlsx" matched runes scattered across fields (keywords x, l, s)`)
		}
	}
}

// B9: typing in a closed prompt never falls through to quit; / filters
// on the servers screen; q asks once while a long op runs.
func TestQuit_SlashNeverFallsThroughAndQAsksDuringLongOps(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	listOffice(t, m)
	pushServers(t, m, "laptop")
	for _, k := range []string{"/", "q", "j"} {
		if cmd := m.update(keyMsg(k)); isQuit(cmd) {
			t.Fatalf("/%s quit the app", k)
		}
	}
	if !m.bar.active || m.bar.input.Value() != "qj" || m.serversS().filter != "qj" {
		t.Fatalf("/qj should filter the servers; bar %v %q filter %q", m.bar.active, m.bar.input.Value(), m.serversS().filter)
	}
	press(t, m, "esc")
	f.block = true
	m.update(keyMsg("M")) // not on this screen: nothing long runs
	r := newResourcesScreen(m.e, "laptop", "library")
	m.stack = append(m.stack, r)
	_ = r.loadNext(true) // a long op in flight
	if cmd := m.update(keyMsg("q")); isQuit(cmd) {
		t.Fatal("q quit while loading all, without asking")
	}
	if !strings.Contains(m.e.status.text, "q again quits") {
		t.Fatalf("status %q should ask", m.e.status.text)
	}
	if cmd := m.update(keyMsg("q")); !isQuit(cmd) {
		t.Fatal("the second q should quit")
	}
}

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-done:
		switch msg := msg.(type) {
		case tea.QuitMsg:
			return true
		case tea.BatchMsg:
			for _, c := range msg {
				if isQuit(c) {
					return true
				}
			}
		}
	case <-time.After(100 * time.Millisecond):
	}
	return false
}

// B8: ? help and q quit show at every width.
func TestFooter_HelpAndQuitAlwaysShow(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	run(t, m, m.openDPE(openURIMsg{uri: reportURI}))
	for _, w := range []int{40, 60, 80, 100, 200} {
		m.update(tea.WindowSizeMsg{Width: w, Height: 24})
		lines := strings.Split(frame(m), "\n")
		last := lines[len(lines)-1]
		if !strings.Contains(last, "? help") || !strings.Contains(last, "q quit") {
			t.Errorf("at %d columns the footer is %q", w, last)
		}
	}
}

// B7: the status shows the first sentence; E opens the whole error.
func TestErrors_StatusFirstSentenceAndDetailView(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	listOffice(t, m)
	long := "get_dpe failed. The resolver said something long: " + strings.Repeat("word ", 80) + "THE-END"
	m.e.setErr("open dpe://h/x", fmt.Errorf("%s", long))
	if strings.Contains(m.e.status.text, "THE-END") || !strings.Contains(m.e.status.text, "E details") {
		t.Fatalf("status %q: want the first sentence and the E hint", m.e.status.text)
	}
	press(t, m, "E")
	if _, ok := m.overlay.(*lineView); !ok {
		t.Fatalf("E should open the error detail, overlay %T", m.overlay)
	}
	for range 10 {
		press(t, m, "f")
	}
	if !strings.Contains(strings.Join(m.overlay.(*lineView).lines(m.e.width), ""), "THE-END") {
		t.Fatal("the detail view should have the whole error")
	}
}
