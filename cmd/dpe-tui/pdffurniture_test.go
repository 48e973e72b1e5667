package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/internal/racebuild"
)

// A body line at a page's foot, the same but for its numbers as a line at
// the same place two pages on, is body text: `get --format text` keeps
// every sentence of the source (they were once taken for a running footer
// and left out).
func TestGet_PDFBodyLinesAtTheFootAreKept(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(realFixtures, "pdf", "footlines.fodt"))
	if err != nil {
		t.Fatal(err)
	}
	sentence := regexp.MustCompile(`Sentence [0-9]+\.[0-9]+ lorem`)
	want := sentence.FindAllString(string(src), -1)
	if len(want) < 50 {
		t.Fatalf("only %d sentences in the source", len(want))
	}
	code, out, errOut := runCLI(t, "get", "--format", "text", filepath.Join(realFixtures, "pdf", "footlines.pdf"))
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	out = strings.Join(strings.Fields(out), " ")
	for _, s := range want {
		if !strings.Contains(out, s) {
			t.Errorf("%q is missing from the text", s)
		}
	}
}

// The Debian PDFs named by a new user's report pass `check --strict`: a
// cover page's author lines, sized between the title and the sections,
// once gave a Title at depth 3 after one at depth 1 (DPE-E023).
func TestCheckStrict_DebianPDFs(t *testing.T) {
	if testing.Short() {
		t.Skip("converts whole manuals")
	}
	if racebuild.Enabled {
		t.Skip("PDFium is tens of times slower under the race detector")
	}
	found := 0
	for _, file := range []string{
		"/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
		"/usr/share/doc/libtasn1-doc/libtasn1.pdf",
	} {
		if _, err := os.Stat(file); err != nil {
			continue
		}
		found++
		code, out, errOut := runCLI(t, "check", "--strict", file)
		if code != exitOK || strings.Contains(out+errOut, "violation DPE-") {
			t.Errorf("%s: exit %d:\n%s%s", file, code, out, errOut)
		}
	}
	if found == 0 {
		t.Skip("no Debian PDF under /usr/share/doc (shared-mime-info, libtasn1-doc)")
	}
}

// A pandoc table printed by LibreOffice (no rules, columns aligned left,
// right or centre, a wrapped cell) reads as the Markdown's rows in
// `get --format md`, each row once (text lays tables out in columns).
func TestGet_PDFPandocTablesKeepTheirRows(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(realFixtures, "pdf", "pandoc-tables.md"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, "pdf", "pandoc-tables.pdf"))
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, line := range strings.Split(string(src), "\n") {
		if !strings.HasPrefix(line, "|") || strings.Trim(line, "|-: ") == "" {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for k := range cells {
			cells[k] = strings.TrimSpace(cells[k])
		}
		if row := "| " + strings.Join(cells, " | ") + " |"; strings.Count(out, row) != 1 {
			t.Errorf("row %q is %d times in the text:\n%s", row, strings.Count(out, row), out)
		}
	}
}
