package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// longHitsCSV is a 60-row table whose rows 52 on hold "foo", far below a
// 24-line screen; row 52 also holds "bar" in its first and its last
// column, the last cut with "…" at 80 columns.
func longHitsCSV(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("name,mid,notes\n")
	for i := 1; i <= 60; i++ {
		name, notes := fmt.Sprintf("r%02d", i), "plain"
		if i >= 52 {
			name = fmt.Sprintf("foo%02d", i)
		}
		if i == 52 {
			name = "foobar52"
			notes = strings.Repeat("lorem ipsum ", 12) + "bar-tail"
		}
		fmt.Fprintf(&b, "%s,m%02d,%s\n", name, i, notes)
	}
	p := filepath.Join(t.TempDir(), "hits.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A search hit in a table taller than the screen is scrolled into view,
// its row and its cell, as n moves from hit to hit (the status named row
// 52 while the screen kept the table's first rows).
func TestSearch_HitInALongTableIsScrolledIntoView(t *testing.T) {
	s := start80(t, openFileOptions(t, longHitsCSV(t), nil))
	s.waitFor("r01")
	s.idle()
	s.keys("/")
	s.typeText("foo")
	s.keys("enter")
	s.waitFor("matches for")
	if f := s.frame(); !strings.Contains(f, "foobar52") {
		t.Fatalf("the first hit's row is not on screen:\n%s", f)
	}
	s.keys("n", "n", "n")
	s.waitFor("foo55")
	f := s.frame()
	if !strings.Contains(f, "foo55") {
		t.Fatalf("the fourth hit's row (foo55) is not on screen:\n%s", f)
	}
	if !strings.Contains(f, "[foo]55") {
		t.Fatalf("the status should name the fourth hit's cell:\n%s", f)
	}
}

// Two hits in one table row name their own cells: the second names its
// column and shows that cell's text around the hit (both named the
// row's first cell).
func TestSearch_TwoHitsInOneRowNameTheirCells(t *testing.T) {
	s := start80(t, openFileOptions(t, longHitsCSV(t), nil))
	s.waitFor("r01")
	s.idle()
	s.keys("/")
	s.typeText("bar")
	s.keys("enter")
	s.waitFor("2 matches for")
	if f := s.frame(); !strings.Contains(f, "col 1: foo[bar]52") {
		t.Fatalf("the first hit should name column 1:\n%s", f)
	}
	s.keys("n")
	s.waitFor("col 3: ")
	f := s.frame()
	if !strings.Contains(f, "ipsum [bar]-tail") {
		t.Fatalf("the second hit should show column 3's text around it:\n%s", f)
	}
}

// The trace says a count of one in the singular: one finding is
// "1 finding, 0 violations" (it said "1 findings").
func TestTrace_OneFindingIsSingular(t *testing.T) {
	raw := []byte(`{"doc_ref":"one","title":"One","page_count":1,"pages":[{"page_index":0,"elements":[` +
		`{"category":"NarrativeText","text":"No id."}]}]}`)
	m := New(Options{Theme: "dark", Width: 80, Height: 24, Now: func() time.Time { return fixedNow }, StatusTimeout: -1, OpenTarget: "one.json"}).m
	o := m.e.ops.add("open", 0)
	run(t, m, m.update(openedFor(m, o.id, decodedDoc(t, raw), "one.json")))
	press(t, m, "x")
	f := frame(m)
	if !strings.Contains(f, "validate") {
		t.Fatalf("set-up: the trace shows no validation:\n%s", f)
	}
	if !strings.Contains(f, "1 finding, 0 violations") {
		t.Fatalf("the trace should say one finding in the singular:\n%s", f)
	}
}

// A document opened alone has nothing behind it: no hint says esc goes
// back, and leaving a table does not say esc again will (esc says
// "press q to quit" there).
func TestEsc_NoBackHintWithNothingBehind(t *testing.T) {
	m := openTables(t, 80, 24)
	if len(m.stack) != 1 {
		t.Fatalf("set-up: %d screens, want the document alone", len(m.stack))
	}
	lines := strings.Split(frame(m), "\n")
	if foot := lines[len(lines)-1]; strings.Contains(foot, "esc back") {
		t.Fatalf("the footer hints esc back with nothing behind: %q", foot)
	}
	press(t, m, "t")
	if f := frame(m); !strings.Contains(f, "esc leave table") {
		t.Fatalf("set-up: the table is not active:\n%s", f)
	}
	press(t, m, "esc")
	lines = strings.Split(frame(m), "\n")
	status := lines[len(lines)-2]
	if !strings.Contains(status, "left the table") || strings.Contains(status, "goes back") {
		t.Fatalf("leaving the table should not promise esc goes back: %q", status)
	}
	if foot := lines[len(lines)-1]; strings.Contains(foot, "esc back") {
		t.Fatalf("the footer hints esc back after the table with nothing behind: %q", foot)
	}
	press(t, m, "esc", "esc")
	if status := strings.Split(frame(m), "\n")[len(lines)-2]; !strings.Contains(status, "press q to quit") {
		t.Fatalf("esc with nothing behind should say how to quit: %q", status)
	}
}

// The inspector on a converted file shows its dpe1 hashes, as `hash
// FILE` computes them (it said "page not loaded" and "not hashable:
// document JSON: unexpected end of JSON input": a converted file has no
// JSON of its own).
func TestInspector_ConvertedFileIsHashedAsTheCLIHashesIt(t *testing.T) {
	p := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(p, []byte("# Notes\n\nOne paragraph.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start80(t, openFileOptions(t, p, nil))
	s.waitFor("One paragraph.")
	s.idle()
	s.keys(".")
	s.waitFor("content_hash")
	s.idle()
	f := s.frame()
	for _, bad := range []string{"page not loaded", "not hashable", "computing…"} {
		if strings.Contains(f, bad) {
			t.Fatalf("the inspector says %q on a converted file:\n%s", bad, f)
		}
	}
	for _, k := range []string{"content_hash", "page_hash", "doc_hash"} {
		if !regexp.MustCompile(k + `\s+\S{16,}`).MatchString(f) {
			t.Fatalf("the inspector shows no %s:\n%s", k, f)
		}
	}
}

// A search hit in a table on another page, whose page the search itself
// decoded, is scrolled into view like one on the page shown: its row and
// its column (a wide table scrolls sideways), the cell cursor on it. It
// stayed at the table's first rows and columns: only a page loaded for
// the jump was pointed at the hit.
func TestSearch_HitInATableOnAnotherPageIsScrolledIntoView(t *testing.T) {
	var b strings.Builder
	for c := 1; c <= 14; c++ {
		fmt.Fprintf(&b, "column%02d,", c)
	}
	b.WriteString("last\n")
	for i := 1; i <= 2500; i++ {
		for c := 1; c <= 14; c++ {
			v := fmt.Sprintf("v%d-%d", i, c)
			if i == 1700 && c == 12 {
				v = "needle"
			}
			fmt.Fprintf(&b, "%s,", v)
		}
		b.WriteString("end\n")
	}
	p := filepath.Join(t.TempDir(), "wide.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start80(t, openFileOptions(t, p, nil))
	s.waitFor("v1-1")
	s.idle()
	s.keys("/")
	s.typeText("needle")
	s.keys("enter")
	s.waitFor("1 match for")
	s.waitFor("[needle]")
	f := s.frame()
	if !regexp.MustCompile(`row \d+ col 12: \[needle\]`).MatchString(f) {
		t.Errorf("the status does not name the hit's cell:\n%s", f)
	}
	if !strings.Contains(f, "v1700-11") && !strings.Contains(f, "v1700-13") {
		t.Errorf("the hit's row and column are not on screen:\n%s", f)
	}
}

// The hit list shows the words right before a match however far into
// its element the match is: past the first 512 characters it showed the
// element's first words instead, run into the match.
func TestSearch_HitListShowsTheWordsBeforeAFarMatch(t *testing.T) {
	var long strings.Builder
	for long.Len() < 700 {
		long.WriteString("filler words ")
	}
	long.WriteString("nominal outer adjust escalate panel emergency.")
	doc := map[string]any{"doc_ref": "far", "title": "Far", "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"element_id": "a", "category": "NarrativeText", "text": long.String()},
		}},
	}}
	m := openJSON(t, 80, 24, doc)
	press(t, m, "/")
	m.bar.input.SetValue("escalate")
	press(t, m, "enter")
	press(t, m, "S")
	if f := frame(m); !strings.Contains(f, "outer adjust escalate panel") {
		t.Fatalf("the hit list does not show the words before the match:\n%s", f)
	}
}

// n and N go on from where the user is once they moved away from the
// match shown (a page jump, :N, the history), as less and vim do: they
// went on from the last match shown, back to page 1 after :3.
func TestSearch_NextHitGoesOnFromWhereYouAre(t *testing.T) {
	var pages []any
	for i, text := range []string{"gasket one", "plain", "gasket two", "plain", "gasket three"} {
		pages = append(pages, map[string]any{"page_index": i, "elements": []any{
			map[string]any{"element_id": fmt.Sprintf("e%d", i), "category": "NarrativeText", "text": text},
		}})
	}
	m := openJSON(t, 80, 24, map[string]any{"doc_ref": "g", "title": "G", "pages": pages})
	press(t, m, "/")
	m.bar.input.SetValue("gasket")
	press(t, m, "enter")
	at := func(key string, page, match int) {
		t.Helper()
		press(t, m, key)
		if d := m.docS(); d.page != page-1 || d.search.cur != match-1 {
			t.Fatalf("%s: page %d, match %d/3; want page %d, match %d/3 (status %q)", key, d.page+1, d.search.cur+1, page, match, m.statusText())
		}
	}
	jump := func(page string) {
		t.Helper()
		press(t, m, ":", page, "enter")
		if d := m.docS(); strconv.Itoa(d.page+1) != page {
			t.Fatalf(":%s went to page %d", page, d.page+1)
		}
	}
	if d := m.docS(); d.page != 0 || d.search.cur != 0 {
		t.Fatalf("after the search: page %d, match %d", d.page+1, d.search.cur+1)
	}
	jump("4")
	at("n", 5, 3)
	jump("2")
	at("N", 1, 1)
	at("n", 3, 2) // on the match shown, n is the next one as before
	at("n", 5, 3)
	at("n", 1, 1) // past the last, n wraps
	if s := m.statusText(); !strings.Contains(s, "wrapped to the first") {
		t.Errorf("the wrap is not said: %q", s)
	}
}
