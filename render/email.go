package render

import "github.com/dpe-tui/dpe-tui/dpe"

// email renders an EmailAddress with its header label and name
// (dpe.Element.EmailLine).
func (r *Renderer) email(el *dpe.Element, width int) []string {
	s, more := r.text(el.EmailLine())
	return r.withMore(styleLines(r.theme.Text, wrap(s, width)), more, width)
}
