package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
)

// inspectorView shows everything about one element: category, ids,
// structure, coordinates, every ele_metadata field (complete, not
// truncated) and the element's raw JSON.
type inspectorView struct {
	yoff  int
	cache []string
	key   string
}

// maxInspect bounds one value in the inspector so a hostile 100 MB string
// cannot stall the view.
const maxInspect = 64 << 10

func (v *inspectorView) invalidate() { v.cache = nil }

func (v *inspectorView) handleKey(m *model, msg tea.KeyPressMsg) tea.Cmd {
	n := len(v.lines(m, m.width))
	h := m.bodyHeight()
	switch msg.String() {
	case "up", "k":
		v.yoff--
	case "down", "j":
		v.yoff++
	case "pgup", "ctrl+b", "ctrl+u":
		v.yoff -= h - 1
	case "pgdown", "ctrl+f", "ctrl+d", "space":
		v.yoff += h - 1
	case "g", "home":
		v.yoff = 0
	case "G", "end":
		v.yoff = n
	case "y":
		m.copyMenu = true
	case "v":
		m.raw = newRawView(scopeElement)
		m.overlay = overlayRaw
	case "enter":
		m.overlay = overlayNone
	}
	v.yoff = max(0, min(v.yoff, n-h))
	return nil
}

func (v *inspectorView) lines(m *model, w int) []string {
	d := m.doc
	if d == nil {
		return nil
	}
	el := d.selected()
	if el == nil {
		return []string{"", m.st.dim.Render("  no element selected")}
	}
	key := fmt.Sprintf("%p/%d/%s", el, w, m.theme)
	if v.cache != nil && v.key == key {
		return v.cache
	}
	st := m.st
	var out []string
	kv := func(k, val string) {
		// ele_metadata keys are peer text too: sanitized before fit.
		k = sanitizeLine(k)
		// complete value, wrapped over lines; sanitized, never truncated
		more := 0
		if len(val) > maxInspect {
			// complete up to a generous cap; y t / y j copy the whole value
			more = len(val) - maxInspect
			val = val[:maxInspect]
		}
		val = displayText(val)
		if more > 0 {
			val += fmt.Sprintf("\n… %s more (y t copies the whole text)", humanBytes(int64(more)))
		}
		first := true
		for _, l := range strings.Split(val, "\n") {
			for _, chunk := range wrapCells(l, max(10, w-22)) {
				label := ""
				if first {
					label = k
				}
				out = append(out, "  "+st.label.Render(fit(label, 18))+" "+chunk)
				first = false
			}
		}
		if first {
			out = append(out, "  "+st.label.Render(fit(k, 18)))
		}
	}
	section := func(s string) {
		out = append(out, "", " "+st.title.Render(s))
	}
	cat := dpe.NormalizeCategory(el.Category)
	out = append(out, " "+st.title.Render(fmt.Sprintf("Element %d of page %d", d.sel+1, d.page+1)))
	catLine := cat
	if cat != el.Category {
		catLine += "  (as sent: " + el.Category + ")"
	}
	if !dpe.IsKnownCategory(cat) {
		catLine += "  (not a standard category: rendered as text)"
	}
	kv("category", catLine)
	kv("element_id", orDash(el.ID))
	kv("doc_ref", orDash(el.DocRef))
	kv("page_index", fmt.Sprint(el.PageIndex))
	section("Structure")
	kv("parent_id", orDash(metaText(el, "parent_id")))
	kv("related_ids", orDash(metaText(el, "related_ids")))
	kv("category_depth", orDash(metaText(el, "category_depth")))
	section("Coordinates")
	kv("coordinates", orDash(metaText(el, "coordinates")))
	section("Text")
	kv("text", el.Text)
	section(fmt.Sprintf("ele_metadata (%d fields)", len(el.Metadata)))
	keys := make([]string, 0, len(el.Metadata))
	for k := range el.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := metaText(el, k)
		if k == "image_base64" && len(val) > 120 {
			val = fmt.Sprintf("%s… (%d base64 chars; s saves the image)", val[:80], len(val))
		}
		kv(k, val)
	}
	section("Raw JSON")
	out = append(out, render.JSON(el.Raw, w-2, render.NewTheme(m.theme), nil)...)
	v.cache, v.key = out, key
	return out
}

// metaText shows one ele_metadata field: strings unquoted, the rest as
// compact JSON.
func metaText(el *dpe.Element, k string) string {
	raw, ok := el.Metadata[k]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err == nil {
		return buf.String()
	}
	return string(raw)
}

func (v *inspectorView) view(m *model, w, h int) []string {
	lines := v.lines(m, w)
	v.yoff = max(0, min(v.yoff, len(lines)-h))
	return box(lines[min(v.yoff, len(lines)):], w, h)
}
