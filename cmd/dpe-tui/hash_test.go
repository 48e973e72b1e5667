package main

import (
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe/identity"
)

var update = flag.Bool("update-identity", false, "rewrite the golden files under testdata/identity/")

const idDir = "testdata/identity"

// golden compares got with testdata/identity/name (rewritten with -update-identity).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(idDir, name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-identity to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func fixture(name string) string { return filepath.Join(idDir, name+".json") }

func TestHashJSONGolden(t *testing.T) {
	code, out, errOut := runCLI(t, "hash", "--json", fixture("base"))
	if code != 0 {
		t.Fatalf("hash: exit %d: %s", code, errOut)
	}
	var h identity.Hashes
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatalf("hash --json is not the vectors' expected shape: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(h.DocHash), "dpe1:") || len(h.Pages) != 3 || len(h.Pages[1].Elements) != 2 {
		t.Fatalf("hash --json: %+v", h)
	}
	golden(t, "base.hash.json.golden", out)

	code, text, errOut := runCLI(t, "hash", "--elements", fixture("base"))
	if code != 0 {
		t.Fatalf("hash --elements: exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(text, "doc_hash "+string(h.DocHash)+"\n") || !strings.Contains(text, "page 2 "+string(h.Pages[1].PageHash)) ||
		!strings.Contains(text, "  "+string(h.Pages[1].Elements[1])+" Image") {
		t.Fatalf("hash --elements:\n%s", text)
	}
	golden(t, "base.hash.txt.golden", text)
}

func TestHashStdin(t *testing.T) {
	f, err := os.Open(fixture("base"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = saved }()
	code, fromStdin, errOut := runCLI(t, "hash", "--json", "-")
	if code != 0 {
		t.Fatalf("hash -: exit %d: %s", code, errOut)
	}
	_, fromFile, _ := runCLI(t, "hash", "--json", fixture("base"))
	if fromStdin != fromFile {
		t.Fatalf("stdin and file hash differently:\n%s\n%s", fromStdin, fromFile)
	}
}

func TestHashReportsWhatCannotMap(t *testing.T) {
	dir := t.TempDir()
	doc := `{"file_type":"Mark down","pages":[{"page_index":0,"elements":[` +
		`{"category":"Sparkline","text":"x"},{"category":"NarrativeText","text":"y","ele_metadata":{"id":9007199254740993}}]}]}`
	path := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "hash", path)
	if code != exitRuntime || out != "" {
		t.Fatalf("hash of an unmappable document: exit %d, stdout %q", code, out)
	}
	for _, want := range []string{
		"DPE_CATEGORY_UNKNOWN $.pages[0].elements[0].category",
		"DPE_VALIDATION $.pages[0].elements[1].metadata.id",
		"DPE_VALIDATION $.file_type",
		"cannot be hashed under dpe1: 3 problem(s)",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

func TestDiffGolden(t *testing.T) {
	cases := []struct {
		name                     string
		added, removed, retained int
		order                    bool
	}{
		{"edited", 1, 1, 6, false},
		{"inserted", 2, 0, 7, false},
		{"swapped", 0, 0, 7, true},
		{"image", 1, 1, 6, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "diff", "--format", "json", fixture("base"), fixture(c.name))
			if code != exitDiffer {
				t.Fatalf("diff: exit %d, want %d: %s", code, exitDiffer, errOut)
			}
			var ch identity.Changes
			if err := json.Unmarshal([]byte(out), &ch); err != nil {
				t.Fatal(err)
			}
			if ch.Equal || ch.Delta != (identity.Delta{Added: c.added, Removed: c.removed, Retained: c.retained}) || ch.OrderChanged != c.order {
				t.Fatalf("delta %+v order %v, want +%d -%d =%d order %v", ch.Delta, ch.OrderChanged, c.added, c.removed, c.retained, c.order)
			}
			golden(t, c.name+".diff.json.golden", out)
			code, hashed, errOut := runCLI(t, "hash", "--json", fixture(c.name))
			if code != exitOK {
				t.Fatalf("hash --json: exit %d: %s", code, errOut)
			}
			golden(t, c.name+".hash.json.golden", hashed)
			code, text, errOut := runCLI(t, "diff", fixture("base"), fixture(c.name))
			if code != exitDiffer {
				t.Fatalf("diff text: exit %d: %s", code, errOut)
			}
			if strings.ContainsRune(text, '\x1b') {
				t.Fatalf("diff text carries an escape sequence:\n%q", text)
			}
			golden(t, c.name+".diff.txt.golden", text)
		})
	}
}

func TestDiffIdenticalIsExitZero(t *testing.T) {
	code, out, errOut := runCLI(t, "diff", "--format", "md", fixture("base"), fixture("base"))
	if code != exitOK || !strings.HasPrefix(out, "## equal: doc_hash `dpe1:") {
		t.Fatalf("diff of a document with itself: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, _ := runCLI(t, "diff", fixture("base")); code != exitUsage {
		t.Fatalf("diff with one argument: exit %d, want %d", code, exitUsage)
	}
}

// TestDiffInlineAndManifestIdentical serves the base document in
// manifest mode (one URL per page) on loopback: it hashes like the
// inline file.
func TestDiffInlineAndManifestIdentical(t *testing.T) {
	raw, err := os.ReadFile(fixture("base"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var pages []map[string]json.RawMessage
	if err := json.Unmarshal(doc["pages"], &pages); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	var entries []map[string]any
	for i, p := range pages {
		body, _ := json.Marshal(p)
		path := "/p/" + string(rune('0'+i))
		mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
		})
		var els []any
		if err := json.Unmarshal(p["elements"], &els); err != nil {
			t.Fatal(err)
		}
		entries = append(entries, map[string]any{"page_index": p["page_index"], "title": p["title"], "uri": path, "element_count": len(els)})
	}
	head := map[string]any{}
	for k, v := range doc {
		if k != "pages" {
			head[k] = v
		}
	}
	head["pages"] = entries
	manifest, _ := json.Marshal(head)
	if strings.Contains(string(manifest), `"elements"`) {
		t.Fatal("the manifest should carry no inline elements")
	}
	mux.HandleFunc("/doc.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(manifest)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	code, out, errOut := runCLI(t, "diff", "--format", "json", fixture("base"), srv.URL+"/doc.json")
	if code != exitOK {
		t.Fatalf("inline vs manifest: exit %d\n%s%s", code, out, errOut)
	}
	var ch identity.Changes
	if err := json.Unmarshal([]byte(out), &ch); err != nil || !ch.Equal || ch.Delta.Retained != 7 || len(ch.Pages) != 0 {
		t.Fatalf("inline vs manifest: %v\n%s", err, out)
	}
	golden(t, "manifest.diff.json.golden", out)
	code, text, errOut := runCLI(t, "diff", fixture("base"), srv.URL+"/doc.json")
	if code != exitOK {
		t.Fatalf("inline vs manifest (text): exit %d\n%s%s", code, text, errOut)
	}
	golden(t, "manifest.diff.txt.golden", text)
	code, hashed, errOut := runCLI(t, "hash", "--json", srv.URL+"/doc.json")
	if code != exitOK {
		t.Fatalf("hash --json of the manifest: exit %d: %s", code, errOut)
	}
	// The manifest hashes exactly as the inline file: same golden.
	golden(t, "base.hash.json.golden", hashed)
}

// A DPE v1 file with several mistakes: hash names each field as the user
// wrote it, every problem of each element, and where it is counted from
// 1 as hash's own "page N" lines are.
func TestHash_NamesEveryMistypedFieldWithPlacesFromOne(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.json")
	writeFile(t, p, `{"file_type":"md","titel":"x","pages":[{"title":null,"elements":[`+
		`{"category":"NarrativeText","txet":"a"},{"category":"Image","text":"b","blob":"nope","mime_typ":"image/png"}]}]}`)
	code, _, errOut := runCLI(t, "hash", p)
	for _, want := range []string{
		`DPE_VALIDATION $.titel: field "titel" is not defined here`,
		`$.pages[0].elements[0].txet (page 1, element 1): field "txet"`,
		`$.pages[0].elements[1].mime_typ (page 1, element 2): field "mime_typ"`,
		`$.pages[0].elements[1].blob (page 1, element 2): blob must be`,
		"cannot be hashed under dpe1: 4 problem(s)",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("want %q in:\n%s", want, errOut)
		}
	}
	if code != exitRuntime {
		t.Errorf("exit %d", code)
	}
}

// An element object nested 65 deep is refused by hash as a whole (core
// §2.8 step 0, limit 64); one at 64 hashes.
func TestHash_NestingLimitOfAnObject(t *testing.T) {
	dir := t.TempDir()
	el := func(levels int) string {
		return `{"category":"Title","text":"x","metadata":` + strings.Repeat(`{"k":`, levels) + `{}` + strings.Repeat(`}`, levels) + `}`
	}
	writeFile(t, filepath.Join(dir, "ok.json"), el(62))
	writeFile(t, filepath.Join(dir, "deep.json"), el(63))
	if code, out, errOut := runCLI(t, "hash", filepath.Join(dir, "ok.json")); code != 0 || !strings.HasPrefix(out, "content_hash dpe1:") {
		t.Fatalf("at the limit: exit %d %q %q", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "hash", filepath.Join(dir, "deep.json")); code != exitRuntime || !strings.Contains(errOut, "nested 65 deep, over the limit of 64") {
		t.Fatalf("over the limit: exit %d %q", code, errOut)
	}
}
