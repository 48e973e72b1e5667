package render

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// kinsokuTexts are Japanese and Chinese paragraphs dense with the marks
// kinsoku is about, with Latin words and numbers inside.
var kinsokuTexts = []string{
	"東京都の「気象観測所」は、毎朝六時に気温を記録する。観測値（摂氏）は、「報告書」に載る。小さな「ッ」や「ー」も、行頭に来てはならない。",
	"本报告（第三版）记录了各站点的读数，包括温度、湿度和气压。所有数值均以“国际单位制”表示；异常值已标出！是否需要复核？",
	"Release 2.5では、「Go 1.26」に対応した。新しいAPI（v2）は、既存のコードと互換性がある。詳細は「README.md」を参照。",
}

// A CJK paragraph breaks between characters, but no line starts with a
// closing mark, comma, full stop, small kana or ー, and none ends with an
// opening bracket (JIS X 4051 kinsoku); no line is wider than the width,
// and the text is all there, in order (ansi.Wrap cut at any cell:
// "。" and "」" started lines, "「" ended them).
func TestWrap_CJKKeepsKinsoku(t *testing.T) {
	for _, text := range kinsokuTexts {
		for width := 6; width <= 60; width++ {
			lines := wrap(text, width)
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > width {
					t.Errorf("width %d: line %d is %d cells: %q", width, i, w, l)
				}
				if r, _ := utf8.DecodeRuneInString(l); i > 0 && strings.ContainsRune(noLineStart, r) {
					t.Errorf("width %d: line %d starts with %q: %q", width, i, r, l)
				}
				if r, _ := utf8.DecodeLastRuneInString(l); i < len(lines)-1 && strings.ContainsRune(noLineEnd, r) {
					t.Errorf("width %d: line %d ends with %q: %q", width, i, r, l)
				}
			}
			if got, want := strings.ReplaceAll(strings.Join(lines, ""), " ", ""), strings.ReplaceAll(text, " ", ""); got != want {
				t.Errorf("width %d: the text changed:\n got %q\nwant %q", width, got, want)
			}
		}
	}
}

// Text without CJK wraps as before, and a Latin word inside a CJK line is
// not broken where it fits.
func TestWrap_LatinUnchangedAndWordsKeptInCJK(t *testing.T) {
	latin := "The harbour report covers twelve stations; each reads hourly, and the readings go to the archive."
	for width := 8; width <= 40; width += 4 {
		if got, want := strings.Join(wrap(latin, width), "\n"), ansi.Wrap(latin, width, ""); got != want {
			t.Errorf("width %d: Latin text wraps differently:\n%s\nwant\n%s", width, got, want)
		}
	}
	for _, l := range wrap(kinsokuTexts[2], 20) {
		for _, w := range []string{"Release", "README.md"} {
			if strings.Contains(l, w[:3]) && !strings.Contains(l, w) {
				t.Errorf("%q is broken: %q", w, l)
			}
		}
	}
}
