package ui

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// escHints is how many esc hints the footer shows, and the footer.
func escHints(m *model) (int, string) {
	f := footerLine(m)
	return strings.Count(f, "esc "), f
}

// esc leaves the innermost thing first: the table's cell cursor, then
// the search, and only then the document; the footer names the one esc
// that will happen, once. The search's result line ("3 matches for") is
// no step of its own: only an error holds esc (TestEsc_PutsAwayAnUnansweredErrorOnly).
func TestEsc_TableThenSearchThenTheDocument(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	m.e.width = 200 // room for every hint: the footer drops none
	listOffice(t, m)
	depth := len(m.stack)
	run(t, m, m.openDPE(openURIMsg{uri: reportURI}))
	d := m.docS()
	if d == nil || len(m.stack) != depth+1 {
		t.Fatalf("not opened: %s", m.statusText())
	}
	press(t, m, "/")
	m.bar.input.SetValue("North")
	press(t, m, "enter")
	if !d.tableActive() || !strings.Contains(m.statusText(), "matches for") {
		t.Fatalf("the first hit should select the table: table %v, status %q", d.tableActive(), m.statusText())
	}
	steps := []struct {
		hint string
		done func() bool
	}{
		{"esc leave table", func() bool { return !d.tableActive() && d.search.query != "" }},
		{"esc clear search", func() bool { return d.search.query == "" && m.docS() == d }},
		{"esc back", func() bool { return len(m.stack) == depth }},
	}
	for _, s := range steps {
		n, foot := escHints(m)
		if n != 1 || !strings.Contains(foot, s.hint) {
			t.Fatalf("before %q: the footer shows %d esc hints, want only %q: %q", s.hint, n, s.hint, foot)
		}
		press(t, m, "esc")
		if !s.done() {
			t.Fatalf("esc under %q did something else: stack %d (was %d), table %v, search %q, status %q",
				s.hint, len(m.stack), depth+1, d.tableActive(), d.search.query, m.statusText())
		}
	}
}

// While a comparison is shown the footer has one esc hint, "clear diff",
// at 80 columns and on a wide terminal (it showed "esc clear diff" and
// "esc back" at once).
func TestFooter_OneEscHintWhileADiffIsShown(t *testing.T) {
	for _, w := range []int{80, 200} {
		f := newFakeAgent(t)
		m := newTestModel(t, f)
		m.e.width = w
		listOffice(t, m)
		run(t, m, m.openDPE(openURIMsg{uri: reportURI}))
		// Another version is served: an identical one leaves no
		// comparison to clear.
		if err := os.WriteFile(f.docs[reportURI], editedReport(t), 0o644); err != nil {
			t.Fatal(err)
		}
		press(t, m, "D")
		d := m.docS()
		if d.diff == nil {
			t.Fatalf("%d columns: D made no comparison (status %q)", w, m.statusText())
		}
		if n, foot := escHints(m); n != 1 || !strings.Contains(foot, "esc clear diff") {
			t.Fatalf("%d columns: %d esc hints, want only \"esc clear diff\": %q", w, n, foot)
		}
		press(t, m, "esc")
		if d.diff != nil || m.docS() != d {
			t.Fatalf("%d columns: esc did not clear the diff first", w)
		}
		if n, foot := escHints(m); w == 200 && (n != 1 || !strings.Contains(foot, "esc back")) {
			t.Fatalf("%d columns: after the diff the esc hint should say back: %q", w, foot)
		}
	}
}

// A count of one is singular wherever the browser counts: a search that
// finds nothing in a one-page document, the inspector's metadata.
func TestCounts_OneIsSingular(t *testing.T) {
	doc := map[string]any{"doc_ref": "one", "title": "One", "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"element_id": "a", "category": "NarrativeText", "text": "alpha", "ele_metadata": map[string]any{"parent_id": "x"}},
		}},
	}}
	m := openJSON(t, 80, 24, doc)
	press(t, m, "/")
	m.bar.input.SetValue("zzz")
	press(t, m, "enter")
	if s := m.statusText(); s != `no match for "zzz" in 1 page` {
		t.Errorf("status %q, want the one page said in the singular", s)
	}
	press(t, m, ".", "G")
	if fr := frame(m); !strings.Contains(fr, "ele_metadata (1 field)") {
		t.Errorf("the inspector should count 1 field:\n%s", fr)
	}
}

// r reloads the document and keeps the place: the page and the selected
// element (it went back to the top of page 1).
func TestReload_KeepsThePageAndTheSelectedElement(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	listOffice(t, m)
	run(t, m, m.openDPE(openURIMsg{uri: reportURI}))
	press(t, m, "]", "j")
	d := m.docS()
	page, sel := d.page, d.sel
	if page != 1 || sel == 0 {
		t.Fatalf("set-up: page %d element %d, want page 2 below its first element", page+1, sel+1)
	}
	id := d.selected().ID
	press(t, m, "r")
	n := m.docS()
	if n == d {
		t.Fatal("r did not reload the document")
	}
	if n.page != page || n.sel != sel || n.selected() == nil || n.selected().ID != id {
		t.Fatalf("after r: page %d element %d, want page %d element %d (%s)", n.page+1, n.sel+1, page+1, sel+1, id)
	}
}

// A column widened with w stays widened after a search took the view to
// another page and a jump came back (the page change threw the table
// views away).
func TestTable_WidenedColumnSurvivesSearchAndJumps(t *testing.T) {
	m := openTables(t, 80, 24)
	d := m.docS()
	press(t, m, "t", "l", "w")
	el := d.sel
	want := d.tv[el]
	if want.WideCol != 2 || want.ColWidthBonus == 0 {
		t.Fatalf("set-up: w did not widen column 2: %+v", want)
	}
	press(t, m, "/")
	m.bar.input.SetValue("eta-last")
	press(t, m, "enter")
	if d.page != 1 {
		t.Fatalf("the hit is on page 2, the view is on page %d", d.page+1)
	}
	press(t, m, ":", "1", "enter")
	if d.page != 0 {
		t.Fatalf(":1 should show page 1, on %d", d.page+1)
	}
	if got := d.tv[el]; got.WideCol != want.WideCol || got.ColWidthBonus != want.ColWidthBonus {
		t.Fatalf("after the search and the jump back the column is %+v, want widened as %+v", got, want)
	}
}

// On a wide terminal the breadcrumb shows the document's title whole and
// the sidebar its page titles (they were cut at 40 and 34 columns on a
// terminal of 200).
func TestTitles_UseTheWidthTheTerminalHas(t *testing.T) {
	title := "Harbor Light Water Cooperative — Operations Report 2026 for members, the board and the regulator"
	page := "Supply and demand across the four villages"
	doc := map[string]any{"doc_ref": "wide", "title": title, "pages": []any{
		map[string]any{"page_index": 0, "title": page, "elements": []any{
			map[string]any{"element_id": "a", "category": "NarrativeText", "text": "alpha"},
		}},
	}}
	m := openJSON(t, 200, 50, doc)
	lines := strings.Split(frame(m), "\n")
	if !strings.Contains(lines[1], title+" › page 1/1") {
		t.Errorf("the breadcrumb cut the title at 200 columns: %q", lines[1])
	}
	if side := strings.Join(lines[2:], "\n"); !strings.Contains(side, page) {
		t.Errorf("the sidebar cut the page title at 200 columns:\n%s", side)
	}
	m = openJSON(t, 80, 24, doc)
	if crumb := strings.Split(frame(m), "\n")[1]; !strings.Contains(crumb, "page 1/1") || !strings.Contains(crumb, "…") {
		t.Errorf("at 80 columns the breadcrumb should shorten the title and keep the page: %q", crumb)
	}
}

// The inspector's enter hint is what enter does on the line: "follow
// link" on a link line, "next link" elsewhere (enter moves there), none
// when the element links to nothing (the hint said "follow link" on
// every line, and enter did nothing off a link).
func TestInspector_EnterHintOnlyWhereEnterDoesSomething(t *testing.T) {
	doc := map[string]any{"doc_ref": "links", "title": "Links", "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"element_id": "head", "category": "Title", "text": "Heading"},
			map[string]any{"element_id": "body", "category": "NarrativeText", "text": "Under the heading.", "ele_metadata": map[string]any{"parent_id": "head"}},
			map[string]any{"element_id": "lone", "category": "NarrativeText", "text": "Alone."},
		}},
	}}
	m := openJSON(t, 80, 24, doc)
	d := m.docS()
	d.sel = 1
	press(t, m, ".")
	if f := footerLine(m); !strings.Contains(f, "enter next link") {
		t.Fatalf("on the title line the hint should say enter goes to the next link: %q", f)
	}
	press(t, m, "enter")
	if f := footerLine(m); !strings.Contains(f, "enter follow link") || !overlayIs[*inspector](m) {
		t.Fatalf("enter should move onto the link line: %q", f)
	}
	press(t, m, "enter")
	if m.overlay != nil || d.sel != 0 {
		t.Fatalf("enter on the link should jump to the parent: overlay %T, element %d", m.overlay, d.sel+1)
	}
	d.sel = 2
	press(t, m, ".")
	if f := footerLine(m); strings.Contains(f, "enter") || strings.Contains(f, "link") {
		t.Fatalf("an element without links shows an enter hint: %q", f)
	}
}

// A search hit in a table cell cut with "…" is shown: the status line
// says the cell and its text around the hit, at 80 columns (the cell
// showed "long words wo…", the hit nowhere).
func TestSearch_HitInACutCellIsShownOnTheStatusLine(t *testing.T) {
	m := openTables(t, 80, 24)
	press(t, m, "/")
	m.bar.input.SetValue("long-end")
	press(t, m, "enter")
	body := strings.Split(frame(m), "\n")
	table := strings.Join(body[2:len(body)-2], "\n")
	if strings.Contains(table, "LONG-END") {
		t.Fatalf("set-up: the hit's cell is not cut:\n%s", table)
	}
	status := body[len(body)-2]
	if !strings.Contains(status, "row 2 col 2: ") || !strings.Contains(status, "words [LONG-END]") {
		t.Fatalf("the status line should show the cell's text around the hit: %q", status)
	}
	run(t, m, m.update(clearStatusMsg{id: m.e.status.id})) // the message's time is up; the search's own line says it too
	if status := strings.Split(frame(m), "\n")[len(body)-2]; !strings.Contains(status, "[LONG-END]") {
		t.Fatalf("the search's line should keep the cell's text around the hit: %q", status)
	}
}

// codeDoc is "Annual report 2026" with one code block whose second line
// runs far past any frame.
func codeDoc(t *testing.T, f *fakeAgent) {
	t.Helper()
	long := "\tsum := " + strings.Repeat("xs[0] + ", 20) + "END_OF_LINE"
	doc := map[string]any{"doc_ref": "annual-report", "title": "Annual report 2026", "file_type": "md", "pages": []any{
		map[string]any{"page_index": 0, "title": "Code", "elements": []any{
			map[string]any{"element_id": "t", "category": "Title", "text": "Code"},
			map[string]any{"element_id": "c", "category": "CodeSnippet", "text": "func total(xs []int) int {\n" + long + "\n\treturn sum\n}", "ele_metadata": map[string]any{"language": "go"}},
		}},
	}}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.docs[reportURI], b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A selected code block's long lines scroll sideways with l and h (code
// is cut, never wrapped, and the cut end could not be read); the footer
// and help name the keys from the keymap.
func TestCode_LongLinesScrollSideways(t *testing.T) {
	f := newFakeAgent(t)
	codeDoc(t, f)
	m := newTestModel(t, f)
	m.e.width, m.e.height = 80, 24
	listOffice(t, m)
	run(t, m, m.openDPE(openURIMsg{uri: reportURI}))
	press(t, m, "j") // select the code block
	d := m.docS()
	if !d.isCodeSelected() {
		t.Fatalf("set-up: element %d is selected, not the code block", d.sel+1)
	}
	if fr := frame(m); strings.Contains(fr, "END_OF_LINE") {
		t.Fatalf("set-up: the long line is not cut:\n%s", fr)
	}
	if f := footerLine(m); !strings.Contains(f, "→/l code right") {
		t.Fatalf("the footer should name the code keys: %q", f)
	}
	for i := 0; i < 40 && !strings.Contains(m.statusText(), "end of the longest line"); i++ {
		press(t, m, "l")
	}
	if fr := frame(m); !strings.Contains(fr, "END_OF_LINE") {
		t.Fatalf("l should scroll the end of the long line into view:\n%s", fr)
	}
	press(t, m, "h")
	if fr := frame(m); strings.Contains(fr, "END_OF_LINE") {
		t.Fatalf("h should scroll back:\n%s", fr)
	}
	press(t, m, "?")
	if fr := frame(m); !strings.Contains(fr, "code right") || strings.Contains(fr, "column right") {
		t.Fatalf("help should list h/l as the code keys while code is selected:\n%s", fr)
	}
}

// The scrolled code block at 80×24, through the real program.
func TestCode_ScrolledSidewaysGolden(t *testing.T) {
	f := newFakeAgent(t)
	codeDoc(t, f)
	s := start80(t, testOptions(f))
	s.toDocument()
	s.idle()
	s.keys("j", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l")
	s.waitFor("END_OF_LINE")
	golden.RequireEqual(t, s.final())
}

// o opens another document over the one shown, so esc right after it
// undoes exactly the open and comes back to the document left (it went
// past it, to the list); esc in the o prompt only closes the prompt.
func TestOpen_EscAfterOGoesBackToTheDocumentLeft(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	listOffice(t, m)
	run(t, m, m.openDPE(openURIMsg{uri: reportURI}))
	a := m.docS()
	depth := len(m.stack)
	opened := m.statusText()
	press(t, m, "o", "esc")
	if m.bar.active || m.docS() != a || len(m.stack) != depth || m.statusText() != opened {
		t.Fatalf("esc in the o prompt should only close it: bar %v, stack %d (was %d), status %q", m.bar.active, len(m.stack), depth, m.statusText())
	}
	press(t, m, "o")
	for _, r := range notesURI {
		press(t, m, string(r))
	}
	press(t, m, "enter")
	if b := m.docS(); b == a || b == nil || b.uri != notesURI {
		t.Fatalf("o did not open the notes (status %q)", m.statusText())
	}
	press(t, m, "esc") // the document
	if m.docS() != a || len(m.stack) != depth {
		t.Fatalf("esc after o should come back to the report: stack %d (was %d), top %T", len(m.stack), depth, m.top())
	}
	press(t, m, "r")
	if len(m.stack) != depth || m.docS() == a {
		t.Fatalf("r should reload in place: stack %d (was %d)", len(m.stack), depth)
	}
}
