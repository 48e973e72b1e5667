package ui

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/exp/golden"
)

// A Japanese paragraph on the document screen at 80×24: no line of it
// starts with "、", "。" or a closing bracket, and none ends with an
// opening one (the page wrapped at any cell, so "。" and "」" started
// lines).
func TestReading_CJKParagraphKeepsKinsoku(t *testing.T) {
	text := "東京都の「気象観測所」は、毎朝六時に気温を記録する。観測値（摂氏）は、「報告書」に載る。" +
		"小さな「ッ」や「ー」も、行頭に来てはならない。本報告（第三版）は、各地点の読み「気温」「湿度」「気圧」を含む。"
	m := openJSON(t, 80, 24, map[string]any{"doc_ref": "cjk", "title": "観測", "page_count": 1, "pages": []any{
		map[string]any{"page_index": 0, "elements": []any{
			map[string]any{"category": "NarrativeText", "text": text + text},
		}},
	}})
	out := frame(m)
	n := 0
	for _, l := range strings.Split(out, "\n") {
		_, body, ok := strings.Cut(l, "│")                     // right of the sidebar
		body = strings.TrimLeft(strings.TrimSpace(body), "▌ ") // the selection bar
		if !ok || !strings.ContainsAny(body, "東観小本各") && !strings.ContainsRune(body, '。') {
			continue
		}
		n++
		if r, _ := utf8.DecodeRuneInString(body); strings.ContainsRune("、。，）」』】ー", r) {
			t.Errorf("a line starts with %q: %q", r, body)
		}
		if r, _ := utf8.DecodeLastRuneInString(body); strings.ContainsRune("（「『【", r) {
			t.Errorf("a line ends with %q: %q", r, body)
		}
	}
	if n < 4 {
		t.Fatalf("set-up: the paragraph is on %d lines:\n%s", n, out)
	}
	golden.RequireEqual(t, normalize(out)) // "opened … in <dur>"
}
