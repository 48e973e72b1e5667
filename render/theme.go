package render

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Theme is the set of styles the renderers use. Name is "dark", "light" or
// "notty"; notty (the NO_COLOR / not-a-TTY path) has no
// colour at all and its styles emit no escape sequences.
type Theme struct {
	Name string
	// Color is false for notty: renderers then draw nothing that needs
	// colour (no half-block image previews, no syntax highlighting).
	Color bool
	// Glamour is the fixed standard Glamour style for prose (never "auto":
	// its output must not depend on the terminal it runs in).
	Glamour string
	// Chroma names the chroma style for code.
	Chroma string
	// Background is what transparent image pixels are blended onto.
	Background color.RGBA
	// Palette is the theme's colours: the UI builds its own styles from
	// it, so the screens and the rendered document are one palette.
	// Empty for notty.
	Palette Palette

	Text, Dim, Italic, Tag                    lipgloss.Style
	Title, Subtitle, Heading, TitleMarker     lipgloss.Style
	Bullet, Formula, Checked, Unchecked, Rule lipgloss.Style
	CodeBorder, CodeLabel                     lipgloss.Style
	TableHeader, TableBorder, TableMarker     lipgloss.Style
	// TableCursor marks the selected cell of a table, TableColHeader the
	// header of its column.
	TableCursor, TableColHeader             lipgloss.Style
	Key, Value, Warning, Match              lipgloss.Style
	JSONKey, JSONString, JSONNumber         lipgloss.Style
	JSONBool, JSONNull, JSONPunct, JSONFold lipgloss.Style
}

// NewTheme returns the named theme: "dark", "light" or "notty". Any other
// name yields notty, the safe choice.
func NewTheme(name string) Theme {
	switch name {
	case "dark":
		// Tokyo Night; Glamour's tokyo-night and chroma's tokyonight-night
		// are the same palette.
		return colorTheme("dark", "tokyo-night", "tokyonight-night", Palette{
			Fg: "#C0CAF5", Dim: "#737AA2", Accent: "#BB9AF7", Title: "#7AA2F7", Sub: "#7DCFFF",
			Green: "#9ECE6A", Orange: "#FF9E64", Red: "#F7768E", Yellow: "#E0AF68", Border: "#565F89",
			Bg: "#1A1B26", SelBg: "#283457", Line: "#292E42",
		})
	case "light":
		// Tokyo Night Day; chroma ships it as tokyonight-day, Glamour has
		// no light Tokyo Night, so its light style with this theme's code
		// colours.
		return colorTheme("light", "light", "tokyonight-day", Palette{
			Fg: "#3760BF", Dim: "#6172B0", Accent: "#9854F1", Title: "#2E7DE9", Sub: "#007197",
			Green: "#587539", Orange: "#B15C00", Red: "#F52A65", Yellow: "#8C6C3E", Border: "#A8AECB",
			Bg: "#E1E2E7", SelBg: "#B7C1E3", Line: "#C4C8DA",
		})
	}
	plain := lipgloss.NewStyle()
	return Theme{
		Name: "notty", Glamour: "notty", Background: color.RGBA{0, 0, 0, 0xFF},
		Text: plain, Dim: plain, Italic: plain, Tag: plain,
		Title: plain, Subtitle: plain, Heading: plain, TitleMarker: plain,
		Bullet: plain, Formula: plain, Checked: plain, Unchecked: plain, Rule: plain,
		CodeBorder: plain, CodeLabel: plain,
		TableHeader: plain, TableBorder: plain, TableMarker: plain, TableCursor: plain, TableColHeader: plain,
		Key: plain, Value: plain, Warning: plain, Match: plain,
		JSONKey: plain, JSONString: plain, JSONNumber: plain,
		JSONBool: plain, JSONNull: plain, JSONPunct: plain, JSONFold: plain,
	}
}

// Palette is a theme's colours as "#RRGGBB".
type Palette struct {
	Fg, Dim, Accent, Title, Sub, Green, Orange, Red, Yellow, Border string
	// Bg is the background, SelBg a selected row's, Line a faint rule's.
	Bg, SelBg, Line string
}

func colorTheme(name, glamourStyle, chroma string, p Palette) Theme {
	fg := func(c string) lipgloss.Style { return lipgloss.NewStyle().Foreground(lipgloss.Color(c)) }
	bg := rgba(p.Bg)
	return Theme{
		Name: name, Color: true, Glamour: glamourStyle, Chroma: chroma, Background: bg, Palette: p,
		Text:        lipgloss.NewStyle(),
		Dim:         fg(p.Dim),
		Italic:      fg(p.Fg).Italic(true),
		Tag:         fg(p.Dim).Italic(true),
		Title:       fg(p.Title).Bold(true),
		Subtitle:    fg(p.Sub).Bold(true),
		Heading:     fg(p.Accent).Bold(true),
		TitleMarker: fg(p.Dim),
		Bullet:      fg(p.Accent),
		Formula:     fg(p.Accent).Italic(true),
		Checked:     fg(p.Green),
		Unchecked:   fg(p.Dim),
		Rule:        fg(p.Border),
		CodeBorder:  fg(p.Border),
		CodeLabel:   fg(p.Yellow).Bold(true),
		TableHeader: fg(p.Sub).Bold(true),
		TableBorder: fg(p.Border),
		TableMarker: fg(p.Yellow),
		TableCursor: lipgloss.NewStyle().Foreground(bg).Background(lipgloss.Color(p.Sub)).Bold(true),
		// The selected column's header: the header colour on the
		// selection background.
		TableColHeader: fg(p.Sub).Bold(true).Background(lipgloss.Color(p.SelBg)),
		Key:            fg(p.Sub).Bold(true),
		Value:          lipgloss.NewStyle(),
		Warning:        fg(p.Yellow),
		Match:          lipgloss.NewStyle().Foreground(bg).Background(lipgloss.Color(p.Yellow)).Bold(true),
		JSONKey:        fg(p.Title),
		JSONString:     fg(p.Green),
		JSONNumber:     fg(p.Orange),
		JSONBool:       fg(p.Accent),
		JSONNull:       fg(p.Red),
		JSONPunct:      fg(p.Dim),
		JSONFold:       fg(p.Yellow).Italic(true),
	}
}

// rgba parses "#RRGGBB".
func rgba(hex string) color.RGBA {
	var c color.RGBA
	c.A = 0xFF
	if len(hex) == 7 && hex[0] == '#' {
		v := func(i int) uint8 {
			var n uint8
			for _, ch := range hex[i : i+2] {
				n <<= 4
				switch {
				case ch >= '0' && ch <= '9':
					n |= uint8(ch - '0')
				case ch >= 'a' && ch <= 'f':
					n |= uint8(ch-'a') + 10
				case ch >= 'A' && ch <= 'F':
					n |= uint8(ch-'A') + 10
				}
			}
			return n
		}
		c.R, c.G, c.B = v(1), v(3), v(5)
	}
	return c
}
