package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/client"
)

// columnsOffice is keyedOffice with the browser server listing names a
// list must cut: a long Latin title, wide (CJK) names cut in the middle
// of a character, and long URIs.
func columnsOffice(t *testing.T, size [2]int) *session {
	t.Helper()
	f := newFakeAgent(t)
	keyedOffice(f)
	meta := map[string]any{"file_type": "md", "keywords": []string{"cjk", "中文", "notes"}, "page_count": 2}
	f.pages["com.example.browser"] = map[string]*client.ResourcePage{"": {Resources: []client.Resource{
		res("dpe://com.example.browser/guides/tide-pool-survey-field-guide.md", "Tide-Pool Survey Field Guide, second edition", "application/vnd.a2c.dpe-uri+json", meta),
		res("dpe://com.example.browser/notes/cjk-notes.md", "多语言笔记 · 多语言笔记 · 多语言笔记 · 多语言笔记", "application/vnd.a2c.dpe-uri+json", meta),
		res("dpe://com.example.browser/notes/wide.md", "表表表表表表表表表表表表表表表表表表表表表表表表表表表表表表", "application/vnd.a2c.dpe-uri+json", meta),
		res("dpe://com.example.browser/notes/shift-rota-memo.txt", "shift-rota-memo", "application/vnd.a2c.dpe-uri+json", meta),
	}}}
	opt := testOptions(f)
	opt.Width, opt.Height = size[0], size[1]
	s := start(t, opt)
	s.waitFor("3 enabled")
	s.keys("enter")
	s.waitFor("com.example.browser")
	s.keys("enter")
	s.waitFor("shift-rota-memo")
	s.idle()
	return s
}

// TestResources_ColumnsLineUpAndTheNameNeverShrinksWithWidth: a name
// cut inside a wide character is padded to its column, so every row's
// later columns start where the header's do (a CJK row was two cells
// short); and a wider terminal shows as much of the names as a narrower
// one (at 120 columns the URI took the room and names got 15 cells,
// where 80 columns gave them 33).
func TestResources_ColumnsLineUpAndTheNameNeverShrinksWithWidth(t *testing.T) {
	shown := map[int]int{}
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			s := columnsOffice(t, size)
			frame := s.final()
			var header string
			var rows []string
			for _, l := range strings.Split(frame, "\n") {
				switch {
				case strings.Contains(l, "NAME") && strings.Contains(l, "KEYWORDS"):
					header = l
				case strings.Contains(l, "2026") || strings.Contains(l, "  2  "):
					rows = append(rows, l)
				}
			}
			if header == "" || len(rows) < 4 {
				t.Fatalf("no list with four rows:\n%s", frame)
			}
			// Where PAGES starts in the header is where every row's
			// page count must be.
			col := ansi.StringWidth(header[:strings.Index(header, "PAGES")])
			for _, r := range rows {
				if got := ansi.Cut(r, col, col+1); got != "2" {
					t.Errorf("row %q: the page count is not under PAGES (cell %d is %q)", r, col, got)
				}
			}
			// The name column's width: from NAME to PAGES.
			shown[size[0]] = col - ansi.StringWidth(header[:strings.Index(header, "NAME")])
		})
	}
	if shown[120] < shown[80] || shown[200] < shown[120] {
		t.Errorf("the name column shrinks on a wider terminal: %v (width: cells)", shown)
	}
}
