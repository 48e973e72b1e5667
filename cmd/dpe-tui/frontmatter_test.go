package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGet_FrontMatterIsReadAsYAML: quoted YAML scalars lose their quotes
// and a flow list gives its items, as any YAML reader would have them.
func TestGet_FrontMatterIsReadAsYAML(t *testing.T) {
	q := filepath.Join(t.TempDir(), "q.md")
	src := "---\ntitle: \"Quoted Title\"\nsummary: 'It''s short'\nkeywords: [k1, \"k 2\"]\n---\n\nBody text.\n"
	if err := os.WriteFile(q, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "get", q, "--format", "json")
	if code != 0 {
		t.Fatalf("get: exit %d: %s", code, errOut)
	}
	for _, want := range []string{`"title":"Quoted Title"`, `"summary":"It's short"`, `"keywords":["k1","k 2"]`} {
		if !strings.Contains(strings.ReplaceAll(out, ": ", ":"), want) {
			t.Errorf("get --format json lacks %s:\n%.600s", want, out)
		}
	}
}
