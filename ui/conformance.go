package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// conformanceView lists dpe.Validate findings; enter jumps to the page and
// element a finding names.
type conformanceView struct {
	list listCursor
}

func (v *conformanceView) handleKey(m *model, msg tea.KeyPressMsg) tea.Cmd {
	if m.doc == nil {
		return nil
	}
	f := m.doc.findings
	if m.navKey(&v.list, msg.String(), len(f), m.bodyHeight()-2) {
		return nil
	}
	switch msg.String() {
	case "c":
		m.overlay = overlayNone
	case "enter":
		if v.list.cur >= len(f) {
			return nil
		}
		x := f[v.list.cur]
		if x.Page < 0 || x.Page >= len(m.doc.pages) {
			return m.setStatus(statusInfo, "this finding is about the document as a whole: "+sanitizeLine(x.Path))
		}
		m.overlay = overlayNone
		return m.doc.gotoPage(m, x.Page, max(0, x.Element))
	}
	return nil
}

func (v *conformanceView) view(m *model, w, h int) []string {
	st := m.st
	d := m.doc
	if d == nil {
		return box([]string{"", st.dim.Render("  open a document to check its conformance")}, w, h)
	}
	if !d.validated {
		return box([]string{"", "  " + m.spin.View() + " validating…"}, w, h)
	}
	vio, warn := countFindings(d.findings)
	head := fmt.Sprintf(" Conformance · %d violations · %d warnings", vio, warn)
	if len(d.findings) == 0 {
		return box([]string{st.title.Render(head), "", "  " + st.okText.Render("✓ the document conforms to the DPE content format")}, w, h)
	}
	cols := []column{{"", 1}, {"RULE", 0}, {"WHERE", 0}, {"MESSAGE", 0}}
	rest := w - 2 - 1 - 3*2
	cols[1].width = max(8, rest*22/100)
	cols[2].width = max(8, rest*28/100)
	cols[3].width = max(8, rest-cols[1].width-cols[2].width)
	out := []string{st.title.Render(clip(head, w)), "  " + st.colHead.Render(joinCols(cols, colHeader(cols)))}
	v.list.clamp(len(d.findings), h-2)
	for i := v.list.top; i < len(d.findings) && len(out) < h; i++ {
		f := d.findings[i]
		sev := st.warnText.Render("!")
		if f.Severity == dpe.Violation {
			sev = st.errText.Render("✗")
		}
		where := sanitizeLine(f.Path)
		if f.Page >= 0 {
			where = fmt.Sprintf("p%d", f.Page+1)
			if f.Element >= 0 {
				where += fmt.Sprintf(" e%d", f.Element+1)
			}
			where += " " + sanitizeLine(f.Path)
		}
		row := joinCols(cols[1:], []string{sanitizeLine(f.Rule), where, sanitizeLine(f.Message)})
		if i == v.list.cur {
			out = append(out, st.gutter.Render("▌")+sev+" "+st.selRow.Render(fit(row, w-3)))
		} else {
			out = append(out, " "+sev+" "+clip(row, w-3))
		}
	}
	return box(out, w, h)
}
