package dpe

import (
	"strings"

	"golang.org/x/net/html"
)

// CellAlign is a table cell's horizontal alignment in text_as_html: its
// align attribute, else the text-align of its style (pandoc writes
// style="text-align: right;"). It is "right", "center" or "" (left, or none
// said). The converters write it this way and the renderer reads it back.
func CellAlign(attrs []html.Attribute) string {
	for _, a := range attrs {
		switch strings.ToLower(a.Key) {
		case "align":
			if v := AlignWord(a.Val); v != "" {
				return v
			}
		case "style":
			for decl := range strings.SplitSeq(a.Val, ";") {
				k, v, ok := strings.Cut(decl, ":")
				if ok && strings.EqualFold(strings.TrimSpace(k), "text-align") {
					if w := AlignWord(v); w != "" {
						return w
					}
				}
			}
		}
	}
	return ""
}

// AlignWord normalizes an alignment as HTML, CSS, OOXML (w:jc) or ODF
// (fo:text-align) spell it: "right" or "center", end read as in a
// left-to-right script. Left (start) is the default and reads as "", as
// justified and anything else do: a writer that says left and one that
// says nothing made the same table.
func AlignWord(v string) string {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "right", "end":
		return "right"
	case "center", "centre":
		return "center"
	}
	return ""
}
