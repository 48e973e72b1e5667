package dpe

import (
	"strings"
	"testing"
)

func findingsOf(t *testing.T, doc string) []Finding {
	t.Helper()
	d, err := Decode([]byte(doc), Limits{})
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return Validate(d)
}

func TestValidate_SpecExampleHasNoViolations(t *testing.T) {
	for _, f := range findingsOf(t, specDoc) {
		if f.Severity == Violation {
			t.Errorf("violation on the spec example: %+v", f)
		}
	}
}

func TestValidate_ConformanceRules(t *testing.T) {
	el := func(id, cat string) string { return `{"element_id":"` + id + `","category":"` + cat + `","text":"x"}` }
	tests := []struct {
		name, doc  string
		path, rule string
		sev        Severity
		page, elem int
		msg        string
	}{
		{"page_count zero", `{"page_count":0,"pages":[{"page_index":0,"elements":[]}]}`,
			"$.page_count", RulePageCount, Violation, -1, -1, "want ≥ 1"},
		{"page_count mismatch", `{"page_count":3,"pages":[{"page_index":0,"elements":[]}]}`,
			"$.page_count", RulePageCount, Violation, -1, -1, "\"pages\" has 1"},
		{"page_count missing", `{"pages":[{"page_index":0,"elements":[]}]}`,
			"$.page_count", RulePageCountAbsent, Warning, -1, -1, "missing"},
		{"pages empty", `{"page_count":1,"pages":[]}`,
			"$.pages", RulePagesEmpty, Violation, -1, -1, "empty"},
		{"page without elements or uri", `{"page_count":1,"pages":[{"page_index":0,"title":"t"}]}`,
			"$.pages[0]", RulePageContent, Violation, 0, -1, "neither"},
		{"duplicate page index", `{"page_count":2,"pages":[{"page_index":0,"elements":[]},{"page_index":0,"elements":[]}]}`,
			"$.pages[1].page_index", RulePageIndex, Violation, 1, -1, "also used by $.pages[0]"},
		{"gap in page index", `{"page_count":2,"pages":[{"page_index":0,"elements":[]},{"page_index":2,"elements":[]}]}`,
			"$.pages[1].page_index", RulePageIndex, Violation, 1, -1, "page_index 2 where 1"},
		{"missing page index", `{"page_count":1,"pages":[{"elements":[]}]}`,
			"$.pages[0]", RulePageIndex, Violation, 0, -1, "no page_index"},
		{"out of order", `{"page_count":2,"pages":[{"page_index":1,"elements":[]},{"page_index":0,"elements":[]}]}`,
			"$.pages", RulePageOrder, Warning, -1, -1, "not in page_index order"},
		{"bad date", `{"page_count":1,"last_modified":"15/01/2026","pages":[{"page_index":0,"elements":[]}]}`,
			"$.last_modified", RuleDate, Violation, -1, -1, "not an ISO 8601"},
		{"bad kernel date", `{"page_count":1,"doc_metadata":{"created_at":"yesterday"},"pages":[{"page_index":0,"elements":[]}]}`,
			"$.doc_metadata.created_at", RuleDate, Violation, -1, -1, "ISO 8601"},
		{"keywords not array", `{"page_count":1,"keywords":"a,b","pages":[{"page_index":0,"elements":[]}]}`,
			"$.keywords", RuleKeywords, Violation, -1, -1, "want an array of strings"},
		{"unknown category", `{"page_count":1,"pages":[{"page_index":0,"elements":[` + el("a", "Title") + `,` + el("b", "Sparkline") + `,` + el("c", "Sparkline") + `]}]}`,
			"$.pages[0].elements[1].category", RuleUnknownCategory, Warning, 0, 1, `"Sparkline" on 2 element(s)`},
		{"duplicate element id", `{"page_count":2,"pages":[{"page_index":0,"elements":[` + el("a", "Title") + `]},{"page_index":1,"elements":[` + el("b", "Title") + `,` + el("a", "Table") + `]}]}`,
			"$.pages[1].elements[1].element_id", RuleElementID, Violation, 1, 1, `also used by $.pages[0].elements[0]`},
		{"element_count hint wrong", `{"page_count":1,"pages":[{"page_index":0,"element_count":5,"elements":[` + el("a", "Title") + `]}]}`,
			"$.pages[0].element_count", RuleElementCount, Warning, 0, -1, "has 1"},
		{"manifest not loaded", `{"page_count":1,"pages":[{"page_index":0,"uri":"https://x/p0.json"}]}`,
			"$.pages[0]", RuleNotLoaded, Warning, 0, -1, "1 manifest page(s)"},
		{"doc uri invalid", `{"page_count":1,"uri":"dpe://h/a//b","pages":[{"page_index":0,"elements":[]}]}`,
			"$.uri", RuleDocURI, Violation, -1, -1, "segment 2 is empty"},
		{"element date", `{"page_count":1,"pages":[{"page_index":0,"elements":[{"element_id":"a","category":"Title","ele_metadata":{"last_modified":"nope"}}]}]}`,
			"$.pages[0].elements[0].ele_metadata.last_modified", RuleDate, Violation, 0, 0, "ISO 8601"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := findingsOf(t, tt.doc)
			for _, f := range fs {
				if f.Path == tt.path && f.Rule == tt.rule {
					if f.Severity != tt.sev || f.Page != tt.page || f.Element != tt.elem || !strings.Contains(f.Message, tt.msg) {
						t.Errorf("finding %+v, want severity %v page %d element %d message ~%q", f, tt.sev, tt.page, tt.elem, tt.msg)
					}
					return
				}
			}
			t.Errorf("no %s finding at %s in %+v", tt.rule, tt.path, fs)
		})
	}
}

func TestValidate_DoesNotKeepPagesDecoded(t *testing.T) {
	d, err := Decode([]byte(specDoc), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	Validate(d)
	if d.Pages[0].Decoded {
		t.Fatal("Validate must decode on the fly, not keep pages decoded")
	}
}

func TestValidate_ISO8601Profiles(t *testing.T) {
	for _, ok := range []string{"2026-01-15T08:30:00Z", "2026-01-15T08:30:00.123+08:00", "2026-01-15", "2026-01-15T08:30:00", "20260115T083000Z", "2026-01"} {
		if !isISO8601(ok) {
			t.Errorf("%q rejected", ok)
		}
	}
	for _, bad := range []string{"15/01/2026", "2026-13-01", "yesterday", "2026-01-15 08:30:00"} {
		if isISO8601(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}
