package render

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// codeLexer picks the lexer: the declared language (ele_metadata.language,
// code_language, or a languages entry that names a programming language —
// proposal §3.4 languages are usually ISO 639-3 human languages, which find
// no lexer), else the interpreter a "#!" first line names. Nothing else is
// guessed: code whose file names no language (check's note says so) is
// framed and fenced with none, as a wrong name misleads more than none. The
// label is what the frame shows.
func codeLexer(el *dpe.Element, code string) (chroma.Lexer, string) {
	var cands []string
	for _, k := range []string{"language", "code_language", "programming_language"} {
		if v := el.MetaString(k); v != "" {
			cands = append(cands, v)
		}
	}
	cands = append(cands, metaStrings(el, "languages")...)
	for _, c := range cands {
		c = strings.TrimSpace(c)
		if c == "" || len(c) > 64 {
			continue
		}
		if l := lexers.Get(c); l != nil && l.Config().Name != "plaintext" {
			return l, c
		}
	}
	if strings.HasPrefix(code, "#!") {
		if l := lexers.Analyse(code); l != nil && confident(l, code) {
			return l, strings.ToLower(l.Config().Name)
		}
	}
	label := ""
	if len(cands) > 0 {
		label = cands[0]
	}
	return nil, label
}

// minDetectScore is the score (0–1) chroma's analyser must give a "#!"
// line's interpreter: its weaker heuristics score Go's `func main() {` 0.4
// as GDScript.
const minDetectScore = 0.5

func confident(l chroma.Lexer, code string) bool {
	a, ok := l.(chroma.Analyser)
	return ok && a.AnalyseText(code) >= minDetectScore
}

// code renders a CodeSnippet highlighted in a rounded frame whose top edge
// carries the language. Lines are cut, not wrapped: wrapped code misleads;
// xoff scrolls them sideways instead (a line scrolled past its start
// begins with "…").
func (r *Renderer) code(el *dpe.Element, width, xoff int) []string {
	src, more := r.text(el.Text)
	src = strings.TrimRight(src, "\n")
	lexer, label := codeLexer(el, src)
	label = sanitize.Truncate(r.line(label), 24)

	var body []string
	if r.theme.Color && lexer != nil {
		body = r.highlight(lexer, src)
	} else {
		body = strings.Split(src, "\n")
	}
	if xoff > 0 {
		for i, l := range body {
			if ansi.StringWidth(l) <= xoff {
				body[i] = ""
				continue
			}
			body[i] = "…" + ansi.TruncateLeft(l, xoff+1, "")
		}
	}
	if more > 0 {
		body = append(body, r.theme.Dim.Render(moreMarker(more)))
	}
	if width < 8 {
		return body
	}
	inner := width - 4
	b := r.theme.CodeBorder
	lines := make([]string, 0, len(body)+2)
	if label != "" && ansi.StringWidth(label)+6 <= width {
		dashes := width - 5 - ansi.StringWidth(label)
		lines = append(lines, b.Render("╭─ ")+r.theme.CodeLabel.Render(label)+b.Render(" "+strings.Repeat("─", dashes)+"╮"))
	} else {
		lines = append(lines, b.Render("╭"+strings.Repeat("─", width-2)+"╮"))
	}
	for _, l := range body {
		if ansi.StringWidth(l) > inner {
			l = ansi.Truncate(l, inner, "…")
			if strings.Contains(l, "\x1b") {
				l += "\x1b[m"
			}
		}
		lines = append(lines, b.Render("│ ")+pad(l, inner)+b.Render(" │"))
	}
	lines = append(lines, b.Render("╰"+strings.Repeat("─", width-2)+"╯"))
	return lines
}

// highlight tokenises sanitized source and styles it token by token, line
// by line, so no style spans a line break.
func (r *Renderer) highlight(lexer chroma.Lexer, src string) []string {
	it, err := chroma.Coalesce(lexer).Tokenise(nil, src)
	if err != nil {
		return strings.Split(src, "\n")
	}
	cs := styles.Get(r.theme.Chroma)
	memo := map[chroma.TokenType]lipgloss.Style{}
	styleOf := func(t chroma.TokenType) lipgloss.Style {
		if st, ok := memo[t]; ok {
			return st
		}
		e := cs.Get(t)
		st := lipgloss.NewStyle()
		if e.Colour.IsSet() {
			st = st.Foreground(lipgloss.Color(e.Colour.String()))
		}
		if e.Bold == chroma.Yes {
			st = st.Bold(true)
		}
		if e.Italic == chroma.Yes {
			st = st.Italic(true)
		}
		memo[t] = st
		return st
	}
	var lines []string
	var cur strings.Builder
	for tok := it(); tok != chroma.EOF; tok = it() {
		st := styleOf(tok.Type)
		for i, part := range strings.Split(tok.Value, "\n") {
			if i > 0 {
				lines = append(lines, cur.String())
				cur.Reset()
			}
			if part != "" {
				cur.WriteString(st.Render(part))
			}
		}
	}
	lines = append(lines, cur.String())
	// Lexers add a final newline; drop the empty line it makes.
	if len(lines) > 1 && lines[len(lines)-1] == "" && !strings.HasSuffix(src, "\n") {
		lines = lines[:len(lines)-1]
	}
	return lines
}
