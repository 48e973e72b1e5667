package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// wideCellsDoc is a paragraph and a table of six columns whose cells
// are longer than 80 columns hold side by side (the table is squeezed).
func wideCellsDoc() map[string]any {
	html := "<table><tr>"
	for c := range 6 {
		html += fmt.Sprintf("<th>heading%d</th>", c+1)
	}
	html += "</tr>"
	for r := range 3 {
		html += "<tr>"
		for c := range 6 {
			html += fmt.Sprintf("<td>r%dc%d-%s</td>", r+1, c+1, strings.Repeat("x", 6+c))
		}
		html += "</tr>"
	}
	html += "</table>"
	return map[string]any{"doc_ref": "w", "title": "Wide", "page_count": 1, "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"category": "NarrativeText", "text": "Before the table."},
			map[string]any{"category": "Table", "text": "table", "ele_metadata": map[string]any{"text_as_html": html}},
		}}}}
}

// openJSONWith is openJSON with the colourless theme when noColor.
func openJSONWith(t *testing.T, w, h int, noColor bool, doc map[string]any) *model {
	t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Theme: "dark", NoColor: noColor, Width: w, Height: h, Now: func() time.Time { return fixedNow }, StatusTimeout: -1, OpenTarget: "doc.json"}
	m := New(opt).m
	o := m.e.ops.add("open", 0)
	run(t, m, m.update(openedFor(m, o.id, decodedDoc(t, b), "doc.json")))
	return m
}

// separators is where the column separators of the table's header line
// (the line holding head) are, in columns.
func separators(t *testing.T, m *model, head string) []int {
	t.Helper()
	for _, l := range strings.Split(frame(m), "\n") {
		if !strings.Contains(l, head) {
			continue
		}
		_, body, _ := strings.Cut(l, "│") // right of the sidebar
		var at []int
		col := 0
		for _, r := range body {
			if r == '│' {
				at = append(at, col)
			}
			col++
		}
		return at
	}
	t.Fatalf("no header line:\n%s", frame(m))
	return nil
}

// Moving the cell cursor across a table keeps its columns where they
// are: the cursor does not lay the table out again (a squeezed table
// switched to scrolling on the first l, every width changing).
func TestTable_CursorMovesKeepTheColumnWidths(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := openJSONWith(t, size[0], size[1], false, wideCellsDoc())
			press(t, m, "j") // the table: its cursor shows on cell 1,1
			want := separators(t, m, "headi")
			if len(want) != 5 {
				t.Fatalf("want all six columns side by side, separators at %v:\n%s", want, frame(m))
			}
			for _, k := range []string{"l", "l", "l", "h", "$", "0"} {
				press(t, m, k)
				if got := separators(t, m, "headi"); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("after %s the columns moved: separators %v, were %v:\n%s", k, got, want, frame(m))
				}
			}
		})
	}
}

// Without colour the cursor's brackets go around the cell, in the room
// beside it, not over its text: every cell of the cursor's row and
// column shows whole, and the columns stay where they were.
func TestTable_NoColorBracketsDoNotEatTheCell(t *testing.T) {
	doc := map[string]any{"doc_ref": "n", "title": "Narrow", "page_count": 1, "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"category": "NarrativeText", "text": "Before the table."},
			map[string]any{"category": "Table", "text": "t", "ele_metadata": map[string]any{"text_as_html": "<table><tr><th>name</th><th>flow</th><th>zone</th></tr>" +
				"<tr><td>north</td><td>10</td><td>alpha</td></tr><tr><td>south</td><td>20</td><td>bravo</td></tr></table>"}},
		}}}}
	m := openJSONWith(t, 80, 24, true, doc)
	press(t, m, "j")
	cols := separators(t, m, "name")
	for _, step := range []struct{ key, cell, head string }{{"", "[north]", "[name ]"}, {"l", "[10  ]", "[flow]"}, {"l", "[alpha]", "[zone ]"}} {
		if step.key != "" {
			press(t, m, step.key)
		}
		f := frame(m)
		if !strings.Contains(f, step.cell) || !strings.Contains(f, step.head) {
			t.Fatalf("after %q: want %s under %s, whole:\n%s", step.key, step.cell, step.head, f)
		}
		if got := separators(t, m, "name"); fmt.Sprint(got) != fmt.Sprint(cols) {
			t.Fatalf("after %q the columns moved: %v, were %v:\n%s", step.key, got, cols, f)
		}
		for _, word := range []string{"north", "south", "alpha", "bravo", "name", "flow", "zone", "10", "20"} {
			if !strings.Contains(f, word) {
				t.Fatalf("after %q: %q is cut:\n%s", step.key, word, f)
			}
		}
	}
}
