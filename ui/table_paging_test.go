package ui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Paging down through a long table shows every row: the screen's last
// row comes back as the next screen's first below the kept header rows,
// which covered the row after it.
func TestTable_PageDownSkipsNoRow(t *testing.T) {
	var html strings.Builder
	html.WriteString("<table><tr><th>Name</th><th>Value</th></tr>")
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&html, "<tr><td>row%03d</td><td>%d</td></tr>", i, i*7)
	}
	html.WriteString("</table>")
	doc := map[string]any{"doc_ref": "big", "title": "Big", "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"category": "Table", "text": "rows", "ele_metadata": map[string]any{"text_as_html": html.String()}},
		}},
	}}
	row := regexp.MustCompile(`row(\d{3})`)
	rows := func(fr string) []int {
		var out []int
		for _, m := range row.FindAllStringSubmatch(fr, -1) {
			n, _ := strconv.Atoi(m[1])
			out = append(out, n)
		}
		return out
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		m := openJSON(t, size[0], size[1], doc)
		seen := map[int]bool{}
		shown := rows(ansi.Strip(frame(m)))
		for _, r := range shown {
			seen[r] = true
		}
		for step := 0; step < 6; step++ {
			last := shown[len(shown)-1]
			press(t, m, "f")
			fr := ansi.Strip(frame(m))
			shown = rows(fr)
			if len(shown) == 0 || shown[0] != last {
				t.Fatalf("%dx%d, f #%d: the screen before ended at row%03d, this one begins at %v:\n%s", size[0], size[1], step+1, last, shown[:min(3, len(shown))], fr)
			}
			if !strings.Contains(fr, "Name") {
				t.Fatalf("%dx%d: the header row is not kept on screen:\n%s", size[0], size[1], fr)
			}
			for _, r := range shown {
				seen[r] = true
			}
		}
		for r := 1; r <= shown[len(shown)-1]; r++ {
			if !seen[r] {
				t.Errorf("%dx%d: row%03d was on no screen", size[0], size[1], r)
			}
		}
	}
}
