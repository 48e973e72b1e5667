package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// tabWidth is how many spaces a tab becomes: terminals disagree on tab
// stops and ansi.StringWidth counts a tab as zero cells, so tabs never
// reach the output.
const tabWidth = 4

// clip keeps at most max characters of an untrusted string (SECURITY.md, "string
// length shown"). It reports how many characters it dropped so the caller
// can say so; the inspector shows the complete value.
func clip(s string, max int) (string, int) {
	if max <= 0 || len(s) <= max {
		return s, 0
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], utf8.RuneCountInString(s[i:])
		}
		n++
	}
	return s, 0
}

// text is the render boundary for multi-line untrusted text: clipped,
// sanitized, tabs expanded.
func (r *Renderer) text(s string) (string, int) {
	s, more := clip(s, r.lim.MaxChars)
	return expandTabs(sanitize.Text(s)), more
}

// line is the render boundary for single-line untrusted text.
func (r *Renderer) line(s string) string {
	s, _ = clip(s, r.lim.MaxChars)
	return sanitize.Line(s)
}

func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var sb strings.Builder
	col := 0
	for _, c := range s {
		switch c {
		case '\t':
			n := tabWidth - col%tabWidth
			sb.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			sb.WriteRune(c)
			col = 0
		default:
			sb.WriteRune(c)
			col++
		}
	}
	return sb.String()
}

// wrap word-wraps plain text to width cells (long words are broken). A
// line with Chinese or Japanese in it breaks between their characters
// under kinsoku rules (wrapCJK).
func wrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	s = strings.TrimRight(s, "\n ")
	if s == "" {
		return []string{""}
	}
	if !strings.ContainsFunc(s, isCJKBreakable) {
		return strings.Split(ansi.Wrap(s, width, ""), "\n")
	}
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.ContainsFunc(l, isCJKBreakable) {
			out = append(out, wrapCJK(l, width)...)
		} else {
			out = append(out, strings.Split(ansi.Wrap(l, width, ""), "\n")...)
		}
	}
	return out
}

// Kinsoku (JIS X 4051 §6.1, and the same rule in Chinese typesetting):
// closing brackets, commas, full stops, small kana and the prolonged
// sound mark never start a line; opening brackets never end one.
// ansi.Wrap broke a CJK run at any cell, so a line could start with "。"
// or "」" and end with "「".
const (
	noLineStart = "、。，．・：；？！゛゜ヽヾゝゞ々ー〜）］｝〕〉》」』】〙〗〟’”｠»" +
		"ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ…‥" + ")]},.?!:;%"
	noLineEnd = "（［｛〔〈《「『【〘〖〝‘“｟«" + "([{"
)

// isCJKBreakable: a character a line may break before or after with no
// space, as Chinese and Japanese break: Han, kana, and the CJK symbols
// and full-width forms. Hangul is not: Korean breaks at spaces.
func isCJKBreakable(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

// wrapCJK wraps one line (no newline in it) to width cells: each CJK
// character is a unit a line may break around, a run of other characters
// is a word, spaces are break opportunities (dropped at a break). A unit
// that must not start a line joins the one before it, one that must not
// end a line joins the one after, and the joined cluster moves to the
// next line whole (oidashi: the line is never made wider than width). A
// cluster wider than a line is cut at the width.
func wrapCJK(l string, width int) []string {
	type cluster struct {
		sep, text string // sep: the spaces before it
	}
	var cs []cluster
	sep := ""
	add := func(unit string, breakable bool) {
		r, _ := utf8.DecodeRuneInString(unit)
		last := len(cs) - 1
		if last >= 0 && sep == "" {
			lr, _ := utf8.DecodeLastRuneInString(cs[last].text)
			if strings.ContainsRune(noLineStart, r) || strings.ContainsRune(noLineEnd, lr) ||
				(!breakable && !isCJKBreakable(lr)) {
				cs[last].text += unit
				return
			}
		}
		cs = append(cs, cluster{sep, unit})
		sep = ""
	}
	word := ""
	flush := func() {
		if word != "" {
			add(word, false)
			word = ""
		}
	}
	for _, r := range l {
		switch {
		case r == ' ':
			flush()
			sep += " "
		case isCJKBreakable(r) || strings.ContainsRune(noLineStart, r) || strings.ContainsRune(noLineEnd, r):
			flush()
			add(string(r), true)
		default:
			word += string(r)
		}
	}
	flush()
	var lines []string
	var cur strings.Builder
	w := 0
	for _, c := range cs {
		cw, sep := ansi.StringWidth(c.text), c.sep
		if w > 0 && w+len(sep)+cw > width {
			lines = append(lines, cur.String())
			cur.Reset()
			w, sep = 0, "" // a line after a break starts with its text
		}
		if w == 0 && len(sep)+cw > width {
			sep = ""
		}
		cur.WriteString(sep)
		w += len(sep)
		if cw <= width {
			cur.WriteString(c.text)
			w += cw
			continue
		}
		// Wider than a line: cut at the width, what is left starts the
		// next line; a cut before a mark that must not start a line (or
		// after one that must not end it) takes one character more along.
		for _, r := range c.text {
			rw := ansi.StringWidth(string(r))
			if w+rw > width && w > 0 {
				line := cur.String()
				cur.Reset()
				w = 0
				last, n := utf8.DecodeLastRuneInString(line)
				if (strings.ContainsRune(noLineStart, r) || strings.ContainsRune(noLineEnd, last)) && n < len(line) {
					line = line[:len(line)-n]
					cur.WriteRune(last)
					w = ansi.StringWidth(string(last))
				}
				lines = append(lines, line)
			}
			cur.WriteRune(r)
			w += rw
		}
	}
	return append(lines, cur.String())
}

// fit is the width invariant: every line at most width cells. It is the
// last step of every renderer, so a renderer's own arithmetic slip can
// never make a line wrap in the terminal.
func fit(lines []string, width int) []string {
	if width < 1 {
		width = 1
	}
	for i, l := range lines {
		if len(l) > width && cellWidth(l) > width {
			t := ansi.Truncate(l, width, "")
			if strings.Contains(t, "\x1b") {
				t += "\x1b[m"
			}
			lines[i] = t
		}
	}
	return lines
}

// pad right-pads plain or styled s with spaces to exactly w cells
// (truncating with "…" when longer).
func pad(s string, w int) string {
	sw := cellWidth(s)
	if sw > w {
		if sw == len(s) && !strings.Contains(s, "\x1b") {
			// Printable ASCII: one byte per cell.
			if w <= 0 {
				return ""
			}
			return s[:w-1] + "…"
		}
		s = ansi.Truncate(s, w, "…")
		sw = cellWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// style applies a lipgloss style to each line separately: lipgloss pads a
// multi-line block to its widest line, which we do not want.
func styleLines(st interface{ Render(...string) string }, lines []string) []string {
	for i, l := range lines {
		if l != "" {
			lines[i] = st.Render(l)
		}
	}
	return lines
}

// onlySGR removes every escape sequence except SGR (CSI … m). Glamour wraps
// links in OSC 8 hyperlinks whose targets come from the document: a
// clickable link whose text and target differ is exactly the kind of
// deception SECURITY.md rules out, and the URL is shown as text anyway.
func onlySGR(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		if s[i] != 0x1b {
			j := strings.IndexByte(s[i:], 0x1b)
			if j < 0 {
				sb.WriteString(s[i:])
				break
			}
			sb.WriteString(s[i : i+j])
			i += j
			continue
		}
		if i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3F {
				j++
			}
			if j < len(s) && s[j] == 'm' {
				sb.WriteString(s[i : j+1])
			}
			if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7E {
				j++
			}
			i = j
			continue
		}
		if i+1 < len(s) && s[i+1] == ']' {
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x07 {
				j++
			} else if j < len(s) {
				j += 2
			}
			i = j
			continue
		}
		i += 2
	}
	return sb.String()
}

// --- ele_metadata access (proposal §3.4). Every value is untrusted. ---

func metaRaw(el *dpe.Element, key string) (json.RawMessage, bool) {
	if el == nil || el.Metadata == nil {
		return nil, false
	}
	v, ok := el.Metadata[key]
	if !ok || len(v) == 0 || string(v) == "null" {
		return nil, false
	}
	return v, true
}

// maxQuoteDepth bounds the bars and markers a quoted element is drawn
// with (a hostile document may claim any depth).
const maxQuoteDepth = 8

// quoteDepth is how many block quotes el sits in: ele_metadata quote, a
// depth or true (one).
func quoteDepth(el *dpe.Element) int {
	if n, ok := el.MetaInt("quote"); ok {
		return min(max(n, 0), maxQuoteDepth)
	}
	if b, _ := metaBool(el, "quote"); b {
		return 1
	}
	return 0
}

func metaBool(el *dpe.Element, key string) (value, ok bool) {
	v, ok := metaRaw(el, key)
	if !ok {
		return false, false
	}
	var b bool
	if json.Unmarshal(v, &b) == nil {
		return b, true
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "yes", "x", "checked", "on", "1":
			return true, true
		case "false", "no", "", "unchecked", "off", "0":
			return false, true
		}
	}
	var f float64
	if json.Unmarshal(v, &f) == nil {
		return f != 0, true
	}
	return false, false
}

func metaStrings(el *dpe.Element, key string) []string {
	v, ok := metaRaw(el, key)
	if !ok {
		return nil
	}
	var ss []string
	if json.Unmarshal(v, &ss) == nil {
		return ss
	}
	if s := el.MetaString(key); s != "" {
		return []string{s}
	}
	return nil
}

// depth is category_depth clamped to something that cannot push text off
// the screen.
func depth(el *dpe.Element) int {
	d, _ := el.MetaInt("category_depth")
	return min(max(d, 0), 8)
}

// moreMarker is the line that says a string was cut, so a cut never looks like the end.
func moreMarker(n int) string {
	return fmt.Sprintf("… %d more characters (full text in the inspector)", n)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cellWidth is ansi.StringWidth with a fast path for the common case of
// printable ASCII with SGR styling: grapheme segmentation is the dominant
// cost of drawing a big table, and ASCII needs none.
func cellWidth(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b >= 0x20 && b < 0x7F:
			n++
		case b == 0x1b && i+1 < len(s) && s[i+1] == '[':
			j := i + 2
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3F {
				j++
			}
			if j >= len(s) || s[j] != 'm' {
				return ansi.StringWidth(s)
			}
			i = j
		case b >= 0x80:
			// Box drawing and the ellipsis the renderer itself draws are
			// one cell; anything else takes the exact path.
			r, size := utf8.DecodeRuneInString(s[i:])
			if (r < 0x2500 || r > 0x257F) && r != '…' {
				return ansi.StringWidth(s)
			}
			n++
			i += size - 1
		default:
			return ansi.StringWidth(s)
		}
	}
	return n
}
