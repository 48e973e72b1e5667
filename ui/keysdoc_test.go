package ui

import (
	"flag"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/keys.md and the README's main keys from the keymap")

// keyCell is a binding as the docs show it: its help key, and every
// other key that does the same.
func keyCell(r KeyRow) string {
	s := "`" + r.Key + "`"
	if len(r.Also) > 0 {
		s += " (also `" + strings.Join(r.Also, "`, `") + "`)"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

// keysDoc is docs/keys.md: every binding of the keymap, in the order
// keyMap declares them.
func keysDoc() string {
	var b strings.Builder
	b.WriteString("# Keys\n\n<!-- Generated from the keymap (ui/keys.go) by `go test ./ui -run TestDocs -update-docs`; do not edit. -->\n\n")
	b.WriteString("Every binding of the one keymap the browser dispatches with, and that the footer and the `?` screen are drawn from. " +
		"A key means what its screen's `?` says: the same key has another binding on another screen. " +
		"The screens and what each key does there: [browser.md](browser.md); back to the [README](../README.md).\n\n")
	b.WriteString("`[keys]` in config.toml rebinds an action by its name in the second column (`search = [\"/\", \"ctrl+s\"]`), after `preset = \"vim\"` or `\"less\"`; " +
		"a key two actions of one screen would share, or an unknown name, is a config error (exit 2).\n\n")
	screens := map[string][]string{}
	ctxs := keyContexts()
	for _, c := range slices.Sorted(maps.Keys(ctxs)) {
		for _, name := range ctxs[c] {
			screens[name] = append(screens[name], c)
		}
	}
	b.WriteString("An action's screens are where `[keys]` checks its keys for a clash: a key may not mean two actions of one screen.\n\n")
	b.WriteString("| binding | config name | keys | help says | screens |\n|---|---|---|---|---|\n")
	for _, r := range KeyRows() {
		where := strings.Join(screens[r.Binding], ", ")
		if where == "" {
			where = "its own"
		}
		b.WriteString("| " + r.Binding + " | `" + r.Action + "` | " + keyCell(r) + " | " + r.Desc + " | " + where + " |\n")
	}
	b.WriteString("\n## Presets\n\n`preset = \"vim\"` or `\"less\"` changes these actions from the default keymap (vim's and less's in common: `j`/`k`, `g`/`G`, `/`, `n`/`N`, `ctrl+o`, `q`); `[keys]` entries apply after it.\n\n")
	b.WriteString("| preset | config name | keys |\n|---|---|---|\n")
	presets := keyPresets()
	for _, p := range slices.Sorted(maps.Keys(presets)) {
		for _, action := range slices.Sorted(maps.Keys(presets[p])) {
			b.WriteString("| " + p + " | `" + action + "` | `" + strings.Join(presets[p][action], "`, `") + "` |\n")
		}
	}
	return b.String()
}

// mainKeys is the README's keys section: the keys a first session needs.
func mainKeys() string {
	k := newKeyMap()
	row := func(where string, bs ...key.Binding) string {
		var items []string
		for _, b := range bs {
			h := b.Help()
			items = append(items, "`"+strings.ReplaceAll(h.Key, "|", `\|`)+"` "+h.Desc)
		}
		return "| " + where + " | " + strings.Join(items, " · ") + " |\n"
	}
	return "| Where | Keys |\n|---|---|\n" +
		row("Everywhere", k.Help, k.Quit, k.Back, k.Open, k.Finder, k.Trace, k.ErrorDetail) +
		row("Lists", k.Up, k.Down, k.Enter, k.Left, k.Filter, k.Refresh) +
		row("Resources", k.ToggleScheme, k.More, k.All, k.Detail, k.CopyURI) +
		row("Document", k.NextPage, k.PrevPage, k.Command, k.NextTitle, k.NextTable, k.Search, k.NextHit, k.NextLink, k.FollowLink, k.Inspect, k.Raw, k.Conformance, k.Copy, k.Export, k.Diff, k.JumpBack, k.JumpForward) +
		row("Tables", k.ColLeft, k.ColRight, k.Widen, k.Cell)
}

const keysBegin, keysEnd = "<!-- keys:begin (generated: go test ./ui -run TestDocs -update-docs) -->\n", "<!-- keys:end -->\n"

// TestDocs_KeysComeFromTheKeymap: docs/keys.md and the README's main
// keys are what the keymap says.
func TestDocs_KeysComeFromTheKeymap(t *testing.T) {
	doc := keysDoc()
	if n := strings.Count(doc, "\n| "); n < 60 {
		t.Fatalf("the keymap yields %d rows", n)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(readme), keysBegin)
	_, after, ok2 := strings.Cut(rest, keysEnd)
	if !ok1 || !ok2 {
		t.Fatalf("README.md has no %q … %q block", strings.TrimSpace(keysBegin), strings.TrimSpace(keysEnd))
	}
	wantReadme := before + keysBegin + mainKeys() + keysEnd + after
	if *updateDocs {
		if err := os.WriteFile("../docs/keys.md", []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("../README.md", []byte(wantReadme), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile("../docs/keys.md")
	if err != nil {
		t.Fatalf("%v (run go test ./ui -run TestDocs -update-docs)", err)
	}
	if string(have) != doc {
		t.Error("docs/keys.md differs from the keymap (run go test ./ui -run TestDocs -update-docs)")
	}
	if string(readme) != wantReadme {
		t.Error("the README's main keys differ from the keymap (run go test ./ui -run TestDocs -update-docs)")
	}
}
