package ui

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// contentView shows what an access URI served when it was not a DPE
// document: Markdown through Glamour (fixed standard style), text as is
// (sanitized), binary as a summary with an offer to save it.
type contentView struct {
	op    *dpe.Opened
	uri   string
	trace *traceLog
	lines []string
	width int
	yoff  int
}

func newContentView(msg openedMsg, now func() time.Time) *contentView {
	return &contentView{op: msg.opened, uri: msg.uri, trace: msg.trace}
}

func (c *contentView) kindName() string {
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

// renderContent formats the body off the loop: Glamour can be slow on a
// large file.
func (m *model) renderContent() tea.Cmd {
	c := m.content
	if c == nil || m.width == 0 {
		return nil
	}
	body, kind, w, theme := c.op.Body, c.op.Kind, m.width-2, m.theme
	return m.start("formatting content", 0, func(ctx context.Context, id int) tea.Msg {
		return contentRenderedMsg{opID: id, lines: formatContent(body, kind, w, theme), width: w}
	})
}

// maxContentShown bounds how much of a non-document body is formatted.
const maxContentShown = 2 << 20

func formatContent(body []byte, kind dpe.ContentKind, w int, theme string) []string {
	if len(body) > maxContentShown {
		body = body[:maxContentShown]
	}
	switch kind {
	case dpe.KindMarkdown:
		style := "dark"
		switch theme {
		case "light":
			style = "light"
		case "notty":
			style = "notty"
		}
		// Sanitize first: Glamour must never see a raw escape sequence.
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(max(20, w)))
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

func (c *contentView) handleKey(m *model, msg tea.KeyPressMsg) tea.Cmd {
	h := m.bodyHeight() - 2
	switch msg.String() {
	case "up", "k":
		c.yoff--
	case "down", "j":
		c.yoff++
	case "pgup", "ctrl+b", "ctrl+u":
		c.yoff -= h - 1
	case "pgdown", "ctrl+f", "ctrl+d", "space":
		c.yoff += h - 1
	case "g", "home":
		c.yoff = 0
	case "G", "end":
		c.yoff = len(c.lines)
	case "s":
		return m.bar.open(m, barSaveContent, dpe.SuggestFileName(c.nameSource(), c.op.MimeType))
	case "x":
		m.trace = traceView{}
		m.overlay = overlayTrace
	case "y":
		m.copyMenu = true
	}
	c.yoff = max(0, min(c.yoff, len(c.lines)-h))
	return nil
}

func (c *contentView) nameSource() string {
	if len(c.op.DPE.Segments) > 0 {
		return c.op.DPE.String()
	}
	if c.op.Access.URI != "" {
		return c.op.Access.URI
	}
	return c.uri
}

func (c *contentView) view(m *model, w, h int) []string {
	st := m.st
	mime := c.op.MimeType
	if mime == "" {
		mime = "no mime type"
	}
	head := fmt.Sprintf(" Not a DPE document: %s · %s · %s", c.kindName(), sanitizeLine(mime), humanBytes(int64(len(c.op.Body))))
	out := []string{st.title.Render(clip(head, w)), st.dim.Render(clip(" s saves it to a file · x shows how it was fetched", w))}
	if c.op.Kind == dpe.KindBinary || (c.lines == nil && len(c.op.Body) > 0 && c.width > 0) {
		out = append(out, "", "  "+st.info.Render("This content cannot be shown as text. Press s to save it as "+
			sanitizeLine(dpe.SuggestFileName(c.nameSource(), c.op.MimeType))+"."))
		return box(out, w, h)
	}
	if c.lines == nil {
		out = append(out, "", "  "+m.spin.View()+" formatting…")
		return box(out, w, h)
	}
	body := h - 2
	c.yoff = max(0, min(c.yoff, len(c.lines)-body))
	for _, l := range c.lines[min(c.yoff, len(c.lines)):] {
		if len(out) >= h {
			break
		}
		out = append(out, " "+l)
	}
	return box(out, w, h)
}
