package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// conformanceOverlay lists dpe.Validate findings; enter jumps to the page
// and element a finding names.
type conformanceOverlay struct {
	e    *env
	d    *documentScreen
	list scroller
}

func newConformance(e *env, d *documentScreen) *conformanceOverlay {
	return &conformanceOverlay{e: e, d: d}
}

func (v *conformanceOverlay) Update(msg tea.Msg) (screen, tea.Cmd) {
	e := v.e
	k := e.keys
	f := v.d.findings
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if v.list.nav(k, msg, len(f), e.bodyHeight()-2) {
			return v, nil
		}
		switch {
		case matches(msg, k.Back, k.Conformance):
			return v, v.e.ask(closeOverlayMsg{})
		case matches(msg, k.Enter):
			if v.list.cur >= len(f) {
				return v, nil
			}
			return v, v.e.ask(overlayMsg{s: newFindingDetail(e, v.d, v, f[v.list.cur], v.list.cur, len(f))})
		}
	case tea.MouseWheelMsg:
		v.list.wheel(msg.Button == tea.MouseWheelUp, len(f), e.bodyHeight()-2)
	}
	return v, nil
}

func (v *conformanceOverlay) View(w, h int) []string {
	st := v.e.st
	d := v.d
	if !d.validated {
		return []string{"", "  " + v.e.spin.View() + " validating…"}
	}
	vio, warn, notes := countFindings(d.findings)
	head := " Conformance · " + counted(vio, "violation", "violations") + " · " + counted(warn, "warning", "warnings")
	if notes > 0 {
		// A note is advice: counted apart, not as a warning.
		head += " · " + counted(notes, "note", "notes")
	}
	if len(d.findings) == 0 {
		return []string{st.title.Render(head), "", "  " + st.okText.Render("✓ the document conforms to the DPE content format")}
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
		switch f.Severity {
		case dpe.Violation:
			sev = st.errText.Render("✗")
		case dpe.Note:
			sev = st.dim.Render("i")
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
	return out
}

func (v *conformanceOverlay) Keys() screenKeys {
	k := v.e.keys
	return screenKeys{
		short: []key2{withHelp(k.Enter, "details"), k.Up, k.Down, withHelp(k.Back, "close")},
		full:  [][]key2{k.navKeys(), {withHelp(k.Enter, "finding details (enter there jumps)")}, k.globalKeys()},
	}
}

func (v *conformanceOverlay) Crumb() string { return "conformance" }
