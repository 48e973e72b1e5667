package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// At 80 columns ls resources keeps the URI whole, the column a reader
// copies to get or open, and leaves out the columns that say least
// (MIME, the same on every row; SIZE), saying so once on stderr; they
// were all cut, the URI to "dpe://…".
func TestLs_ResourcesAt80ColumnsKeepTheURI(t *testing.T) {
	cleanEnv(t)
	dir := filepath.Join(t.TempDir(), "reports")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"harbour-report.md", "harbour-report-v2.md"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("# Harbour report\n\nText.\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("COLUMNS", "80")
	code, out, errOut := runCLI(t, "--docs", dir, "ls", "resources")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, uri := range []string{"dpe://local.docs.reports/harbour-report.md", "dpe://local.docs.reports/harbour-report-v2.md"} {
		if !strings.Contains(out, uri+" ") {
			t.Errorf("the URI %s is not whole at 80 columns:\n%s", uri, out)
		}
	}
	if strings.Contains(out, "MIME") || !strings.Contains(out, "URI") {
		t.Errorf("MIME should be left out first, URI kept:\n%s", out)
	}
	if !strings.Contains(errOut, "80 columns: MIME") || strings.Count(errOut, "left out") != 1 {
		t.Errorf("stderr should say once what was left out: %q", errOut)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("a line is %d cells wide: %q", w, l)
		}
	}
	t.Setenv("COLUMNS", "200")
	if _, wide, errWide := runCLI(t, "--docs", dir, "ls", "resources"); !strings.Contains(wide, "MIME") || strings.Contains(errWide, "left out") {
		t.Errorf("at 200 columns every column is shown:\n%s%s", wide, errWide)
	}
}
