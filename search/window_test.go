package search

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestWindowCentresTheMatch(t *testing.T) {
	pre := strings.Repeat("lorem ipsum ", 10) // 120 runes before the match
	snip := pre + "Lantern Creek" + strings.Repeat(" dolor sit amet", 6)
	start := len([]rune(pre))
	spans := []Span{{Start: start, End: start + len("Lantern Creek")}}
	for _, cols := range []int{20, 40, 57, 80} {
		got, moved := Window(snip, spans, cols)
		if w := ansi.StringWidth(got); w > cols {
			t.Errorf("cols %d: window is %d wide: %q", cols, w, got)
		}
		if len(moved) != 1 {
			t.Fatalf("cols %d: spans %v", cols, moved)
		}
		r := []rune(got)
		if m := string(r[moved[0].Start:moved[0].End]); m != "Lantern Creek" {
			t.Errorf("cols %d: span covers %q in %q", cols, m, got)
		}
		if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
			t.Errorf("cols %d: cut ends are not marked: %q", cols, got)
		}
		// Centred: the context on each side differs by at most a rune
		// (plus the ellipsis), and what moving the ends to word
		// boundaries took.
		left, right := moved[0].Start, len(r)-moved[0].End
		if d := left - right; d < -2-wordSlack || d > 2+wordSlack {
			t.Errorf("cols %d: %d runes before the match, %d after: %q", cols, left, right, got)
		}
	}
}

func TestWindowWideRunesAndEdges(t *testing.T) {
	// CJK runes are two columns: the window counts columns, not runes.
	snip := strings.Repeat("图书", 60) + "社区图书馆" + strings.Repeat("开放", 60)
	start := 120
	got, moved := Window(snip, []Span{{Start: start, End: start + 5}}, 40)
	if w := ansi.StringWidth(got); w > 40 || w < 38 {
		t.Errorf("window is %d columns: %q", w, got)
	}
	if r := []rune(got); len(moved) != 1 || string(r[moved[0].Start:moved[0].End]) != "社区图书馆" {
		t.Errorf("match lost: %q %v", got, moved)
	}
	// A match at the very start: no leading ellipsis, all context after.
	got, moved = Window("needle "+strings.Repeat("x", 100), []Span{{Start: 0, End: 6}}, 30)
	if !strings.HasPrefix(got, "needle") || moved[0] != (Span{0, 6}) || ansi.StringWidth(got) != 30 {
		t.Errorf("start: %q %v", got, moved)
	}
	// A match at the very end.
	got, moved = Window(strings.Repeat("x", 100)+" needle", []Span{{Start: 101, End: 107}}, 30)
	if r := []rune(got); !strings.HasSuffix(got, "needle") || string(r[moved[0].Start:moved[0].End]) != "needle" {
		t.Errorf("end: %q %v", got, moved)
	}
	// Short snippets and no match are left alone / cut at the right.
	if got, _ := Window("short", nil, 30); got != "short" {
		t.Errorf("short: %q", got)
	}
	if got, _ := Window(strings.Repeat("y", 50), nil, 10); got != strings.Repeat("y", 9)+"…" {
		t.Errorf("no match: %q", got)
	}
	// A match wider than the window keeps its start.
	got, moved = Window(strings.Repeat("a", 20)+strings.Repeat("M", 30), []Span{{Start: 20, End: 50}}, 10)
	if ansi.StringWidth(got) > 10 || len(moved) != 1 || moved[0].Start != 1 {
		t.Errorf("wide match: %q %v", got, moved)
	}
}

// The window is centred on the densest run of matches, not the first one,
// and its cut ends fall between words.
func TestWindowDensestMatchesAndWholeWords(t *testing.T) {
	snip := "pump at the start, " + strings.Repeat("unrelated words follow here ", 4) +
		"then pump, pump and pump together, " + strings.Repeat("and more unrelated words ", 4)
	var spans []Span
	r := []rune(snip)
	for i := 0; i+4 <= len(r); i++ {
		if string(r[i:i+4]) == "pump" {
			spans = append(spans, Span{i, i + 4})
		}
	}
	got, moved := Window(snip, spans, 50)
	if !strings.Contains(got, "pump, pump and pump") || len(moved) != 3 {
		t.Fatalf("not centred on the three close matches: %q %v", got, moved)
	}
	words := strings.Fields(snip)
	in := strings.Fields(strings.Trim(got, "…"))
	for _, w := range []string{in[0], in[len(in)-1]} {
		if !slices.Contains(words, w) {
			t.Fatalf("word %q is cut in %q", w, got)
		}
	}
	gr := []rune(got)
	for _, m := range moved {
		if string(gr[m.Start:m.End]) != "pump" {
			t.Fatalf("span %v covers %q in %q", m, string(gr[m.Start:m.End]), got)
		}
	}
}
