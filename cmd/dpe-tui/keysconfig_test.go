package main

import (
	"strings"
	"testing"
)

// config.toml's [keys]: a key two actions of one screen would share, or
// a name that is no action, is the config file's error: exit 2, one
// line naming the file, the entry's line and both actions (or the name),
// before any TUI starts.
func TestKeys_ConfigConflictOrUnknownActionExits2(t *testing.T) {
	cleanEnv(t)
	good := writeTemp(t, "good.json", goodDoc)
	for _, tc := range []struct {
		name, toml string
		want       []string
	}{
		{"conflict", "[keys]\npreset = \"vim\"\nsearch = [\"/\", \"t\"]\n", []string{":3: key keys.search:", `"t" is both search and next_table on the document screen`}},
		{"unknown", "[keys]\nserch = \"/\"\n", []string{":2: key keys.serch:", `no action "serch"`}},
		{"preset", "[keys]\npreset = \"emacs\"\n", []string{"key keys.preset:", "want vim or less"}},
		// A preset above [keys] (at the top of the file) gives no keys:
		// open refuses the file as the office does, and says where the
		// line goes. It started with the default keys without a word.
		{"preset_outside_keys", "preset = \"less\"\n", []string{":1: key preset:", "belongs in [keys]"}},
		// A profile the parser refuses: the file gives no keys either.
		{"broken_profile", "[keys]\npreset = \"less\"\n[profiles.a]\nurl = 5\n", []string{"key profiles.a.url"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeTemp(t, "config.toml", tc.toml)
			code, out, errOut := runCLI(t, "open", good, "--config", cfg)
			if code != exitUsage || out != "" || strings.Count(strings.TrimRight(errOut, "\n"), "\n") != 0 {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			for _, w := range append(tc.want, cfg) {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q, want %q", errOut, w)
				}
			}
		})
	}
}
