package ui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

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

// cmdBar is the one-line prompt at the bottom: open by URI (validated as
// you type), `:N` page jumps, filter, search and file names. It keeps a
// history per mode (↑/↓).
type cmdBar struct {
	active bool
	mode   barMode
	input  textinput.Model
	// hint is the live validation result shown after the input.
	hint     string
	hintOK   bool
	validate func(string) (string, bool)
	history  map[barMode][]string
	// hist is the history entry shown (-1: the line being typed).
	hist    int
	editing string
	// toOverlay: the overlay opened the prompt, so its answers go there
	// (raw JSON's search), not to the screen under it.
	toOverlay bool
	// width is the terminal's, which the input and its hint share.
	width int
	// files: the o prompt also takes a local file's path (the TUI can
	// convert files: open FILE and --docs sessions).
	files bool
}

// maxHistory bounds each mode's history.
const maxHistory = 50

func newCmdBar() cmdBar {
	ti := textinput.New()
	ti.SetVirtualCursor(false)
	ti.CharLimit = 4096
	return cmdBar{input: ti, history: map[barMode][]string{}}
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

func (b *cmdBar) open(m *model, req promptMsg) tea.Cmd {
	b.active = true
	b.mode = req.mode
	b.validate = req.validate
	b.toOverlay = req.overlay
	b.files = m.e.opt.OpenFile != nil
	b.hist = -1
	b.input.Prompt = b.prompt()
	b.input.SetStyles(barStyles(m.e))
	b.width = m.e.width
	b.input.SetValue(req.value)
	b.refresh()
	b.input.CursorEnd()
	return b.input.Focus()
}

// fit gives the input the line's room after the prompt and the live hint,
// so a proposed file name shows whole (at 55% of 80 columns an export's
// name showed without its start); a long hint is cut rather than the input
// made narrower than 55% of the room.
func (b *cmdBar) fit() {
	room := max(0, b.width-ansi.StringWidth(b.input.Prompt)-1) // the cursor's cell
	w := room
	if b.hint != "" {
		w = max(room-ansi.StringWidth(sanitizeLine(b.hint))-2, room*55/100)
	}
	b.input.SetWidth(max(20, w))
	b.input.SetCursor(b.input.Position()) // scroll for the new width
}

// resize follows the terminal's width.
func (b *cmdBar) resize(w int) {
	b.width = w
	if b.active {
		b.fit()
	}
}

func barStyles(e *env) textinput.Styles {
	s := textinput.DefaultStyles(e.theme != "light")
	s.Focused.Prompt = e.st.barPrompt
	s.Blurred.Prompt = e.st.barPrompt
	return s
}

func (b *cmdBar) close() {
	b.active = false
	b.input.Blur()
	b.hint = ""
}

// refresh recomputes the hint: the caller's validation, else
// dpe.ParseURI's reason for URIs.
func (b *cmdBar) refresh() {
	v := strings.TrimSpace(b.input.Value())
	b.hint, b.hintOK = "", false
	switch {
	case b.mode == barOpen && b.files && typedPath(v):
		b.hint, b.hintOK = "✓ local file · enter converts and opens it", true
	case b.validate != nil:
		b.hint, b.hintOK = b.validate(v)
	case b.mode == barOpen:
		b.hint, b.hintOK = uriHint(v, "type or paste a dpe:// URI")
	}
	b.fit()
}

// typedPath says whether what the o prompt holds is a local file's path
// (or file:// URI) rather than the start of a URI: it begins with /, ./,
// ../, ~/ or file://, as a path typed in a shell does.
func typedPath(v string) bool {
	for _, p := range []string{"/", "./", "../", "~/", "file://"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

// expandHome is a typed path with a leading ~/ made the home directory's,
// as a shell would.
func expandHome(v string) string {
	if rest, ok := strings.CutPrefix(v, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return v
}

func uriHint(v, empty string) (string, bool) {
	if v == "" {
		return empty, false
	}
	// Checked as it will be sent: normalised once (a space or é typed
	// raw is percent-encoded), as submit and the headless commands do.
	if _, err := dpe.NormalizeURI(v); err != nil {
		var ue *dpe.URIError
		if errors.As(err, &ue) {
			return ue.Reason, false
		}
		return oneLine(err), false
	}
	return "✓ valid dpe URI · enter opens", true
}

// commandHint validates `:` input: a page number on the document screen,
// else a URI.
func (m *model) commandHint(v string) (string, bool) {
	if isDigits(v) {
		d, ok := m.top().(pageJumper)
		if !ok {
			return "page jumps work in the document view", false
		}
		return d.pageHint(v)
	}
	return uriHint(v, "type a page number or a dpe:// URI")
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
	k := m.e.keys
	if key, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case matches(key, k.Cancel):
			mode := b.mode
			b.close()
			return b.answer(m, promptDoneMsg{mode: mode, cancelled: true})
		case matches(key, k.Enter):
			return b.submit(m)
		case matches(key, k.HistPrev, k.HistNext):
			b.browse(matches(key, k.HistPrev))
			b.changed(m)
			return nil
		}
	}
	var cmd tea.Cmd
	b.input, cmd = b.input.Update(msg)
	return tea.Batch(cmd, b.changed(m))
}

// browse moves through the history: ↑ older, ↓ newer, back to the line
// being typed.
func (b *cmdBar) browse(older bool) {
	h := b.history[b.mode]
	if len(h) == 0 {
		return
	}
	if b.hist < 0 {
		b.editing = b.input.Value()
	}
	switch {
	case older && b.hist < len(h)-1:
		b.hist++
	case !older && b.hist >= 0:
		b.hist--
	}
	if b.hist < 0 {
		b.input.SetValue(b.editing)
	} else {
		b.input.SetValue(h[len(h)-1-b.hist])
	}
	b.input.CursorEnd()
}

func (b *cmdBar) changed(m *model) tea.Cmd {
	var cmd tea.Cmd
	if b.mode == barFilter {
		cmd = b.answer(m, promptChangedMsg{mode: b.mode, value: b.input.Value()})
	}
	b.refresh()
	return cmd
}

func (b *cmdBar) remember(v string) {
	if v == "" {
		return
	}
	h := b.history[b.mode]
	if len(h) > 0 && h[len(h)-1] == v {
		return
	}
	h = append(h, v)
	if len(h) > maxHistory {
		h = h[len(h)-maxHistory:]
	}
	b.history[b.mode] = h
}

func (b *cmdBar) submit(m *model) tea.Cmd {
	raw := b.input.Value()
	v := strings.TrimSpace(raw)
	mode := b.mode
	switch mode {
	case barOpen, barCommand:
		if !b.hintOK {
			if mode == barCommand {
				// A jump that cannot happen (no such page, not a
				// number nor a URI): say so and close, so the next :
				// starts afresh instead of appending to "999".
				why := b.hint
				if !isDigits(v) {
					why = "not a page number nor a dpe:// URI (" + why + ")"
				}
				b.remember(v)
				b.close()
				if v == "" {
					return nil // nothing typed, nothing to say
				}
				return m.e.setStatus(statusErr, ":"+v+": "+why)
			}
			// Keep the bar open to fix the URI, with the reason on the
			// status line too (a narrow bar can cut the hint).
			return m.e.setStatus(statusErr, b.hint)
		}
		b.remember(v)
		b.close()
		if mode == barOpen && b.files && typedPath(v) {
			// A local file opens as open FILE opens it, over the screen
			// shown (esc comes back), through the one local-file rule.
			return m.e.ask(openFileMsg{target: expandHome(v), over: true})
		}
		if mode == barCommand && isDigits(v) {
			return b.answer(m, promptDoneMsg{mode: mode, value: v})
		}
		// A typed URI is normalised once (non-ASCII percent-encoded,
		// existing escapes kept), as the headless commands do.
		if n, err := dpe.NormalizeURI(v); err == nil {
			v = n
		}
		// Over what is shown: esc right after goes back to it, the open
		// undone, instead of past it to the list.
		return m.openDPE(openURIMsg{uri: v, over: true})
	}
	b.remember(v)
	b.close()
	if mode == barSearch {
		v = raw
	}
	return b.answer(m, promptDoneMsg{mode: mode, value: v})
}

// answer hands the prompt's value to whoever opened it.
func (b *cmdBar) answer(m *model, msg tea.Msg) tea.Cmd {
	if b.toOverlay && m.overlay != nil {
		var cmd tea.Cmd
		m.overlay, cmd = m.overlay.Update(msg)
		return cmd
	}
	return m.toTopScreen(msg)
}

// view is the prompt line; the real terminal cursor is placed by View.
func (b *cmdBar) view(m *model, w int) (string, *tea.Cursor) {
	line := b.input.View()
	if b.hint != "" {
		style := m.e.st.barErr
		if b.hintOK {
			style = m.e.st.barOK
		}
		line += "  " + style.Render(sanitizeLine(b.hint))
	}
	return clip(line, w), b.input.Cursor()
}
