package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/dpe-tui/dpe-tui/config"
)

// [keys] rebinds actions by name after a preset: the keys do it, and the
// help and footer name them.
func TestKeys_ConfigRebindsActionsAndHelpFollows(t *testing.T) {
	kc := config.Keys{Preset: "less", Bind: map[string][]string{"search": {"/", "ctrl+s"}, "raw": {"V"}}}
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			f := newFakeAgent(t)
			opt := testOptions(f)
			opt.Width, opt.Height, opt.Keys = size[0], size[1], kc
			s := start(t, opt)
			s.toDocument()
			s.waitFor("/ ctrl+s search") // the footer
			s.keys("?")
			s.waitFor("Keys")
			out := maskDir(s.final(), f)
			if !regexp.MustCompile(`V\s+raw JSON`).MatchString(out) || !strings.Contains(out, "q/Q quit") {
				t.Fatalf("help does not name the rebound keys:\n%s", out)
			}
			golden.RequireEqual(t, out)
		})
	}
}

// The rebound keys are the ones the document answers: ctrl+s searches,
// V shows raw JSON, v no longer does; the less preset's ctrl+n moves down.
func TestKeys_ReboundKeysDispatch(t *testing.T) {
	kc := config.Keys{Preset: "less", Bind: map[string][]string{"search": {"/", "ctrl+s"}, "raw": {"V"}}}
	m := openJSON(t, 80, 24, twoPageTableDoc())
	m.e.keys = keysOrDefault(kc)
	run(t, m, m.update(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}))
	if !m.bar.active || m.bar.mode != barSearch {
		t.Fatal("ctrl+s did not open the search prompt")
	}
	press(t, m, "esc")
	press(t, m, "v")
	if m.overlay != nil {
		t.Fatal("v still opens the raw view after raw = [\"V\"]")
	}
	press(t, m, "V")
	if _, ok := m.overlay.(*rawOverlay); !ok {
		t.Fatalf("V did not open the raw view: %T", m.overlay)
	}
	if !matches(tea.KeyPressMsg{Code: 'n', Mod: tea.ModCtrl}, m.e.keys.Down) {
		t.Fatal("the less preset's ctrl+n is not down")
	}
}

// A key two actions of one screen would share, or a name that is no
// action, is refused with a line naming them.
func TestKeys_ConflictAndUnknownActionAreRefused(t *testing.T) {
	for _, tc := range []struct {
		bind map[string][]string
		want []string
	}{
		{map[string][]string{"search": {"t"}}, []string{`"t" is both`, "search", "next_table", "document screen"}},
		{map[string][]string{"serch": {"/"}}, []string{`no action "serch"`}},
		{map[string][]string{"quit": {"o"}}, []string{`"o" is both`, "quit", "open"}},
	} {
		err := CheckKeys(config.Keys{Bind: tc.bind})
		if err == nil {
			t.Fatalf("%v accepted", tc.bind)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v: %q, want %q", tc.bind, err, w)
			}
		}
	}
	for _, p := range []string{"vim", "less"} {
		if err := CheckKeys(config.Keys{Preset: p}); err != nil {
			t.Errorf("preset %s: %v", p, err)
		}
	}
}
