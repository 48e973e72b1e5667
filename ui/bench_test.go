package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
)

// bigTableDoc is one page holding a 10,000-row table between two
// paragraphs.
func bigTableDoc(tb testing.TB, rows int) *dpe.Opened {
	tb.Helper()
	var t strings.Builder
	t.WriteString("id\tname\tregion\tamount\tnote\n")
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&t, "%d\tcustomer %d\tregion %d\t%d.%02d\tnote for row %d\n", i, i, i%7, i*13, i%100, i)
	}
	doc := map[string]any{"doc_ref": "big", "title": "Big table", "page_count": 1, "pages": []any{
		map[string]any{"page_index": 0, "title": "Data", "elements": []any{
			map[string]any{"element_id": "p1", "category": "NarrativeText", "text": "Before the table."},
			map[string]any{"element_id": "t1", "category": "Table", "text": t.String()},
			map[string]any{"element_id": "p2", "category": "NarrativeText", "text": "After the table."},
		}},
	}}
	raw, err := json.Marshal(doc)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := dpe.Decode(raw, dpe.DefaultLimits())
	if err != nil {
		tb.Fatal(err)
	}
	if err := d.EnsurePage(0, dpe.DefaultLimits()); err != nil {
		tb.Fatal(err)
	}
	return &dpe.Opened{Kind: dpe.KindDocument, Doc: d, Body: raw}
}

// openForBench puts a decoded document on screen without a program.
func openForBench(tb testing.TB, w, h int, op *dpe.Opened) *model {
	opt := Options{Theme: "dark", Width: w, Height: h, Now: func() time.Time { return fixedNow }, StatusTimeout: -1, OpenTarget: "big.json"}
	m := New(opt).m
	o := m.e.ops.add("open", 0)
	m.update(openedFor(m, o.id, op, "big.json"))
	if m.docS() == nil {
		tb.Fatal("document not open")
	}
	return m
}

// BenchmarkDocumentScroll is one keystroke (Update + View) scrolling through
// a 10,000-row table at 200×60: only visible lines may be touched.
func BenchmarkDocumentScroll(b *testing.B) {
	m := openForBench(b, 200, 60, bigTableDoc(b, 10000))
	_ = m.view() // first render fills the caches
	down := keyMsg("down")
	up := keyMsg("up")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := down
		if (i/5000)%2 == 1 {
			k = up
		}
		m.update(k)
		_ = m.view()
	}
}

func TestDocumentScroll_TallTableScrollsLineByLineWithStickyHeader(t *testing.T) {
	m := openForBench(t, 200, 60, bigTableDoc(t, 10000))
	press(t, m, "down") // select the table
	for i := 0; i < 200; i++ {
		m.update(keyMsg("down"))
	}
	f := frame(m)
	if !strings.Contains(f, "customer 240") || !strings.Contains(f, "│ region   │ amount") {
		t.Fatalf("scrolled table should show its header and later rows:\n%s", f)
	}
	if strings.Contains(f, "Before the table.") {
		t.Fatalf("the view should have scrolled past the first paragraph:\n%s", f)
	}
	press(t, m, "G")
	if !strings.Contains(frame(m), "After the table.") {
		t.Fatalf("G should reach the end:\n%s", frame(m))
	}
}

// BenchmarkResourcesFilterHostile is one filter keystroke over 10,000
// resources with 10,000-character names (the fault matrix).
func BenchmarkResourcesFilterHostile(b *testing.B) {
	f := newFakeAgent(b)
	f.noEvents = true
	m := New(testOptions(f)).m
	r := newResourcesScreen(m.e, "laptop", "big", "big")
	m.stack = append(m.stack, r)
	page := &client.ResourcePage{}
	long := strings.Repeat("x", 10000)
	for i := 0; i < 10000; i++ {
		page.Resources = append(page.Resources, res(fmt.Sprintf("dpe://h/%d", i), fmt.Sprintf("%d%s", i, long), "", nil))
	}
	o := m.e.ops.add("get_resources", 0)
	r.loadOp = o.id
	m.update(resourcesPageMsg{id: o.id, computer: "laptop", server: "big", page: page})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.resS().list.filter = "x9"
		m.resS().refilter()
		_ = m.view()
	}
}
