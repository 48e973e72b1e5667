package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestGet_MailHeaderTheParserRefusesKeepsWhatParses: a Cc the mail
// library refuses whole (one entry has no domain) keeps the addresses
// that parse, with their names, and the other entry as written, with one
// warning naming the header and the cause; the whole list was lost.
func TestGet_MailHeaderTheParserRefusesKeepsWhatParses(t *testing.T) {
	file := filepath.Join(realFixtures, "bad-cc.eml")
	code, out, errOut := runCLI(t, "get", "--format", "md", file)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, w := range []string{`Cc: "Smith, Jo" \<jo@example.org\>, bob@example.org` + "\n", `Cc: Night Desk \<night.desk@>`} {
		if strings.Count(out, w) != 1 {
			t.Errorf("%q not once in:\n%s", w, out)
		}
	}
	code, out, errOut = runCLI(t, "get", "--format", "json", file)
	if code != exitOK {
		t.Fatalf("json: exit %d, stderr %q", code, errOut)
	}
	var d struct {
		Pages []struct {
			Elements []struct {
				Category string
				Meta     struct {
					Field, Warning string
				} `json:"ele_metadata"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	ccs := 0
	for _, e := range d.Pages[0].Elements {
		if e.Meta.Warning != "" {
			warnings = append(warnings, e.Meta.Warning)
		}
		if e.Category == "EmailAddress" && e.Meta.Field == "cc" {
			ccs++
		}
	}
	if ccs != 2 || len(warnings) != 1 || !strings.HasPrefix(warnings[0], "Cc: 1 entry not read as an address (") {
		t.Errorf("cc addresses %d (want 2), warnings %q (want one, naming Cc)", ccs, warnings)
	}
}
