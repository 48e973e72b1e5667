package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// diff names the doc_metadata fields that changed (added, removed,
// changed, with old and new values), sanitized and cut, in text and md.
func TestDiff_DocMetadataNamesTheFields(t *testing.T) {
	raw, err := os.ReadFile(fixture("base"))
	if err != nil {
		t.Fatal(err)
	}
	with := func(meta map[string]any) string {
		var d map[string]any
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		d["doc_metadata"] = meta
		b, _ := json.Marshal(d)
		return writeTemp(t, "doc.json", string(b))
	}
	a := with(map[string]any{"author": "Ann", "draft": true, "pages": 3})
	b := with(map[string]any{"author": "Bob", "pages": 3, "reviewed\x1b]0;x\x07": strings.Repeat("long ", 40)})
	code, out, errOut := runCLI(t, "diff", a, b)
	if code != exitDiffer {
		t.Fatalf("diff: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"doc_metadata changed\n", `  ~ author: "Ann" → "Bob"`, "  - draft: true", `  + reviewed: "long long`} {
		if !strings.Contains(out, want) {
			t.Errorf("diff should say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "pages:") {
		t.Errorf("an unchanged field is named:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "reviewed") && (ansi.StringWidth(l) > 2+2+maxMetaValue*2 || !strings.Contains(l, "…")) {
			t.Errorf("a long value should be cut with …: %q", l)
		}
	}
	assertNoControls(t, out)
	_, md, _ := runCLI(t, "diff", "--format", "md", a, b)
	if !strings.Contains(md, "- doc_metadata changed\n  - ~ author: \"Ann\" → \"Bob\"") {
		t.Errorf("md should list the fields under the line:\n%s", md)
	}
}
