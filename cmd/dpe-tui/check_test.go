package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/library"
)

var updateCheck = flag.Bool("update-check", false, "rewrite testdata/check goldens")

// ruleFixtures is where the one-fixture-per-rule documents live (shared
// with the dpe package's test of the same fixtures).
const ruleFixtures = "../../dpe/testdata/rules"

// fixtureNeedsOptions: fixtures whose rule needs what a file cannot give
// the command (a resolved dpe:// URI, a resource listing, unfetched pages,
// lowered limits); the dpe package's fixture test covers them.
func fixtureNeedsOptions(t *testing.T, id string) bool {
	b, err := os.ReadFile(filepath.Join(ruleFixtures, id+".opts.json"))
	if err != nil {
		return false
	}
	var o map[string]any
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	return o["cmd_only"] != true
}

// TestCheck_RuleFixturesGolden drives `check --json` over each rule's
// fixture: the output is the golden, and every line names that rule only.
func TestCheck_RuleFixturesGolden(t *testing.T) {
	abs, err := filepath.Abs(ruleFixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range dpe.Rules() {
		t.Run(r.ID, func(t *testing.T) {
			if fixtureNeedsOptions(t, r.ID) {
				t.Skip("rule needs check options a file cannot carry; see dpe's fixture test")
			}
			code, out, errOut := runCLI(t, "check", "--json", filepath.Join(ruleFixtures, r.ID+".json"))
			want := exitOK
			if r.Severity == dpe.Violation {
				want = exitViolations
			}
			if code != want {
				t.Errorf("exit %d, want %d; stderr %q", code, want, errOut)
			}
			out = strings.ReplaceAll(out, filepath.ToSlash(abs), "<FIXTURES>")
			n := 0
			sc := bufio.NewScanner(strings.NewReader(out))
			for sc.Scan() {
				var l checkLine
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatalf("not JSON: %q: %v", sc.Text(), err)
				}
				if l.Rule != r.ID || l.Name != r.Name || l.Severity != r.Severity.String() || l.Source != r.Source || l.Message == "" || l.Path == "" {
					t.Errorf("line %s: want rule %s (%s) only", sc.Text(), r.ID, r.Severity)
				}
				n++
			}
			if n == 0 {
				t.Fatalf("no finding; stdout %q stderr %q", out, errOut)
			}
			golden := filepath.Join("testdata/check", r.ID+".golden")
			if *updateCheck {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			g, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update-check)", err)
			}
			if string(g) != out {
				t.Errorf("check --json differs from %s:\n got %s\nwant %s", golden, out, g)
			}
		})
	}
}

// TestCheck_RulesListsEveryRuleWithAFixture: `check --rules` (text and
// JSON) names every rule, and each has a fixture.
func TestCheck_RulesListsEveryRuleWithAFixture(t *testing.T) {
	code, text, _ := runCLI(t, "check", "--rules")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	code, js, _ := runCLI(t, "check", "--rules", "--json")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, r := range dpe.Rules() {
		if !strings.Contains(text, r.ID+"  "+r.Severity.String()) || !strings.Contains(text, r.Source) {
			t.Errorf("--rules lacks %s", r.ID)
		}
		if !strings.Contains(js, `"id":"`+r.ID+`"`) {
			t.Errorf("--rules --json lacks %s", r.ID)
		}
		if _, err := os.Stat(filepath.Join(ruleFixtures, r.ID+".json")); err != nil {
			t.Errorf("%s has no fixture: %v", r.ID, err)
		}
	}
}

// TestCheck_TextReportIgnoreStrict: the text report is one sanitized line
// per finding (severity, id, path, message, value); --ignore silences,
// --strict fails on warnings; unknown ids are usage errors.
func TestCheck_TextReportIgnoreStrict(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d.json")
	long := strings.Repeat("x", 300)
	doc := `{"doc_ref":"d","title":"T","page_count":1,"pages":[{"page_index":0,"elements":[` +
		`{"element_id":"a","category":"NarrativeText","text":"ok"},` +
		`{"element_id":"b","category":"NarrativeText","text":"bad \u001b[2J ` + long + `"},` +
		`{"element_id":"c","category":"Title","text":"t","ele_metadata":{"languages":["english"]}}]}]}`
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "check", p)
	if code != exitViolations {
		t.Fatalf("exit %d\n%s", code, out)
	}
	assertNoControls(t, out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "violation DPE-E040 $.pages[0].elements[1].text  ") ||
		!strings.HasPrefix(lines[1], "warning   DPE-E041 $.pages[0].elements[2].ele_metadata.languages[0]  ") ||
		!strings.Contains(lines[2], "1 violation(s), 1 warning(s)") {
		t.Fatalf("report:\n%s", out)
	}
	if !strings.Contains(lines[0], "value: bad") || !strings.HasSuffix(lines[0], "…") || strings.Contains(lines[0], long) {
		t.Errorf("value not shown truncated with a marker: %q", lines[0])
	}
	code, out, _ = runCLI(t, "check", p, "--ignore", "DPE-E040")
	if code != exitOK || strings.Contains(out, "DPE-E040") {
		t.Errorf("--ignore: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "check", p, "--ignore", "DPE-E040", "--strict")
	if code != exitViolations || !strings.Contains(out, "violation DPE-E041") {
		t.Errorf("--strict: exit %d\n%s", code, out)
	}
	code, _, errOut := runCLI(t, "check", p, "--ignore", "DPE-E999")
	if code != exitUsage || !strings.Contains(errOut, "DPE-E999") {
		t.Errorf("unknown rule: exit %d %q", code, errOut)
	}
}

// TestCheck_DemoAnnualReportClean: the library's demo annual report, as
// package convert converts it for the library, has no violations.
func TestCheck_DemoAnnualReportClean(t *testing.T) {
	const name = "reports/annual-operations-2026.md"
	src, err := fs.ReadFile(library.Corpus(), name)
	if err != nil {
		t.Fatal(err)
	}
	c := convert.New(convert.Options{})
	defer c.Close()
	in := convert.BytesSource(name, src)
	in.URI = "dpe://io.github.dpetui.library/" + name
	doc, err := c.ConvertJSON(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "annual.dpe.json")
	if err := os.WriteFile(p, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "check", "--json", p)
	if code != exitOK || strings.Contains(out, `"severity":"violation"`) {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
}

// TestCheck_ManifestPagesFetchedWithProgress: manifest pages are fetched
// (concurrently, bounded by --jobs) and --progress reports them on stderr.
func TestCheck_ManifestPagesFetchedWithProgress(t *testing.T) {
	dir := t.TempDir()
	var pages []string
	for i := range 12 {
		body := `{"page_index":` + itoa(i) + `,"elements":[{"element_id":"e` + itoa(i) + `","category":"NarrativeText","text":"p"}]}`
		if err := os.WriteFile(filepath.Join(dir, "p"+itoa(i)+".json"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, `{"page_index":`+itoa(i)+`,"uri":"p`+itoa(i)+`.json"}`)
	}
	p := filepath.Join(dir, "m.json")
	if err := os.WriteFile(p, []byte(`{"doc_ref":"m","title":"M","page_count":12,"pages":[`+strings.Join(pages, ",")+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "check", p, "--progress", "--jobs", "3")
	if code != exitOK || !strings.Contains(out, "M: 12 page(s), 0 violation(s), 0 warning(s)") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "fetching manifest pages 12/12") {
		t.Errorf("no progress on stderr: %q", errOut)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
