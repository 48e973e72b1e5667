package convert

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A word broken at a line's end reads whole. The printer's hyphen there
// (PDFium marks each line-end hyphen after a letter alike, so a PDF does
// not tell a syllable break from a compound's own hyphen) is dropped
// when the next line continues the word: "DIS-" "CLAIMED" is
// "DISCLAIMED", "mea-" "surement" "measurement". A compound keeps its
// hyphen, without the space: "self-" "appointed" is "self-appointed".
// What tells them apart, in order: the page itself, which spells the
// word elsewhere with its hyphen or without; else a first part that
// starts compounds (compoundHeads); else it is a syllable break, as
// pdftotext reads it too.

// joinBrokenWords marks each line of bl whose first word is the rest of
// the line before's last word, and drops that word's hyphen when the
// break is a syllable's. Code is left as printed.
func joinBrokenWords(bl *pdfBlock, vocab map[string]bool) {
	if blockMono(bl) {
		return
	}
	for i := 1; i < len(bl.lines); i++ {
		prev, l := bl.lines[i-1], bl.lines[i]
		if len(prev.runs) == 0 || len(l.runs) == 0 {
			continue
		}
		last := &prev.runs[len(prev.runs)-1]
		keep, ok := brokenWord(last.text, l.runs[0].text, vocab)
		if !ok {
			continue
		}
		l.wordGoesOn = true
		if !keep {
			last.text = strings.TrimSuffix(last.text, "-")
		}
	}
}

// brokenWord reports whether after, a line's first word, goes on with
// before, the last word of the line above, broken at its hyphen (ok),
// and whether that hyphen is the word's own (keep). The rest goes on
// the word when its case does: lower case after any, capitals after
// capitals ("Anglo-" "Saxon" is two words joined by a hyphen, which is
// no break).
func brokenWord(before, after string, vocab map[string]bool) (keep, ok bool) {
	head, found := strings.CutSuffix(before, "-")
	if !found {
		return false, false
	}
	lastPart := head[strings.LastIndexByte(head, '-')+1:]
	end, _ := utf8.DecodeLastRuneInString(lastPart)
	start, _ := utf8.DecodeRuneInString(after)
	if !unicode.IsLetter(end) || !unicode.IsLetter(start) {
		return false, false
	}
	switch {
	case unicode.IsLower(start):
	case unicode.IsUpper(start) && strings.ToUpper(lastPart) == lastPart && !unicode.IsLower(end):
	default:
		// A capital after a lower-case part: the hyphen is its own.
		return true, true
	}
	rest := strings.TrimRightFunc(after, func(r rune) bool { return !unicode.IsLetter(r) })
	whole := strings.ToLower(wordCore(head) + rest)
	hyphened := strings.ToLower(wordCore(head) + "-" + rest)
	switch {
	case vocab[hyphened]:
		return true, true
	case vocab[whole]:
		return false, true
	}
	return compoundHeads[strings.ToLower(lastPart)], true
}

// compoundHeads are English words that start hyphenated compounds
// ("well-known", "self-appointed", "north-eastern"); a word broken after
// one of them keeps its hyphen.
var compoundHeads = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`well self non long short high low north south east west hand half
		all ill cross full time user one two three four first second third left right read built open
		ever old new free world life so far near end top multi semi anti quasi pseudo`) {
		m[w] = true
	}
	return m
}()

// pageWords is the words of a page, lower case and without the
// punctuation around them.
func pageWords(runs []pdfRun) map[string]bool {
	words := make(map[string]bool, len(runs))
	for _, r := range runs {
		if w := strings.ToLower(wordCore(r.text)); w != "" {
			words[w] = true
		}
	}
	return words
}

// wordCore is w without the punctuation before its first letter or
// after its last.
func wordCore(w string) string {
	notLetter := func(r rune) bool { return !unicode.IsLetter(r) }
	return strings.TrimRightFunc(strings.TrimLeftFunc(w, notLetter), notLetter)
}
