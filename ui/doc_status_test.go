package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// statusRow is the status line: the frame's last line but one.
func statusRow(m *model) string {
	lines := strings.Split(frame(m), "\n")
	return lines[len(lines)-2]
}

// A message about the place left goes with a jump: "opened …" is gone
// once ] shows another page, a search's "1 match for …" once :2 goes
// back (a hint went with any key already); a jump that says something
// says it.
func TestDocStatus_AJumpPutsAwayTheMessageAboutThePlaceLeft(t *testing.T) {
	m := openJSON(t, 80, 24, twoPageTableDoc())
	if !strings.Contains(statusRow(m), "opened ") {
		t.Fatalf("no opened message: %q", statusRow(m))
	}
	press(t, m, "]")
	if d := m.docS(); d.page != 1 || strings.Contains(statusRow(m), "opened ") {
		t.Fatalf("after ] (page %d) the status still says %q", d.page+1, statusRow(m))
	}
	press(t, m, "/")
	for _, r := range "table here" {
		press(t, m, string(r))
	}
	press(t, m, "enter")
	if d := m.docS(); d.page != 0 || !strings.Contains(statusRow(m), "1 match for \"table here\"") {
		t.Fatalf("the search's hit on page 1 (page %d) said: %q", d.page+1, statusRow(m))
	}
	press(t, m, ":", "2", "enter")
	if d := m.docS(); d.page != 1 || strings.Contains(statusRow(m), "1 match for") {
		t.Fatalf("after :2 (page %d) the status still says %q", d.page+1, statusRow(m))
	}
	press(t, m, ":", "9", "enter")
	if !strings.Contains(statusRow(m), ":9: no such page") {
		t.Fatalf(":9 says nothing: %q", statusRow(m))
	}
}

// The document's own status line at 80 columns: a search hit in a table
// cell names the cell and the text around the hit; when that and the
// keys' hint do not both fit, the hint goes (the footer has the keys),
// not the end of the hit's text.
func TestDocStatus_TooLongDropsTheHintNotTheText(t *testing.T) {
	cell := "the quick brown fox jumps over the lazy dog near the river"
	doc := map[string]any{"doc_ref": "s", "title": "Status", "page_count": 1, "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"category": "Table", "text": "name note " + cell, "ele_metadata": map[string]any{
				"text_as_html": "<table><tr><th>name</th><th>note</th></tr><tr><td>a</td><td>" + cell + "</td></tr></table>"}},
		}}}}
	m := openJSON(t, 80, 24, doc)
	press(t, m, "/")
	for _, r := range "lazy" {
		press(t, m, string(r))
	}
	press(t, m, "enter")
	st := statusRow(m)
	if ansi.StringWidth(st) > 80 || !strings.Contains(st, "[lazy]") || !strings.Contains(st, "row 2 col 2") {
		t.Fatalf("the hit's cell is not on the status line: %q", st)
	}
	hint := " · n/N move · S lists"
	for i := 2; i < len(hint); i++ {
		if strings.HasSuffix(strings.TrimRight(st, " "), hint[:i]+"…") {
			t.Fatalf("the hint is cut in the middle: %q", st)
		}
	}
	if !strings.Contains(st, "[lazy] dog near the riv") {
		t.Fatalf("the text after the hit is cut though dropping the hint made room: %q", st)
	}
}
