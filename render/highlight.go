package render

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Highlight marks every case-insensitive occurrence of query in a rendered
// line with the theme's Match style (search hits). It works on
// the line's visible text and cuts the styled line by cells, so existing
// styling around the hits is kept and the width is unchanged. notty has no
// way to highlight without escapes, so its lines come back as they are.
func Highlight(line, query string, theme Theme) string {
	if query == "" || !theme.Color {
		return line
	}
	plain := ansi.Strip(line)
	lp, lq := strings.ToLower(plain), strings.ToLower(query)
	if len(lp) != len(plain) || !strings.Contains(lp, lq) {
		// Lowercasing changed byte offsets (rare scripts): skip rather
		// than mis-cut.
		return line
	}
	var sb strings.Builder
	prev := 0 // cells of line already written
	for from := 0; ; {
		i := strings.Index(lp[from:], lq)
		if i < 0 {
			break
		}
		start := from + i
		end := start + len(lq)
		a := ansi.StringWidth(plain[:start])
		b := a + ansi.StringWidth(plain[start:end])
		sb.WriteString(ansi.Cut(line, prev, a))
		sb.WriteString(theme.Match.Render(plain[start:end]))
		prev = b
		from = end
	}
	sb.WriteString(ansi.Cut(line, prev, ansi.StringWidth(line)))
	return sb.String()
}
