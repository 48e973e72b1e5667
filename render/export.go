package render

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// Export formats (`get --format md|text`, the UI's export). Both are
// sanitized and carry no escape sequences; tables become Markdown pipe
// tables in Markdown and aligned columns in plain text (textTable).
// Strings are not clipped: an export is meant to be complete.

// ExportOptions says what an export writes beyond the document's body.
type ExportOptions struct {
	// Furniture keeps the running headers, footers and page numbers
	// (IsFurniture), which an export leaves out by default: repeated on
	// every page, they would interrupt the text they run beside.
	Furniture bool
}

// IsFurniture reports whether category c (any spelling) is page
// furniture: a running Header, Footer or PageNumber.
func IsFurniture(c string) bool {
	switch normalizeCategory(c) {
	case catHeader, catFooter, catPageNumber:
		return true
	}
	return false
}

// Markdown exports a document as Markdown, furniture left out.
func Markdown(d *dpe.Document) string { return exportDoc(d, true, ExportOptions{}) }

// PageMarkdown exports one page as Markdown, furniture left out.
func PageMarkdown(p *dpe.Page) string { return exportPage(p, true, ExportOptions{}) }

// Export writes a document as Markdown (md) or plain text with options o.
func Export(d *dpe.Document, md bool, o ExportOptions) string { return exportDoc(d, md, o) }

// ExportPage writes one page as Markdown (md) or plain text with options o.
func ExportPage(p *dpe.Page, md bool, o ExportOptions) string { return exportPage(p, md, o) }

func exportDoc(d *dpe.Document, md bool, o ExportOptions) string {
	if d == nil {
		return ""
	}
	var parts []string
	if t := strings.TrimSpace(sanitize.Line(d.Title)); t != "" && !(md && opensWithTitle(d, t, o)) {
		if md {
			t = "# " + t
		}
		parts = append(parts, t)
	}
	for i, p := range d.Pages {
		if p == nil {
			continue
		}
		// Pages are 1-based in every text a person reads; the wire's
		// page_index stays 0-based in the JSON.
		sep := fmt.Sprintf("Page %d", i+1)
		if t := strings.TrimSpace(sanitize.Line(p.Title)); t != "" {
			sep += ": " + t
		}
		if st := sheetStateNote(p); st != "" {
			// A sheet the file hides is in the export (it is content),
			// said where it starts, as the spreadsheet's tabs leave it out.
			sep += " (" + st + ")"
		}
		if md {
			if i > 0 || len(parts) > 0 {
				parts = append(parts, "---")
			}
			parts = append(parts, "<!-- "+strings.ReplaceAll(sep, "--", "‐‐")+" -->")
		} else {
			parts = append(parts, "==== "+sep+" ====")
		}
		if s := exportPage(p, md, o); s != "" {
			parts = append(parts, strings.TrimRight(s, "\n"))
		}
	}
	return strings.Join(parts, "\n\n") + "\n"
}

// sheetStateNote names a page that is a sheet its file hides (page
// metadata sheet_state): "hidden sheet", "very hidden sheet" (Excel's
// veryHidden: not even listed by Unhide), "" for any other page.
func sheetStateNote(p *dpe.Page) string {
	switch p.SheetState() {
	case "hidden":
		return "hidden sheet"
	case "veryHidden":
		return "very hidden sheet"
	}
	return ""
}

// opensWithTitle: the document's first element is a top-level heading
// reading title, which then is the Markdown's one "#" line, not a second
// copy under the document's own.
func opensWithTitle(d *dpe.Document, title string, o ExportOptions) bool {
	for _, p := range d.Pages {
		if p == nil {
			continue
		}
		for _, el := range p.Elements {
			if el == nil || (!o.Furniture && IsFurniture(el.Category)) {
				continue
			}
			return normalizeCategory(el.Category) == catTitle && depth(el) == 0 &&
				strings.TrimSpace(sanitize.Line(el.Text)) == title
		}
		return false
	}
	return false
}

func exportPage(p *dpe.Page, md bool, o ExportOptions) string {
	if p == nil {
		return ""
	}
	if !p.Decoded && len(p.Elements) == 0 {
		return "(page not loaded)\n"
	}
	var parts []string
	var list mdList
	for i, el := range p.Elements {
		if el == nil || (!o.Furniture && IsFurniture(el.Category)) {
			continue
		}
		if len(parts) > 0 && i > 0 && sameHeader(p.Elements[i-1], el) {
			// The addresses of one header field are one line, as the
			// message has them: "Cc: a, b, c", not a "Cc:" line each.
			_, addr := emailParts(el)
			parts[len(parts)-1] += ", " + emailText(addr, md)
			continue
		}
		var s string
		split := false
		if normalizeCategory(el.Category) == catListItem {
			if md && list.splits(el) {
				parts = append(parts, list.separate(el))
				split = true
			}
			list.see(el)
			s = exportListItem(el, md, &list)
		} else {
			list.end()
			if normalizeCategory(el.Category) == catImage {
				s = exportImage(el, md, altIsNextCaption(p, i))
			} else {
				s = exportElement(el, md)
			}
		}
		if s == "" {
			continue
		}
		s = withAnnotations(el, s, md)
		if q := quoteDepth(el); q > 0 {
			s = quoteLines(s, q)
		}
		// Items of one list are one block: a blank line between them
		// would make a loose list of paragraphs.
		if len(parts) > 0 && i > 0 && !split && sameList(p.Elements[i-1], el) {
			parts[len(parts)-1] += "\n" + s
			continue
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "\n\n") + "\n"
}

// quoteLines marks every line of s with q quote markers ("> "), as
// Markdown writes a block quote; the plain text export reads the same.
func quoteLines(s string, q int) string {
	m := strings.Repeat("> ", q)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(m+l, " ")
	}
	return strings.Join(lines, "\n")
}

// withEmphasis marks, in Markdown, the spans of s the element records as
// bold, italic or code (ele_metadata emphasized_text_contents with
// emphasized_text_tags "b"/"strong", "i"/"em" or "code"), each found
// after the one before it, as they are in reading order; a span not
// found, or one that Markdown could not delimit (it starts or ends with a
// space, or bold or italic text holds the delimiter), is left as it is.
func withEmphasis(el *dpe.Element, s string) string {
	spans := metaStrings(el, "emphasized_text_contents")
	tags := metaStrings(el, "emphasized_text_tags")
	if len(spans) == 0 || len(spans) != len(tags) {
		return s
	}
	finds, repls := make([]string, len(spans)), make([]string, len(spans))
	for i, sp := range spans {
		sp = sanitize.Line(sp)
		if sp == "" || strings.TrimSpace(sp) != sp {
			continue
		}
		tag := strings.ToLower(tags[i])
		open, shut := "", ""
		switch tag {
		case "b", "strong":
			open = "**"
		case "i", "em":
			open = "*"
		case "code":
			// A fence one backtick longer than any run inside; a span
			// that starts or ends with one is padded, which CommonMark
			// strips again.
			open = strings.Repeat("`", longestRun(sp, '`')+1)
			shut = open
			if strings.HasPrefix(sp, "`") || strings.HasSuffix(sp, "`") {
				open, shut = open+" ", " "+shut
			}
		}
		if open == "" || tag != "code" && strings.Contains(sp, "*") {
			continue
		}
		if shut == "" {
			shut = open
		}
		finds[i], repls[i] = sp, open+sp+shut
	}
	return replaceInOrder(s, finds, repls)
}

// withFormulas writes, in Markdown, each inline formula the element
// records (ele_metadata inline_formula_texts, with its LaTeX in
// inline_formula_latex) as $LaTeX$ where its readable line is, each found
// after the one before it. A formula without LaTeX, or whose LaTeX holds
// a '$', stays the line it is.
func withFormulas(el *dpe.Element, s string) string {
	lines := metaStrings(el, "inline_formula_texts")
	tex := metaStrings(el, "inline_formula_latex")
	if len(lines) == 0 || len(lines) != len(tex) {
		return s
	}
	finds, repls := make([]string, len(lines)), make([]string, len(lines))
	for i, l := range lines {
		t := strings.TrimSpace(sanitize.Line(tex[i]))
		if l = sanitize.Line(l); l == "" || t == "" || strings.Contains(t, "$") {
			continue
		}
		finds[i], repls[i] = l, "$"+t+"$"
	}
	return replaceInOrder(s, finds, repls)
}

// replaceInOrder replaces finds[i] with repls[i] in s, each found after
// the one before it (the order an element records its spans in); an
// empty find, or one not found, is skipped.
func replaceInOrder(s string, finds, repls []string) string {
	var sb strings.Builder
	at := 0
	for i, f := range finds {
		if f == "" {
			continue
		}
		k := strings.Index(s[at:], f)
		if k < 0 {
			continue
		}
		sb.WriteString(s[at : at+k])
		sb.WriteString(repls[i])
		at += k + len(f)
	}
	sb.WriteString(s[at:])
	return sb.String()
}

// emailParts is an EmailAddress's header line (dpe.Element.EmailLine)
// as its label ("Cc: ", "" for none) and its address with the name,
// which is quoted when it holds a comma, a semicolon or a quote, as a
// header writes it: "Smith, Jo" <jo@example.org> stays one address on a
// line of several.
func emailParts(el *dpe.Element) (label, addr string) {
	line := sanitize.Line(el.EmailLine())
	addr = sanitize.Line(el.Text)
	plain := addr
	if name := sanitize.Line(el.MetaString("name")); name != "" && addr != "" {
		plain = name + " <" + addr + ">"
		if strings.ContainsAny(name, `,;"`) {
			name = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(name) + `"`
		}
		addr = name + " <" + addr + ">"
	}
	label, ok := strings.CutSuffix(line, plain)
	if !ok {
		return "", line
	}
	return label, addr
}

// emailText is an address line as the export writes it: in Markdown,
// <…> would be read as an HTML tag or autolink.
func emailText(s string, md bool) string {
	if md {
		return strings.NewReplacer("<", `\<`, ">", `\>`).Replace(s)
	}
	return s
}

// sameHeader: two neighbouring EmailAddresses of one header field (the
// three addresses of one Cc).
func sameHeader(a, b *dpe.Element) bool {
	email := func(el *dpe.Element) bool { return el != nil && normalizeCategory(el.Category) == catEmail }
	return email(a) && email(b) && a.MetaString("field") != "" && a.MetaString("field") == b.MetaString("field")
}

func isListItem(el *dpe.Element) bool {
	return el != nil && normalizeCategory(el.Category) == catListItem
}

// sameList: two neighbours that are items of one list (a task list's
// CheckBoxes are one too).
func sameList(a, b *dpe.Element) bool {
	if isListItem(a) && isListItem(b) {
		return true
	}
	box := func(el *dpe.Element) bool { return el != nil && normalizeCategory(el.Category) == catCheckBox }
	return box(a) && box(b)
}

// exportListItem writes a list item with the source's label in text and
// as a CommonMark list item, nested under the items before it, in
// Markdown (list.go).
func exportListItem(el *dpe.Element, md bool, list *mdList) string {
	line := strings.TrimSpace(sanitize.Line(el.Text))
	marker, rest := listMarker(line)
	if !md {
		switch {
		case marker != "":
		case listLabel(el) != "":
			marker, rest = listLabel(el), line
		default:
			marker, rest = bullets[depth(el)%len(bullets)], line
		}
		return strings.Repeat("  ", depth(el)) + marker + " " + rest
	}
	marker, rest = mdItemMarker(el, marker, rest)
	return list.item(depth(el), marker, withFormulas(el, mdEscapeTags(withEmphasis(el, withLinks(el, rest)))))
}

// mdItemMarker is the CommonMark marker of a list item and the text
// after it, given the marker its text starts with ("" for none) and the
// rest of its text.
func mdItemMarker(el *dpe.Element, marker, rest string) (string, string) {
	switch {
	case marker == "" && isDecimalMarker(mdMarker(el)) && !isDecimalMarker(listLabel(el)):
		// A lettered or roman item ("b.", "iv."): CommonMark's ordered
		// markers are numbers only, and writing its number would give a
		// reader "2." where the source says "b.". A bullet item that
		// starts with the source's label renders as the source reads.
		return "-", listLabel(el) + " " + rest
	case marker == "":
		return mdMarker(el), rest
	case isBullet(marker):
		return "-", rest
	case !isDecimalMarker(marker):
		// "a)", "iv." are not CommonMark markers: keep the label in the
		// text of a bullet item.
		return "-", marker + " " + rest
	}
	return marker, rest
}

func isBullet(m string) bool {
	switch m {
	case "-", "*", "+", "•", "◦", "▪", "‣":
		return true
	}
	return false
}

// isDecimalMarker: "3." or "3)", CommonMark's ordered list markers.
func isDecimalMarker(m string) bool {
	if len(m) < 2 {
		return false
	}
	for _, c := range m[:len(m)-1] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return m[len(m)-1] == '.' || m[len(m)-1] == ')'
}

func exportElement(el *dpe.Element, md bool) string {
	text := strings.TrimRight(sanitize.Text(el.Text), "\n ")
	line := strings.TrimSpace(sanitize.Line(el.Text))
	switch normalizeCategory(el.Category) {
	case catTitle:
		if md {
			return strings.Repeat("#", min(depth(el)+1, 6)) + " " + mdEscapeTags(withLinks(el, line))
		}
		return line
	case catCode:
		lang := ""
		if _, label := codeLexer(el, text); label != "" {
			lang = strings.Fields(sanitize.Line(label) + " x")[0]
		}
		if !md {
			return text
		}
		fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
		return fence + lang + "\n" + text + "\n" + fence
	case catTable, catTableChunk:
		// An export writes every cell whole: no cell is longer than the
		// element that holds it, which the document's limits bound.
		d := DefaultLimits()
		g, err := ParseTableLimits(el, TableLimits{MaxCells: d.MaxTableCells, MaxCols: d.MaxTableCols,
			MaxCellChars: max(d.MaxChars, len(el.Text)+len(el.MetaString("text_as_html")))})
		if err != nil {
			return text
		}
		if !md {
			return textTable(g)
		}
		return pipeTable(g)
	case catImage:
		return exportImage(el, md, false)
	case catFormula:
		if md {
			// The LaTeX a converter kept (text_as_latex) is what $$ holds;
			// the text is the formula as a readable line.
			if tex := strings.TrimSpace(sanitize.Text(el.MetaString("text_as_latex"))); tex != "" {
				text = tex
			}
			return "$$\n" + text + "\n$$"
		}
		return text
	case catCheckBox:
		checked, _ := metaBool(el, "checked")
		box := "[ ]"
		if checked {
			box = "[x]"
		}
		if md {
			return "- " + box + " " + line
		}
		return box + " " + line
	case catPageBreak:
		return "---"
	case catEmail:
		label, addr := emailParts(el)
		return emailText(label+addr, md)
	case catFigureCaption:
		if md && line != "" {
			return "*" + line + "*"
		}
		return text
	case catFormKeysValues:
		kvs := keyValues(el, sanitize.Line)
		if len(kvs) == 0 {
			return text
		}
		lines := make([]string, len(kvs))
		for i, kv := range kvs {
			if md {
				lines[i] = "- **" + kv.key + "**: " + kv.value
			} else {
				lines[i] = kv.key + ": " + kv.value
			}
		}
		return strings.Join(lines, "\n")
	}
	if md && strings.Contains(text, "\n") && !strings.Contains(text, "\n\n") && !looksLikeMarkdown(text) {
		// The source's line breaks (<br>, lines of a mail body): a newline
		// alone is a soft break that Markdown joins; a backslash before it
		// is CommonMark's hard break.
		text = strings.ReplaceAll(text, "\n", "\\\n")
	}
	if md {
		text = withLinks(el, text)
	}
	if md && normalizeCategory(el.Category) == catNarrative {
		text = withEmphasis(el, text)
	}
	if md {
		text = withFormulas(el, mdEscapeTags(text))
	}
	return text
}

// mdEscapeTags writes a backslash before each '<' that Markdown would
// read as the start of raw HTML or an autolink (a letter, '/', '!' or '?'
// after it), so text that says <tag> (an HTML source's &lt;tag&gt;)
// shows it rather than vanishing as a tag when the export is rendered. A
// '<' already escaped (a Markdown source's \<, which its elements keep as
// written), one before a space ("a < b") and one in a code span stay as
// they are.
func mdEscapeTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			// A code span is literal: copy it through its closing run.
			n := 1
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			run := s[i : i+n]
			if k := strings.Index(s[i+n:], run); k >= 0 {
				sb.WriteString(s[i : i+n+k+n])
				i += n + k + n - 1
				continue
			}
			sb.WriteString(run)
			i += n - 1
			continue
		}
		if s[i] == '<' && i+1 < len(s) && (i == 0 || s[i-1] != '\\') {
			if c := s[i+1]; c == '/' || c == '!' || c == '?' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') {
				sb.WriteByte('\\')
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// withLinks writes, in Markdown, each link the element records
// (dpe.Element.Links) as [text](url) where its text is, each found after
// the one before it, as they are in reading order. A link whose text is
// not recorded or not found stays plain text. Links go in before the
// emphasis, which then marks the text inside the brackets.
func withLinks(el *dpe.Element, s string) string {
	links := el.Links()
	if len(links) == 0 {
		return s
	}
	finds, repls := make([]string, len(links)), make([]string, len(links))
	for i, l := range links {
		t := strings.TrimSpace(sanitize.Line(l.Text))
		dest := mdDestination(l.URL)
		if t == "" || dest == "" {
			continue
		}
		finds[i], repls[i] = t, "["+mdLinkText.Replace(t)+"]("+dest+")"
	}
	return replaceInOrder(s, finds, repls)
}

// mdLinkText escapes what would end or nest a link's text.
var mdLinkText = strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`)

// mdDestination is a link's URL as a CommonMark link destination: one
// line, with the bytes that would end it (space, parentheses, angle
// brackets) percent-encoded, which a URL reads the same.
func mdDestination(u string) string {
	u = strings.TrimSpace(sanitize.Line(u))
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(u)
}

// exportImage writes an Image; altBelow: its alternative text is the
// caption written right after it (altIsNextCaption), so it is not written
// as text again, only as the alt of Markdown's image syntax.
func exportImage(el *dpe.Element, md, altBelow bool) string {
	caption := strings.TrimSpace(sanitize.Line(imageCaptionFromMeta(el)))
	alt := caption
	if caption == "" {
		alt = strings.TrimSpace(sanitize.Line(el.Text))
		if !altBelow {
			caption = alt
		}
	}
	desc := "image"
	if m := sanitize.Line(el.MetaString("image_mime_type")); m != "" {
		desc += " " + m
	}
	if md {
		if p := sanitize.Line(el.MetaString("image_path")); p != "" && !strings.ContainsAny(p, " ()") {
			return "![" + alt + "](" + p + ")"
		}
		if caption != "" {
			return "*[" + desc + "]* " + caption
		}
		return "*[" + desc + "]*"
	}
	if caption != "" {
		return "[" + desc + "] " + caption
	}
	return "[" + desc + "]"
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// pipeTable writes a grid as a Markdown pipe table. Without a header row
// the first row serves, because a pipe table must have one.
// textTable lays a table out as plain text: columns as wide as their
// widest cell (in terminal cells), two spaces apart, each aligned as the
// source aligns it, the header rows (the first row when the table names
// none, as the Markdown export takes it) underlined with dashes. The
// plain text export printed Markdown's pipes.
func textTable(g *Grid) string {
	widths := make([]int, g.Cols)
	for _, cells := range g.Rows {
		for c, cell := range cells {
			widths[c] = max(widths[c], ansi.StringWidth(cell))
		}
	}
	head := max(g.HeaderRows, 1)
	var sb strings.Builder
	line := func(cells []string, pad func(c int, s string) string) {
		out := make([]string, len(cells))
		for c, cell := range cells {
			out[c] = pad(c, cell)
		}
		sb.WriteString(strings.TrimRight(strings.Join(out, "  "), " "))
		sb.WriteByte('\n')
	}
	align := func(c int, s string) string {
		gap := widths[c] - ansi.StringWidth(s)
		a := ""
		if c < len(g.Align) {
			a = g.Align[c]
		}
		switch a {
		case "right":
			return strings.Repeat(" ", gap) + s
		case "center":
			return strings.Repeat(" ", gap/2) + s + strings.Repeat(" ", gap-gap/2)
		}
		return s + strings.Repeat(" ", gap)
	}
	for i, cells := range g.Rows {
		line(cells, align)
		if i == head-1 && len(g.Rows) > head {
			line(cells, func(c int, _ string) string { return strings.Repeat("-", max(widths[c], 1)) })
		}
	}
	if g.Truncated != "" {
		sb.WriteString("\n(" + g.Truncated + ")\n")
	}
	return strings.TrimRight(sb.String(), "\n")
}

func pipeTable(g *Grid) string {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	row := func(cells []string) string {
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = esc(c)
		}
		return "| " + strings.Join(out, " | ") + " |"
	}
	var sb strings.Builder
	for i, cells := range g.Rows {
		sb.WriteString(row(cells))
		sb.WriteByte('\n')
		if i == 0 {
			sb.WriteString("|")
			for c := range g.Cols {
				a := ""
				if c < len(g.Align) {
					a = g.Align[c]
				}
				switch a {
				case "right":
					sb.WriteString(" ---: |")
				case "center":
					sb.WriteString(" :---: |")
				default:
					sb.WriteString(" --- |")
				}
			}
			sb.WriteString("\n")
		}
	}
	if g.Truncated != "" {
		sb.WriteString("\n(" + g.Truncated + ")\n")
	}
	return strings.TrimRight(sb.String(), "\n")
}
