package render

import (
	"fmt"
	"strings"
	"testing"
)

func bigTable(b *testing.B, rows, cols int) string {
	b.Helper()
	var sb strings.Builder
	for r := range rows {
		for c := range cols {
			if c > 0 {
				sb.WriteByte('\t')
			}
			if r == 0 {
				fmt.Fprintf(&sb, "Header %d", c)
			} else {
				fmt.Fprintf(&sb, "cell %d/%d %s", r, c, strings.Repeat("x", (r*7+c*3)%20))
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// BenchmarkTable10kRows renders what a viewport shows of a 10,000×12 table
// at 200 columns while scrolling (parse and column widths are cached after
// the first frame, as in the UI).
func BenchmarkTable10kRows(b *testing.B) {
	r := New(NewTheme("dark"))
	e := el(b, "Table", bigTable(b, 10_001, 12), nil)
	r.TableWindow(e, 200, TableView{}, 0, 1)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		sticky, body, total := r.TableWindow(e, 200, TableView{XOffset: i % 4}, (i*37)%10_000, 50)
		if total != 10_000 || len(body) == 0 || len(sticky) == 0 {
			b.Fatalf("total %d body %d", total, len(body))
		}
		i++
	}
}

// BenchmarkTable10kRowsParse is the first frame: parse, measure, window.
func BenchmarkTable10kRowsParse(b *testing.B) {
	text := bigTable(b, 10_001, 12)
	b.ReportAllocs()
	for b.Loop() {
		r := New(NewTheme("dark"))
		r.TableWindow(el(b, "Table", text, nil), 200, TableView{}, 0, 50)
	}
}

// BenchmarkElementCached is a scroll frame: every element already rendered
// at this width.
func BenchmarkElementCached(b *testing.B) {
	r := New(NewTheme("dark"))
	e := el(b, "NarrativeText", strings.Repeat("Some **markdown** prose. ", 40), nil)
	r.Element(e, 80)
	b.ReportAllocs()
	for b.Loop() {
		_ = r.ElementLines(e, 80)
	}
}

// BenchmarkElementUncached is the cost of a first render (Glamour prose).
func BenchmarkElementUncached(b *testing.B) {
	e := el(b, "NarrativeText", strings.Repeat("Some **markdown** prose. ", 40), nil)
	b.ReportAllocs()
	for b.Loop() {
		New(NewTheme("dark")).Element(e, 80)
	}
}
