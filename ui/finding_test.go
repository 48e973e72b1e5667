package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// hostileFinding is a document with one finding whose offending value is
// long and carries terminal escapes: category_depth must be an integer.
func hostileFinding() string {
	depth := "deep\x1b]0;pwned\x07\x1b[31m" + strings.Repeat("x", 2000)
	return `{"doc_ref":"fx","title":"Depths","page_count":2,"pages":[` +
		`{"page_index":0,"elements":[{"element_id":"e1","category":"NarrativeText","text":"Hello."}]},` +
		`{"page_index":1,"elements":[{"element_id":"e2","category":"NarrativeText","text":"Before."},` +
		`{"element_id":"t\u001b[2Jx","category":"Title","text":"Heading","ele_metadata":{"category_depth":"` + strings.ReplaceAll(strings.ReplaceAll(depth, "\x1b", `\u001b`), "\x07", `\u0007`) + `"}}]}]}`
}

func TestFinding_DetailShowsRuleSourceValueAndPlaceThenJumps(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "depths.json"), []byte(hostileFinding()), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := testOptions(nil)
	opt.OpenTarget = filepath.Join(dir, "depths.json")
	s := start80(t, opt)
	s.waitFor("Hello.")
	s.keys("c")
	s.waitFor("Conformance")
	s.waitFor("enter details")
	s.keys("enter")
	s.waitFor("Finding 1/")
	f := s.frame()
	for _, want := range []string{"DPE-E", "source", "page 2 (page_index 1)", "element 2", "[truncated: ", "message"} {
		if !strings.Contains(f, want) {
			t.Errorf("detail lacks %q:\n%s", want, f)
		}
	}
	if strings.Contains(f, "pwned\a") || strings.ContainsRune(f, '\x1b') {
		t.Fatalf("escape sequence reached the screen:\n%q", f)
	}
	golden.RequireEqual(t, maskHeader(normalize(f)))
	s.tm.Send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	s.waitFor("enter details") // back on the list
	s.keys("enter")
	s.waitFor("Finding 1/")
	s.keys("enter") // jump
	s.waitFor("page 2/2")
	s.waitFor("Heading")
	s.final()
}

// maskHeader blanks the header line, which names a temp dir.
func maskHeader(frame string) string {
	if i := strings.IndexByte(frame, '\n'); i >= 0 {
		return "<header>" + frame[i:]
	}
	return frame
}

var ruleFixture = regexp.MustCompile(`^(DPE-E\d{3})\.json$`)

// TestFinding_EveryRuleFixtureShowsItsRuleInTheOverlay opens each rule
// fixture as a document, presses c and enter, and looks for the rule id.
// Fixtures whose sidecar (ID.opts.json) needs options a file cannot carry
// (a resolved URI, resource hints, limits, a fetch) are left to dpe's and
// the check command's tests.
func TestFinding_EveryRuleFixtureShowsItsRuleInTheOverlay(t *testing.T) {
	dir := filepath.Join("..", "dpe", "testdata", "rules")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ent := range ents {
		m := ruleFixture.FindStringSubmatch(ent.Name())
		if m == nil {
			continue
		}
		id := m[1]
		if _, err := os.Stat(filepath.Join(dir, id+".opts.json")); err == nil {
			continue
		}
		n++
		t.Run(id, func(t *testing.T) {
			abs, err := filepath.Abs(filepath.Join(dir, ent.Name()))
			if err != nil {
				t.Fatal(err)
			}
			opt := testOptions(nil)
			opt.OpenTarget = abs
			s := start80(t, opt)
			s.idle()
			s.keys("c")
			s.waitFor("Conformance")
			s.idle()
			s.keys("enter")
			s.waitFor("Finding 1/")
			s.waitFor(id)
			if out := s.final(); strings.Contains(out, "internal error") {
				t.Fatalf("the document view failed:\n%s", out)
			}
		})
	}
	if n < len(dpe.Rules())/2 {
		t.Fatalf("only %d rule fixtures ran; %d rules exist", n, len(dpe.Rules()))
	}
}
