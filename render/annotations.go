package render

import (
	"encoding/json"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// maxAnnotationsShown bounds the comments drawn for one element: a
// hostile element may claim any number.
const maxAnnotationsShown = 64

// annotation is one comment a converter recorded on an element
// (ele_metadata annotations: Word's and Writer's comments), sanitized.
type annotation struct{ author, date, text, covers string }

// annotations are the element's comments, in the order recorded.
func annotations(el *dpe.Element) []annotation {
	raw, ok := metaRaw(el, "annotations")
	if !ok {
		return nil
	}
	var list []struct {
		Author string `json:"author"`
		Date   string `json:"date"`
		Text   string `json:"text"`
		Covers string `json:"covers"`
	}
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	out := make([]annotation, 0, min(len(list), maxAnnotationsShown))
	for _, a := range list[:min(len(list), maxAnnotationsShown)] {
		n := annotation{author: annotationText(a.Author), date: annotationText(a.Date), text: annotationText(a.Text), covers: annotationText(a.Covers)}
		if n.text != "" {
			out = append(out, n)
		}
	}
	return out
}

func annotationText(s string) string { return strings.Join(strings.Fields(sanitize.Line(s)), " ") }

// String is the comment as one line: "Comment by Jo Smith, 2024-07-01,
// on “on the left”: Check the serial number first." (a date in RFC
// 3339 shows its day).
func (a annotation) String() string {
	s := "Comment"
	if a.author != "" {
		s += " by " + a.author
	}
	if d := a.date; d != "" {
		if len(d) > 10 && d[4] == '-' && d[7] == '-' && d[10] == 'T' {
			d = d[:10]
		}
		s += ", " + d
	}
	if a.covers != "" {
		s += ", on “" + a.covers + "”"
	}
	return s + ": " + a.text
}

// withAnnotations adds the element's comments to its export s, each on a
// line of its own below the text (a list item's under its text, past its
// marker): in Markdown after a hard line break, italic, so a list item
// stays one item; in plain text in brackets.
func withAnnotations(el *dpe.Element, s string, md bool) string {
	notes := annotations(el)
	if len(notes) == 0 || s == "" {
		return s
	}
	last := s[strings.LastIndexByte(s, '\n')+1:]
	rest := strings.TrimLeft(last, " ")
	indent := last[:len(last)-len(rest)]
	if k := strings.IndexByte(rest, ' '); isListItem(el) && k > 0 {
		// Under the item's text, past its marker.
		indent += strings.Repeat(" ", ansi.StringWidth(rest[:k])+1)
	}
	var sb strings.Builder
	sb.WriteString(s)
	// A hard line break after a table's last row or a code fence would
	// join the comment to the block: there they are a paragraph of their
	// own after it.
	switch normalizeCategory(el.Category) {
	case catTable, catTableChunk, catCode:
		if md {
			sb.WriteString("\n")
			for k, a := range notes {
				if k > 0 {
					sb.WriteString("\\")
				}
				sb.WriteString("\n*" + mdEmphasisText.Replace(a.String()) + "*")
			}
			return sb.String()
		}
	}
	for _, a := range notes {
		if md {
			sb.WriteString("\\\n" + indent + "*" + mdEmphasisText.Replace(a.String()) + "*")
		} else {
			sb.WriteString("\n" + indent + "[" + a.String() + "]")
		}
	}
	return sb.String()
}

// mdEmphasisText escapes what would end or confuse an italic span.
var mdEmphasisText = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "<", `\<`, "`", "\\`")

// annotationLines are the element's comments as the screen shows them:
// dimmed lines below its text, each marked with a pencil.
func (r *Renderer) annotationLines(el *dpe.Element, width int) []string {
	var out []string
	for _, a := range annotations(el) {
		out = append(out, styleLines(r.theme.Dim, hanging("  ✎ ", a.String(), width))...)
	}
	return out
}
