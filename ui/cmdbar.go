package ui

import (
	"errors"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
)

type barMode int

const (
	barOpen barMode = iota + 1
	barCommand
	barFilter
	barSearch
	barExportDoc
	barExportPage
	barSaveImage
	barSaveContent
)

// cmdBar is the one-line prompt at the bottom: open by URI (validated as you
// type), `:N` page jumps, filter, search and file names.
type cmdBar struct {
	active bool
	mode   barMode
	input  textinput.Model
	// hint is the live validation result shown after the input.
	hint   string
	hintOK bool
}

func newCmdBar() cmdBar {
	ti := textinput.New()
	ti.SetVirtualCursor(false)
	ti.CharLimit = 4096
	return cmdBar{input: ti}
}

func (b *cmdBar) prompt() string {
	switch b.mode {
	case barOpen:
		return "open "
	case barCommand:
		return ":"
	case barFilter:
		return "filter /"
	case barSearch:
		return "search /"
	case barExportDoc:
		return "export document to "
	case barExportPage:
		return "export page to "
	case barSaveImage:
		return "save image as "
	case barSaveContent:
		return "save content as "
	}
	return "> "
}

func (b *cmdBar) open(m *model, mode barMode, value string) tea.Cmd {
	b.active = true
	b.mode = mode
	b.input.Prompt = b.prompt()
	b.input.SetStyles(barStyles(m))
	b.input.SetValue(value)
	b.input.CursorEnd()
	// leave room for the live hint after the input
	b.input.SetWidth(max(20, (m.width-len(b.input.Prompt))*55/100))
	b.validate(m)
	return b.input.Focus()
}

func barStyles(m *model) textinput.Styles {
	s := textinput.DefaultStyles(m.theme != "light")
	s.Focused.Prompt = m.st.barPrompt
	s.Blurred.Prompt = m.st.barPrompt
	return s
}

func (b *cmdBar) close() {
	b.active = false
	b.input.Blur()
	b.hint = ""
}

// validate refreshes the hint: dpe.ParseURI's reason for URIs, the page
// range for `:N`, the match count for the filter.
func (b *cmdBar) validate(m *model) {
	v := strings.TrimSpace(b.input.Value())
	b.hint, b.hintOK = "", false
	switch b.mode {
	case barOpen, barCommand:
		if b.mode == barCommand && isDigits(v) {
			if m.doc == nil || m.screen != screenDocument {
				b.hint = "page jumps work in the document view"
				return
			}
			n, _ := strconv.Atoi(v)
			if n < 1 || n > len(m.doc.pages) {
				b.hint = "no such page (1–" + strconv.Itoa(len(m.doc.pages)) + ")"
				return
			}
			b.hint, b.hintOK = "enter: go to page "+v, true
			return
		}
		if v == "" {
			if b.mode == barCommand {
				b.hint = "type a page number or a dpe:// URI"
			} else {
				b.hint = "type or paste a dpe:// URI"
			}
			return
		}
		if _, err := dpe.ParseURI(v); err != nil {
			var ue *dpe.URIError
			if errors.As(err, &ue) {
				b.hint = ue.Reason
			} else {
				b.hint = oneLine(err)
			}
			return
		}
		b.hint, b.hintOK = "✓ valid dpe URI · enter opens", true
	case barFilter:
		b.hint, b.hintOK = strconv.Itoa(len(m.res.visible))+" match", true
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (b *cmdBar) update(m *model, msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "esc":
			if b.mode == barFilter {
				// esc on the filter clears it, as in bubbles/list
				m.res.filter = ""
				m.res.refilter()
			}
			b.close()
			return nil
		case "enter":
			return b.submit(m)
		}
	}
	var cmd tea.Cmd
	b.input, cmd = b.input.Update(msg)
	if b.mode == barFilter {
		m.res.filter = b.input.Value()
		m.res.refilter()
	}
	b.validate(m)
	return cmd
}

func (b *cmdBar) submit(m *model) tea.Cmd {
	v := strings.TrimSpace(b.input.Value())
	mode := b.mode
	switch mode {
	case barOpen, barCommand:
		if !b.hintOK {
			return nil // keep the bar open with the reason showing
		}
		b.close()
		if mode == barCommand && isDigits(v) {
			n, _ := strconv.Atoi(v)
			return m.doc.gotoPage(m, n-1, 0)
		}
		return m.openDPE(v, nil)
	case barFilter:
		b.close()
		return nil
	case barSearch:
		b.close()
		if m.doc == nil {
			return nil
		}
		return m.doc.startSearch(m, v)
	case barExportDoc, barExportPage:
		b.close()
		if v == "" {
			return m.setStatus(statusInfo, "export cancelled: no file name")
		}
		return m.export(v, mode == barExportPage)
	case barSaveImage:
		b.close()
		if v == "" {
			return m.setStatus(statusInfo, "save cancelled: no file name")
		}
		return m.saveImage(v)
	case barSaveContent:
		b.close()
		if v == "" {
			return m.setStatus(statusInfo, "save cancelled: no file name")
		}
		return m.saveContent(v)
	}
	b.close()
	return nil
}

// view is the prompt line; the real terminal cursor is placed by View.
func (b *cmdBar) view(m *model, w int) (string, *tea.Cursor) {
	line := b.input.View()
	if b.hint != "" {
		style := m.st.barErr
		if b.hintOK {
			style = m.st.barOK
		}
		line += "  " + style.Render(sanitizeLine(b.hint))
	}
	return clip(line, w), b.input.Cursor()
}
