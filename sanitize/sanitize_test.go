package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText_DropsEscapesKeepsContent(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"clean ASCII unchanged", "hello world", "hello world"},
		{"newline and tab kept", "a\n\tb", "a\n\tb"},
		{"clean unicode unchanged", "héllo 世界 🙂", "héllo 世界 🙂"},
		{"CSI clear screen", "a\x1b[2Jb", "ab"},
		{"CSI SGR", "\x1b[1;31mred\x1b[0m", "red"},
		{"CSI private mode", "x\x1b[?1049hy", "xy"},
		{"CSI broken by newline", "a\x1b[12\nb", "a\nb"},
		{"OSC 0 title BEL", "a\x1b]0;pwned\x07b", "ab"},
		{"OSC 0 title ST", "a\x1b]0;pwned\x1b\\b", "ab"},
		{"OSC 52 clipboard", "x\x1b]52;c;cm0gLXJmIH4K\x07y", "xy"},
		{"OSC 8 hyperlink", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"OSC unterminated swallows rest", "a\x1b]0;title never ends", "a"},
		{"OSC ended by C1 ST", "a\x1b]0;t\u009cb", "ab"},
		{"OSC aborted by CAN", "a\x1b]0;t\x18b", "ab"},
		{"OSC interrupted by new ESC seq", "a\x1b]0;t\x1b[2Jb", "ab"},
		{"DCS", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"APC", "a\x1b_Gf=100;AAAA\x1b\\b", "ab"},
		{"PM", "a\x1b^private\x1b\\b", "ab"},
		{"SOS", "a\x1bXsos\x1b\\b", "ab"},
		{"ESC single final", "a\x1bcb\x1b7c", "abc"},
		{"ESC nF charset", "a\x1b(Bb", "ab"},
		{"lone ESC at end", "ab\x1b", "ab"},
		{"ESC before non-ASCII", "a\x1bé", "aé"},
		{"C1 CSI as UTF-8 U+009B", "a\u009b2Jb", "ab"},
		{"C1 CSI raw byte 0x9B", "a\x9b2Jb", "ab"},
		{"C1 OSC as UTF-8", "a\u009d0;t\u0007b", "ab"},
		{"C1 OSC raw byte", "a\x9d0;t\x07b", "ab"},
		{"C1 DCS raw byte ST raw", "a\x90q\x9cb", "ab"},
		{"C1 other control dropped", "a\u0085b\u0080c", "abc"},
		{"bidi RLO shown", "a\u202Eb", "a<U+202E>b"},
		{"bidi isolates shown", "\u2066x\u2069", "<U+2066>x<U+2069>"},
		{"bidi marks shown", "\u200E\u200F\u061C", "<U+200E><U+200F><U+061C>"},
		{"invalid UTF-8", "a\xffb\xc3", "a\uFFFDb\uFFFD"},
		{"truncated multibyte then C1 raw", "\xe2\x9b2J", "\uFFFD"},
		{"NUL", "a\x00b", "ab"},
		{"DEL", "a\x7fb", "ab"},
		{"CR dropped", "a\r\nb", "a\nb"},
		{"BEL BS VT FF", "a\x07\x08\x0b\x0cb", "ab"},
		{"U+FFFD kept", "\uFFFD", "\uFFFD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Text(tc.in); got != tc.want {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestLine_FoldsNewlinesTabsToOneSpace(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"clean unchanged", "a b", "a b"},
		{"newline", "a\nb", "a b"},
		{"CRLF run is one space", "a\r\nb", "a b"},
		{"tab", "a\tb", "a b"},
		{"escape between newlines", "a\n\x1b[2J\nb", "a b"},
		{"bidi shown", "\u202Ex", "<U+202E>x"},
		{"trailing newline", "a\n", "a "},
		{"zero-width space shown", "al\u200Bpha", "al<U+200B>pha"},
		{"joiners shown", "a\u200Cb\u200Dc\u2060d", "a<U+200C>b<U+200D>c<U+2060>d"},
		{"BOM shown", "\uFEFFreport", "<U+FEFF>report"},
		{"soft hyphen and filler shown", "a\u00ADb\u3164", "a<U+00AD>b<U+3164>"},
		{"tag character shown", "x\U000E0041", "x<U+E0041>"},
		{"visible non-ASCII unchanged", "café 東京", "café 東京"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Line(tc.in); got != tc.want {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestTruncate_CutsToDisplayCellsWithMarker(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"fits", "hello", 5, "hello"},
		{"cut", "hello world", 5, "hell…"},
		{"wide runes", "世界世界", 5, "世界…"},
		{"zero", "abc", 0, ""},
		{"negative", "abc", -1, ""},
		{"one", "abc", 1, "…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Truncate(tc.in, tc.max); got != tc.want {
				t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
		})
	}
}

func TestText_CleanInputDoesNotAllocate(t *testing.T) {
	in := strings.Repeat("clean text, 世界 🙂\n\t", 100)
	allocs := testing.AllocsPerRun(100, func() {
		_ = Text(in)
		_ = Line("a clean line")
	})
	if allocs != 0 {
		t.Fatalf("clean input allocated %v times", allocs)
	}
}

// checkSafe asserts the sanitizer's output invariants.
func checkSafe(t *testing.T, in, out string, line bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("invalid UTF-8 output %q from %q", out, in)
	}
	for i := 0; i < len(out); i++ {
		b := out[i]
		if b == 0x7F || (b < 0x20 && (line || (b != '\n' && b != '\t'))) {
			t.Fatalf("control byte %#x in output %q from %q", b, out, in)
		}
	}
	for _, r := range out {
		if r >= 0x80 && r <= 0x9F {
			t.Fatalf("C1 %U in output %q from %q", r, out, in)
		}
		if isBidi(r) {
			t.Fatalf("bidi control %U in output %q from %q", r, out, in)
		}
	}
}

func fuzzSeeds(f *testing.F) {
	for _, s := range []string{
		"", "plain", "a\x1b[2Jb", "\x1b]0;t\x07", "\x1b]52;c;AAAA\x1b\\", "\x1bPq\x1b\\",
		"\u009b2J", "\x9b2J", "\u202E", "\xff\xfe", "\x00\x7f", "\x1b", "\x1b]", "\x1b[",
		"a\r\n\tb", "\x1b]0;\x1b]0;x\x07", "\x9d\x1b\\", "\xe2\x80\xae",
	} {
		f.Add(s)
	}
}

func FuzzText(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		out := Text(in)
		checkSafe(t, in, out, false)
		if again := Text(out); again != out {
			t.Fatalf("not idempotent: Text(%q) = %q, Text of that = %q", in, out, again)
		}
	})
}

func FuzzLine(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		out := Line(in)
		checkSafe(t, in, out, true)
		if again := Line(out); again != out {
			t.Fatalf("not idempotent: Line(%q) = %q, Line of that = %q", in, out, again)
		}
	})
}

func BenchmarkTextClean(b *testing.B) {
	in := strings.Repeat("The quick brown fox, 世界.\n", 400)
	b.ReportAllocs()
	for b.Loop() {
		_ = Text(in)
	}
}

func BenchmarkTextHostile(b *testing.B) {
	in := strings.Repeat("x\x1b[2J\x1b]0;t\x07\u202E", 400)
	b.ReportAllocs()
	for b.Loop() {
		_ = Text(in)
	}
}

// Body text keeps the joiners its scripts need; only names and titles
// (Line) show them.
func TestText_KeepsJoinersOfBodyText(t *testing.T) {
	for _, in := range []string{"می\u200Cخواهم", "👨\u200D👩\u200D👧"} {
		if got := Text(in); got != in {
			t.Errorf("Text(%q) = %q, want it unchanged", in, got)
		}
	}
}

// Two names that differ only by an invisible character no longer look
// alike once sanitized.
func TestLine_LookalikeNamesDiffer(t *testing.T) {
	a, b := Line("alpha"), Line("al\u200Bpha")
	if a == b || !strings.Contains(b, "<U+200B>") {
		t.Errorf("Line(alpha) = %q, Line(al+ZWSP+pha) = %q", a, b)
	}
}
