package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func rawSearchDoc() map[string]any {
	long := strings.Repeat("filler ", 40) + "ENDMARK"
	return map[string]any{"doc_ref": "rs", "title": "Raw search", "page_count": 1, "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"category": "NarrativeText", "text": "the quick brown fox"},
			map[string]any{"category": "NarrativeText", "text": long},
			map[string]any{"category": "NarrativeText", "text": "a quick second"},
		}},
	}}
}

// `/` in raw JSON opens the search prompt: the letters typed are the
// query (q does not quit, c does not open anything), enter finds the
// matches on the shown lines, n and N walk them and say when they wrap.
func TestRaw_SearchTypesTheQueryAndWalksMatches(t *testing.T) {
	m := openJSON(t, 80, 24, rawSearchDoc())
	press(t, m, "v", "tab") // the page's JSON
	if _, ok := m.overlay.(*rawOverlay); !ok {
		t.Fatalf("v did not open raw JSON (overlay %T)", m.overlay)
	}
	press(t, m, "/")
	if !m.bar.active {
		t.Fatal("/ did not open the search prompt in raw JSON")
	}
	press(t, m, "q", "u", "i", "c", "k", "enter")
	v, ok := m.overlay.(*rawOverlay)
	if !ok {
		t.Fatalf("typing the query left raw JSON (overlay %T)", m.overlay)
	}
	f := frame(m)
	if !strings.Contains(f, `2 matches for "quick"`) {
		t.Fatalf("the status should count the matches:\n%s", f)
	}
	if got := v.plain[v.list.cur]; !strings.Contains(got, "the quick brown") {
		t.Fatalf("the cursor should be on the first match, is on %q", got)
	}
	if raw := m.view().Content; !strings.Contains(raw, m.e.st.hitCur.Render("quick")) {
		t.Fatalf("the current match is not highlighted:\n%q", raw)
	}
	press(t, m, "n")
	if got := v.plain[v.list.cur]; !strings.Contains(got, "a quick second") {
		t.Fatalf("n should move to the second match, is on %q", got)
	}
	press(t, m, "n")
	if f := frame(m); !strings.Contains(f, "search wrapped to the first match (1/2)") {
		t.Fatalf("n past the last match should say it wrapped:\n%s", f)
	}
	press(t, m, "N")
	if f := frame(m); !strings.Contains(f, "search wrapped to the last match (2/2)") {
		t.Fatalf("N before the first match should say it wrapped:\n%s", f)
	}
	// The document's own search is untouched.
	if q := m.docS().search.query; q != "" {
		t.Fatalf("the raw search reached the document's search (%q)", q)
	}
	// A second / opens an empty prompt, as the document's does: the
	// last query is on ↑, not typed over.
	press(t, m, "/")
	if got := m.bar.input.Value(); got != "" {
		t.Fatalf("the raw view's / is prefilled with %q; the document's is empty", got)
	}
	press(t, m, "up")
	if got := m.bar.input.Value(); got != "quick" {
		t.Fatalf("↑ in the raw view's prompt gives %q, want the last query", got)
	}
}

// A search opens folds so a match inside one is found.
func TestRaw_SearchOpensFolds(t *testing.T) {
	m := openJSON(t, 80, 24, rawSearchDoc())
	press(t, m, "v", "tab", "Z")
	if f := frame(m); strings.Contains(f, "quick") {
		t.Fatalf("Z should fold the elements away:\n%s", f)
	}
	press(t, m, "/", "f", "o", "x", "enter")
	if f := frame(m); !strings.Contains(f, "1 match for \"fox\"") || !strings.Contains(f, "the quick brown fox") {
		t.Fatalf("the folded match should be found and shown:\n%s", f)
	}
}

// A line longer than the window is cut with …, and scrolls sideways:
// $ shows its end, 0 its start, → and ← half a window.
func TestRaw_LongLinesScrollSideways(t *testing.T) {
	m := openJSON(t, 80, 24, rawSearchDoc())
	press(t, m, "v", "tab")
	v := m.overlay.(*rawOverlay)
	frame(m)
	for i, l := range v.plain {
		if strings.Contains(l, "ENDMARK") {
			v.list.cur = i
		}
	}
	if f := frame(m); strings.Contains(f, "ENDMARK") || !strings.Contains(f, "filler…") {
		t.Fatalf("the long line should be cut with … at 80 columns:\n%s", f)
	}
	press(t, m, "$")
	f := frame(m)
	if !strings.Contains(f, `ENDMARK"`) || !strings.Contains(f, "· col ") {
		t.Fatalf("$ should show the end of the line and say the column:\n%s", f)
	}
	for _, l := range strings.Split(f, "\n") {
		if w := len([]rune(l)); w > 80 {
			t.Fatalf("a line is %d cells wide at 80 columns: %q", w, l)
		}
	}
	press(t, m, "0")
	if f := frame(m); strings.Contains(f, "ENDMARK") || strings.Contains(f, "· col ") {
		t.Fatalf("0 should go back to the start of the lines:\n%s", f)
	}
	press(t, m, "l")
	if v.xoff != v.avail()/2 {
		t.Fatalf("→ should scroll half a window, xoff %d", v.xoff)
	}
	press(t, m, "h")
	if v.xoff != 0 {
		t.Fatalf("← should scroll back, xoff %d", v.xoff)
	}
}

// y then p copies the JSON path of the line under the cursor, as shown
// (a key that is not an identifier is quoted, its controls escaped, so
// nothing in the clipboard is a live escape).
func TestRaw_CopiesTheJSONPathUnderTheCursor(t *testing.T) {
	m := openJSON(t, 80, 24, map[string]any{"doc_ref": "p", "title": "Paths", "page_count": 1,
		"pages": []any{map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"category": "NarrativeText", "text": "x", "ele_metadata": map[string]any{"odd\x1b]0;t\x07 key": 1}}}}}})
	press(t, m, "v")
	v := m.overlay.(*rawOverlay)
	frame(m)
	v.list.cur = -1
	for i, l := range v.plain {
		if strings.Contains(l, "odd") {
			v.list.cur = i
		}
	}
	if v.list.cur < 0 {
		t.Fatalf("no line shows the odd key:\n%s", strings.Join(v.plain, "\n"))
	}
	press(t, m, "y")
	if f := frame(m); !strings.Contains(f, "p JSON path · esc cancel") {
		t.Fatalf("the copy menu should offer the JSON path:\n%s", f)
	}
	got := clipboardOf(t, m.update(keyMsg("p")))
	want := `$.ele_metadata["odd\x1b]0;t\a key"]`
	if got != want {
		t.Fatalf("copied %q, want %q", got, want)
	}
}

// The open time on the status line is never "0s": whole milliseconds
// (rounded up) under a second, seconds to two decimals above.
func TestStatus_OpenedSaysMillisecondsNotZeroSeconds(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{300 * time.Microsecond, "opened Raw search in 1ms"},
		{42*time.Millisecond + 100*time.Microsecond, "opened Raw search in 43ms"},
		{1234 * time.Millisecond, "opened Raw search in 1.23s"},
	} {
		b, _ := json.Marshal(rawSearchDoc())
		m := New(Options{Theme: "dark", Width: 80, Height: 24, Now: func() time.Time { return fixedNow }, StatusTimeout: -1, OpenTarget: "doc.json"}).m
		o := m.e.ops.add("open", 0)
		msg := openedFor(m, o.id, decodedDoc(t, b), "doc.json")
		msg.duration = tc.d
		run(t, m, m.update(msg))
		if f := frame(m); !strings.Contains(f, tc.want) {
			t.Errorf("%v: the status should read %q:\n%s", tc.d, tc.want, f)
		}
	}
}

// The raw view's / says what it searches (JSON keys and values; the
// title names the scope) as the prompt opens, and counts what is typed
// there as it is typed, folds open as the search will open them; a key matches
// as a value does.
func TestRaw_SearchPromptSaysItsScopeAndCounts(t *testing.T) {
	m := openJSON(t, 80, 24, rawSearchDoc())
	press(t, m, "v", "tab", "Z") // the page's JSON, folded
	press(t, m, "/")
	if got, want := m.bar.hint, "searches JSON keys and values"; got != want {
		t.Fatalf("the prompt's hint is %q, want %q", got, want)
	}
	typeInto(t, m, "quick")
	if f := frame(m); !strings.Contains(f, "2 matches in keys and values") || !strings.Contains(f, "Raw JSON · page 1") {
		t.Fatalf("the prompt does not count the matches (folds open) as typed:\n%s", f)
	}
	for range 5 {
		press(t, m, "backspace")
	}
	typeInto(t, m, "category")
	if got := m.bar.hint; got != "3 matches in keys and values" { // one "category" key an element
		t.Fatalf("a key is not counted as a match: hint %q", got)
	}
	typeInto(t, m, "zzz")
	if got := m.bar.hint; got != "0 matches in keys and values" || m.bar.hintOK {
		t.Fatalf("no match: hint %q (ok %v)", got, m.bar.hintOK)
	}
	press(t, m, "enter")
	if got := m.e.status.text; got != `no match for "categoryzzz" in the keys and values of the page's raw JSON` {
		t.Fatalf("the status after no match: %q", got)
	}
}
