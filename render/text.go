package render

import (
	"encoding/json"
	"fmt"
	"strings"
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

// wrap word-wraps plain text to width cells (long words are broken).
func wrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	s = strings.TrimRight(s, "\n ")
	if s == "" {
		return []string{""}
	}
	return strings.Split(ansi.Wrap(s, width, ""), "\n")
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
