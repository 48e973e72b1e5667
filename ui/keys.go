package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"reflect"
	"slices"
	"strings"
)

// keyMap is the one keymap. Every key press is dispatched with key.Matches
// against it, and the footer and the `?` screen are generated from the
// same bindings, so what the help says is what the keys do.
type keyMap struct {
	Quit, ForceQuit, Suspend, Help, Back, Cancel, Open, Command, Refresh, Retry key.Binding

	Up, Down, HalfUp, HalfDown, PageUp, PageDown, Top, Bottom, Enter, Left, Right key.Binding

	Filter, ToggleScheme, More, All, Detail, CopyURI key.Binding

	NextPage, PrevPage, NextTable, PrevTable, NextTitle, PrevTitle, NextImage, PrevImage key.Binding
	ColLeft, ColRight, FirstCol, LastCol, Widen, Narrow, Cell, RowUp, RowDown            key.Binding
	Search, NextHit, PrevHit, HitList                                                    key.Binding
	Inspect, Raw, Conformance, Trace, Copy, Export, ExportPage, SaveImage, SideFocus     key.Binding
	SideToggle, ErrorDetail, Fold, FoldAll, Scope, Expand                                key.Binding
	ListBack, Finder                                                                     key.Binding
	// A selected CodeSnippet's long lines scroll sideways.
	CodeLeft, CodeRight key.Binding
	// Profile opens the profile picker (with a config file of profiles).
	Profile key.Binding
	// Comparing with a fresh fetch.
	Diff, NextChange, PrevChange key.Binding
	// Skills: the computer screen's two lists, a SKILL.md's linked files.
	Pane, SkillFiles key.Binding

	// The y menu.
	CopyRes, CopyAccess, CopyText, CopyJSON, CopyPath key.Binding
	// History in the prompt.
	HistPrev, HistNext key.Binding
	// The jump history across pages and documents.
	JumpBack, JumpForward key.Binding
	// The links of the page shown: tab and shift+tab move between them
	// while the page has links and the body has focus (tab after the
	// last link gives the sidebar focus), enter follows the one chosen.
	NextLink, PrevLink, FollowLink key.Binding
	// OpenLink is the yes of the confirmation an http(s) link asks.
	OpenLink key.Binding
}

func newKeyMap() keyMap {
	b := func(keys []string, k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
	}
	return keyMap{
		Quit:      b([]string{"q"}, "q", "quit"),
		ForceQuit: b([]string{"ctrl+c"}, "ctrl+c", "quit now"),
		Suspend:   b([]string{"ctrl+z"}, "ctrl+z", "suspend"),
		Help:      b([]string{"?"}, "?", "help"),
		Back:      b([]string{"esc", "backspace"}, "esc", "back"),
		Cancel:    b([]string{"esc"}, "esc", "cancel"),
		Open:      b([]string{"o"}, "o", "open URI"),
		Command:   b([]string{":"}, ":", "page N / URI"),
		Refresh:   b([]string{"r"}, "r", "refresh"),
		Retry:     b([]string{"r"}, "r", "retry"),

		Up:       b([]string{"up", "k"}, "↑/k", "up"),
		Down:     b([]string{"down", "j"}, "↓/j", "down"),
		HalfUp:   b([]string{"ctrl+u"}, "ctrl+u", "½ page up"),
		HalfDown: b([]string{"ctrl+d"}, "ctrl+d", "½ page down"),
		PageUp:   b([]string{"pgup", "b", "ctrl+b"}, "b/pgup", "page up"),
		PageDown: b([]string{"pgdown", "f", "space", "ctrl+f"}, "f/pgdn", "page down"),
		Top:      b([]string{"g", "home"}, "g/home", "top"),
		Bottom:   b([]string{"G", "end"}, "G/end", "bottom"),
		Enter:    b([]string{"enter"}, "enter", "open"),
		Left:     b([]string{"left", "h"}, "←/h", "back"),
		Right:    b([]string{"right", "l"}, "→/l", "open"),

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
		ColLeft:   b([]string{"left", "h"}, "←/h", "column left"),
		ColRight:  b([]string{"right", "l"}, "→/l", "column right"),
		FirstCol:  b([]string{"0"}, "0", "first column"),
		LastCol:   b([]string{"$"}, "$", "last column"),
		Widen:     b([]string{"w"}, "w", "widen column"),
		Narrow:    b([]string{"W"}, "W", "narrow column"),
		Cell:      b([]string{"enter"}, "enter", "cell/row"),
		CodeLeft:  b([]string{"left", "h"}, "←/h", "code left"),
		CodeRight: b([]string{"right", "l"}, "→/l", "code right"),
		RowUp:     b([]string{"K"}, "K", "table row up"),
		RowDown:   b([]string{"J"}, "J", "table row down"),
		Search:    b([]string{"/"}, "/", "search"),
		NextHit:   b([]string{"n"}, "n", "next hit"),
		PrevHit:   b([]string{"N"}, "N", "prev hit"),
		HitList:   b([]string{"S", "ctrl+/", "ctrl+_"}, "S", "hit list"),

		Inspect:     b([]string{"enter", "."}, "enter/.", "inspect"),
		Raw:         b([]string{"v"}, "v", "raw JSON"),
		Conformance: b([]string{"c"}, "c", "conformance"),
		Trace:       b([]string{"x"}, "x", "trace"),
		Copy:        b([]string{"y"}, "y", "copy…"),
		Export:      b([]string{"e"}, "e", "export doc"),
		ExportPage:  b([]string{"p"}, "p", "export page"),
		SaveImage:   b([]string{"s"}, "s", "save image"),
		SideFocus:   b([]string{"tab"}, "tab", "sidebar focus"),
		SideToggle:  b([]string{"\\"}, "\\", "sidebar on/off"),
		ErrorDetail: b([]string{"E"}, "E", "error details"),
		Fold:        b([]string{"enter", "z"}, "enter/z", "fold"),
		FoldAll:     b([]string{"Z"}, "Z", "unfold all"),
		Scope:       b([]string{"tab"}, "tab", "element/page/doc"),
		Expand:      b([]string{"enter"}, "enter", "expand response"),
		ListBack:    b([]string{"backspace"}, "backspace", "back to the list"),
		Finder:      b([]string{"F"}, "F", "find in the office"),
		Profile:     b([]string{"P"}, "P", "switch profile"),
		Diff:        b([]string{"D"}, "D", "diff refetch"),
		NextChange:  b([]string{"n"}, "n", "next change"),
		PrevChange:  b([]string{"N"}, "N", "prev change"),
		// Two panes: shift+tab, the reverse of tab, is the same move.
		Pane:       b([]string{"tab", "shift+tab"}, "tab", "servers/skills"),
		SkillFiles: b([]string{"L"}, "L", "linked files"),

		CopyRes:    b([]string{"u"}, "u", "resource URI"),
		CopyAccess: b([]string{"a"}, "a", "access URI"),
		CopyText:   b([]string{"t"}, "t", "text"),
		CopyJSON:   b([]string{"j"}, "j", "JSON"),
		CopyPath:   b([]string{"p"}, "p", "JSON path"),

		// ctrl+i is tab in a terminal that does not disambiguate keys
		// (tab is the sidebar focus), so forward has > too, which every
		// terminal sends, and < goes with it; the help names ctrl+i only
		// when the terminal said it tells it from tab (withTerminal).
		JumpBack:    b([]string{"ctrl+o", "<"}, "ctrl+o/<", "back in history"),
		JumpForward: b([]string{"ctrl+i", ">"}, ">", "forward in history"),

		NextLink:   b([]string{"tab"}, "tab", "next link"),
		PrevLink:   b([]string{"shift+tab"}, "shift+tab", "prev link"),
		FollowLink: b([]string{"enter"}, "enter", "follow link"),
		OpenLink:   b([]string{"y"}, "y", "open in the browser"),

		HistPrev: b([]string{"up"}, "↑", "history"),
		HistNext: b([]string{"down"}, "↓", "history"),
	}
}

// ambiguousKeys are the keys a terminal sends as another key unless it
// disambiguates them (Bubble Tea asks for the kitty keyboard protocol and
// modifyOtherKeys; a tea.KeyboardEnhancementsMsg says it got one).
var ambiguousKeys = map[string]string{"ctrl+i": "tab", "ctrl+m": "enter", "ctrl+[": "esc"}

// withTerminal is the keymap's help for a terminal that disambiguates
// keys (or not): a binding's help names an ambiguous key only where the
// terminal can send it. The keys themselves stay bound either way.
func (k keyMap) withTerminal(disambiguates bool) keyMap {
	v := reflect.ValueOf(&k).Elem()
	for i := 0; i < v.NumField(); i++ {
		b, ok := v.Field(i).Interface().(key.Binding)
		if !ok {
			continue
		}
		var some bool
		for _, kk := range b.Keys() {
			if _, ok := ambiguousKeys[kk]; ok {
				some = true
			}
		}
		if !some {
			continue
		}
		b.SetHelp(helpKeys(b.Keys(), disambiguates), b.Help().Desc)
		v.Field(i).Set(reflect.ValueOf(b))
	}
	return k
}

// helpKeys is the help's name for keys: each key by its symbol, joined
// with '/'; an ambiguous key only when the terminal disambiguates.
func helpKeys(keys []string, disambiguates bool) string {
	shown := map[string]string{"up": "↑", "down": "↓", "left": "←", "right": "→", "pgdown": "pgdn"}
	var names []string
	sep := "/"
	for _, k := range keys {
		if k == "/" {
			sep = " " // "/" is a key here, not the separator
		}
	}
	for _, k := range keys {
		if _, ok := ambiguousKeys[k]; ok && !disambiguates && len(keys) > 1 {
			continue
		}
		if s, ok := shown[k]; ok {
			k = s
		}
		names = append(names, k)
	}
	return strings.Join(names, sep)
}

// screenKeys adapts the keymap to bubbles/help for one screen. short is
// in priority order: the footer drops from the end when space is short.
type screenKeys struct {
	short []key.Binding
	full  [][]key.Binding
	// notes explain what the screen shows that no key says (the
	// sidebar's marks); help prints them under the keys.
	notes []string
}

func (s screenKeys) ShortHelp() []key.Binding  { return s.short }
func (s screenKeys) FullHelp() [][]key.Binding { return s.full }

func withHelp(b key.Binding, desc string) key.Binding {
	h := b.Help()
	b.SetHelp(h.Key, desc)
	return b
}

// except is b without the keys other binds: for help, where a key of
// b means other's action in this context.
func except(b, other key.Binding) key.Binding {
	var keys []string
	for _, k := range b.Keys() {
		if !slices.Contains(other.Keys(), k) {
			keys = append(keys, k)
		}
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(keys, "/"), b.Help().Desc))
}

// navKeys is the navigation column of every help screen.
func (k keyMap) navKeys() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.HalfUp, k.HalfDown, k.PageUp, k.PageDown, k.Top, k.Bottom}
}

// globalKeys is the last column of every help screen.
func (k keyMap) globalKeys() []key.Binding {
	return []key.Binding{k.Open, k.Finder, k.ErrorDetail, k.Help, k.Back, k.Suspend, k.Quit, k.ForceQuit}
}

// footer renders short help so that `? help` and `q quit` always show:
// the screen's hints are dropped from the end until the line fits.
func footer(k keyMap, hints []key.Binding, st styles, w int) string {
	tail := []key.Binding{k.Help, k.Quit}
	item := func(b key.Binding) string {
		h := b.Help()
		return st.help.ShortKey.Render(h.Key) + " " + st.help.ShortDesc.Render(h.Desc)
	}
	sep := st.help.ShortSeparator.Render(" • ")
	render := func(bs []key.Binding) string {
		s := ""
		for i, b := range bs {
			if i > 0 {
				s += sep
			}
			s += item(b)
		}
		return s
	}
	for n := len(hints); n >= 0; n-- {
		bs := append(append([]key.Binding{}, hints[:n]...), tail...)
		if s := render(bs); ansi.StringWidth(s) <= w {
			return s
		}
	}
	return clip(render(tail), w)
}

// matches is key.Matches for a key press.
func matches(msg tea.KeyPressMsg, bs ...key.Binding) bool { return key.Matches(msg, bs...) }

// key2 is a short name for bindings in screen keymaps.
type key2 = key.Binding
