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

// rawOverlay is the raw JSON of the element, page or document, syntax
// coloured and foldable by render.JSONView.
type rawOverlay struct {
	e      *env
	d      *documentScreen
	scope  rawScope
	list   scroller
	folded map[string]bool
	cache  []render.JSONLine
	key    string
}

func newRawOverlay(e *env, d *documentScreen, s rawScope) *rawOverlay {
	return &rawOverlay{e: e, d: d, scope: s, folded: map[string]bool{}}
}

// rawBytes returns the JSON for the current scope. The document's own
// bytes are not kept after decoding a manifest, so the document scope is
// then reassembled from its fields and each page as the UI holds it.
func (v *rawOverlay) rawBytes() []byte {
	d := v.d
	switch v.scope {
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
	if len(d.op.Body) > 0 && !d.hasManifestPages() {
		return d.op.Body
	}
	return documentJSON(d)
}

func (d *documentScreen) hasManifestPages() bool {
	for i := range d.pages {
		if d.pages[i].manifest {
			return true
		}
	}
	return false
}

// pageJSON is page i as the UI holds it: the page object as it arrived,
// or for a loaded manifest page its header with the elements fetched.
func pageJSON(d *documentScreen, i int, p *dpe.Page) json.RawMessage {
	pu := d.pages[i]
	if !pu.manifest || pu.p == nil {
		if len(p.Raw) > 0 {
			return p.Raw
		}
		return json.RawMessage(`null`)
	}
	els := make([]json.RawMessage, 0, len(pu.p.Elements))
	for _, el := range pu.p.Elements {
		els = append(els, el.Raw)
	}
	b, err := json.Marshal(map[string]any{"page_index": p.Index, "title": p.Title, "elements": els})
	if err != nil {
		return json.RawMessage(`null`)
	}
	return b
}

func documentJSON(d *documentScreen) []byte {
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
		pages = append(pages, pageJSON(d, i, p))
	}
	obj["pages"] = pages
	b, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return []byte(fmt.Sprintf(`{"error": %q}`, err.Error()))
	}
	return b
}

func (v *rawOverlay) lines(w int) []render.JSONLine {
	key := fmt.Sprintf("%d/%d/%d/%d/%d/%d", v.scope, w, v.e.themeGen, v.d.page, v.d.sel, len(v.folded))
	if v.cache != nil && v.key == key {
		return v.cache
	}
	raw := v.rawBytes()
	v.key = key
	if len(raw) == 0 {
		v.cache = []render.JSONLine{{Text: v.e.st.dim.Render(fmt.Sprintf("no raw JSON for this %s", v.scope))}}
		return v.cache
	}
	v.cache = render.JSONView(raw, w-gutterW, render.NewTheme(v.e.theme), v.folded, render.Limits{})
	return v.cache
}

func (v *rawOverlay) Update(msg tea.Msg) (screen, tea.Cmd) {
	e := v.e
	k := e.keys
	h := e.bodyHeight() - 1
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		lines := v.lines(e.width)
		n := len(lines)
		if v.list.nav(k, msg, n, h) {
			return v, nil
		}
		switch {
		case matches(msg, k.Back, k.Raw):
			return v, v.e.ask(closeOverlayMsg{})
		case matches(msg, k.Scope):
			v.scope = (v.scope + 1) % 3
			v.list = scroller{}
			v.folded = map[string]bool{}
			v.cache = nil
		case matches(msg, k.Fold):
			if v.list.cur >= 0 && v.list.cur < n && lines[v.list.cur].Foldable {
				p := lines[v.list.cur].Path
				if v.folded[p] {
					delete(v.folded, p)
				} else {
					v.folded[p] = true
				}
				v.cache = nil
			}
		case matches(msg, k.FoldAll):
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
			v.cache = nil
			v.list.cur = 0
		case matches(msg, k.Copy):
			c := copyMenuMsg{resURI: v.d.uri, access: v.d.op.Access.URI}
			if el := v.d.selected(); el != nil {
				c.text, c.json = el.Text, string(el.Raw)
			}
			return v, v.e.ask(c)
		}
		v.list.clamp(len(v.lines(e.width)), h)
	case tea.MouseWheelMsg:
		v.list.wheel(msg.Button == tea.MouseWheelUp, len(v.lines(e.width)), h)
	}
	return v, nil
}

func (v *rawOverlay) View(w, h int) []string {
	d := v.d
	title := fmt.Sprintf(" Raw JSON · %s", v.scope)
	switch v.scope {
	case scopeElement:
		if el := d.selected(); el != nil {
			title += fmt.Sprintf(" %d on page %d (%s)", d.sel+1, d.page+1, sanitizeLine(dpe.NormalizeCategory(el.Category)))
		}
	case scopePage:
		title += fmt.Sprintf(" %d", d.page+1)
	case scopeDocument:
		if len(d.op.Body) == 0 || d.hasManifestPages() {
			title += " (reassembled: fields + each page object as received)"
		}
	}
	title += "  · tab element/page/document"
	lines := v.lines(w)
	v.list.clamp(len(lines), h-1)
	out := []string{v.e.st.title.Render(clip(title, w))}
	for i := v.list.top; i < len(lines) && len(out) < h; i++ {
		g := "  "
		if i == v.list.cur {
			g = v.e.st.gutter.Render("▌ ")
		}
		out = append(out, g+lines[i].Text)
	}
	return out
}

func (v *rawOverlay) Keys() screenKeys {
	k := v.e.keys
	return screenKeys{
		short: []key2{k.Fold, k.Scope, k.Up, k.Down, withHelp(k.Back, "close")},
		full:  [][]key2{k.navKeys(), {k.Fold, k.FoldAll, k.Scope, k.Copy}, k.globalKeys()},
	}
}

func (v *rawOverlay) Crumb() string { return "raw JSON" }
