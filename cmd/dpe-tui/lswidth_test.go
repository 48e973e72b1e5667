package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestLs_ColumnsAlignInDisplayCells: names with wide and combining
// characters keep every later column at the same terminal column.
func TestLs_ColumnsAlignInDisplayCells(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"日本語の報告.md", "cafe\u0301.md", "plain.md"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("# Title\n\nbody\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runCLI(t, "ls", "resources", "--docs", dir)
	if code != exitOK {
		t.Fatalf("exit %d %q", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("want a header and 3 rows:\n%s", out)
	}
	// MIME is the column after NAME: every row has the same MIME type there.
	col := ansi.StringWidth(lines[0][:strings.Index(lines[0], "MIME")])
	for _, l := range lines[1:] {
		i := strings.Index(l, "application/vnd.a2c.dpe-inline+json")
		if i < 0 {
			t.Fatalf("no MIME in %q", l)
		}
		if w := ansi.StringWidth(l[:i]); w != col {
			t.Errorf("MIME at cell %d, header at %d:\n%s", w, col, out)
		}
	}
}
