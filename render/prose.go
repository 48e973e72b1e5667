package render

import (
	"regexp"
	"strings"
	"unicode"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// looksLikeMarkdown decides whether prose goes through Glamour. Glamour is
// slow and reflows text, so plain paragraphs take the plain wrap path; only
// text with Markdown structure or emphasis is worth it.
func looksLikeMarkdown(s string) bool {
	for _, mark := range []string{"**", "__", "`", "](", "~~"} {
		if strings.Contains(s, mark) {
			return true
		}
	}
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimLeft(l, " ")
		for _, p := range []string{"# ", "## ", "### ", "- ", "* ", "+ ", "> ", "1. ", "| "} {
			if strings.HasPrefix(l, p) {
				return true
			}
		}
	}
	return false
}

// prose renders sanitized Markdown with Glamour in the theme's fixed
// standard style. Glamour's own output is then reduced to SGR styling only
// (its OSC 8 links carry document-chosen targets), trailing padding is
// trimmed, and notty loses every escape. It is not ok when Glamour dropped
// any of the text's letters or digits: Markdown drops raw HTML and eats
// what it takes for markup ("plain *** text <tag> end" lost "<tag>", an XML
// sample lost its elements), and a reader must see what the document holds.
func (r *Renderer) prose(s string, width int) ([]string, bool) {
	out, err := r.glamourRender(s, width)
	if err != nil {
		return nil, false
	}
	if r.theme.Color {
		out = onlySGR(out)
	} else {
		out = ansi.Strip(out)
	}
	lines := strings.Split(out, "\n")
	empty := regexp.MustCompile("(\x1b\\[[0-9;]*m)+\x1b\\[m")
	for i, l := range lines {
		lines[i] = compactSGR(empty, trimRightStyled(l))
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if !keepsWords(s, lines) {
		return nil, false
	}
	if len(lines) == 0 {
		return []string{""}, true
	}
	return lines, true
}

// keepsWords reports whether every letter and digit of src appears in the
// rendered lines, in order: markup characters may go, text may not.
func keepsWords(src string, lines []string) bool {
	out := []rune(ansi.Strip(strings.Join(lines, "\n")))
	j := 0
	for _, c := range src {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			continue
		}
		for j < len(out) && out[j] != c {
			j++
		}
		if j == len(out) {
			return false
		}
		j++
	}
	return true
}

func (r *Renderer) glamourRender(s string, width int) (string, error) {
	r.glamMu.Lock()
	defer r.glamMu.Unlock()
	g, ok := r.glam[width]
	if !ok {
		var err error
		g, err = glamour.NewTermRenderer(
			glamour.WithStyles(glamourStyle(r.theme.Glamour)),
			glamour.WithWordWrap(width),
		)
		if err != nil {
			return "", err
		}
		if len(r.glam) > 16 {
			clear(r.glam)
		}
		r.glam[width] = g
	}
	return g.Render(s)
}

// trimRightStyled drops trailing blank cells from a styled line, keeping its
// styling closed.
func trimRightStyled(l string) string {
	plain := ansi.Strip(l)
	trimmed := strings.TrimRight(plain, " \u00a0")
	if len(trimmed) == len(plain) {
		return l
	}
	if trimmed == "" {
		return ""
	}
	out := ansi.Truncate(l, ansi.StringWidth(trimmed), "")
	if strings.Contains(out, "\x1b") {
		out += "\x1b[m"
	}
	return out
}

// compactSGR drops styles that style nothing (Glamour pads lines with
// styled spaces; once trimmed, their empty style spans remain).
func compactSGR(re *regexp.Regexp, l string) string {
	if !strings.Contains(l, "\x1b") {
		return l
	}
	for {
		n := re.ReplaceAllString(l, "\x1b[m")
		if n == l {
			break
		}
		l = n
	}
	if ansi.Strip(l) == "" {
		return ""
	}
	return l
}

// glamourStyle is the named standard Glamour style (never "auto": output
// must not depend on the terminal) without its document margin: the
// document view indents every block alike, so Glamour's paragraphs and
// the plain ones start in the same column.
func glamourStyle(name string) gansi.StyleConfig {
	cfg, ok := styles.DefaultStyles[name]
	if !ok || cfg == nil {
		cfg = &styles.NoTTYStyleConfig
	}
	c := *cfg
	zero := uint(0)
	c.Document.Margin = &zero
	return c
}
