package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// B2: esc during M (load all) resets the loading state: m works again and
// what was loaded stays.
func TestResources_CancelLoadAllThenMWorks(t *testing.T) {
	f := newFakeAgent(t)
	f.resourcesFn = endlessCursors(10, 0)
	m := newTestModel(t, f)
	r := newResourcesScreen(m.e, "laptop", "endless", "endless")
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
		r.list.filter = q
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
	r.list.filter = "xlsx"
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
	if !m.bar.active || m.bar.input.Value() != "qj" || m.serversS().list.filter != "qj" {
		t.Fatalf("/qj should filter the servers; bar %v %q filter %q", m.bar.active, m.bar.input.Value(), m.serversS().list.filter)
	}
	press(t, m, "esc")
	f.block = true
	m.update(keyMsg("M")) // not on this screen: nothing long runs
	r := newResourcesScreen(m.e, "laptop", "library", "library")
	m.stack = append(m.stack, r)
	_ = r.loadNext(true) // a long op in flight
	if cmd := m.update(keyMsg("q")); isQuit(cmd) {
		t.Fatal("q quit while loading all, without asking")
	}
	if !strings.Contains(m.e.status.text, "q again quits") {
		t.Fatalf("status %q should ask", m.e.status.text)
	}
	// The question is on screen, ahead of the running operation's line.
	if fr := frame(m); !strings.Contains(fr, "q again quits") {
		t.Fatalf("the quit question is not on screen while loading all:\n%s", fr)
	}
	if cmd := m.update(keyMsg("q")); !isQuit(cmd) {
		t.Fatal("the second q should quit")
	}
}

// isQuit: cmd quits, alone or in a batch. tea.Quit itself is known by
// its identity; anything else is run, and a command still running after
// two seconds (a tick, a wait for I/O) is no quit: a quit answers at once,
// but a loaded machine may take a while to run even that.
func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	if reflect.ValueOf(cmd).Pointer() == reflect.ValueOf(tea.Cmd(tea.Quit)).Pointer() {
		return true
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
	case <-time.After(2 * time.Second):
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
	v, ok := m.overlay.(*messagesView)
	if !ok {
		t.Fatalf("E should open the error detail, overlay %T", m.overlay)
	}
	if !strings.Contains(strings.Join(v.lines, ""), "THE-END") {
		t.Fatal("the detail view should have the whole error")
	}
}

// tableDoc is a page with a 12-column table (a long cell, a hit in the
// last column) and a second page holding a TableChunk.
func tableDoc(t testing.TB) []byte {
	var h, txt strings.Builder
	h.WriteString("<table><tr>")
	for c := range 12 {
		fmt.Fprintf(&h, "<th>Column%02d</th>", c+1)
	}
	h.WriteString("</tr>")
	for r := range 3 {
		h.WriteString("<tr>")
		for c := range 12 {
			v := fmt.Sprintf("value-%d-%d", r+1, c+1)
			switch {
			case r == 2 && c == 11:
				v = "needlecell"
			case r == 0 && c == 1:
				v = "long " + strings.Repeat("words ", 30) + "LONG-END"
			}
			fmt.Fprintf(&h, "<td>%s</td>", v)
			txt.WriteString(v + " ")
		}
		h.WriteString("</tr>")
	}
	h.WriteString("</table>")
	chunk := "<table><tr><th>Key</th><th>A</th><th>B</th><th>C</th><th>D</th><th>E</th><th>F</th><th>G</th></tr>" +
		"<tr><td>k1</td><td>" + strings.Repeat("alpha ", 8) + "</td><td>" + strings.Repeat("beta ", 8) + "</td><td>" + strings.Repeat("gamma ", 8) +
		"</td><td>delta</td><td>epsilon</td><td>zeta</td><td>eta-last</td></tr></table>"
	doc := map[string]any{"doc_ref": "tables", "title": "Tables", "page_count": 2, "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"element_id": "h", "category": "Title", "text": "Tables"},
			map[string]any{"element_id": "p", "category": "NarrativeText", "text": "Before the table."},
			map[string]any{"element_id": "tb", "category": "Table", "text": txt.String(), "ele_metadata": map[string]any{"text_as_html": h.String()}},
		}},
		map[string]any{"page_index": 1, "elements": []any{
			map[string]any{"element_id": "p2", "category": "NarrativeText", "text": "A chunk follows."},
			map[string]any{"element_id": "ch", "category": "TableChunk", "text": "k1 alpha beta gamma delta epsilon zeta eta-last", "ele_metadata": map[string]any{"text_as_html": chunk}},
		}},
	}}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func openTables(t *testing.T, w, h int) *model {
	t.Helper()
	opt := Options{Theme: "dark", Width: w, Height: h, Now: func() time.Time { return fixedNow }, StatusTimeout: -1, OpenTarget: "tables.json"}
	m := New(opt).m
	o := m.e.ops.add("open", 0)
	run(t, m, m.update(openedFor(m, o.id, decodedDoc(t, tableDoc(t)), "tables.json")))
	if m.docS() == nil {
		t.Fatal("document not open")
	}
	return m
}

// B3: on a squeezed table l/h move the cell cursor by column (scrolling),
// 0/$ jump to the ends, w widens the column, enter shows the cell in full
// and its row; the selected cell is highlighted.
func TestTable_ColumnCursorWidenAndCellView(t *testing.T) {
	m := openTables(t, 80, 24)
	d := m.docS()
	press(t, m, "t")
	if !d.isTableSelected() {
		t.Fatal("t should select the table")
	}
	press(t, m, "$")
	if c := d.cell[d.sel]; c.col != 11 {
		t.Fatalf("$: column %d, want 12th", c.col+1)
	}
	if f := frame(m); !strings.Contains(f, "Column12") || strings.Contains(f, "Column03") {
		t.Fatalf("$ should scroll the last column into view:\n%s", f)
	}
	press(t, m, "0")
	if c := d.cell[d.sel]; c.col != 0 || d.tv[d.sel].XOffset != 0 {
		t.Fatalf("0: column %d offset %d", c.col+1, d.tv[d.sel].XOffset)
	}
	press(t, m, "l")
	if c := d.cell[d.sel]; c.col != 1 {
		t.Fatalf("l: column %d, want 2", c.col+1)
	}
	// The selected cell is highlighted: its text carries the cursor style.
	if raw := m.view().Content; !strings.Contains(raw, cursorSGR(m.e.renderer.Theme().TableCursor)+"long") {
		t.Fatalf("the selected cell is not highlighted:\n%q", raw)
	}
	before := frame(m)
	press(t, m, "w")
	if tv := d.tv[d.sel]; tv.ColWidthBonus == 0 || tv.WideCol != 2 {
		t.Fatalf("w should widen column 2: %+v", tv)
	}
	if frame(m) == before {
		t.Fatal("w changed nothing on screen")
	}
	press(t, m, "enter")
	lv, ok := m.overlay.(*lineView)
	if !ok {
		t.Fatalf("enter on a table should open the cell view, overlay %T", m.overlay)
	}
	body := ansi.Strip(strings.Join(lv.lines(80), "\n"))
	if !strings.Contains(body, "LONG-END") || !strings.Contains(body, "Column01") || !strings.Contains(body, "value-1-1") {
		t.Fatalf("the cell view should hold the whole cell and its row:\n%s", body)
	}
}

// cursorSGR is the escape sequence the cursor style opens with.
func cursorSGR(s lipgloss.Style) string {
	r := s.Render("x")
	return r[:strings.Index(r, "x")]
}

// B4: a TableChunk is a table: t jumps to it, l scrolls it, the page
// header counts it.
func TestTableChunk_IsATableEverywhere(t *testing.T) {
	m := openTables(t, 80, 24)
	d := m.docS()
	press(t, m, "]")
	if d.page != 1 {
		t.Fatalf("] should show page 2, on %d", d.page+1)
	}
	if f := frame(m); !strings.Contains(f, "(1 table)") {
		t.Fatalf("the header should count the chunk as a table:\n%s", f)
	}
	press(t, m, "g", "t")
	if el := d.selected(); el == nil || el.ID != "ch" {
		t.Fatalf("t should select the chunk, selected %+v", el)
	}
	press(t, m, "$")
	if d.cell[d.sel].col != 7 || !strings.Contains(frame(m), "eta-last") {
		t.Fatalf("$ should scroll the chunk to its last column:\n%s", frame(m))
	}
}

// B5: a hit inside a table scrolls the table to its cell; / opens empty
// with history on ↑; S lists the hits and enter jumps.
func TestSearch_TableHitHistoryAndHitList(t *testing.T) {
	m := openTables(t, 80, 24)
	d := m.docS()
	press(t, m, "/")
	m.bar.input.SetValue("needlecell")
	press(t, m, "enter")
	run(t, m, nil)
	if len(d.search.hits) != 1 {
		t.Fatalf("%d hits for needlecell", len(d.search.hits))
	}
	if c := d.cell[d.sel]; c.row != 3 || c.col != 11 {
		t.Fatalf("the hit should put the cursor on row 4 column 12, got %+v", c)
	}
	if f := frame(m); !strings.Contains(f, "needlecell") {
		t.Fatalf("the table should scroll to the hit:\n%s", f)
	}
	press(t, m, "/")
	if !m.bar.active || m.bar.input.Value() != "" {
		t.Fatalf("/ should open an empty prompt, got %q", m.bar.input.Value())
	}
	press(t, m, "up")
	if m.bar.input.Value() != "needlecell" {
		t.Fatalf("↑ should recall the last search, got %q", m.bar.input.Value())
	}
	m.bar.input.SetValue("value-1")
	press(t, m, "enter")
	n := len(d.search.hits)
	if n < 2 {
		t.Fatalf("%d hits for value-1", n)
	}
	press(t, m, "S")
	if !overlayIs[*hitList](m) {
		t.Fatalf("S should open the hit list, overlay %T", m.overlay)
	}
	if f := frame(m); !strings.Contains(f, "p1") || !strings.Contains(f, "value-1-") {
		t.Fatalf("the hit list should show page and context:\n%s", f)
	}
	press(t, m, "down", "enter")
	if m.overlay != nil || d.search.cur != 1 {
		t.Fatalf("enter should close the list on hit 2 (cur %d, overlay %T)", d.search.cur, m.overlay)
	}
}

// B6: a document opened by URI names the computer that answered.
func TestOpen_BreadcrumbNamesTheAnsweringComputer(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	listOffice(t, m)
	run(t, m, m.openDPE(openURIMsg{uri: notesURI}))
	if m.docS() == nil {
		t.Fatalf("not opened: %s", m.statusText())
	}
	crumb := strings.Split(frame(m), "\n")[1]
	if !strings.Contains(crumb, "@") || !strings.Contains(crumb, "Meeting notes") {
		t.Fatalf("the breadcrumb should name the computer: %q", crumb)
	}
	who := m.docS().op.Access.Computer
	if who == "" || !strings.Contains(crumb, "@"+who) {
		t.Fatalf("crumb %q, answering computer %q", crumb, who)
	}
}

// B10: at 80 columns the resource list shows the name first and drops URI
// and MIME; the detail pane's key column fits its keys.
func TestResources_EightyColumnsNameFirst(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	listOffice(t, m)
	pushResources(t, m, "laptop", "library")
	fr := frame(m)
	var head string
	for _, l := range strings.Split(fr, "\n") {
		if strings.Contains(l, "NAME") {
			head = l
		}
	}
	if !strings.HasPrefix(strings.TrimSpace(head), "NAME") || strings.Contains(head, "URI") || strings.Contains(head, "MIME") {
		t.Fatalf("80-column header %q: want NAME first, no URI or MIME", head)
	}
	if !strings.Contains(fr, "Annual report 2026") {
		t.Fatalf("the title should show whole at 80 columns:\n%s", fr)
	}
	for _, l := range strings.Split(fr, "\n") {
		if ansi.StringWidth(l) > 80 {
			t.Fatalf("line wider than 80: %q", l)
		}
	}
	m.update(tea.WindowSizeMsg{Width: 160, Height: 40})
	if fr := frame(m); !strings.Contains(fr, "URI") || !strings.Contains(fr, "MIME") {
		t.Fatalf("at 160 columns URI and MIME come back:\n%s", fr)
	}
}

func openJSON(t *testing.T, w, h int, doc map[string]any) *model {
	t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Theme: "dark", Width: w, Height: h, Now: func() time.Time { return fixedNow }, StatusTimeout: -1, OpenTarget: "doc.json"}
	m := New(opt).m
	o := m.e.ops.add("open", 0)
	run(t, m, m.update(openedFor(m, o.id, decodedDoc(t, b), "doc.json")))
	if m.docS() == nil {
		t.Fatal("document not open")
	}
	return m
}

// B12: prose wraps at 100 columns on a wide terminal, list items are not
// separated by blank lines, Glamour and plain paragraphs start at the same
// column, and \ toggles the sidebar.
func TestReading_WidthMarginListsAndSidebarToggle(t *testing.T) {
	long := strings.Repeat("plainword ", 40)
	m := openJSON(t, 200, 40, map[string]any{"doc_ref": "r", "title": "Reading", "page_count": 1, "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"category": "NarrativeText", "text": "PLAINSTART " + long},
			map[string]any{"category": "NarrativeText", "text": "MDSTART has **bold** " + strings.Repeat("mdword ", 40)},
			map[string]any{"category": "ListItem", "text": "first item"},
			map[string]any{"category": "ListItem", "text": "second item"},
		}},
	}})
	lines := strings.Split(frame(m), "\n")
	col := func(word string) int {
		for _, l := range lines {
			if i := strings.Index(l, word); i >= 0 {
				return ansi.StringWidth(l[:i])
			}
		}
		t.Fatalf("%s not on screen:\n%s", word, strings.Join(lines, "\n"))
		return -1
	}
	if p, md := col("PLAINSTART"), col("MDSTART"); p != md {
		t.Errorf("plain paragraph starts at column %d, Markdown at %d", p, md)
	}
	start := col("PLAINSTART")
	for _, l := range lines {
		if strings.Contains(l, "plainword") || strings.Contains(l, "mdword") {
			if w := ansi.StringWidth(strings.TrimRight(l, " ")) - start; w > 100 {
				t.Errorf("prose line %d cells wide (max 100): %q", w, l)
			}
		}
	}
	for i, l := range lines {
		if strings.Contains(l, "first item") && (i+1 >= len(lines) || !strings.Contains(lines[i+1], "second item")) {
			t.Errorf("list items are separated:\n%s", strings.Join(lines[i:min(i+3, len(lines))], "\n"))
		}
	}
	press(t, m, "\\")
	if f := frame(m); strings.Contains(f, "PAGES 1") {
		t.Fatalf("\\ should hide the sidebar:\n%s", f)
	}
	press(t, m, "\\")
	if f := frame(m); !strings.Contains(f, "PAGES 1") {
		t.Fatalf("\\ again should show the sidebar:\n%s", f)
	}
}

// B13: the inspector follows parent_id with enter, lists reverse links
// (children, referenced by), shows coordinates as a box; the trace's raw
// response expands.
func TestInspector_LinksReverseLinksCoordinatesAndTraceExpand(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.update(tea.WindowSizeMsg{Width: 120, Height: 60})
	listOffice(t, m)
	run(t, m, m.openDPE(openURIMsg{uri: reportURI, computer: "laptop"}))
	d := m.docS()
	press(t, m, "g", "down") // n1, child of t1
	if el := d.selected(); el == nil || el.ID != "n1" {
		t.Fatalf("selected %+v, want n1", el)
	}
	press(t, m, ".")
	v, ok := m.overlay.(*inspector)
	if !ok {
		t.Fatalf(". should open the inspector, overlay %T", m.overlay)
	}
	// Walk down to the parent_id line with the keys, then follow it.
	for i := 0; i < 40; i++ {
		if r, ok := v.links[v.list.cur]; ok && r.el == 0 {
			break
		}
		press(t, m, "down")
	}
	press(t, m, "enter")
	if m.overlay != nil || d.sel != 0 {
		t.Fatalf("enter on parent_id should jump to t1; overlay %T, selected %d", m.overlay, d.sel)
	}
	press(t, m, ".")
	if fr := frame(m); !strings.Contains(fr, "children") || !strings.Contains(fr, "n1 → p1 e2") || !strings.Contains(fr, "tb1 → p1 e3") {
		t.Fatalf("the title's inspector should list its children:\n%s", fr)
	}
	press(t, m, "esc", "t", ".")
	fr := frame(m)
	if !strings.Contains(fr, "referenced by") || !strings.Contains(fr, "i1 → p1 e5") {
		t.Fatalf("the table's inspector should say the image references it:\n%s", fr)
	}
	if !strings.Contains(fr, "box x 0–100, y 0–40 (100 × 40)") || !strings.Contains(fr, "system PixelSpace") {
		t.Fatalf("coordinates should read as a box:\n%s", fr)
	}
	press(t, m, "esc", "x")
	if !overlayIs[*traceOverlay](m) {
		t.Fatalf("x should open the trace, overlay %T", m.overlay)
	}
	collapsed := strings.Join(m.overlay.(*traceOverlay).lines(120), "\n")
	press(t, m, "enter")
	expanded := strings.Join(m.overlay.(*traceOverlay).lines(120), "\n")
	if strings.Contains(ansi.Strip(collapsed), `"req_id"`) || !strings.Contains(ansi.Strip(expanded), `"req_id"`) {
		t.Fatalf("enter should expand the raw get_dpe response:\ncollapsed:\n%s\nexpanded:\n%s", ansi.Strip(collapsed), ansi.Strip(expanded))
	}
}

// B14: r on a failed page retries that page in place (not the document);
// pages that failed while disconnected are retried after reconnect.
func TestRetry_FailedPageInPlaceAndAfterReconnect(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	listOffice(t, m)
	run(t, m, m.openDPE(openURIMsg{uri: reportURI, computer: "laptop"}))
	d := m.docS()
	op := d.op
	page3 := filepath.Join(f.dir, "page-3.json")
	if err := os.Rename(page3, page3+".away"); err != nil {
		t.Fatal(err)
	}
	press(t, m, "]", "]")
	if d.page != 2 || d.pages[2].err == "" {
		t.Fatalf("page 3 should have failed: page %d err %q", d.page+1, d.pages[2].err)
	}
	if err := os.Rename(page3+".away", page3); err != nil {
		t.Fatal(err)
	}
	resolved := f.resolved
	press(t, m, "r")
	if m.docS() != d || d.op.Doc != op.Doc || d.page != 2 || !d.pages[2].loaded() {
		t.Fatalf("r should reload page 3 in place: same screen %v, page %d, loaded %v", m.docS() == d, d.page+1, d.pages[2].loaded())
	}
	if f.resolved != resolved {
		t.Fatal("r on a failed page resolved the whole document again")
	}
	if !d.pages[1].loaded() && !d.pages[0].loaded() {
		t.Fatal("the other pages were dropped")
	}

	// The same page fails while the connection is down, then reconnects.
	m2 := newTestModel(t, f)
	listOffice(t, m2)
	run(t, m2, m2.openDPE(openURIMsg{uri: reportURI, computer: "laptop"}))
	d2 := m2.docS()
	if err := os.Rename(page3, page3+".away"); err != nil {
		t.Fatal(err)
	}
	run(t, m2, m2.update(agentEventMsg{ev: client.StateEvent{State: client.Reconnecting, Attempt: 1}}))
	run(t, m2, d2.gotoPage(2, 0))
	if d2.pages[2].err == "" || !d2.failedOffline[2] {
		t.Fatalf("page 3 should have failed offline: err %q", d2.pages[2].err)
	}
	if err := os.Rename(page3+".away", page3); err != nil {
		t.Fatal(err)
	}
	run(t, m2, m2.update(agentEventMsg{ev: client.StateEvent{State: client.Connected}}))
	if !d2.pages[2].loaded() || d2.pages[2].err != "" {
		t.Fatalf("after reconnect page 3 should be retried: loaded %v err %q", d2.pages[2].loaded(), d2.pages[2].err)
	}
	if !strings.Contains(frame(m2), "Appendix: revenue method") {
		t.Fatalf("the retried page should show:\n%s", frame(m2))
	}
}

// B15: when a computer leaves, its servers and resources screens say so
// and esc goes back.
func TestStale_ServersAndResourcesSayTheComputerLeft(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	listOffice(t, m)
	pushServers(t, m, "laptop")
	pushResources(t, m, "laptop", "library")
	run(t, m, m.update(agentEventMsg{ev: client.NotifyEvent{Name: protocol.NotifyLeaveOffice, Computer: "laptop"}}))
	if fr := frame(m); !strings.Contains(fr, "computer laptop left the office") || !strings.Contains(fr, "esc goes back") {
		t.Fatalf("the resources screen should say laptop left:\n%s", fr)
	}
	press(t, m, "esc")
	if _, ok := m.top().(*serversScreen); !ok {
		t.Fatalf("esc should go back to the servers, top %T", m.top())
	}
	if fr := frame(m); !strings.Contains(fr, "computer laptop left the office") {
		t.Fatalf("the servers screen should say laptop left:\n%s", fr)
	}
	// Another computer leaving changes nothing here.
	m3 := newTestModel(t, f)
	listOffice(t, m3)
	pushServers(t, m3, "laptop")
	run(t, m3, m3.update(agentEventMsg{ev: client.NotifyEvent{Name: protocol.NotifyLeaveOffice, Computer: "build-box"}}))
	if strings.Contains(frame(m3), "computer laptop left") {
		t.Fatal("build-box leaving marked laptop's screen stale")
	}
}

// B16: the wheel scrolls the view under the pointer; a click on a sidebar
// entry opens that page; a click on a row selects it.
func TestMouse_WheelClickSidebarAndRows(t *testing.T) {
	m := openTables(t, 100, 12)
	d := m.docS()
	wheel := func(x, y int, b tea.MouseButton) {
		run(t, m, m.update(tea.MouseWheelMsg{X: x, Y: y, Button: b}))
	}
	wheel(60, 5, tea.MouseWheelDown)
	if d.yoff == 0 {
		t.Fatal("the wheel over the page should scroll it")
	}
	wheel(60, 5, tea.MouseWheelUp)
	if d.yoff != 0 {
		t.Fatalf("wheel up should scroll back, yoff %d", d.yoff)
	}
	// The sidebar: PAGES title on body line 0, page 1 on 1, its outline
	// on 2, page 2 on 3; the body starts at screen row 2.
	run(t, m, m.update(tea.MouseClickMsg{X: 3, Y: 2 + 3, Button: tea.MouseLeft}))
	if d.page != 1 {
		t.Fatalf("a click on the second sidebar entry should open page 2, on %d", d.page+1)
	}
	f := newFakeAgent(t)
	m2 := newTestModel(t, f)
	listOffice(t, m2)
	r := pushResources(t, m2, "laptop", "library")
	// Rows start under the counter and the header: body lines 2, 3, …
	run(t, m2, m2.update(tea.MouseClickMsg{X: 5, Y: 2 + 3, Button: tea.MouseLeft}))
	if r.list.cur != 1 {
		t.Fatalf("a click on the second row should select it, cur %d", r.list.cur)
	}
	if !strings.Contains(frame(m2), "Meeting notes") {
		t.Fatal("the selected row's details should show")
	}
}

// B18: a formula's LaTeX reads as Unicode on the page; the inspector
// keeps the raw LaTeX.
func TestFormula_UnicodeOnPageRawInInspector(t *testing.T) {
	m := openJSON(t, 100, 30, map[string]any{"doc_ref": "f", "title": "Formulas", "page_count": 1, "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"category": "Formula", "text": `\sum_{i=1}^{n} \frac{\alpha}{2} + \sqrt{x}`},
		}},
	}})
	if fr := frame(m); !strings.Contains(fr, "∑ᵢ₌₁ⁿ α/2 + √x") {
		t.Fatalf("the formula should read as Unicode:\n%s", fr)
	}
	press(t, m, "g", ".")
	if fr := frame(m); !strings.Contains(fr, `\sum_{i=1}^{n} \frac{\alpha}{2}`) {
		t.Fatalf("the inspector should keep the raw LaTeX:\n%s", fr)
	}
}

// TestCmdBar_TypedNonASCIIURIIsNormalisedOnce: a dpe:// URI typed with
// non-ASCII characters goes to the resolver percent-encoded, the way the
// listing has it (a raw "é" would be a different resource).
func TestCmdBar_TypedNonASCIIURIIsNormalisedOnce(t *testing.T) {
	fa := newFakeAgent(t)
	listed := "dpe://io.github.dpetui.library/caf%C3%A9-report"
	fa.docs[listed] = fa.docs[reportURI]
	fa.mime[listed] = fa.mime[reportURI]
	s := start80(t, testOptions(fa))
	s.waitFor("2 enabled")
	s.keys("o")
	s.typeText("dpe://io.github.dpetui.library/café-report")
	s.keys("enter")
	s.waitFor("page 1/3")
	s.final()
}

// TestHelp_EveryKeyReachableAt80x24: the help lays its columns out in
// bands as wide as the screen and scrolls, so even at 80×24 every key of
// the document screen can be read (none is cut off with "…").
func TestHelp_EveryKeyReachableAt80x24(t *testing.T) {
	s := start80(t, testOptions(newFakeAgent(t)))
	s.toDocument()
	s.keys("?")
	s.waitFor("Keys")
	for i := 0; i < 30; i++ {
		s.keys("down")
	}
	s.waitFor("ctrl+c")
	s.final()
}

// B9: q while a document is still opening asks once (opening can take
// the whole open timeout); ctrl+c always quits.
func TestQuit_QAsksWhileADocumentOpens(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	listOffice(t, m)
	f.block = true
	_ = m.update(openURIMsg{uri: reportURI}) // not run: the open stays in flight
	if cmd := m.update(keyMsg("q")); isQuit(cmd) {
		t.Fatal("q quit while the document was opening, without asking")
	}
	if s := m.statusText(); !strings.Contains(s, "still running: opening") || !strings.Contains(s, "q again quits") {
		t.Fatalf("status %q should ask about the open", s)
	}
	if cmd := m.update(keyMsg("ctrl+c")); !isQuit(cmd) {
		t.Fatal("ctrl+c must always quit")
	}

	f.block = false
	m = newTestModel(t, f)
	listOffice(t, m)
	_ = m.update(openURIMsg{uri: reportURI})
	m.update(keyMsg("q"))
	if cmd := m.update(keyMsg("q")); !isQuit(cmd) {
		t.Fatal("the second q should quit")
	}
}

// twoPageTableDoc has no table on page 1 and a table on page 2, which is
// not decoded when the document opens.
func twoPageTableDoc() map[string]any {
	return map[string]any{"doc_ref": "tt", "title": "Tables later", "page_count": 2, "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{map[string]any{"category": "NarrativeText", "text": "No table here."}}},
		map[string]any{"page_index": 1, "elements": []any{map[string]any{"category": "Table", "text": "a b",
			"ele_metadata": map[string]any{"text_as_html": "<table><tr><th>Alpha</th><th>Beta</th></tr><tr><td>1</td><td>2</td></tr></table>"}}}},
	}}
}

// A page loaded to continue a jump says why on its spinner line, and
// nothing about loading stays on the status line once the page is there.
func TestStatus_NoStaleLoadingLineAfterThePageArrives(t *testing.T) {
	m := openJSON(t, 100, 30, twoPageTableDoc())
	cmd := m.update(keyMsg("t"))
	if line := ansi.Strip(m.statusView(100)); !strings.Contains(line, "loading page 2 to look for the next table") {
		t.Fatalf("while loading, the status line is %q", line)
	}
	run(t, m, cmd)
	d := m.docS()
	if d.page != 1 || !isTable(d.selected()) {
		t.Fatalf("t should land on the table of page 2 (page %d, sel %d)", d.page+1, d.sel)
	}
	if line := ansi.Strip(m.statusView(100)); strings.Contains(line, "loading") {
		t.Fatalf("stale status after the page arrived: %q", line)
	}
	if fr := frame(m); strings.Contains(fr, "loading page") || strings.Contains(fr, "decoding page") {
		t.Fatalf("the frame still says the page is loading:\n%s", fr)
	}
}

// A page whose load was cancelled says it is not loaded (no endless
// spinner), and r loads it.
func TestStatus_CancelledPageLoadSaysNotLoadedAndRLoadsIt(t *testing.T) {
	m := openJSON(t, 100, 30, twoPageTableDoc())
	cmd := m.update(keyMsg("]"))
	m.update(keyMsg("esc"))
	run(t, m, cmd) // the cancelled answer is dropped
	fr := frame(m)
	if !strings.Contains(fr, "page 2 is not loaded · r loads it") || strings.Contains(fr, "decoding page") {
		t.Fatalf("after esc the page should say it is not loaded:\n%s", fr)
	}
	press(t, m, "r")
	if fr := frame(m); !strings.Contains(fr, "Alpha") {
		t.Fatalf("r should load the page:\n%s", fr)
	}
}

// Pages are 1-based in the Markdown export's headings and in the trace
// overlay (the wire's page_index stays 0-based).
func TestPages_OneBasedInExportHeadingsAndTrace(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.e.opt.SaveDir = t.TempDir()
	run(t, m, m.openDPE(openURIMsg{uri: reportURI}))
	press(t, m, "e")
	m.bar.input.SetValue("report.md")
	run(t, m, m.update(keyMsg("enter")))
	b, err := os.ReadFile(filepath.Join(m.e.opt.SaveDir, "report.md"))
	if err != nil {
		t.Fatalf("export not written: %v (status %q)", err, m.statusText())
	}
	for _, want := range []string{"<!-- Page 1: Overview -->", "<!-- Page 2: Details -->", "<!-- Page 3: Appendix -->"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the export lacks the heading %q:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "Page 0") {
		t.Errorf("the export numbers a page 0:\n%s", b)
	}
	press(t, m, "x")
	fr := frame(m)
	// The manifest page 3 (page_index 2) was fetched and decoded for the
	// export; page 1 (page_index 0) was decoded when it opened.
	for _, want := range []string{"page 1", "page 3"} {
		if !regexp.MustCompile(`(decode|fetch_page) .*` + want + `\b`).MatchString(fr) {
			t.Errorf("trace lacks a %q event:\n%s", want, fr)
		}
	}
	if regexp.MustCompile(`(decode|fetch_page) .*page 0\b`).MatchString(fr) {
		t.Errorf("the trace shows a page 0:\n%s", fr)
	}
}

// twoTablesDoc has a 10-row table on page 1 and a 3-row table on page 2,
// both the first element of their page.
func twoTablesDoc() map[string]any {
	var big strings.Builder
	big.WriteString("<table><tr><th>Item</th><th>Note</th></tr>")
	for r := range 10 {
		v := fmt.Sprintf("row%d", r+1)
		if r == 8 {
			v = "surplus"
		}
		fmt.Fprintf(&big, "<tr><td>item%d</td><td>%s</td></tr>", r+1, v)
	}
	big.WriteString("</table>")
	small := "<table><tr><th>A</th><th>B</th></tr><tr><td>a1</td><td>b1</td></tr><tr><td>a2</td><td>b2</td></tr></table>"
	return map[string]any{"doc_ref": "two", "title": "Two tables", "page_count": 2, "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"element_id": "big", "category": "Table", "text": "item surplus", "ele_metadata": map[string]any{"text_as_html": big.String()}},
		}},
		map[string]any{"page_index": 1, "elements": []any{
			map[string]any{"element_id": "small", "category": "Table", "text": "a1 b1 a2 b2", "ele_metadata": map[string]any{"text_as_html": small}},
		}},
	}}
}

// A table cursor set by a search hit on one page does not carry over to
// the table of the same element index on another page.
func TestTable_CursorResetsOnAnotherPagesTable(t *testing.T) {
	m := openJSON(t, 80, 24, twoTablesDoc())
	d := m.docS()
	press(t, m, "/")
	m.bar.input.SetValue("surplus")
	press(t, m, "enter")
	run(t, m, nil)
	if c := d.cell[d.sel]; c.row != 9 || c.col != 1 {
		t.Fatalf("the hit should select row 10 column 2, got %+v", c)
	}
	press(t, m, "esc", ":", "2", "enter")
	run(t, m, nil)
	if d.page != 1 {
		t.Fatalf(":2 should show page 2, on %d", d.page+1)
	}
	press(t, m, "g", "t")
	if el := d.selected(); el == nil || el.ID != "small" {
		t.Fatalf("t should select the small table, got %+v", el)
	}
	if c := d.cell[d.sel]; c.row > 2 || c.col != 0 {
		t.Fatalf("the small table's cursor kept the old hit's cell %+v", c)
	}
	if f := frame(m); strings.Contains(f, "row 10") {
		t.Fatalf("the old hit's row shows on the small table:\n%s", f)
	}
	press(t, m, "enter")
	lv, ok := m.overlay.(*lineView)
	if !ok {
		t.Fatalf("enter should open the cell view, overlay %T", m.overlay)
	}
	body := ansi.Strip(strings.Join(lv.lines(80), "\n"))
	if strings.Contains(body, "no such cell") || !strings.Contains(body, "a1") {
		t.Fatalf("the cell view should show the small table's first cell:\n%s", body)
	}
}

// A selected table shows its cursor cell and its column's header from
// the moment it is selected; J/K move the row within the table; with no
// colour, brackets mark them.
func TestTable_SelectedCellAndColumnHighlightedJKMoveRows(t *testing.T) {
	m := openJSON(t, 80, 24, twoTablesDoc())
	d := m.docS()
	if !d.isTableSelected() {
		t.Fatal("the table, the page's first element, should be selected")
	}
	th := m.e.renderer.Theme()
	raw := m.view().Content
	if !strings.Contains(raw, cursorSGR(th.TableCursor)+"item1") {
		t.Fatalf("the first body cell is not highlighted on select:\n%q", raw)
	}
	if !strings.Contains(raw, cursorSGR(th.TableColHeader)+"Item") {
		t.Fatalf("the selected column's header is not highlighted:\n%q", raw)
	}
	press(t, m, "J", "J", "l")
	if c := d.cell[d.sel]; c.row != 3 || c.col != 1 {
		t.Fatalf("J J l: cell %+v, want row 3 column 2", c)
	}
	if d.selected().ID != "big" {
		t.Fatal("J left the table")
	}
	if raw := m.view().Content; !strings.Contains(raw, cursorSGR(th.TableCursor)+"row3") || !strings.Contains(raw, cursorSGR(th.TableColHeader)+"Note") {
		t.Fatalf("the cursor should be on row3 under Note:\n%q", raw)
	}
	press(t, m, "K", "K", "K")
	if c := d.cell[d.sel]; c.row != 1 || !strings.Contains(m.statusText(), "first row") {
		t.Fatalf("K stops at the first body row: %+v, status %q", c, m.statusText())
	}
	press(t, m, "enter")
	lv, ok := m.overlay.(*lineView)
	if !ok {
		t.Fatalf("enter should open the cell view, overlay %T", m.overlay)
	}
	if body := ansi.Strip(strings.Join(lv.lines(80), "\n")); !strings.Contains(body, "row1") || !strings.Contains(body, "item1") {
		t.Fatalf("the cell view should show row 1:\n%s", body)
	}
	press(t, m, "esc")
	inHelp := false
	for _, col := range m.keysNow().FullHelp() {
		for _, b := range col {
			inHelp = inHelp || b.Help().Key == "J"
		}
	}
	if !inHelp {
		t.Fatal("the help does not list J")
	}

	b, _ := json.Marshal(twoTablesDoc())
	opt := Options{Theme: "notty", Width: 80, Height: 24, Now: func() time.Time { return fixedNow }, StatusTimeout: -1, OpenTarget: "doc.json"}
	nm := New(opt).m
	o := nm.e.ops.add("open", 0)
	run(t, nm, nm.update(openedFor(nm, o.id, decodedDoc(t, b), "doc.json")))
	if f := frame(nm); !strings.Contains(f, "[item1 ]") || !strings.Contains(f, "[Item  ]") {
		t.Fatalf("notty: brackets should mark the cell and its header, beside their text:\n%s", f)
	}
}

// After the filter changes the cursor is on the best match (not the row
// it was on before); a scattered match does not reach into the URI's
// scheme and host, nor across a long description.
func TestResources_FilterCursorOnTopMatchNoScatterInURIHost(t *testing.T) {
	f := newFakeAgent(t)
	rs := []client.Resource{res("dpe://station.dev/lib/tide-pool", "Tide-Pool guide", "", nil)}
	for i := range 6 {
		r := res(fmt.Sprintf("dpe://station.dev/lib/report-%d", i), fmt.Sprintf("Report %d", i), "", nil)
		r.Description = "the itemised quarterly expense list"
		rs = append(rs, r)
	}
	f.pages["scatter"] = map[string]*client.ResourcePage{"": {Resources: rs}}
	m := newTestModel(t, f)
	r := pushResources(t, m, "laptop", "scatter")
	if len(r.visible) != 7 {
		t.Fatalf("%d rows, want 7", len(r.visible))
	}
	press(t, m, "G")
	if s := r.selected(); s == nil || s.Name == "Tide-Pool guide" {
		t.Fatalf("G should select the last row, got %+v", s)
	}
	press(t, m, "/", "T", "i", "d", "e", "enter")
	if r.list.filter != "Tide" {
		t.Fatalf("filter %q", r.list.filter)
	}
	if len(r.visible) != 1 {
		var names []string
		for _, i := range r.visible {
			names = append(names, r.all[i].Name)
		}
		t.Fatalf(`"Tide" matched %d rows %v, want only the Tide-Pool guide`, len(r.visible), names)
	}
	if s := r.selected(); s == nil || s.Name != "Tide-Pool guide" {
		t.Fatalf("the cursor should be on the top match, got %+v", s)
	}
	// A new query with several matches starts at the best one.
	press(t, m, "/", "backspace", "backspace", "backspace", "backspace", "r", "e", "p", "o", "r", "t", " ", "5", "enter")
	if s := r.selected(); s == nil || s.Name != "Report 5" {
		t.Fatalf(`"report 5" should select Report 5, got %+v`, s)
	}
	press(t, m, "/")
	for range 8 {
		press(t, m, "backspace")
	}
	press(t, m, "r", "e", "p", "enter")
	if len(r.visible) != 6 || r.list.cur != 0 {
		t.Fatalf(`"rep": %d rows cursor %d, want 6 rows from the top`, len(r.visible), r.list.cur)
	}
}

// A long error keeps its "· E details" hint on the status line (the text
// is cut, not the hint), and E shows the peer's own message even when the
// error's sentence leaves it out.
func TestErrors_LongStatusKeepsHintDetailShowsPeerMessage(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	listOffice(t, m)
	err := &client.ResolveError{URI: "dpe://laptop/library/" + strings.Repeat("a-very-long-segment/", 6) + "report", Computer: "laptop",
		Err: &protocol.Error{Code: protocol.CodeResolutionFailed, Category: protocol.CategoryUpstreamUnavailable, Message: "bucket s3://tidepool returned 503 SlowDown"}}
	m.e.setErr("open", err)
	lines := strings.Split(frame(m), "\n")
	status := lines[len(lines)-2]
	if !strings.HasSuffix(strings.TrimSpace(status), "· E details") {
		t.Fatalf("the cut status line lost its hint: %q", status)
	}
	press(t, m, "E")
	lv, ok := m.overlay.(*messagesView)
	if !ok {
		t.Fatalf("E should open the error detail, overlay %T", m.overlay)
	}
	if body := ansi.Strip(strings.Join(lv.lines, "\n")); !strings.Contains(body, "returned 503 SlowDown") || !strings.Contains(body, "is unavailable") {
		t.Fatalf("the detail view should hold the summary and the peer's message:\n%s", body)
	}
}

// Checklist entries and list items are not separated by blank lines.
func TestReading_ChecklistItemsHaveNoBlankLinesBetween(t *testing.T) {
	m := openJSON(t, 100, 30, map[string]any{"doc_ref": "tide", "title": "Tide-Pool guide", "page_count": 1, "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"element_id": "t", "category": "Title", "text": "Before you go"},
			map[string]any{"element_id": "c1", "category": "CheckBox", "text": "Check the tide table", "ele_metadata": map[string]any{"checked": true}},
			map[string]any{"element_id": "c2", "category": "CheckBox", "text": "Pack water shoes", "ele_metadata": map[string]any{"checked": false}},
			map[string]any{"element_id": "l1", "category": "ListItem", "text": "Bring a towel"},
			map[string]any{"element_id": "p", "category": "NarrativeText", "text": "Then walk down."},
		}},
	}})
	lines := strings.Split(frame(m), "\n")
	at := func(s string) int {
		for i, l := range lines {
			if strings.Contains(l, s) {
				return i
			}
		}
		t.Fatalf("%q not on screen:\n%s", s, strings.Join(lines, "\n"))
		return -1
	}
	a, b, c := at("Check the tide table"), at("Pack water shoes"), at("Bring a towel")
	if b != a+1 || c != b+1 {
		t.Fatalf("checklist and list lines at %d, %d, %d: want consecutive lines:\n%s", a, b, c, strings.Join(lines, "\n"))
	}
	if p := at("Then walk down."); p != c+2 {
		t.Fatalf("the paragraph after the list should follow one blank line (list end %d, paragraph %d)", c, p)
	}
}

// A hint on the status line answers one key: "end of page" goes with the
// next key (a column move, g), "cancelled: …" with a successful m. Counts
// say "1 match", "1 element".
func TestStatus_HintsGoWithTheNextKeyAndCountsAreSingular(t *testing.T) {
	m := openJSON(t, 80, 24, twoTablesDoc())
	d := m.docS()
	press(t, m, "G", "j")
	if s := m.statusText(); !strings.Contains(s, "end of page 1") {
		t.Fatalf("j at the end should say so, status %q", s)
	}
	press(t, m, "g")
	if s := m.statusText(); strings.Contains(s, "end of page") {
		t.Fatalf("g left the stale hint %q", s)
	}
	press(t, m, "G", "j", "l")
	if s := m.statusText(); strings.Contains(s, "end of page") || d.cell[d.sel].col != 1 {
		t.Fatalf("l left the stale hint %q (col %d)", s, d.cell[d.sel].col)
	}
	if f := frame(m); !strings.Contains(f, "· 1 element (1 table)") {
		t.Fatalf("the page header should say 1 element:\n%s", f)
	}
	press(t, m, "/")
	m.bar.input.SetValue("surplus")
	press(t, m, "enter")
	run(t, m, nil)
	if s := m.statusText(); !strings.HasPrefix(s, "1 match for") {
		t.Fatalf("status %q, want 1 match", s)
	}

	f := newFakeAgent(t)
	f.resourcesFn = endlessCursors(10, 0)
	m = newTestModel(t, f)
	r := newResourcesScreen(m.e, "laptop", "endless", "endless")
	m.stack = append(m.stack, r)
	run(t, m, r.loadNext(false))
	cmd := m.update(keyMsg("M"))
	m.update(keyMsg("esc"))
	run(t, m, cmd)
	if s := m.statusText(); !strings.HasPrefix(s, "cancelled:") {
		t.Fatalf("esc should say it cancelled, status %q", s)
	}
	press(t, m, "m")
	if s := frame(m); strings.Contains(s, "cancelled:") {
		t.Fatalf("a successful m left the cancelled hint:\n%s", s)
	}
}

// An answer over the ack size limit drops the connection; the re-join
// after it does not reload the screen (the same answer would drop it again,
// forever) and says why and which key reloads.
func TestReconnect_AfterAnOversizedAnswerDoesNotReload(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	listOffice(t, m)
	pushServers(t, m, "laptop")
	f.resourcesErr = &client.AckTooLargeError{Event: protocol.EventGetResources, Computer: "laptop", Limit: 2048}
	pushResources(t, m, "laptop", "library")
	run(t, m, m.update(agentEventMsg{ev: client.StateEvent{State: client.Reconnecting, Attempt: 1}}))
	run(t, m, m.update(agentEventMsg{ev: client.StateEvent{State: client.Connected}}))
	if f.resourceCalls != 1 {
		t.Fatalf("get_resources asked %d times, want once (no reload after the re-join)", f.resourceCalls)
	}
	if fr := frame(m); !strings.Contains(fr, "not reloaded: the last answer was over the ack size limit") {
		t.Fatalf("the status should say why it did not reload:\n%s", fr)
	}
	// The next drop for another reason reloads as before.
	run(t, m, m.update(agentEventMsg{ev: client.StateEvent{State: client.Reconnecting, Attempt: 1}}))
	run(t, m, m.update(agentEventMsg{ev: client.StateEvent{State: client.Connected}}))
	if f.resourceCalls != 2 {
		t.Fatalf("get_resources asked %d times after an ordinary re-join, want 2", f.resourceCalls)
	}
}

// ? over raw JSON, the inspector or the trace covers it, and esc or ?
// goes back to it (not to the document); while help is open the footer
// says how to close it instead of listing the covered view's keys.
func TestHelp_ClosesBackToTheViewItCovered(t *testing.T) {
	for _, tc := range []struct {
		key  string
		is   func(screen) bool
		name string
	}{
		{"v", func(s screen) bool { _, ok := s.(*rawOverlay); return ok }, "raw JSON"},
		{".", func(s screen) bool { _, ok := s.(*inspector); return ok }, "inspector"},
		{"x", func(s screen) bool { _, ok := s.(*traceOverlay); return ok }, "trace"},
	} {
		for _, closeKey := range []string{"esc", "?"} {
			m := openJSON(t, 80, 24, twoPageTableDoc())
			press(t, m, tc.key)
			if !tc.is(m.overlay) {
				t.Fatalf("%s: %q did not open it (overlay %T)", tc.name, tc.key, m.overlay)
			}
			press(t, m, "?")
			f := frame(m)
			if _, ok := m.overlay.(*helpOverlay); !ok || !strings.Contains(f, "Keys") {
				t.Fatalf("%s: ? did not open help:\n%s", tc.name, f)
			}
			lines := strings.Split(f, "\n")
			if foot := lines[len(lines)-1]; !strings.Contains(foot, "close") {
				t.Errorf("%s: the footer under help does not say how to close it: %q", tc.name, foot)
			}
			press(t, m, closeKey)
			if !tc.is(m.overlay) {
				t.Errorf("%s: %s after help went to %T, not back to the %s", tc.name, closeKey, m.overlay, tc.name)
			}
			press(t, m, "esc")
			if m.overlay != nil {
				t.Errorf("%s: esc did not close it (overlay %T)", tc.name, m.overlay)
			}
		}
	}
}

// esc on a selected table leaves the table first (its cell cursor goes
// away, the document stays, with the place kept); the next esc leaves the
// document; a table key takes the cursor out again.
func TestTable_EscLeavesTheTableBeforeTheDocument(t *testing.T) {
	m := openTables(t, 80, 24)
	d := m.docS()
	depth := len(m.stack)
	press(t, m, "t", "l")
	page, sel := d.page, d.sel
	cursor := cursorSGR(m.e.renderer.Theme().TableCursor)
	if !strings.Contains(m.view().Content, cursor) {
		t.Fatal("the selected table shows no cell cursor")
	}
	if f := footerLine(m); !strings.Contains(f, "column right") {
		t.Fatalf("the footer of a selected table shows no table keys: %q", f)
	}
	press(t, m, "esc") // the "opened" line does not hold esc
	if f := footerLine(m); strings.Contains(f, "column right") || !strings.Contains(f, "next page") {
		t.Fatalf("after esc the footer still shows the table keys: %q", f)
	}
	if len(m.stack) != depth || m.docS() != d {
		t.Fatalf("esc on a table left the document (stack %d, was %d)", len(m.stack), depth)
	}
	if strings.Contains(m.view().Content, cursor) || !strings.Contains(m.statusText(), "left the table") {
		t.Fatalf("esc did not put the cell cursor away; status %q", m.statusText())
	}
	if d.page != page || d.sel != sel || d.cell[d.sel].col != 1 {
		t.Fatalf("esc moved the place: page %d sel %d col %d", d.page, d.sel, d.cell[d.sel].col)
	}
	press(t, m, "l")
	if !strings.Contains(m.view().Content, cursor) || d.cell[d.sel].col != 2 {
		t.Fatalf("l did not take the cursor out again (col %d)", d.cell[d.sel].col)
	}
	if f := footerLine(m); !strings.Contains(f, "column right") {
		t.Fatalf("the table keys did not come back to the footer: %q", f)
	}
	press(t, m, "esc", "esc")
	// A document opened on its own is the root: leaving it says q quits.
	if len(m.stack) != depth-1 && !strings.Contains(m.statusText(), "press q to quit") {
		t.Fatalf("the second esc did not leave the document (stack %d, was %d; status %q)", len(m.stack), depth, m.statusText())
	}
}

// :999 on a 2-page document says there is no such page and closes the
// prompt, so the next : starts afresh (it used to stay open, and ":0"
// was appended to "999"); :abc, neither a page nor a URI, closes it the
// same way with one line naming the input and the cause.
func TestCommand_BadJumpSaysSoAndCloses(t *testing.T) {
	m := openJSON(t, 80, 24, twoPageTableDoc())
	press(t, m, ":", "9", "9", "9", "enter")
	if m.bar.active {
		t.Fatal("the prompt stayed open after :999")
	}
	if s := m.statusText(); !strings.Contains(s, ":999") || !strings.Contains(s, "no such page (1–2)") {
		t.Fatalf("status %q should say there is no page 999", s)
	}
	press(t, m, ":", "2", "enter")
	if d := m.docS(); d.page != 1 || m.bar.active {
		t.Fatalf(":2 after :999: page %d, bar open %v", d.page+1, m.bar.active)
	}
	for _, in := range []string{"abc", "x:/"} {
		press(t, m, ":")
		for _, r := range in {
			press(t, m, string(r))
		}
		press(t, m, "enter")
		if m.bar.active {
			t.Fatalf(":%s: the prompt stayed open", in)
		}
		if s := m.statusText(); !strings.HasPrefix(s, ":"+in+": not a page number nor a dpe:// URI (") {
			t.Fatalf(":%s: status %q should name the input and why it is no jump", in, s)
		}
	}
	press(t, m, ":", "1", "enter")
	if d := m.docS(); d.page != 0 || m.bar.active {
		t.Fatalf(":1 after :abc: page %d, bar open %v", d.page+1, m.bar.active)
	}
}

// n past the last match says the search wrapped to the first; N before
// the first says it wrapped to the last.
func TestSearch_WrapIsSaid(t *testing.T) {
	doc := map[string]any{"doc_ref": "w", "title": "Wrap", "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"category": "NarrativeText", "text": "alpha one"},
			map[string]any{"category": "NarrativeText", "text": "beta"},
			map[string]any{"category": "NarrativeText", "text": "alpha two"},
		}},
	}}
	m := openJSON(t, 80, 24, doc)
	press(t, m, "/", "a", "l", "p", "h", "a", "enter")
	d := m.docS()
	if len(d.search.hits) != 2 {
		t.Fatalf("%d hits, want 2", len(d.search.hits))
	}
	press(t, m, "n")
	if strings.Contains(m.statusText(), "wrapped") {
		t.Fatalf("1/2 → 2/2 is no wrap: %q", m.statusText())
	}
	press(t, m, "n")
	if d.search.cur != 0 || !strings.Contains(m.statusText(), "wrapped to the first match (1/2)") {
		t.Fatalf("n past the last: cur %d, status %q", d.search.cur, m.statusText())
	}
	press(t, m, "N")
	if d.search.cur != 1 || !strings.Contains(m.statusText(), "wrapped to the last match (2/2)") {
		t.Fatalf("N before the first: cur %d, status %q", d.search.cur, m.statusText())
	}
}

// Help lists every key once (n/N are hits, or changes while a diff is
// shown), and F, which works on every screen, is in every screen's help.
func TestHelp_EachKeyOnceAndTheFinderEverywhere(t *testing.T) {
	m := openJSON(t, 80, 24, twoPageTableDoc())
	plain := m.top().Keys()
	press(t, m, "t")
	if !m.docS().isTableSelected() {
		t.Fatal("t did not select the table")
	}
	for _, keys := range []screenKeys{plain, m.top().Keys(), newOfficeScreen(m.e).Keys()} {
		seen := map[string]string{}
		finder := false
		for _, col := range keys.full {
			for _, b := range col {
				h := b.Help()
				for _, k := range b.Keys() {
					if was, ok := seen[k]; ok {
						t.Errorf("key %q is listed twice (%q and %q)", k, was, h.Desc)
					}
					seen[k] = h.Desc
				}
				finder = finder || h.Key == "F"
			}
		}
		if !finder {
			t.Errorf("F (the Finder) is not in the help: %v", seen)
		}
	}
}

// At 80 columns the breadcrumb keeps its ends (the office, where you are
// and the overlay) and shortens what is between.
func TestCrumbs_KeepTheirEndsAt80(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		keep []string
	}{
		{[]string{"demo", "laptop", "library", strings.Repeat("A very long document title ", 4), "page 1/3", "inspector"}, []string{"demo", "page 1/3", "inspector"}},
		{[]string{"office-with-a-long-name", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "ca", "cb", "cc", "cd", "ce", "cf", "page 10/20", "help"}, []string{"page 10/20", "help"}},
	} {
		out := fitCrumbs(tc.in, 79)
		line := strings.Join(out, " › ")
		if w := ansi.StringWidth(line); w > 79 {
			t.Errorf("%q is %d cells, over 79", line, w)
		}
		for _, k := range tc.keep {
			if !strings.Contains(line, k) {
				t.Errorf("%q lost %q", line, k)
			}
		}
	}
	if got := fitCrumbs([]string{"demo", "doc"}, 79); strings.Join(got, "|") != "demo|doc" {
		t.Errorf("a crumb that fits changed: %q", got)
	}
	if got := sanitize.TruncateMiddle("http://very-long-host.example.com:7800", 20); ansi.StringWidth(got) != 20 || !strings.HasSuffix(got, ":7800") {
		t.Errorf("TruncateMiddle = %q", got)
	}
}

// The document's breadcrumb at 80 columns, inspector open on a long
// title: the tail ("element …") is there.
func TestCrumbs_InspectorTailShownAt80(t *testing.T) {
	doc := twoPageTableDoc()
	doc["title"] = strings.Repeat("Quarterly operations report for the northern region ", 3)
	m := openJSON(t, 80, 24, doc)
	press(t, m, ".")
	if _, ok := m.overlay.(*inspector); !ok {
		t.Fatalf("overlay %T", m.overlay)
	}
	crumb := strings.Split(frame(m), "\n")[1]
	if c := m.overlay.Crumb(); !strings.Contains(crumb, c) || !strings.Contains(crumb, "page 1/2") {
		t.Errorf("crumb line %q lost the tail %q or the page", crumb, c)
	}
}

// A narrow header drops the agent's name first, then shortens the URL in
// the middle; the connection state and the office stay whole.
func TestHeader_NarrowKeepsStateAndOffice(t *testing.T) {
	m := newTestModel(t, newFakeAgent(t))
	listOffice(t, m)
	m.e.width = 60
	h := ansi.Strip(m.headerView(60))
	if strings.Contains(h, "agent") || !strings.Contains(h, "connected") || !strings.Contains(h, "office demo") || ansi.StringWidth(h) > 60 {
		t.Errorf("60 columns: %q", h)
	}
	if h := ansi.Strip(m.headerView(60)); !strings.Contains(h, "server 127.0.0.1:7410") {
		t.Errorf("60 columns: the scheme should go before the address is cut: %q", h)
	}
	if h := ansi.Strip(m.headerView(52)); !strings.Contains(h, "office demo") || !strings.Contains(h, "7410") || !strings.Contains(h, "…") {
		t.Errorf("52 columns: %q", h)
	}
	if h := ansi.Strip(m.headerView(200)); !strings.Contains(h, "agent dpe-tui") {
		t.Errorf("200 columns: %q", h)
	}
}

// Whole crumbs fold into "…" before any word is cut: each crumb left is
// an original one or the ellipsis.
func TestCrumbs_FoldWholeCrumbsBeforeCuttingWords(t *testing.T) {
	in := []string{"demo", "alpha", "dpe-review › page 1/3", "linked files", "dpe-review/assets/badge.png", "resolver trace"}
	out := fitCrumbs(in, 59)
	if w := ansi.StringWidth(strings.Join(out, " › ")); w > 59 {
		t.Fatalf("%q is %d cells", out, w)
	}
	for _, c := range out {
		if c != "…" && !slices.Contains(in, c) {
			t.Errorf("crumb %q was cut while whole ones could fold: %q", c, out)
		}
	}
	if out[0] != "demo" || out[len(out)-1] != "resolver trace" {
		t.Errorf("the ends went: %q", out)
	}
}

// footerLine is the frame's last line: the footer of keys.
func footerLine(m *model) string {
	lines := strings.Split(frame(m), "\n")
	return lines[len(lines)-1]
}

// Help taller than the screen says that more follows and how to reach
// it; G shows its end (the sidebar's notes), g its top again.
func TestHelp_TallerThanTheScreenSaysMoreFollowsAndGReachesTheEnd(t *testing.T) {
	m := openTables(t, 80, 24)
	press(t, m, "?")
	f := frame(m)
	if !strings.Contains(f, "more · ↓/j/f/pgdn scroll · G/end end") || strings.Contains(f, "Sidebar:") {
		t.Fatalf("a cut help should say more follows:\n%s", f)
	}
	press(t, m, "G")
	f = frame(m)
	if !strings.Contains(f, "Sidebar:") || !strings.Contains(f, "end of the keys") || strings.Contains(f, "more ·") {
		t.Fatalf("G should show the end of the help:\n%s", f)
	}
	press(t, m, "g")
	if f = frame(m); !strings.Contains(f, "½ page up") || !strings.Contains(f, "more ·") {
		t.Fatalf("g should show the top of the help again:\n%s", f)
	}
	press(t, m, "f")
	h := m.overlay.(*helpOverlay)
	if want := min(h.room(m.e.bodyHeight()), len(h.body(80))-h.room(m.e.bodyHeight())); h.off != want || want <= 0 {
		t.Fatalf("f moved the help %d lines, not a screenful (%d)", h.off, want)
	}
	// At 200x60 it all fits: no marker.
	run(t, m, m.update(tea.WindowSizeMsg{Width: 200, Height: 60}))
	if f = frame(m); strings.Contains(f, "more ·") || strings.Contains(f, "end of the keys") || !strings.Contains(f, "Sidebar:") {
		t.Fatalf("a help that fits needs no marker:\n%s", f)
	}
}

// The export prompt shows the proposed file name whole at 80 columns (it
// showed the end, "Cooperative-—-Operations-Report-2026.md", without
// "Harbor-Light-Water-"), and after a resize to 50 columns the cursor's
// end still shows.
func TestExport_PromptShowsTheWholeProposedName(t *testing.T) {
	doc := twoPageTableDoc()
	doc["title"] = "Harbor Light Water Cooperative — Operations Report 2026"
	m := openJSON(t, 80, 24, doc)
	press(t, m, "e")
	if !m.bar.active || m.bar.mode != barExportDoc {
		t.Fatal("e did not open the export prompt")
	}
	want := "Harbor-Light-Water-Cooperative-—-Operations-Report-2026.md"
	if f := footerLine(m); !strings.Contains(f, "export document to "+want) {
		t.Fatalf("the prompt hides part of the name: %q", f)
	}
	run(t, m, m.update(tea.WindowSizeMsg{Width: 50, Height: 24}))
	if f := footerLine(m); !strings.Contains(f, "Report-2026.md") || strings.Contains(f, want) {
		t.Fatalf("at 50 columns the prompt should scroll to the cursor: %q", f)
	}
}

// ctrl+o goes back to the page left by a jump and ctrl+i forward again,
// as in vim and less; at either end of the history they say so.
func TestHistory_CtrlOAndCtrlIWalkThePagesJumpedBetween(t *testing.T) {
	m := openJSON(t, 80, 24, twoPageTableDoc())
	d := m.docS()
	press(t, m, "ctrl+o")
	if !strings.Contains(m.statusText(), "no earlier place") {
		t.Fatalf("ctrl+o with no history: %q", m.statusText())
	}
	press(t, m, ":", "2", "enter")
	if d.page != 1 {
		t.Fatalf(":2 went to page %d", d.page+1)
	}
	press(t, m, "ctrl+o")
	if d.page != 0 {
		t.Fatalf("ctrl+o went to page %d, want 1", d.page+1)
	}
	press(t, m, "ctrl+i")
	if d.page != 1 {
		t.Fatalf("ctrl+i went to page %d, want 2", d.page+1)
	}
	press(t, m, "ctrl+i")
	if !strings.Contains(m.statusText(), "no later place") || d.page != 1 {
		t.Fatalf("ctrl+i at the newest place: page %d, status %q", d.page+1, m.statusText())
	}
	// A history move is not a jump of its own: back, back again is the
	// start, not a loop between two pages.
	press(t, m, "ctrl+o", "ctrl+o")
	if d.page != 0 || !strings.Contains(m.statusText(), "no earlier place") {
		t.Fatalf("ctrl+o twice: page %d, status %q", d.page+1, m.statusText())
	}
}
