package dpe

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
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
	// Answer and Listing are the get_dpe answer and the listing entry.
	Answer             json.RawMessage `json:"answer"`
	Listing            json.RawMessage `json:"listing"`
	MaxElementsPerPage int             `json:"max_elements_per_page"`
	NoLoad             bool            `json:"no_load"`
	CmdOnly            bool            `json:"cmd_only"` // needs fetching: tested through the check command
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
			opt := CheckOptions{ResolvedURI: o.ResolvedURI, Limits: Limits{MaxElementsPerPage: o.MaxElementsPerPage}, Answer: o.Answer, Listing: o.Listing}
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
				// A path into a peer message names it first ("listing:$…").
				if _, path, _ := strings.Cut(f.Path, ":"); f.RuleInfo().Source == "" || f.Message == "" || !(strings.HasPrefix(f.Path, "$") || strings.HasPrefix(path, "$")) {
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

// capDoc is a document of pages×perPage elements that each break two
// rules (PointSpace without a size, and no element_id on every third),
// with one clean Title first on each page.
func capDoc(pages, perPage int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"page_count":%d,"pages":[`, pages)
	for p := range pages {
		if p > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"page_index":%d,"elements":[{"element_id":"t%d","category":"Title","text":"T"}`, p, p)
		for j := range perPage {
			id := fmt.Sprintf(`"element_id":"e%d-%d",`, p, j)
			if j%3 == 0 {
				id = ""
			}
			fmt.Fprintf(&b, `,{%s"category":"NarrativeText","text":"t\u00e9xt","ele_metadata":{"coordinates":{"points":[[1,2],[3.5,4]],"system":"PointSpace"}}}`, id)
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// TestCheck_CapCountsEveryFindingAcrossPagesAndWorkers: findings past the
// per-rule cap are counted, not built; the report is the same with one
// worker or many, and the summary counts every one.
func TestCheck_CapCountsEveryFindingAcrossPagesAndWorkers(t *testing.T) {
	const pages, per = 40, 30
	d, err := Decode(capDoc(pages, per), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	one := Check(d, CheckOptions{Workers: 1})
	for _, w := range []int{2, 3, 8} {
		if many := Check(d, CheckOptions{Workers: w}); !reflect.DeepEqual(one, many) {
			t.Fatalf("Workers %d: report differs from one worker's", w)
		}
	}
	want := map[string]int{"DPE-E030": pages*per - MaxFindingsPerRule, "DPE-E012": pages*(per/3) - MaxFindingsPerRule}
	listed := map[string]int{}
	for _, f := range one {
		if f.Rule == RuleTruncated {
			var n int
			if _, err := fmt.Sscanf(f.Message, "%d more", &n); err != nil || n != want[f.Value] {
				t.Errorf("summary %q: want %d more %s", f.Message, want[f.Value], f.Value)
			}
			delete(want, f.Value)
			continue
		}
		if f.Path == "" || f.Message == "" {
			t.Errorf("listed finding without path or message: %+v", f)
		}
		listed[f.ID]++
	}
	if len(want) != 0 {
		t.Errorf("no summary for %v", want)
	}
	if listed["DPE-E030"] != MaxFindingsPerRule || listed["DPE-E012"] != MaxFindingsPerRule {
		t.Errorf("listed %v, want %d of each", listed, MaxFindingsPerRule)
	}
	// Ignoring a rule drops its summary too.
	for _, f := range Check(d, CheckOptions{Ignore: []string{"DPE-E030"}}) {
		if f.ID == "DPE-E030" || f.Value == "DPE-E030" {
			t.Fatalf("ignored rule still reported: %+v", f)
		}
	}
}

// Past the cap, a finding costs no allocation: checking ten times as many
// PointSpace-without-size elements allocates about as much per element as
// checking clean ones.
func TestCheck_FindingsPastTheCapAreNotFormatted(t *testing.T) {
	allocs := func(pages int) float64 {
		d, err := Decode(capDoc(pages, 50), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(3, func() { Check(d, CheckOptions{Workers: 1}) })
	}
	small, big := allocs(10), allocs(100)
	perElem := (big - small) / (90 * 50)
	t.Logf("%.3f allocations per element past the cap", perElem)
	// Formatting each finding costs ≥ 4 allocations (path, message, value).
	if perElem >= 1 {
		t.Errorf("%.2f allocations per element past the cap (%v → %v), want < 1", perElem, small, big)
	}
}

// TestCheck_UndecodedPagesMatchDecoded: Check scans undecoded pages
// without building their elements; the report must be the one it gives
// on the same document fully decoded, for every rule fixture.
func TestCheck_UndecodedPagesMatchDecoded(t *testing.T) {
	files, _ := filepath.Glob("testdata/rules/DPE-E*.json")
	inputs := map[string][]byte{"cap": capDoc(12, 40)}
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			inputs[f] = b
		}
	}
	inputs["escapes"] = []byte(`{"page_count":1,"pages":[{"page_index":0,"elements":[` +
		`{"id":"a","element_id":"b","category":"Title","text":"\u0007bell","ele_metadata":{"category_depth":1.5}},` +
		`{"element_id":7,"category":"text","text":" \t ","ele_metadata":{"languages":["eng","xx"],"parent_id":"zz"}},` +
		`{"element_id":"\u0063","category":"ListItem","text":"\ud800","ele_metadata":null,"ele_metadata":{"is_continuation":1}},` +
		`{"category":5,"text":["x"],"page_index":1.5,"ele_metadata":[],"doc_ref":{}},` +
		`{"element_id":"d","category":"Image","text":"\u0085","ele_metadata":{"image_base64":"!!","coordinates":{"points":[[1,2]],"system":{"type":"PixelSpace","width":1,"height":1}}}}]}]}`)
	for name, data := range inputs {
		lazy, err := Decode(data, Limits{})
		if err != nil {
			continue
		}
		full, _ := Decode(data, Limits{})
		for i := range full.Pages {
			_ = full.EnsurePage(i, Limits{})
		}
		for _, opt := range []CheckOptions{{}, {Strict: true, Ignore: []string{"DPE-E030"}}, {Limits: Limits{MaxElementsPerPage: 2}}} {
			a, b := Check(lazy, opt), Check(full, opt)
			if opt.Limits.MaxElementsPerPage != 0 {
				continue // the decoded document is past that limit already
			}
			for k := range a {
				if a[k].Rule == RuleFieldType && k < len(b) {
					b[k].ElementID = a[k].ElementID // decoded pages name the element
				}
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s %+v: undecoded and decoded reports differ:\n%+v\n%+v", name, opt, a, b)
			}
		}
	}
}

// FuzzTextClear: the one-pass text scan validates strings exactly as the
// scanner does, and whenever it clears a text the exact text rules find
// nothing in it.
func FuzzTextClear(f *testing.F) {
	for _, s := range []string{`"plain"`, `"   "`, `"\u0085"`, `"\u0007"`, `"a\tb\nc"`, `"\ud83d\ude00"`, "\"\xff\"", `"é\u00a0"`, `"\b"`, `"x\u"`, `"\ufffd"`, "\"\x7f\"", "\"\xc2\x85\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || data[0] != '"' {
			return
		}
		s := &jscan{data: data, maxDepth: DefaultMaxDepth}
		end, clear, nonBlank, err := s.textStr(0)
		wantEnd, wantErr := s.str(0)
		if (err == nil) != (wantErr == nil) || end != wantEnd || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("textStr = %d, %v; str = %d, %v", end, err, wantEnd, wantErr)
		}
		if err != nil {
			return
		}
		tok := data[:end]
		if got := textClear(tok[1:len(tok)-1], true, true); got != (clear && nonBlank) {
			t.Fatalf("textClear %v, textStr clear %v nonBlank %v", got, clear, nonBlank)
		}
		text := decodeString(tok)
		for _, norm := range []string{CategoryNarrativeText, CategoryImage} {
			if !clear || (isTextCategory(norm) && !nonBlank) {
				continue
			}
			var got []Finding
			ec := elemCheck{v: &elemView{textRaw: tok, raw: append([]byte(`{"text":`), append(tok, '}')...)},
				info: &elemInfo{norm: norm}, pc: &pageCheck{add: func(f Finding) { got = append(got, f) }}}
			ec.v.text, ec.v.hasText = text, true // the exact rules, on the decoded text
			ec.text()
			if len(got) > 0 {
				t.Fatalf("cleared text %q draws %+v", tok, got)
			}
		}
	})
}
