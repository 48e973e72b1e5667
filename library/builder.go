package library

import (
	"fmt"
	"html"
	"strings"
)

// docBuilder accumulates pages and elements and hands out element ids that
// are stable (derived only from position) and unique per document:
// "p<page>-e<n>" (proposal §3.3.2: element_id is fixed at parse time).
type docBuilder struct {
	docRef    string
	pages     []PageJSON
	pageTitle string // title for a page created implicitly by add
}

// startPage begins a new page and makes it current.
func (b *docBuilder) startPage(title string) {
	b.pages = append(b.pages, PageJSON{
		PageIndex: len(b.pages),
		Title:     title,
		DocRef:    b.docRef,
		Elements:  []ElementJSON{},
	})
}

// add appends an element to the current page (creating page 0 when none
// exists yet) and returns its element_id. meta may be nil.
func (b *docBuilder) add(category, text string, meta map[string]any) string {
	if len(b.pages) == 0 {
		b.startPage(b.pageTitle)
	}
	p := &b.pages[len(b.pages)-1]
	id := fmt.Sprintf("p%d-e%d", p.PageIndex, len(p.Elements))
	if meta == nil {
		meta = map[string]any{}
	}
	p.Elements = append(p.Elements, ElementJSON{
		ElementID: id,
		Category:  category,
		Text:      text,
		DocRef:    b.docRef,
		PageIndex: p.PageIndex,
		Metadata:  meta,
	})
	return id
}

// finish guarantees page_count ≥ 1 (seed 000 §校验规则 1: a document always
// has at least one page) and returns the pages.
func (b *docBuilder) finish() []PageJSON {
	if len(b.pages) == 0 {
		b.startPage(b.pageTitle)
	}
	return b.pages
}

// tableText is the plain form of a table: cells joined by tabs, rows by
// newlines, header first.
func tableText(header []string, rows [][]string) string {
	var sb strings.Builder
	clean := func(s string) string { return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s) }
	write := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				sb.WriteByte('\t')
			}
			sb.WriteString(clean(c))
		}
		sb.WriteByte('\n')
	}
	if header != nil {
		write(header)
	}
	for _, r := range rows {
		write(r)
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// tableHTML renders a table as escaped HTML for ele_metadata.text_as_html.
func tableHTML(header []string, rows [][]string) string {
	var sb strings.Builder
	sb.WriteString("<table>")
	if header != nil {
		sb.WriteString("<thead><tr>")
		for _, h := range header {
			sb.WriteString("<th>")
			sb.WriteString(html.EscapeString(h))
			sb.WriteString("</th>")
		}
		sb.WriteString("</tr></thead>")
	}
	sb.WriteString("<tbody>")
	for _, r := range rows {
		sb.WriteString("<tr>")
		for _, cell := range r {
			sb.WriteString("<td>")
			sb.WriteString(html.EscapeString(cell))
			sb.WriteString("</td>")
		}
		sb.WriteString("</tr>")
	}
	sb.WriteString("</tbody></table>")
	return sb.String()
}
