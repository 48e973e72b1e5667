package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocs_ConvertOutputIsServedAsADocument: a convert output named
// a.json in a --docs folder is listed and read as the document it is (as
// get reads the file), not as JSON source; other JSON stays code.
func TestDocs_ConvertOutputIsServedAsADocument(t *testing.T) {
	src := t.TempDir()
	md := filepath.Join(src, "plan.md")
	if err := os.WriteFile(md, []byte("# Plan\n\nShip the harbour report.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "notes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "a.json")
	if code, _, errOut := runCLI(t, "convert", md, "-o", out); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "pkg.json"), []byte(`{"name":"x","pages":"not a list"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	code, list, errOut := runCLI(t, "--docs", dir, "ls", "resources")
	if code != 0 {
		t.Fatalf("ls resources: exit %d\n%s\n%s", code, list, errOut)
	}
	for _, l := range strings.Split(list, "\n") {
		if strings.Contains(l, "/a.json") && (!strings.Contains(l, "dpe-inline+json") || !regexp.MustCompile(`\s1\s+md\s+md\s`).MatchString(l)) {
			t.Errorf("a.json is listed as JSON source, want the document (1 page, type md):\n%s", l)
		}
	}
	const uri = "dpe://local.docs.notes/a.json"
	code, text, errOut := runCLI(t, "get", uri, "--docs", dir, "--format", "text")
	if code != 0 || !strings.Contains(text, "Ship the harbour report.") || strings.Contains(text, `"doc_ref"`) {
		t.Fatalf("get %s: exit %d, want the document's text, not its JSON\n%s\n%s", uri, code, text, errOut)
	}
	code, text, errOut = runCLI(t, "get", "dpe://local.docs.notes/pkg.json", "--docs", dir, "--format", "text")
	if code != 0 || !strings.Contains(text, `"name"`) {
		t.Fatalf("get pkg.json: exit %d, want its JSON source as code\n%s\n%s", code, text, errOut)
	}
}
