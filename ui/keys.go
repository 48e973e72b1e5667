package ui

import "charm.land/bubbles/v2/key"

// keyMap is the one keymap. The footer's short help and the `?` screen are
// generated from it per screen, so documentation cannot drift from behaviour.
type keyMap struct {
	Quit, Help, Back, Open, Refresh key.Binding

	Up, Down, PageUp, PageDown, Top, Bottom, Enter key.Binding

	Filter, ToggleScheme, More, All, Detail, CopyURI key.Binding

	NextPage, PrevPage, NextTable, PrevTable, NextTitle, PrevTitle, NextImage, PrevImage key.Binding
	Left, Right, Widen, Narrow                                                           key.Binding
	Search, NextHit, PrevHit                                                             key.Binding
	Raw, Conformance, Trace, Copy, Export, ExportPage, SaveImage, Sidebar                key.Binding
	Fold, FoldAll, Scope                                                                 key.Binding
	Retry                                                                                key.Binding
}

func newKeyMap() keyMap {
	b := func(keys []string, k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
	}
	return keyMap{
		Quit:    b([]string{"q", "ctrl+c"}, "q", "quit"),
		Help:    b([]string{"?"}, "?", "help"),
		Back:    b([]string{"esc", "backspace"}, "esc", "back/cancel"),
		Open:    b([]string{"o", ":"}, "o/:", "open URI"),
		Refresh: b([]string{"r"}, "r", "refresh"),
		Retry:   b([]string{"r"}, "r", "retry"),

		Up:       b([]string{"up", "k"}, "↑/k", "up"),
		Down:     b([]string{"down", "j"}, "↓/j", "down"),
		PageUp:   b([]string{"pgup", "ctrl+b", "ctrl+u"}, "pgup", "page up"),
		PageDown: b([]string{"pgdown", "ctrl+f", "ctrl+d", "space"}, "pgdn", "page down"),
		Top:      b([]string{"g", "home"}, "g", "top"),
		Bottom:   b([]string{"G", "end"}, "G", "bottom"),
		Enter:    b([]string{"enter"}, "enter", "open"),

		Filter:       b([]string{"/"}, "/", "filter"),
		ToggleScheme: b([]string{"a"}, "a", "dpe only/all"),
		More:         b([]string{"m"}, "m", "next page"),
		All:          b([]string{"M"}, "M", "load all"),
		Detail:       b([]string{"d"}, "d", "details size"),
		CopyURI:      b([]string{"y"}, "y", "copy URI"),

		NextPage:  b([]string{"]"}, "]", "next page"),
		PrevPage:  b([]string{"["}, "[", "prev page"),
		NextTable: b([]string{"t"}, "t", "next table"),
		PrevTable: b([]string{"T"}, "T", "prev table"),
		NextTitle: b([]string{"}"}, "}", "next title"),
		PrevTitle: b([]string{"{"}, "{", "prev title"),
		NextImage: b([]string{"i"}, "i", "next image"),
		PrevImage: b([]string{"I"}, "I", "prev image"),
		Left:      b([]string{"left", "h"}, "←/h", "scroll table left"),
		Right:     b([]string{"right", "l"}, "→/l", "scroll table right"),
		Widen:     b([]string{"w"}, "w", "widen columns"),
		Narrow:    b([]string{"W"}, "W", "narrow columns"),
		Search:    b([]string{"/"}, "/", "search"),
		NextHit:   b([]string{"n"}, "n", "next hit"),
		PrevHit:   b([]string{"N"}, "N", "prev hit"),

		Raw:         b([]string{"v"}, "v", "raw JSON"),
		Conformance: b([]string{"c"}, "c", "conformance"),
		Trace:       b([]string{"x"}, "x", "resolver trace"),
		Copy:        b([]string{"y"}, "y", "copy…"),
		Export:      b([]string{"e"}, "e", "export doc"),
		ExportPage:  b([]string{"E"}, "E", "export page"),
		SaveImage:   b([]string{"s"}, "s", "save image"),
		Sidebar:     b([]string{"tab"}, "tab", "sidebar"),
		Fold:        b([]string{"enter", "z"}, "enter/z", "fold"),
		FoldAll:     b([]string{"Z"}, "Z", "unfold all"),
		Scope:       b([]string{"tab"}, "tab", "element/page/doc"),
	}
}

// screenKeys adapts the keymap to bubbles/help for one screen.
type screenKeys struct {
	short []key.Binding
	full  [][]key.Binding
}

func (s screenKeys) ShortHelp() []key.Binding  { return s.short }
func (s screenKeys) FullHelp() [][]key.Binding { return s.full }

func (m *model) helpKeys() screenKeys {
	k := m.keys
	nav := []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
	global := []key.Binding{k.Open, k.Help, k.Back, k.Quit}
	ov := m.overlay
	if ov == overlayHelp {
		ov = overlayNone
	}
	switch ov {
	case overlayInspector:
		return screenKeys{
			short: []key.Binding{k.Up, k.Down, k.Copy, k.Back, k.Quit},
			full:  [][]key.Binding{nav, {k.Copy}, global},
		}
	case overlayRaw:
		return screenKeys{
			short: []key.Binding{k.Up, k.Down, k.Fold, k.Scope, k.Back},
			full:  [][]key.Binding{nav, {k.Fold, k.FoldAll, k.Scope}, global},
		}
	case overlayTrace:
		return screenKeys{
			short: []key.Binding{k.Up, k.Down, k.Copy, k.Back, k.Quit},
			full:  [][]key.Binding{nav, {k.Copy}, global},
		}
	case overlayConformance:
		return screenKeys{
			short: []key.Binding{k.Up, k.Down, withHelp(k.Enter, "jump"), k.Back, k.Quit},
			full:  [][]key.Binding{nav, {withHelp(k.Enter, "jump to finding")}, global},
		}
	}
	switch m.screen {
	case screenError:
		return screenKeys{short: []key.Binding{k.Retry, k.Quit}, full: [][]key.Binding{{k.Retry, k.Quit}}}
	case screenConnecting:
		return screenKeys{short: []key.Binding{withHelp(k.Back, "cancel"), k.Quit}, full: [][]key.Binding{{k.Back, k.Quit}}}
	case screenOffice:
		return screenKeys{
			short: []key.Binding{k.Up, k.Down, withHelp(k.Enter, "servers"), k.Refresh, k.Open, k.Help, k.Quit},
			full:  [][]key.Binding{nav, {withHelp(k.Enter, "servers"), k.Refresh}, global},
		}
	case screenServers:
		return screenKeys{
			short: []key.Binding{k.Up, k.Down, withHelp(k.Enter, "resources"), k.Refresh, k.Back, k.Help, k.Quit},
			full:  [][]key.Binding{nav, {withHelp(k.Enter, "resources"), k.Refresh}, global},
		}
	case screenResources:
		return screenKeys{
			short: []key.Binding{k.Enter, k.Filter, k.ToggleScheme, k.More, k.All, k.Detail, k.Back, k.Help},
			full: [][]key.Binding{nav, {k.Enter, k.Filter, k.ToggleScheme, k.Detail, k.CopyURI},
				{k.More, k.All, k.Refresh}, global},
		}
	case screenDocument:
		return screenKeys{
			short: []key.Binding{k.NextPage, k.PrevPage, k.Search, withHelp(k.Enter, "inspect"), k.Raw, k.Trace, k.Conformance, k.Help},
			full: [][]key.Binding{
				append(append([]key.Binding{}, nav...), k.Sidebar, k.Help, k.Back, k.Quit),
				{k.NextPage, k.PrevPage, withHelp(k.Open, "page N / URI"), k.NextTitle, k.PrevTitle, k.NextTable, k.PrevTable, k.NextImage, k.PrevImage},
				{k.Left, k.Right, k.Widen, k.Narrow, k.Search, k.NextHit, k.PrevHit},
				{withHelp(k.Enter, "inspect"), k.Raw, k.Trace, k.Conformance, k.Copy, k.Export, k.ExportPage, k.SaveImage},
			},
		}
	case screenContent:
		return screenKeys{
			short: []key.Binding{k.Up, k.Down, withHelp(k.SaveImage, "save"), k.Trace, k.Back, k.Quit},
			full:  [][]key.Binding{nav, {withHelp(k.SaveImage, "save to file"), k.Trace, k.Copy}, global},
		}
	}
	return screenKeys{short: global, full: [][]key.Binding{global}}
}

func withHelp(b key.Binding, desc string) key.Binding {
	h := b.Help()
	b.SetHelp(h.Key, desc)
	return b
}
