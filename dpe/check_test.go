package dpe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fixtureOpts are a rule fixture's sidecar (ID.opts.json): what Check
// needs beyond the document to see the rule.
type fixtureOpts struct {
	ResolvedURI string `json:"resolved_uri"`
	Resource    *struct {
		PageCount    int    `json:"page_count"`
		LastModified string `json:"last_modified"`
	} `json:"resource"`
	MaxElementsPerPage int  `json:"max_elements_per_page"`
	NoLoad             bool `json:"no_load"`
	CmdOnly            bool `json:"cmd_only"` // needs fetching: tested through the check command
}

var fixtureName = regexp.MustCompile(`^DPE-E\d{3}\.json$`)

// TestRules_OneFixturePerRuleViolatingOnlyIt: testdata/rules/ID.json
// exists for every rule, and checking it gives findings of that rule only.
func TestRules_OneFixturePerRuleViolatingOnlyIt(t *testing.T) {
	for _, r := range Rules() {
		t.Run(r.ID, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata/rules", r.ID+".json"))
			if err != nil {
				t.Fatalf("no fixture for %s (%s): %v", r.ID, r.Name, err)
			}
			var o fixtureOpts
			if b, err := os.ReadFile(filepath.Join("testdata/rules", r.ID+".opts.json")); err == nil {
				if err := json.Unmarshal(b, &o); err != nil {
					t.Fatal(err)
				}
			}
			if o.CmdOnly {
				t.Skip("needs a fetch: covered by the check command's fixture test")
			}
			d, err := Decode(data, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			opt := CheckOptions{ResolvedURI: o.ResolvedURI, Limits: Limits{MaxElementsPerPage: o.MaxElementsPerPage}}
			if o.Resource != nil {
				opt.Resource = &ResourceHints{PageCount: o.Resource.PageCount, LastModified: o.Resource.LastModified}
			}
			fs := Check(d, opt)
			if len(fs) == 0 {
				t.Fatalf("no finding; want %s", r.ID)
			}
			for _, f := range fs {
				if f.ID != r.ID || f.Rule != r.Name || f.Severity != r.Severity {
					t.Errorf("finding %s %s (%s) at %s: %s; want only %s %s", f.ID, f.Rule, f.Severity, f.Path, f.Message, r.ID, r.Severity)
				}
				if f.RuleInfo().Source == "" || f.Message == "" || !strings.HasPrefix(f.Path, "$") {
					t.Errorf("finding lacks source, message or path: %+v", f)
				}
			}
			// Ignoring the rule silences it; Strict makes its warnings violations.
			opt.Ignore = []string{strings.ToLower(r.ID)}
			if fs := Check(d, opt); len(fs) != 0 {
				t.Errorf("--ignore %s left %+v", r.ID, fs)
			}
			opt.Ignore, opt.Strict = nil, true
			for _, f := range Check(d, opt) {
				if want := map[Severity]Severity{Violation: Violation, Warning: Violation, Note: Note}[r.Severity]; f.Severity != want {
					t.Errorf("strict: severity %s, want %s", f.Severity, want)
				}
			}
		})
	}
	// No stray fixtures for rules that do not exist.
	ents, _ := os.ReadDir("testdata/rules")
	for _, e := range ents {
		if fixtureName.MatchString(e.Name()) {
			if _, ok := RuleByID(strings.TrimSuffix(e.Name(), ".json")); !ok {
				t.Errorf("fixture %s names no rule", e.Name())
			}
		}
	}
}

func TestRules_IDsStableAndUnique(t *testing.T) {
	seen := map[string]bool{}
	for i, r := range Rules() {
		if !regexp.MustCompile(`^DPE-E\d{3}$`).MatchString(r.ID) || seen[r.ID] || seen[r.Name] || r.What == "" || r.Source == "" {
			t.Errorf("rule %d: %+v", i, r)
		}
		seen[r.ID], seen[r.Name] = true, true
	}
}

func TestCheck_CapsFindingsPerRule(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"page_count":1,"pages":[{"page_index":0,"elements":[`)
	for i := range MaxFindingsPerRule + 5 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"category":"NarrativeText","text":"x"}`) // no element_id
	}
	b.WriteString(`]}]}`)
	d, err := Decode([]byte(b.String()), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	fs := Check(d, CheckOptions{})
	if len(fs) != MaxFindingsPerRule+1 {
		t.Fatalf("%d findings, want %d + 1 summary", len(fs), MaxFindingsPerRule)
	}
	last := fs[len(fs)-1]
	if last.Rule != RuleTruncated || !strings.Contains(last.Message, "5 more DPE-E012") {
		t.Errorf("summary %+v", last)
	}
}

func TestCheck_ValueTruncatedWithMarker(t *testing.T) {
	long := strings.Repeat("é", MaxValueBytes)
	d, err := Decode([]byte(`{"page_count":1,"last_modified":"`+long+`","pages":[{"page_index":0,"elements":[]}]}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	fs := Check(d, CheckOptions{})
	if len(fs) != 1 || !strings.Contains(fs[0].Value, "…[+") || len(fs[0].Value) > MaxValueBytes+20 {
		t.Fatalf("%+v", fs)
	}
}
