package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/internal/hostilefiles"
	"github.com/dpe-tui/dpe-tui/internal/racebuild"
)

// `serve --docs` over a folder of hostile files beside one real document:
// the Finder's background index and the agent's reads convert each of
// them, each fails as that document's error (a LimitError naming the
// limit), and the node goes on answering ls and get for the real one.
func TestServe_DocsSurvivesHostileFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("converts every hostile file")
	}
	if racebuild.Enabled {
		// The budgets are the product's, for its real speed: -race makes
		// the tiny-paragraph document outlast get_dpe's 30 s. CI runs this
		// without -race in its extras step.
		t.Skip("runs without -race (CI's extras step)")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "guide.md"), []byte("# Guide\n\nStill here.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := hostilefiles.WriteAll(dir); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(t.TempDir(), "serve.log")
	url := startServe(t, "--docs", dir, "--log", logFile)
	check := func(when string) {
		t.Helper()
		code, out, errOut := runCLI(t, "ls", "resources", "--url="+url, "--computer", "alpha", "--server", "library", "--json")
		if code != 0 || !strings.Contains(out, "dpe://io.github.dpetui.library/guide.md") {
			t.Fatalf("%s: ls resources: exit %d\n%s%s", when, code, out, errOut)
		}
		code, out, errOut = runCLI(t, "get", "dpe://io.github.dpetui.library/guide.md", "--url="+url, "--format", "text")
		if code != 0 || !strings.Contains(out, "Still here.") {
			t.Fatalf("%s: get guide.md: exit %d\n%s%s", when, code, out, errOut)
		}
	}
	check("at start, while the index converts the hostile files")
	// The PDFs are left to the index: each takes seconds of PDFium before
	// its memory limit, longer than an agent waits on a loaded machine;
	// the 400 MB CSV is over the library's file size and not listed.
	for _, name := range []string{"xlsx-shared-string.xlsx", "ods-repeated.ods", "csv-ragged.csv", "md-link-openers.md", "md-quote-depth.md", "eml-deep.eml", "eml-many-parts.eml", "docx-tiny-paragraphs.docx"} {
		code, out, errOut := runCLI(t, "get", "dpe://io.github.dpetui.library/"+name, "--url="+url, "--format", "text")
		if code == 0 || !strings.Contains(errOut, name+" is unavailable") {
			t.Errorf("get %s: exit %d, want that document's error\n%.300s%.300s", name, code, out, errOut)
		}
	}
	// Rows stay sparse: the sheet with a cell at column XFD in each of
	// 20,000 rows is an ordinary document.
	if code, out, errOut := runCLI(t, "get", "dpe://io.github.dpetui.library/xlsx-far-column.xlsx", "--url="+url, "--format", "text"); code != 0 || !strings.Contains(out, "1") {
		t.Errorf("get xlsx-far-column.xlsx: exit %d\n%.300s%.300s", code, out, errOut)
	}
	check("after every hostile file was read")
	logs, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"xlsx-shared-string.xlsx: page 1: output size over the limit", "md-link-openers.md: '[' in one paragraph over the limit"} {
		if !strings.Contains(string(logs), want) {
			t.Errorf("the serve log does not say %q:\n%.2000s", want, logs)
		}
	}
}
