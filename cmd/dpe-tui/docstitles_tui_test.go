package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two documents of a --docs folder with the same title are two rows told
// apart by their names, and each opens its own document (they were two
// identical "Annual report" rows), at 80×24 through the TUI `dpe-tui
// --docs DIR` builds.
func TestDocsTUI_SameTitlesAreToldApartAndBothOpen(t *testing.T) {
	cleanEnv(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "reports")
	for _, y := range []string{"2025", "2026"} {
		if err := os.MkdirAll(filepath.Join(dir, y), 0o700); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, y, "report.md"), "# Annual report\n\nThe figures of "+y+".\n")
	}
	l := startEmbeddedTUI(t, func(g *globalFlags) { g.Embedded.DocsDirs = []string{dir} }, 80, 24)
	defer l.quit()
	l.waitFor("local", "ready")
	l.enter() // the computer
	l.waitFor("reports")
	l.enter() // the folder's server
	f := l.waitFor("Annual report (2025/report.md)", "Annual report (2026/report.md)")
	if n := strings.Count(f, "Annual report"); n < 2 {
		t.Fatalf("want two rows:\n%s", f)
	}
	// Each row is picked by its name (the filter), not by its place: the
	// folder's other rows (its status) may come first while it is read.
	for _, y := range []string{"2025", "2026"} {
		l.rune('/')
		for _, r := range y + "/report" {
			l.rune(r)
		}
		l.waitFor(`filter "` + y + `/report": 1 match`)
		l.enter() // close the filter
		l.enter()
		l.waitFor("The figures of " + y + ".")
		// While the open's validation runs, esc cancels it (the status
		// line says so); on a loaded machine it runs for a while.
		l.waitUntil("the validation's end", func(f string) bool { return !strings.Contains(f, "esc cancels") })
		l.esc()
		l.waitFor("Annual report ("+y+"/report.md)", "enter open")
	}
}
