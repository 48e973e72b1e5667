// Package sanitize is the one sanitizer for untrusted strings: everything
// that came from a document, a resource listing or a server passes through
// it before it reaches a terminal (SECURITY.md, "One sanitizer").
//
// The threat is a string that, printed raw, makes the terminal do something:
// clear the screen (CSI 2J), set the window title (OSC 0), write the
// clipboard (OSC 52), start a device control string (DCS), or reorder the
// display with bidi overrides so that what is read is not what is there.
package sanitize

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Text makes an untrusted string safe to print: drops ESC and every escape
// sequence (CSI, OSC, DCS, SOS/PM/APC incl. their payloads), C0 controls
// except '\n' and '\t', DEL, C1 (U+0080–U+009F); shows bidi controls
// (U+202A–U+202E, U+2066–U+2069, U+200E/F, U+061C) visibly as e.g.
// "<U+202E>" instead of applying them; replaces invalid UTF-8 with U+FFFD.
//
// A clean string is returned as is, without allocating.
func Text(s string) string {
	if isClean(s, false) {
		return s
	}
	return clean(s, false)
}

// Line is Text plus '\n', '\r', '\t' folded to single spaces (for table
// cells, list rows, headers): a run of them becomes one space. Invisible
// characters (zero-width spaces and joiners, U+FEFF, fillers, tags; see
// isInvisible) are shown as "<U+200B>" like bidi controls: a name or title
// with one looks the same as one without, which is how two names are made
// to look alike. Body text (Text) keeps them: Persian, Indic scripts and
// emoji sequences need the joiners to render right.
func Line(s string) string {
	if isClean(s, true) {
		return s
	}
	return clean(s, true)
}

// Truncate cuts s to at most max display cells, ending with "…" when it had
// to cut. The input is expected to be sanitized plain text.
func Truncate(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= max {
		return s
	}
	return ansi.Truncate(s, max, "…")
}

// TruncateMiddle shortens s to w cells with "…" in the middle, so both
// the start and the end (a file name's, a URL's port) stay readable.
func TruncateMiddle(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	if w < 3 {
		return ansi.Truncate(s, max(0, w), "")
	}
	head := (w - 1) / 2
	tail := w - 1 - head
	return ansi.Truncate(s, head, "") + "…" + ansi.TruncateLeft(s, ansi.StringWidth(s)-tail, "")
}

// isBidi reports the bidirectional formatting characters that reorder what
// follows them (Unicode UAX #9 explicit embeddings, overrides, isolates and
// marks). Showing them instead of applying them defeats "Trojan Source"
// style spoofing.
func isBidi(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}

// isInvisible reports characters that take no visible space and no glyph
// of their own: zero-width space, non-joiner, joiner and word joiner,
// invisible operators, the BOM / zero-width no-break space, soft hyphen,
// combining grapheme joiner, Mongolian vowel separator, Hangul and
// halfwidth fillers, Khmer inherent vowels and the tag characters.
func isInvisible(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200D, r >= 0x2060 && r <= 0x2064:
		return true
	case r == 0xFEFF, r == 0x00AD, r == 0x034F, r == 0x180E:
		return true
	case r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0, r == 0x17B4, r == 0x17B5:
		return true
	case r >= 0xE0000 && r <= 0xE007F:
		return true
	}
	return false
}

// isClean is the allocation-free fast path: true when clean would return s
// unchanged.
func isClean(s string, line bool) bool {
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b < 0x20 {
				if line || (b != '\n' && b != '\t') {
					return false
				}
			} else if b == 0x7F {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return false
		}
		if (r >= 0x80 && r <= 0x9F) || isBidi(r) || (line && isInvisible(r)) {
			return false
		}
		i += n
	}
	return true
}

// seqKind is what an escape introducer starts.
type seqKind int

const (
	seqNone   seqKind = iota // a lone control: drop just it
	seqCSI                   // parameters, intermediates, one final byte
	seqString                // OSC, DCS, SOS, PM, APC: payload up to ST/BEL
)

// c1Kind classifies a C1 control (as raw byte or as U+0080–U+009F).
func c1Kind(c byte) seqKind {
	switch c {
	case 0x9B: // CSI
		return seqCSI
	case 0x90, 0x98, 0x9D, 0x9E, 0x9F: // DCS, SOS, OSC, PM, APC
		return seqString
	}
	return seqNone
}

// next reads one "unit" at s[i:]: either a rune (valid or not) or a raw C1
// byte. c1 is the C1 code (0x80–0x9F) when the unit is a C1 control in
// either encoding, else 0.
func next(s string, i int) (r rune, n int, c1 byte) {
	b := s[i]
	if b < utf8.RuneSelf {
		return rune(b), 1, 0
	}
	r, n = utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n == 1 {
		// A raw 8-bit C1 byte is not valid UTF-8, but a terminal in 8-bit
		// mode would act on it: treat it as the control it encodes.
		if b >= 0x80 && b <= 0x9F {
			return r, 1, b
		}
		return r, 1, 0
	}
	if r >= 0x80 && r <= 0x9F {
		return r, n, byte(r)
	}
	return r, n, 0
}

// skipCSI returns the index just past a control sequence whose parameters
// start at i (ECMA-48 §5.4: parameter bytes 0x30–0x3F, intermediate bytes
// 0x20–0x2F, final byte 0x40–0x7E). A sequence broken by any other byte ends
// before that byte, which is then processed normally.
func skipCSI(s string, i int) int {
	for i < len(s) {
		b := s[i]
		switch {
		case b >= 0x20 && b <= 0x3F:
			i++
		case b >= 0x40 && b <= 0x7E:
			return i + 1
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past a control string whose payload
// starts at i. It ends at BEL, ST (ESC \ or C1 0x9C in either encoding), or
// CAN/SUB (which abort it). An ESC followed by anything else also ends it,
// and that ESC starts a new sequence, as in a terminal. An unterminated
// string runs to the end: the terminal would swallow it too, and its payload
// (say, a clipboard write) is not content.
func skipString(s string, i int) int {
	for i < len(s) {
		b := s[i]
		switch b {
		case 0x07, 0x18, 0x1A:
			return i + 1
		case 0x1B:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i
		}
		_, n, c1 := next(s, i)
		if c1 == 0x9C {
			return i + n
		}
		i += n
	}
	return i
}

// skipEsc returns the index just past an escape sequence whose ESC is at i.
func skipEsc(s string, i int) int {
	i++ // ESC
	if i >= len(s) {
		return i
	}
	b := s[i]
	switch {
	case b == '[':
		return skipCSI(s, i+1)
	case b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_':
		return skipString(s, i+1)
	case b >= 0x20 && b <= 0x2F:
		// nF escape: intermediates then one final byte (e.g. ESC ( B).
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2F {
			i++
		}
		if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7E {
			i++
		}
		return i
	case b >= 0x30 && b <= 0x7E:
		// Fp/Fe/Fs: a single final byte (ESC 7, ESC c, ESC M ...).
		return i + 1
	}
	// ESC followed by a control or non-ASCII: drop the ESC alone.
	return i
}

func clean(s string, line bool) string {
	var sb strings.Builder
	sb.Grow(len(s))
	pendingSpace := false
	flushSpace := func() {
		if pendingSpace {
			sb.WriteByte(' ')
			pendingSpace = false
		}
	}
	for i := 0; i < len(s); {
		b := s[i]
		if line && (b == '\n' || b == '\r' || b == '\t') {
			pendingSpace = true
			i++
			continue
		}
		if b == 0x1B {
			i = skipEsc(s, i)
			continue
		}
		r, n, c1 := next(s, i)
		switch {
		case c1 != 0:
			switch c1Kind(c1) {
			case seqCSI:
				i = skipCSI(s, i+n)
			case seqString:
				i = skipString(s, i+n)
			default:
				i += n
			}
			continue
		case b < 0x20 && b != '\n' && b != '\t', b == 0x7F:
			i++
			continue
		}
		flushSpace()
		switch {
		case r == utf8.RuneError && n == 1:
			sb.WriteRune(utf8.RuneError)
		case isBidi(r) || (line && isInvisible(r)):
			sb.WriteString("<U+")
			const hex = "0123456789ABCDEF"
			if r > 0xFFFF {
				sb.WriteByte(hex[(r>>16)&0xF])
			}
			sb.WriteByte(hex[(r>>12)&0xF])
			sb.WriteByte(hex[(r>>8)&0xF])
			sb.WriteByte(hex[(r>>4)&0xF])
			sb.WriteByte(hex[r&0xF])
			sb.WriteByte('>')
		default:
			sb.WriteString(s[i : i+n])
		}
		i += n
	}
	flushSpace()
	return sb.String()
}
