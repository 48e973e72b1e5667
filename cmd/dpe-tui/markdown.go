package main

import (
	"bytes"
	"io"
	"os"
	"regexp"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/term"

	"github.com/dpe-tui/dpe-tui/render"
)

// mdWidth is the wrap width of rendered Markdown when the terminal's width
// cannot be read.
const mdWidth = 100

// renderMarkdown runs print, which writes Markdown, and passes its output
// to w: rendered by Glamour when w is a terminal and colour is allowed,
// plain otherwise (a pipe or file gets the Markdown itself). The style is
// the theme's fixed Glamour style, never "auto": output must not depend on
// a terminal query. theme "" is dark, the TUI's default.
func renderMarkdown(w io.Writer, theme string, noColor bool, print func(io.Writer) error) error {
	f, ok := w.(*os.File)
	if !ok || noColor || !term.IsTerminal(f.Fd()) {
		return print(w)
	}
	var buf bytes.Buffer
	if err := print(&buf); err != nil {
		return err
	}
	if theme == "" {
		theme = "dark"
	}
	width := mdWidth
	if cols, _, err := term.GetSize(f.Fd()); err == nil && cols > 20 {
		width = min(cols, 120)
	}
	g, err := glamour.NewTermRenderer(glamour.WithStandardStyle(render.NewTheme(theme).Glamour), glamour.WithWordWrap(width))
	if err != nil {
		_, werr := w.Write(buf.Bytes())
		return werr
	}
	out, err := g.RenderBytes(buf.Bytes())
	if err != nil {
		_, werr := w.Write(buf.Bytes()) // the plain Markdown is still right
		return werr
	}
	_, err = w.Write(onlySGR(out))
	return err
}

// nonSGR matches every escape sequence except SGR styling: Glamour's OSC 8
// hyperlinks would make a document's link targets clickable, and the
// SECURITY.md promises they show as text.
var nonSGR = regexp.MustCompile(`\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b\[[0-9;?]*[A-Za-ln-z]`)

func onlySGR(b []byte) []byte { return nonSGR.ReplaceAll(b, nil) }
