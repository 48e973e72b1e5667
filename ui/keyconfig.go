package ui

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"

	"github.com/dpe-tui/dpe-tui/config"
)

// Your keys: config.toml's [keys] rebinds any action of the keymap by its
// name (the binding's name in snake case: search, next_page, jump_back),
// after a preset. Help and footer are drawn from the same bindings, so
// they follow. A key two actions of one screen would share, where the
// default keymap does not share it, is refused, as is an unknown name.

// actionName is a keymap field's name in the config: NextPage → next_page,
// CopyURI → copy_uri.
func actionName(field string) string {
	var b strings.Builder
	r := []rune(field)
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 && (unicode.IsLower(r[i-1]) || (i+1 < len(r) && unicode.IsLower(r[i+1]))) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// keyPresets are what a preset changes from the default keymap, which is
// vim's and less's in common (j/k, g/G, /, n/N, ctrl+o, q).
func keyPresets() map[string]map[string][]string {
	return map[string]map[string][]string{
		// vim: ctrl+e and ctrl+y scroll too, ctrl+f and ctrl+b page.
		"vim": {
			"down": {"down", "j", "ctrl+e"},
			"up":   {"up", "k", "ctrl+y"},
		},
		// less: ctrl+n/ctrl+e and ctrl+p/ctrl+y a line, ctrl+v a page,
		// Q quits.
		"less": {
			"down":      {"down", "j", "ctrl+n", "ctrl+e"},
			"up":        {"up", "k", "ctrl+p", "ctrl+y"},
			"page_down": {"pgdown", "f", "space", "ctrl+f", "ctrl+v"},
			"quit":      {"q", "Q"},
		},
	}
}

// keyContexts are the actions each screen dispatches together (the
// global ones everywhere): a key must mean one of them.
func keyContexts() map[string][]string {
	global := []string{"Quit", "ForceQuit", "Suspend", "Help", "Back", "Open", "Finder", "ErrorDetail", "Command", "Profile"}
	nav := []string{"Up", "Down", "HalfUp", "HalfDown", "PageUp", "PageDown", "Top", "Bottom"}
	with := func(names ...string) []string { return append(append(slices.Clone(global), nav...), names...) }
	return map[string][]string{
		"lists": with("Enter", "Left", "Right", "Filter", "Refresh", "ToggleScheme", "More", "All", "Detail", "CopyURI"),
		"document": with("NextPage", "PrevPage", "NextTable", "PrevTable", "NextTitle", "PrevTitle", "NextImage", "PrevImage",
			"ColLeft", "ColRight", "FirstCol", "LastCol", "Widen", "Narrow", "Cell", "RowUp", "RowDown", "CodeLeft", "CodeRight",
			"Search", "NextHit", "PrevHit", "HitList", "Inspect", "Raw", "Conformance", "Trace", "Copy", "Export", "ExportPage",
			"SaveImage", "SideFocus", "SideToggle", "Retry", "Diff", "NextChange", "PrevChange", "JumpBack", "JumpForward", "SkillFiles"),
		"copy menu": {"CopyRes", "CopyAccess", "CopyText", "CopyJSON", "CopyPath", "Cancel"},
		"prompt":    {"HistPrev", "HistNext", "Cancel"},
	}
}

// KeyConfigError is a [keys] entry refused: Action is the entry's name.
type KeyConfigError struct {
	Action string
	Msg    string
}

func (e *KeyConfigError) Error() string { return "keys." + e.Action + ": " + e.Msg }

// CheckKeys says whether kc makes a keymap: every name an action, no key
// of one screen meaning two actions (where the default keymap does not).
func CheckKeys(kc config.Keys) error {
	_, err := keysFrom(kc)
	return err
}

// keysFrom is the default keymap with kc's preset and bindings applied.
func keysFrom(kc config.Keys) (keyMap, error) {
	def := newKeyMap()
	k := def
	v := reflect.ValueOf(&k).Elem()
	fields := map[string]int{}
	for i := 0; i < v.NumField(); i++ {
		if _, ok := v.Field(i).Interface().(key.Binding); ok {
			fields[actionName(v.Type().Field(i).Name)] = i
		}
	}
	rebind := func(action string, keys []string) {
		f := v.Field(fields[action])
		b := f.Interface().(key.Binding)
		b.SetKeys(keys...)
		b.SetHelp(helpKeys(keys, false), b.Help().Desc)
		f.Set(reflect.ValueOf(b))
	}
	if kc.Preset != "" {
		p, ok := keyPresets()[kc.Preset]
		if !ok {
			return def, &KeyConfigError{Action: "preset", Msg: fmt.Sprintf("no preset %q (vim or less)", kc.Preset)}
		}
		for _, a := range slices.Sorted(maps.Keys(p)) {
			rebind(a, p[a])
		}
	}
	for _, a := range slices.Sorted(maps.Keys(kc.Bind)) {
		if _, ok := fields[a]; !ok {
			return def, &KeyConfigError{Action: a, Msg: fmt.Sprintf("no action %q (the actions are the names in docs/keys.md)", a)}
		}
		rebind(a, kc.Bind[a])
	}
	if err := conflicts(def, k, kc); err != nil {
		return def, err
	}
	return k, nil
}

// conflicts finds a key two actions of one screen share in k but not in
// def (the default keymap's shared keys are modes: enter inspects, or
// opens a table's cell).
func conflicts(def, k keyMap, kc config.Keys) error {
	dv, kv := reflect.ValueOf(def), reflect.ValueOf(k)
	bind := func(v reflect.Value, name string) []string {
		return v.FieldByName(name).Interface().(key.Binding).Keys()
	}
	shares := func(v reflect.Value, a, b string) []string {
		var out []string
		for _, x := range bind(v, a) {
			if slices.Contains(bind(v, b), x) {
				out = append(out, x)
			}
		}
		return out
	}
	ctx := keyContexts()
	for _, screen := range slices.Sorted(maps.Keys(ctx)) {
		names := ctx[screen]
		for i, a := range names {
			for _, b := range names[i+1:] {
				if len(shares(dv, a, b)) > 0 {
					continue
				}
				if s := shares(kv, a, b); len(s) > 0 {
					if _, mine := kc.Bind[actionName(a)]; !mine {
						a, b = b, a // the entry the file set is the one to blame
					}
					return &KeyConfigError{Action: actionName(a), Msg: fmt.Sprintf("%q is both %s and %s on the %s screen",
						s[0], actionName(a), actionName(b), screen)}
				}
			}
		}
	}
	return nil
}
