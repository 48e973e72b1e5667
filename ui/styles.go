package ui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
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
	help                                               help.Styles
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
		s.help = help.Styles{
			ShortKey: plain, ShortDesc: plain, ShortSeparator: plain, Ellipsis: plain,
			FullKey: plain, FullDesc: plain, FullSeparator: plain,
		}
		return s
	}
	ld := lipgloss.LightDark(theme != "light")
	c := func(light, dark string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(dark)) }
	fg := lipgloss.NewStyle()
	accent := c("#5A56E0", "#7D79F6")
	subtle := c("#8A8A8A", "#6C6C6C")
	selBg := c("#E4E2FF", "#2F2B5C")
	s.app = fg.Bold(true).Foreground(lipgloss.Color("#FFFDF5")).Background(accent).Padding(0, 1)
	s.header = fg.Foreground(c("#3C3C3C", "#DDDDDD"))
	s.headerDim = fg.Foreground(subtle)
	s.crumb = fg.Foreground(c("#555555", "#AAAAAA"))
	s.crumbSep = fg.Foreground(subtle)
	s.crumbLast = fg.Bold(true).Foreground(accent)
	s.connOK = fg.Foreground(c("#168A3E", "#4ADE80"))
	s.connWarn = fg.Foreground(c("#B25E00", "#FBBF24"))
	s.connBad = fg.Foreground(c("#C0262D", "#F87171"))
	s.title = fg.Bold(true).Foreground(accent)
	s.colHead = fg.Bold(true).Foreground(c("#555555", "#9E9E9E"))
	s.row = fg
	s.selRow = fg.Background(selBg).Bold(true)
	s.dim = fg.Foreground(subtle)
	s.selDim = fg.Foreground(subtle).Background(selBg)
	s.errText = fg.Foreground(c("#C0262D", "#F87171"))
	s.warnText = fg.Foreground(c("#B25E00", "#FBBF24"))
	s.okText = fg.Foreground(c("#168A3E", "#4ADE80"))
	s.info = fg.Foreground(c("#2A6FDB", "#60A5FA"))
	s.key = fg.Foreground(c("#5A56E0", "#A5A2FF"))
	s.value = fg
	s.label = fg.Foreground(subtle)
	s.hit = fg.Background(c("#FFE08A", "#6B5400"))
	s.hitCur = fg.Background(c("#FFB000", "#D97706")).Foreground(lipgloss.Color("#000000"))
	s.gutter = fg.Foreground(accent)
	s.sidebar = fg.Foreground(c("#444444", "#BBBBBB"))
	s.sideCur = fg.Bold(true).Foreground(accent)
	s.sideTitle = fg.Bold(true).Foreground(subtle)
	s.border = fg.Foreground(c("#DDDDDD", "#3A3A3A"))
	s.counter = fg.Foreground(c("#555555", "#AAAAAA"))
	s.barPrompt = fg.Bold(true).Foreground(accent)
	s.barOK = fg.Foreground(c("#168A3E", "#4ADE80"))
	s.barErr = fg.Foreground(c("#C0262D", "#F87171"))
	s.spinner = fg.Foreground(accent)
	s.help = help.DefaultStyles(theme != "light")
	return s
}
