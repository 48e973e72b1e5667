package main

import (
	"os"
	"path/filepath"
	"strconv"
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

// Where the terminal has room, ls resources on the demo leaves out a
// column rather than cut the short names it keeps: "archive" and
// "note-0001" whole at 80 columns on one computer, every server's name
// whole at 120 and 200, and at 200 the names whole beside the one long
// hostile name, which alone is cut (every column was squeezed to 6 or 22
// cells while MIME, the same on every row, stayed: "archi…", "libra…").
func TestLs_ResourcesLeaveAColumnOutBeforeCuttingShortNames(t *testing.T) {
	cleanEnv(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, tt := range []struct {
		cols  string
		args  []string
		whole []string // cells that must be printed whole
	}{
		{"80", []string{"--computer", "beta"}, []string{"archive  ", "note-0001  "}},
		{"120", nil, []string{"library  ", "archive  ", "notes    ", "reports/annual-operations-2026.md"}},
		{"200", nil, []string{"alpha     library", "beta      archive", "reports/annual-operations-2026.md", "forms/visitor-registration.dpe.json", "2026-01-15T08:30:00Z"}},
	} {
		t.Setenv("COLUMNS", tt.cols)
		code, out, errOut := runCLI(t, append([]string{"ls", "resources"}, tt.args...)...)
		if code != 0 {
			t.Fatalf("%s columns: exit %d\n%s%s", tt.cols, code, out, errOut)
		}
		for _, w := range tt.whole {
			if !strings.Contains(out, w) {
				t.Errorf("%s columns: %q is not whole:\n%s", tt.cols, w, out)
			}
		}
		if strings.Contains(out, "archi…") || strings.Contains(out, "libra…") {
			t.Errorf("%s columns: a server's name is cut though a column could go:\n%s", tt.cols, out)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > atoi(t, tt.cols) {
				t.Errorf("%s columns: a line is %d cells wide: %q", tt.cols, w, l)
			}
		}
		// One header, and every row has the header's columns.
		if n := strings.Count(out, "URI "); n != 1 {
			t.Errorf("%s columns: %d headers:\n%s", tt.cols, n, out)
		}
		head := strings.Fields(lines[0])
		for _, l := range lines[1:] {
			if len(strings.Fields(l)) < len(head) {
				t.Errorf("%s columns: a row has fewer cells than the header %v: %q", tt.cols, head, l)
			}
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
