package ui

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// contentScreen shows what an access URI served when it was not a DPE
// document: Markdown through Glamour (the theme's style), text as is
// (sanitized), binary as a summary with an offer to save it.
type contentScreen struct {
	e     *env
	op    *dpe.Opened
	uri   string
	trace *traceLog
	lines []string
	width int
	sc    scroller
	renOp int
	// local is set when the content was read from the local computer with
	// MCP resources/read rather than fetched from an access URI.
	local *localSource
}

// localSource is where a resources/read content came from.
type localSource struct {
	server   string
	fileName string // safe save name, from the URI's last segment
	json     bool   // pretty-printed JSON
	count    int    // contents in the answer (the first is shown)
	// from says where it came from when not from server's resources/read.
	from string
	// via names the requests that read it when not resources/read.
	via string
}

// newLocalContentScreen shows the first content of a resources/read.
func newLocalContentScreen(e *env, msg localReadMsg) *contentScreen {
	c := &contentScreen{e: e, op: msg.opened, uri: msg.uri, trace: newTraceLog(msg.uri, ""), sc: scroller{lines: true}}
	c.local = &localSource{server: msg.server, fileName: msg.content.FileName, count: msg.count, from: msg.from, via: msg.via,
		json: !msg.content.IsBlob && msg.opened.Kind == dpe.KindText && isJSONMIME(msg.content.MIMEType)}
	return c
}

// calls names the requests that read a local content.
func (l *localSource) calls() string {
	if l.via != "" {
		return l.via
	}
	return "resources/read"
}

// saveName is the name the save prompt offers.
func (c *contentScreen) saveName() string {
	if c.local != nil && c.local.fileName != "" {
		return c.local.fileName
	}
	return dpe.SuggestFileName(c.nameSource(), c.op.MimeType)
}

func newContentScreen(e *env, msg openedMsg, tl *traceLog) *contentScreen {
	return &contentScreen{e: e, op: msg.opened, uri: msg.uri, trace: tl, sc: scroller{lines: true}}
}

func (c *contentScreen) kindName() string {
	if c.local != nil && c.local.json {
		return "JSON"
	}
	switch c.op.Kind {
	case dpe.KindMarkdown:
		return "Markdown"
	case dpe.KindText:
		return "text"
	case dpe.KindDocument:
		return "JSON (not a DPE document)"
	}
	return "binary"
}

// render formats the body off the loop: Glamour can be slow on a large
// file.
func (c *contentScreen) render() tea.Cmd {
	e := c.e
	if e.width == 0 {
		return nil
	}
	body, kind, w, theme := c.op.Body, c.op.Kind, e.width-2, e.theme
	id, cmd := e.start("formatting content", 0, func(ctx context.Context, id int) tea.Msg {
		return contentRenderedMsg{id: id, lines: formatContent(body, kind, w, theme), width: w}
	})
	c.renOp = id
	return cmd
}

// maxContentShown bounds how much of a non-document body is formatted.
const maxContentShown = 2 << 20

func formatContent(body []byte, kind dpe.ContentKind, w int, theme string) []string {
	if len(body) > maxContentShown {
		body = body[:maxContentShown]
	}
	switch kind {
	case dpe.KindMarkdown:
		style := render.NewTheme(theme).Glamour
		// Sanitize first: Glamour must never see a raw escape sequence.
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(max(20, min(w, readingWidth))))
		if err == nil {
			if out, err := r.Render(sanitize.Text(string(body))); err == nil {
				// Glamour wraps links in OSC 8 hyperlinks to targets the
				// document chose; only its SGR styling is kept (the URL is
				// shown as text anyway).
				out = render.OnlySGR(out)
				if style == "notty" {
					out = ansi.Strip(out)
				}
				return strings.Split(strings.TrimRight(out, "\n"), "\n")
			}
		}
		fallthrough
	case dpe.KindText, dpe.KindDocument:
		if !utf8.Valid(body) && kind != dpe.KindMarkdown {
			break
		}
		var out []string
		for _, l := range strings.Split(sanitize.Text(string(body)), "\n") {
			out = append(out, wrapCells(strings.ReplaceAll(l, "\t", "    "), max(10, w))...)
		}
		return out
	}
	return nil
}

func (c *contentScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	e := c.e
	k := e.keys
	h := e.bodyHeight() - 2
	if c.cut() {
		h-- // the line saying so
	}
	switch msg := msg.(type) {
	case contentRenderedMsg:
		if msg.id == c.renOp {
			c.lines, c.width, c.renOp = msg.lines, msg.width, 0
		}
	case tea.WindowSizeMsg, themeChangedMsg:
		return c, c.render()
	case promptDoneMsg:
		if msg.mode == barSaveContent && !msg.cancelled {
			if strings.TrimSpace(msg.value) == "" {
				return c, e.info("save cancelled: no file name")
			}
			body := c.op.Body
			return c, writeFile(e, "content", msg.value, func() ([]byte, error) { return body, nil })
		}
	case tea.KeyPressMsg:
		if c.sc.nav(k, msg, len(c.lines), h) {
			return c, nil
		}
		switch {
		case matches(msg, k.Back):
			return c, c.e.ask(popMsg{})
		case matches(msg, k.SaveImage):
			return c, c.e.ask(promptMsg{mode: barSaveContent, value: c.saveName()})
		case matches(msg, k.Trace) && c.local != nil:
			// The trace records get_dpe and the document fetch; this came
			// another way, which the header names.
			return c, e.info("the trace is for dpe:// documents; this was read with " + c.local.calls())
		case matches(msg, k.Trace):
			return c, c.e.ask(overlayMsg{s: newTraceOverlay(e, c.trace)})
		case matches(msg, k.Copy):
			return c, c.e.ask(copyMenuMsg{resURI: c.uri, access: c.op.Access.URI})
		}
	case tea.MouseWheelMsg:
		c.sc.wheel(msg.Button == tea.MouseWheelUp, len(c.lines), h)
	}
	return c, nil
}

// cut is true when the body is longer than what is formatted of it.
func (c *contentScreen) cut() bool {
	return c.op.Kind != dpe.KindBinary && len(c.op.Body) > maxContentShown
}

func (c *contentScreen) Keys() screenKeys {
	k := c.e.keys
	if c.local != nil {
		// No trace: nothing of get_dpe ran.
		return screenKeys{
			short: []key2{withHelp(k.SaveImage, "save"), k.Back, k.Up, k.Down},
			full:  [][]key2{k.navKeys(), {withHelp(k.SaveImage, "save to file"), k.Copy}, k.globalKeys()},
		}
	}
	return screenKeys{
		short: []key2{withHelp(k.SaveImage, "save"), k.Trace, k.Back, k.Up, k.Down},
		full:  [][]key2{k.navKeys(), {withHelp(k.SaveImage, "save to file"), k.Trace, k.Copy}, k.globalKeys()},
	}
}

func (c *contentScreen) Crumb() string {
	return sanitizeTrunc(c.uri, 50)
}

func (c *contentScreen) nameSource() string {
	if len(c.op.DPE.Segments) > 0 {
		return c.op.DPE.String()
	}
	if c.op.Access.URI != "" {
		return c.op.Access.URI
	}
	return c.uri
}

func (c *contentScreen) View(w, h int) []string {
	st := c.e.st
	mime := c.op.MimeType
	if mime == "" {
		mime = "no mime type"
	}
	save := c.e.keys.SaveImage.Help().Key
	head := fmt.Sprintf(" Not a DPE document: %s · %s · %s", c.kindName(), sanitizeLine(mime), humanBytes(int64(len(c.op.Body))))
	sub := " " + save + " saves it to a file · " + c.e.keys.Trace.Help().Key + " shows how it was fetched"
	if l := c.local; l != nil {
		head = fmt.Sprintf(" %s · %s · %s", c.kindName(), sanitizeLine(mime), humanBytes(int64(len(c.op.Body))))
		sub = " read from MCP server " + sanitizeLine(l.server) + " with resources/read"
		if l.from != "" {
			sub = " " + l.from
		}
		if l.count > 1 {
			sub += fmt.Sprintf(" · content 1 of %d", l.count)
		}
		sub += " · " + save + " saves it"
	}
	out := []string{st.title.Render(clip(head, w)), st.dim.Render(clip(sub, w))}
	if c.op.Kind == dpe.KindBinary || (c.lines == nil && len(c.op.Body) > 0 && c.width > 0) {
		out = append(out, "", "  "+st.info.Render("This content cannot be shown as text. Press "+save+" to save it as "+
			sanitizeLine(c.saveName())+"."))
		return box(out, w, h)
	}
	if c.cut() {
		n := int64(len(c.op.Body))
		// Only the start is formatted (formatContent): say so, or the
		// reader takes the start for the whole file.
		out = append(out, st.info.Render(clip(fmt.Sprintf(" showing the first %s of %s · %s saves all",
			humanBytes(maxContentShown), humanBytes(n), save), w)))
	}
	if c.lines == nil {
		out = append(out, "", "  "+c.e.spin.View()+" formatting…")
		return box(out, w, h)
	}
	sc := c.sc // a copy: View only reads
	sc.clamp(len(c.lines), h-len(out))
	for _, l := range c.lines[min(sc.top, len(c.lines)):] {
		if len(out) >= h {
			break
		}
		out = append(out, " "+l)
	}
	return box(out, w, h)
}
