package render

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// golden compares got with testdata/<name>.golden (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// TestElement_GoldenPerCategory pins the rendering of every category, in
// notty (no escapes) and dark (theme SGR only), at width 80.
func TestElement_GoldenPerCategory(t *testing.T) {
	for _, theme := range []string{"notty", "dark"} {
		r := New(NewTheme(theme))
		for _, f := range fixtures(t) {
			t.Run(theme+"/"+f.name, func(t *testing.T) {
				got := r.Table(f.el, 80, f.view) + "\n"
				golden(t, filepath.Join(theme, f.name), got)
			})
		}
	}
}

// TestElement_LinesFitWidth is the width invariant: no line of any
// element, in any theme, is wider than the width it was rendered for.
func TestElement_LinesFitWidth(t *testing.T) {
	widths := []int{0, 1, 2, 3, 5, 8, 13, 21, 40, 80, 200}
	for _, theme := range []string{"notty", "dark", "light"} {
		r := New(NewTheme(theme))
		for _, f := range append(fixtures(t), hostileFixtures(t)...) {
			for _, w := range widths {
				for _, v := range []TableView{{}, {XOffset: 2}, {XOffset: 99, ColWidthBonus: 50}} {
					out := r.Table(f.el, w, v)
					for i, l := range strings.Split(out, "\n") {
						if lw := ansi.StringWidth(l); lw > max(w, 1) {
							t.Fatalf("%s/%s width %d view %+v: line %d is %d cells: %q", theme, f.name, w, v, i, lw, l)
						}
					}
				}
			}
		}
	}
}

// TestNotty_EmitsNoEscapes: the NO_COLOR / not-a-TTY path has no escape
// sequences at all.
func TestNotty_EmitsNoEscapes(t *testing.T) {
	r := New(NewTheme("notty"))
	for _, f := range append(fixtures(t), hostileFixtures(t)...) {
		for _, w := range []int{20, 80} {
			if out := r.Table(f.el, w, f.view); strings.ContainsRune(out, 0x1b) {
				t.Errorf("%s at %d: escape in notty output: %q", f.name, w, out)
			}
		}
	}
}
