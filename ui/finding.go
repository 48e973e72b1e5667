package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// maxValueShown bounds the offending value in the finding detail: a
// hostile document can put a megabyte in one field, and the value is
// there to recognise, not to read in full (v shows the raw JSON).
const maxValueShown = 240

// findingDetail explains one conformance finding: the whole message, the
// rule with its id and the spec section it comes from, the offending
// value and the place; enter jumps there. esc goes back to the list.
type findingDetail struct {
	e      *env
	d      *documentScreen
	parent screen
	f      dpe.Finding
	n, of  int
	yoff   int
}

func newFindingDetail(e *env, d *documentScreen, parent screen, f dpe.Finding, n, of int) *findingDetail {
	return &findingDetail{e: e, d: d, parent: parent, f: f, n: n, of: of}
}

func (v *findingDetail) Update(msg tea.Msg) (screen, tea.Cmd) {
	k := v.e.keys
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case matches(msg, k.ListBack):
			return v, v.e.ask(overlayMsg{s: v.parent})
		case matches(msg, k.Enter):
			f := v.f
			if f.Page < 0 || f.Page >= len(v.d.pages) {
				return v, v.e.info("this finding is about the document as a whole: nothing to jump to")
			}
			return v, tea.Batch(v.e.ask(closeOverlayMsg{}), v.e.ask(jumpMsg{page: f.Page, el: max(0, f.Element)}))
		case matches(msg, k.Down):
			v.yoff++
		case matches(msg, k.Up):
			v.yoff = max(0, v.yoff-1)
		}
	}
	return v, nil
}

// valueShown is the offending value as one safe line, cut with a marker
// that says how long it really was.
func valueShown(s string) string {
	line := sanitize.Line(s)
	if ansi.StringWidth(line) <= maxValueShown {
		return line
	}
	return ansi.Truncate(line, maxValueShown, "") + fmt.Sprintf("… [truncated: %d bytes]", len(s))
}

func (v *findingDetail) lines(w int) []string {
	st := v.e.st
	f := v.f
	r := f.RuleInfo()
	sev := st.warnText.Render("! " + f.Severity.String())
	if f.Severity == dpe.Violation {
		sev = st.errText.Render("✗ " + f.Severity.String())
	}
	out := []string{st.title.Render(clip(fmt.Sprintf(" Finding %d/%d", v.n+1, v.of), w-16)) + "  " + sev, ""}
	lw := 10
	field := func(label, value string) {
		parts := wrapCells(value, max(10, w-lw-3))
		for i, p := range parts {
			l := strings.Repeat(" ", lw)
			if i == 0 {
				l = fmt.Sprintf("%-*s", lw, label)
			}
			out = append(out, " "+st.label.Render(l)+" "+p)
		}
	}
	id := f.ID
	if id == "" {
		id = r.ID
	}
	field("rule", sanitizeLine(strings.TrimSpace(id+" "+f.Rule)))
	if r.What != "" {
		field("checks", sanitizeLine(r.What))
	}
	if r.Source != "" {
		field("source", sanitizeLine(r.Source))
	}
	field("message", sanitizeLine(f.Message))
	switch {
	case f.Page < 0:
		field("place", "the document as a whole")
	default:
		place := fmt.Sprintf("page %d", f.Page+1)
		if f.PageIndex >= 0 {
			place += fmt.Sprintf(" (page_index %d)", f.PageIndex)
		}
		if f.Element >= 0 {
			place += fmt.Sprintf(" · element %d", f.Element+1)
			if f.ElementID != "" {
				place += " (element_id " + sanitizeTrunc(f.ElementID, 80) + ")"
			}
		}
		field("place", place)
	}
	if f.Path != "" {
		field("path", sanitizeLine(f.Path))
	}
	if f.Value != "" {
		field("value", valueShown(f.Value))
	}
	out = append(out, "")
	if f.Page >= 0 && f.Page < len(v.d.pages) {
		out = append(out, " "+st.dim.Render("enter jumps to the place · backspace back to the list · esc closes"))
	} else {
		out = append(out, " "+st.dim.Render("backspace back to the list · esc closes"))
	}
	return out
}

func (v *findingDetail) View(w, h int) []string {
	lines := v.lines(w)
	return lines[min(v.yoff, max(0, len(lines)-h)):]
}

func (v *findingDetail) Keys() screenKeys {
	k := v.e.keys
	return screenKeys{
		short: []key2{withHelp(k.Enter, "jump"), k.ListBack, withHelp(k.Cancel, "close")},
		full:  [][]key2{{k.Up, k.Down}, {withHelp(k.Enter, "jump to the place"), k.ListBack, withHelp(k.Cancel, "close")}, k.globalKeys()},
	}
}

func (v *findingDetail) Crumb() string { return "conformance › finding" }
