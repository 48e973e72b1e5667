package ui

import (
	"encoding/json"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
)

type rawScope int

const (
	scopeElement rawScope = iota
	scopePage
	scopeDocument
)

func (s rawScope) String() string {
	return [...]string{"element", "page", "document"}[s]
}

// rawView is the raw JSON of the element, page or document, syntax coloured
// and foldable by render.JSON (issue 4 "rendered ⇄ raw JSON").
type rawView struct {
	scope  rawScope
	cur    int
	yoff   int
	folded map[string]bool
	cache  []render.JSONLine
	key    string
}

func newRawView(s rawScope) rawView {
	return rawView{scope: s, folded: map[string]bool{}}
}

func (v *rawView) invalidate() { v.cache = nil }

// rawBytes returns the JSON for the current scope. The document's own bytes
// are not kept after decoding, so the document scope is reassembled from
// its fields and each page object exactly as it arrived.
func (m *model) rawBytes(s rawScope) []byte {
	d := m.doc
	if d == nil {
		return nil
	}
	switch s {
	case scopeElement:
		if el := d.selected(); el != nil {
			return el.Raw
		}
		return nil
	case scopePage:
		if p := d.curPage(); p != nil {
			return p.Raw
		}
		return nil
	}
	if len(d.op.Body) > 0 {
		return d.op.Body
	}
	return documentJSON(d)
}

func documentJSON(d *documentView) []byte {
	doc := d.doc()
	obj := map[string]any{}
	for k, v := range doc.Extra {
		obj[k] = v
	}
	set := func(k string, v any, ok bool) {
		if ok {
			obj[k] = v
		}
	}
	set("doc_ref", doc.DocRef, doc.DocRef != "")
	set("uri", doc.URI, doc.URI != "")
	set("file_uri", doc.FileURI, doc.FileURI != "")
	set("file_type", doc.FileType, doc.FileType != "")
	set("title", doc.Title, doc.Title != "")
	set("summary", doc.Summary, doc.Summary != "")
	set("page_count", doc.PageCount, doc.PageCount != 0)
	set("keywords", doc.Keywords, len(doc.Keywords) > 0)
	set("last_modified", doc.LastModified, doc.LastModified != "")
	pages := make([]json.RawMessage, 0, len(doc.Pages))
	for i, p := range doc.Pages {
		if len(p.Raw) > 0 && (d.pages == nil || i >= len(d.pages) || !d.pages[i].loading) {
			pages = append(pages, p.Raw)
		} else {
			pages = append(pages, json.RawMessage(`null`))
		}
	}
	obj["pages"] = pages
	b, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return []byte(fmt.Sprintf(`{"error": %q}`, err.Error()))
	}
	return b
}

func (v *rawView) lines(m *model, w int) []render.JSONLine {
	key := fmt.Sprintf("%d/%d/%s/%d/%d/%d", v.scope, w, m.theme, m.docPage(), m.docSel(), len(v.folded))
	if v.cache != nil && v.key == key {
		return v.cache
	}
	raw := m.rawBytes(v.scope)
	v.key = key
	if len(raw) == 0 {
		v.cache = []render.JSONLine{{Text: m.st.dim.Render(fmt.Sprintf("no raw JSON for this %s", v.scope))}}
		return v.cache
	}
	v.cache = render.JSONView(raw, w-gutterW, render.NewTheme(m.theme), v.folded, render.Limits{})
	return v.cache
}

func (m *model) docPage() int {
	if m.doc == nil {
		return -1
	}
	return m.doc.page
}

func (m *model) docSel() int {
	if m.doc == nil {
		return -1
	}
	return m.doc.sel
}

func (v *rawView) handleKey(m *model, msg tea.KeyPressMsg) tea.Cmd {
	lines := v.lines(m, m.width)
	n := len(lines)
	h := m.bodyHeight() - 1
	switch msg.String() {
	case "up", "k":
		v.cur--
	case "down", "j":
		v.cur++
	case "pgup", "ctrl+b", "ctrl+u":
		v.cur -= h - 1
	case "pgdown", "ctrl+f", "ctrl+d", "space":
		v.cur += h - 1
	case "g", "home":
		v.cur = 0
	case "G", "end":
		v.cur = n - 1
	case "tab":
		v.scope = (v.scope + 1) % 3
		v.cur, v.yoff = 0, 0
		v.folded = map[string]bool{}
		v.invalidate()
	case "z", "enter":
		if v.cur >= 0 && v.cur < n && lines[v.cur].Foldable {
			p := lines[v.cur].Path
			if v.folded[p] {
				delete(v.folded, p)
			} else {
				v.folded[p] = true
			}
			v.invalidate()
		}
	case "Z":
		// unfold everything, or fold every container one level down
		if len(v.folded) > 0 {
			v.folded = map[string]bool{}
		} else {
			for _, l := range lines {
				if l.Foldable && l.Depth == 1 {
					v.folded[l.Path] = true
				}
			}
		}
		v.invalidate()
		v.cur = 0
	case "v":
		m.overlay = overlayNone
	case "y":
		m.copyMenu = true
	}
	n = len(v.lines(m, m.width))
	l := listCursor{cur: v.cur, top: v.yoff}
	l.clamp(n, h)
	v.cur, v.yoff = l.cur, l.top
	return nil
}

func (v *rawView) view(m *model, w, h int) []string {
	title := fmt.Sprintf(" Raw JSON · %s", v.scope)
	if m.doc != nil {
		switch v.scope {
		case scopeElement:
			if el := m.doc.selected(); el != nil {
				title += fmt.Sprintf(" %d on page %d (%s)", m.doc.sel+1, m.doc.page+1, sanitizeLine(dpe.NormalizeCategory(el.Category)))
			}
		case scopePage:
			title += fmt.Sprintf(" %d", m.doc.page+1)
		case scopeDocument:
			if len(m.doc.op.Body) == 0 {
				title += " (reassembled: fields + each page object as received)"
			}
		}
	}
	title += "  · tab element/page/document"
	lines := v.lines(m, w)
	l := listCursor{cur: v.cur, top: v.yoff}
	l.clamp(len(lines), h-1)
	v.cur, v.yoff = l.cur, l.top
	out := []string{m.st.title.Render(clip(title, w))}
	for i := v.yoff; i < len(lines) && len(out) < h; i++ {
		g := "  "
		if i == v.cur {
			g = m.st.gutter.Render("▌ ")
		}
		out = append(out, g+lines[i].Text)
	}
	return box(out, w, h)
}
