package render

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestCellWidth_MatchesAnsiStringWidth(t *testing.T) {
	for _, s := range []string{"", "abc", "\x1b[1;38;2;1;2;3mab\x1b[m c", "世界", "a\x1b[2Kb", "é", "\x1b[m", "a\x1b", "tab\tx", "│ x │", "─┼─…", "a…世"} {
		if got, want := cellWidth(s), ansi.StringWidth(s); got != want {
			t.Errorf("cellWidth(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestPad_ExactWidth(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		want string
	}{
		{"abc", 5, "abc  "}, {"abcdef", 4, "abc…"}, {"世界世界", 5, "世界…"}, {"abc", 0, ""}, {"ab", 1, "…"},
	} {
		if got := pad(tc.in, tc.w); got != tc.want {
			t.Errorf("pad(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
	}
}
