package render

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Theme is the set of styles the renderers use. Name is "dark", "light" or
// "notty"; notty (the NO_COLOR / not-a-TTY path, issue 4 "Themes") has no
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

	Text, Dim, Italic, Tag                    lipgloss.Style
	Title, Subtitle, Heading, TitleMarker     lipgloss.Style
	Bullet, Formula, Checked, Unchecked, Rule lipgloss.Style
	CodeBorder, CodeLabel                     lipgloss.Style
	TableHeader, TableBorder, TableMarker     lipgloss.Style
	Key, Value, Warning, Match                lipgloss.Style
	JSONKey, JSONString, JSONNumber           lipgloss.Style
	JSONBool, JSONNull, JSONPunct, JSONFold   lipgloss.Style
}

// NewTheme returns the named theme: "dark", "light" or "notty". Any other
// name yields notty, the safe choice.
func NewTheme(name string) Theme {
	switch name {
	case "dark":
		return colorTheme("dark", palette{
			fg: "#C0CAF5", dim: "#737AA2", accent: "#BB9AF7", title: "#7AA2F7", sub: "#7DCFFF",
			green: "#9ECE6A", orange: "#FF9E64", red: "#F7768E", yellow: "#E0AF68", border: "#565F89",
			chroma: "monokai", bg: color.RGBA{0x1A, 0x1B, 0x26, 0xFF},
		})
	case "light":
		return colorTheme("light", palette{
			fg: "#343B58", dim: "#6C6E75", accent: "#5A4A78", title: "#34548A", sub: "#166775",
			green: "#485E30", orange: "#965027", red: "#8C4351", yellow: "#8F5E15", border: "#9699A3",
			chroma: "github", bg: color.RGBA{0xFF, 0xFF, 0xFF, 0xFF},
		})
	}
	plain := lipgloss.NewStyle()
	return Theme{
		Name: "notty", Glamour: "notty", Background: color.RGBA{0, 0, 0, 0xFF},
		Text: plain, Dim: plain, Italic: plain, Tag: plain,
		Title: plain, Subtitle: plain, Heading: plain, TitleMarker: plain,
		Bullet: plain, Formula: plain, Checked: plain, Unchecked: plain, Rule: plain,
		CodeBorder: plain, CodeLabel: plain,
		TableHeader: plain, TableBorder: plain, TableMarker: plain,
		Key: plain, Value: plain, Warning: plain, Match: plain,
		JSONKey: plain, JSONString: plain, JSONNumber: plain,
		JSONBool: plain, JSONNull: plain, JSONPunct: plain, JSONFold: plain,
	}
}

type palette struct {
	fg, dim, accent, title, sub, green, orange, red, yellow, border, chroma string
	bg                                                                      color.RGBA
}

func colorTheme(name string, p palette) Theme {
	fg := func(c string) lipgloss.Style { return lipgloss.NewStyle().Foreground(lipgloss.Color(c)) }
	return Theme{
		Name: name, Color: true, Glamour: name, Chroma: p.chroma, Background: p.bg,
		Text:        lipgloss.NewStyle(),
		Dim:         fg(p.dim),
		Italic:      fg(p.fg).Italic(true),
		Tag:         fg(p.dim).Italic(true),
		Title:       fg(p.title).Bold(true),
		Subtitle:    fg(p.sub).Bold(true),
		Heading:     fg(p.accent).Bold(true),
		TitleMarker: fg(p.dim),
		Bullet:      fg(p.accent),
		Formula:     fg(p.accent).Italic(true),
		Checked:     fg(p.green),
		Unchecked:   fg(p.dim),
		Rule:        fg(p.border),
		CodeBorder:  fg(p.border),
		CodeLabel:   fg(p.yellow).Bold(true),
		TableHeader: fg(p.sub).Bold(true),
		TableBorder: fg(p.border),
		TableMarker: fg(p.yellow),
		Key:         fg(p.sub).Bold(true),
		Value:       lipgloss.NewStyle(),
		Warning:     fg(p.yellow),
		Match:       lipgloss.NewStyle().Foreground(p.bgColor()).Background(lipgloss.Color(p.yellow)).Bold(true),
		JSONKey:     fg(p.title),
		JSONString:  fg(p.green),
		JSONNumber:  fg(p.orange),
		JSONBool:    fg(p.accent),
		JSONNull:    fg(p.red),
		JSONPunct:   fg(p.dim),
		JSONFold:    fg(p.yellow).Italic(true),
	}
}

func (p palette) bgColor() color.Color { return p.bg }
