package convert

import (
	"fmt"
	"unicode/utf8"
)

// A title, a summary or a keyword is a display line that readers copy into
// several places (the document's title, a page title, a heading's
// metadata), so one 50 MB Subject: header would be written four times.
// Each such copy is cut here; the text itself stays whole, once, in the
// element that holds it (where the output budget charges it).
const (
	maxTitleBytes   = 4 << 10
	maxSummaryBytes = 64 << 10
	maxKeywords     = 256
)

// displayLine is s cut to at most max bytes (at a rune boundary), saying
// how long it was when it was cut.
func displayLine(s string, max int) string {
	if len(s) <= max {
		return s
	}
	mark := fmt.Sprintf(" … (cut from %d bytes)", len(s))
	cut := max - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// bounded is info with each display line cut (see displayLine) and at
// most maxKeywords keywords.
func (info Info) bounded() Info {
	info.Title = displayLine(info.Title, maxTitleBytes)
	info.Summary = displayLine(info.Summary, maxSummaryBytes)
	if len(info.Keywords) > maxKeywords {
		info.Keywords = info.Keywords[:maxKeywords:maxKeywords]
	}
	var kw []string
	for i, k := range info.Keywords {
		if c := displayLine(k, maxTitleBytes); c != k {
			if kw == nil {
				kw = append([]string(nil), info.Keywords...)
			}
			kw[i] = c
		}
	}
	if kw != nil {
		info.Keywords = kw
	}
	var titles []string
	for i, t := range info.PageTitles {
		if c := displayLine(t, maxTitleBytes); c != t {
			if titles == nil {
				titles = append([]string(nil), info.PageTitles...)
			}
			titles[i] = c
		}
	}
	if titles != nil {
		info.PageTitles = titles
	}
	return info
}
