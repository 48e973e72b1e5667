package ui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/dpe-tui/dpe-tui/render"
)

// styles holds every style the screens use, built once per theme.
type styles struct {
	app, header, headerDim, crumb, crumbSep, crumbLast lipgloss.Style
	connOK, connWarn, connBad                          lipgloss.Style
	title, colHead, row, selRow, dim, selDim           lipgloss.Style
	errText, warnText, okText, info                    lipgloss.Style
	key, value, label, hit, hitCur, gutter             lipgloss.Style
	sidebar, sideCur, sideTitle, border, counter       lipgloss.Style
	barPrompt, barOK, barErr                           lipgloss.Style
	spinner                                            lipgloss.Style
	// link marks a link's text in the body, linkCur the one tab chose.
	link, linkCur lipgloss.Style
	help          help.Styles
}

func newStyles(theme string) styles {
	s := styles{}
	if theme == "notty" {
		// NO_COLOR: attributes only; selection must stay visible without colour.
		plain := lipgloss.NewStyle()
		s.app, s.header, s.headerDim, s.crumb, s.crumbSep, s.crumbLast = plain.Bold(true), plain, plain, plain, plain, plain.Bold(true)
		s.connOK, s.connWarn, s.connBad = plain, plain.Bold(true), plain.Bold(true)
		s.title, s.colHead, s.row, s.selRow, s.dim, s.selDim = plain.Bold(true), plain.Bold(true), plain, plain.Reverse(true), plain, plain.Reverse(true)
		s.errText, s.warnText, s.okText, s.info = plain.Bold(true), plain, plain, plain
		s.key, s.value, s.label, s.hit, s.hitCur, s.gutter = plain.Bold(true), plain, plain, plain.Underline(true), plain.Reverse(true), plain.Bold(true)
		s.sidebar, s.sideCur, s.sideTitle, s.border, s.counter = plain, plain.Reverse(true), plain.Bold(true), plain, plain
		s.barPrompt, s.barOK, s.barErr = plain.Bold(true), plain, plain.Bold(true)
		s.spinner = plain
		s.link, s.linkCur = plain.Underline(true), plain.Underline(true).Reverse(true)
		s.help = help.Styles{
			ShortKey: plain, ShortDesc: plain, ShortSeparator: plain, Ellipsis: plain,
			FullKey: plain, FullDesc: plain, FullSeparator: plain,
		}
		return s
	}
	// One palette: the screens use the colours the document renders with.
	p := render.NewTheme(theme).Palette
	col := func(hex string) color.Color { return lipgloss.Color(hex) }
	fg := lipgloss.NewStyle()
	accent, subtle, selBg := col(p.Title), col(p.Dim), col(p.SelBg)
	s.app = fg.Bold(true).Foreground(col(p.Bg)).Background(accent).Padding(0, 1)
	s.header = fg.Foreground(col(p.Fg))
	s.headerDim = fg.Foreground(subtle)
	s.crumb = fg.Foreground(col(p.Fg))
	s.crumbSep = fg.Foreground(subtle)
	s.crumbLast = fg.Bold(true).Foreground(accent)
	s.connOK = fg.Foreground(col(p.Green))
	s.connWarn = fg.Foreground(col(p.Yellow))
	s.connBad = fg.Foreground(col(p.Red))
	s.title = fg.Bold(true).Foreground(accent)
	s.colHead = fg.Bold(true).Foreground(col(p.Sub))
	s.row = fg
	s.selRow = fg.Background(selBg).Bold(true)
	s.dim = fg.Foreground(subtle)
	s.selDim = fg.Foreground(subtle).Background(selBg)
	s.errText = fg.Foreground(col(p.Red))
	s.warnText = fg.Foreground(col(p.Yellow))
	s.okText = fg.Foreground(col(p.Green))
	s.info = fg.Foreground(col(p.Sub))
	s.key = fg.Foreground(col(p.Accent))
	s.value = fg
	s.label = fg.Foreground(subtle)
	s.hit = fg.Background(col(p.Line)).Foreground(col(p.Yellow))
	s.hitCur = fg.Background(col(p.Yellow)).Foreground(col(p.Bg))
	s.gutter = fg.Foreground(accent)
	s.sidebar = fg.Foreground(col(p.Fg))
	s.sideCur = fg.Bold(true).Foreground(accent)
	s.sideTitle = fg.Bold(true).Foreground(subtle)
	s.border = fg.Foreground(col(p.Border))
	s.counter = fg.Foreground(subtle)
	s.barPrompt = fg.Bold(true).Foreground(accent)
	s.barOK = fg.Foreground(col(p.Green))
	s.barErr = fg.Foreground(col(p.Red))
	s.spinner = fg.Foreground(accent)
	s.link = fg.Underline(true).Foreground(col(p.Accent))
	s.linkCur = fg.Underline(true).Bold(true).Foreground(col(p.Bg)).Background(col(p.Accent))
	s.help = help.Styles{
		ShortKey:       fg.Foreground(col(p.Accent)),
		ShortDesc:      fg.Foreground(subtle),
		ShortSeparator: fg.Foreground(col(p.Border)),
		Ellipsis:       fg.Foreground(col(p.Border)),
		FullKey:        fg.Foreground(col(p.Accent)),
		FullDesc:       fg.Foreground(subtle),
		FullSeparator:  fg.Foreground(col(p.Border)),
	}
	return s
}
