package render

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/mathtext"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// body renders an element's text wrapped to width in one style, with the
// truncation marker when the text was clipped.
func (r *Renderer) body(el *dpe.Element, width int, st interface{ Render(...string) string }) []string {
	s, more := r.text(el.Text)
	lines := styleLines(st, wrap(s, width))
	return r.withMore(lines, more, width)
}

func (r *Renderer) withMore(lines []string, more, width int) []string {
	if more > 0 {
		lines = append(lines, r.theme.Dim.Render(sanitize.Truncate(moreMarker(more), width)))
	}
	return lines
}

// hanging wraps s to width with first prefixed by first and the rest by an
// indent of the same width.
func hanging(first string, s string, width int) []string {
	fw := ansi.StringWidth(first)
	inner := max(width-fw, 1)
	lines := wrap(s, inner)
	indent := strings.Repeat(" ", fw)
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = indent + lines[i]
		}
	}
	return lines
}

// title: depth 0 is the document-level heading with a rule under it; deeper
// levels are marked with one '#' per level, as in Markdown, so the
// hierarchy stays visible without colour.
func (r *Renderer) title(el *dpe.Element, width int) []string {
	d := depth(el)
	s, more := r.text(el.Text)
	s = strings.Join(strings.Fields(s), " ")
	marker := strings.Repeat("#", d+1) + " "
	st := r.theme.Title
	switch {
	case d == 1:
		st = r.theme.Subtitle
	case d >= 2:
		st = r.theme.Heading
	}
	raw := hanging(marker, s, width)
	lines := make([]string, len(raw))
	mw := len(marker)
	for i, l := range raw {
		lines[i] = r.theme.TitleMarker.Render(l[:mw]) + st.Render(l[mw:])
	}
	if d == 0 {
		w := 0
		for _, l := range raw {
			w = max(w, ansi.StringWidth(l))
		}
		lines = append(lines, r.theme.Rule.Render(strings.Repeat("━", min(w, width))))
	}
	return r.withMore(lines, more, width)
}

func (r *Renderer) narrative(el *dpe.Element, width int) []string {
	s, more := r.text(el.Text)
	if looksLikeMarkdown(s) {
		if lines, ok := r.prose(s, width); ok {
			return r.withMore(lines, more, width)
		}
	}
	return r.withMore(styleLines(r.theme.Text, wrap(s, width)), more, width)
}

var bullets = [...]string{"•", "◦", "▪", "‣"}

// listItem: two cells of indent per category_depth, the source's label for
// an ordered item (list.go) or a bullet by depth, and a hanging indent. An
// item whose text already carries its marker ("3.", "a)", "-", "•") keeps
// it instead of getting a second one.
func (r *Renderer) listItem(el *dpe.Element, width int) []string {
	d := depth(el)
	s, more := r.text(el.Text)
	s = strings.Join(strings.Fields(s), " ")
	marker, rest := listMarker(s)
	switch {
	case marker != "":
		s = rest
	case listLabel(el) != "":
		marker = listLabel(el)
	default:
		marker = bullets[d%len(bullets)]
	}
	indent := strings.Repeat("  ", d)
	if 2*d+4 > width {
		indent = ""
	}
	prefix := indent + marker + " "
	lines := hanging(prefix, s, width)
	pw := len(prefix)
	for i, l := range lines {
		if i == 0 {
			lines[i] = indent + r.theme.Bullet.Render(marker) + " " + l[pw:]
		}
	}
	return r.withMore(lines, more, width)
}

// listMarker splits a leading list marker off s.
func listMarker(s string) (marker, rest string) {
	for _, m := range []string{"- ", "* ", "+ ", "• ", "◦ ", "▪ ", "‣ "} {
		if strings.HasPrefix(s, m) {
			return strings.TrimSpace(m), s[len(m):]
		}
	}
	i := 0
	for i < len(s) && i < 4 && (s[i] >= '0' && s[i] <= '9' || (i == 0 && s[i] >= 'a' && s[i] <= 'z')) {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return s[:i+1], s[i+2:]
	}
	return "", s
}

// formula: marked with "ƒ" and a bar, in italics, so it never reads as
// prose. Common LaTeX reads as Unicode (the inspector keeps the raw text).
func (r *Renderer) formula(el *dpe.Element, width int) []string {
	s, more := r.text(el.Text)
	s = mathtext.LaTeXToUnicode(s)
	var lines []string
	for i, l := range wrap(s, max(width-4, 1)) {
		head := "  │ "
		if i == 0 {
			head = "ƒ │ "
		}
		lines = append(lines, r.theme.Bullet.Render(head)+r.theme.Formula.Render(l))
	}
	return r.withMore(lines, more, width)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (r *Renderer) checkBox(el *dpe.Element, width int) []string {
	checked, _ := metaBool(el, "checked")
	box, st := "☐ ", r.theme.Unchecked
	if checked {
		box, st = "☑ ", r.theme.Checked
	}
	s, more := r.text(el.Text)
	s = strings.Join(strings.Fields(s), " ")
	lines := hanging(box, s, width)
	lines[0] = st.Render(box) + strings.TrimPrefix(lines[0], box)
	return r.withMore(lines, more, width)
}

func (r *Renderer) dimmed(el *dpe.Element, width int) []string {
	return r.body(el, width, r.theme.Dim)
}

func (r *Renderer) caption(el *dpe.Element, width int) []string {
	return r.body(el, width, r.theme.Italic)
}

func (r *Renderer) plain(el *dpe.Element, width int) []string {
	return r.body(el, width, r.theme.Text)
}

// pageBreak is a rule across the width, with the element's text (if any)
// set into it.
func (r *Renderer) pageBreak(el *dpe.Element, width int) []string {
	label := sanitize.Truncate(r.line(strings.TrimSpace(el.Text)), max(width-6, 0))
	if label == "" {
		return []string{r.theme.Rule.Render(strings.Repeat("─", width))}
	}
	left := 2
	right := max(width-left-ansi.StringWidth(label)-2, 0)
	return []string{r.theme.Rule.Render(strings.Repeat("─", left)+" ") + r.theme.Dim.Render(label) +
		r.theme.Rule.Render(" "+strings.Repeat("─", right))}
}

// tagged is the fallback for unknown categories: text with a small dim tag
// naming the category (dpe.md: unknown → generic TextElement).
func (r *Renderer) tagged(el *dpe.Element, width int) []string {
	tag := "‹" + sanitize.Truncate(r.line(el.Category), 30) + "›"
	if el.Category == "" {
		tag = "‹no category›"
	}
	lines := []string{r.theme.Tag.Render(sanitize.Truncate(tag, width))}
	return append(lines, r.plain(el, width)...)
}

// link (v0.1 "link"): the text, then the target as visible text (never a
// terminal hyperlink: see onlySGR).
func (r *Renderer) link(el *dpe.Element, width int) []string {
	lines := r.plain(el, width)
	for _, k := range []string{"url", "href", "link_urls", "uri"} {
		if u := strings.Join(metaStrings(el, k), " "); u != "" {
			lines = append(lines, styleLines(r.theme.Dim, hanging("→ ", r.line(u), width))...)
			break
		}
	}
	return lines
}

// media (v0.1 "audio"/"video"): what it is and where, then any text.
func (r *Renderer) media(el *dpe.Element, width int) []string {
	parts := []string{"▶ " + r.line(el.Category)}
	for _, k := range []string{"mime_type", "duration", "url", "uri", "path"} {
		if v := el.MetaString(k); v != "" {
			parts = append(parts, r.line(v))
		}
	}
	lines := styleLines(r.theme.Dim, hanging("", strings.Join(parts, " · "), width))
	if strings.TrimSpace(el.Text) != "" {
		lines = append(lines, r.plain(el, width)...)
	}
	return lines
}

type keyValue struct{ key, value string }

// formKeysValues: aligned "key: value" pairs, from ele_metadata
// key_value_pairs (unstructured's [{key:{text},value:{text}}], plain
// [{key,value}] or an object) or else from "k: v" text lines.
func (r *Renderer) formKeysValues(el *dpe.Element, width int) []string {
	pairs := keyValues(el, r.line)
	if len(pairs) == 0 {
		return r.plain(el, width)
	}
	kw := 0
	for _, p := range pairs {
		kw = max(kw, ansi.StringWidth(p.key))
	}
	kw = min(kw, max(width/3, 1))
	var lines []string
	for _, p := range pairs {
		key := pad(sanitize.Truncate(p.key, kw), kw)
		vw := max(width-kw-2, 1)
		for i, l := range wrap(p.value, vw) {
			if i == 0 {
				lines = append(lines, r.theme.Key.Render(key)+r.theme.Dim.Render(": ")+r.theme.Value.Render(l))
			} else {
				lines = append(lines, strings.Repeat(" ", kw+2)+r.theme.Value.Render(l))
			}
		}
	}
	return lines
}

func keyValues(el *dpe.Element, clean func(string) string) []keyValue {
	var out []keyValue
	add := func(k, v string) {
		out = append(out, keyValue{clean(k), clean(v)})
	}
	if raw, ok := metaRaw(el, "key_value_pairs"); ok {
		var list []map[string]json.RawMessage
		var obj map[string]json.RawMessage
		switch {
		case json.Unmarshal(raw, &list) == nil:
			for _, kv := range list {
				add(kvText(kv["key"]), kvText(kv["value"]))
			}
		case json.Unmarshal(raw, &obj) == nil:
			for _, k := range sortedKeys(obj) {
				add(k, kvText(obj[k]))
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, l := range strings.Split(el.Text, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok || strings.TrimSpace(k) == "" {
			if strings.TrimSpace(l) == "" {
				continue
			}
			return nil
		}
		add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return out
}

// kvText reads a key or value that is a string, a {"text": …} object, or
// anything else (shown as JSON).
func kvText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Text != nil {
		return *o.Text
	}
	return strings.TrimSpace(string(raw))
}
