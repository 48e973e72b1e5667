package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestHighlight_MarksHitsKeepsTextAndWidth(t *testing.T) {
	dark := NewTheme("dark")
	line := dark.Title.Render("Revenue") + " grew; revenue 世界 REVENUE"
	got := Highlight(line, "revenue", dark)
	if ansi.Strip(got) != ansi.Strip(line) || ansi.StringWidth(got) != ansi.StringWidth(line) {
		t.Fatalf("text or width changed: %q", got)
	}
	if n := strings.Count(got, dark.Match.Render("revenue")) + strings.Count(got, dark.Match.Render("Revenue")) + strings.Count(got, dark.Match.Render("REVENUE")); n != 3 {
		t.Errorf("%d hits highlighted, want 3: %q", n, got)
	}
	if got := Highlight("plain", "la", NewTheme("notty")); got != "plain" {
		t.Errorf("notty changed the line: %q", got)
	}
	if got := Highlight("abc", "zz", dark); got != "abc" {
		t.Errorf("no hit changed the line: %q", got)
	}
}
