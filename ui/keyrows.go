package ui

import (
	"reflect"
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyRow is one binding of the default keymap as the reference shows
// it (docs/keys.md, the man page's KEYS): the keymap's field, its name
// under [keys] in config.toml, the key the help names, every other key
// that does the same, and what the help says it does.
type KeyRow struct {
	Binding, Action, Key string
	Also                 []string
	Desc                 string
}

// KeyRows is every binding of the default keymap, in the order keyMap
// declares them.
func KeyRows() []KeyRow {
	v := reflect.ValueOf(newKeyMap())
	var rows []KeyRow
	for i := 0; i < v.NumField(); i++ {
		b, ok := v.Field(i).Interface().(key.Binding)
		if !ok {
			continue
		}
		name := v.Type().Field(i).Name
		h := b.Help()
		rows = append(rows, KeyRow{Binding: name, Action: actionName(name), Key: h.Key, Also: alsoKeys(b), Desc: h.Desc})
	}
	return rows
}

// alsoKeys are the keys of b its help key does not already name (the
// help names some keys by their symbol or a short name).
func alsoKeys(b key.Binding) []string {
	shown := map[string]string{"up": "↑", "down": "↓", "left": "←", "right": "→", "pgdown": "pgdn"}
	help := "/" + b.Help().Key + "/"
	var also []string
	for _, k := range b.Keys() {
		name := k
		if s, ok := shown[k]; ok {
			name = s
		}
		if !strings.Contains(help, "/"+name+"/") {
			also = append(also, k)
		}
	}
	return also
}
