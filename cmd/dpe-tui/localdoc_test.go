package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hashOf is what `dpe-tui hash --json FILE` prints as the doc_hash.
func hashOf(t *testing.T, path string) string {
	t.Helper()
	code, out, errOut := runCLI(t, "hash", "--json", path)
	var h struct {
		DocHash string `json:"doc_hash"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &h) != nil || h.DocHash == "" {
		t.Fatalf("hash %s: exit %d\n%s%s", path, code, out, errOut)
	}
	return h.DocHash
}

// One rule from a local file to its DPE v1 document: for every kind of
// file push sends, `hash FILE` prints the doc_hash the remote holds
// after `push FILE` — a converted file (whatever its mod time, which is
// not content), a DPE v0.2 document from the demo library (mapped, never
// pushed as the text of its JSON), its image going as a blob, and a JSON
// file that is no DPE document (code).
func TestHashFILE_PrintsWhatPushStores(t *testing.T) {
	wc, url, c := remoteWithCounter(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "note.md"), "# Note\n\nSome text.\n")
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "note.md"), old, old); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"images/gradient.dpe.json", "reports/quarterly-ledger.dpe.json"} {
		b, err := os.ReadFile(filepath.Join("../../library/corpus", name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, filepath.Base(name)), string(b))
	}
	writeFile(t, filepath.Join(dir, "package.json"), `{"name":"x","keywords":["a"]}`+"\n")
	code, out, errOut := runPush(t, "push", dir, "--remote", url, "--prefix", "file:///one/")
	if code != 0 || !strings.Contains(out, "push: 4 documents: 4 created;") {
		t.Fatalf("push: exit %d\n%s%s", code, out, errOut)
	}
	if wc.uploads.Load() == 0 {
		t.Error("the demo image went without a blob upload")
	}
	// A touch after the push changes nothing hash prints.
	now := time.Now()
	if err := os.Chtimes(filepath.Join(dir, "note.md"), now, now); err != nil {
		t.Fatal(err)
	}
	wantType := map[string]string{"note.md": "md", "gradient.dpe.json": "png", "quarterly-ledger.dpe.json": "xlsx", "package.json": "json"}
	for name, ft := range wantType {
		uri := "file:///one/" + name
		sk, _ := skeletonOf(t, c, uri)
		if got := hashOf(t, filepath.Join(dir, name)); got != sk.DocHash {
			t.Errorf("%s: hash prints %s, the remote holds %s", name, got, sk.DocHash)
		}
		if sk.Document.FileType != ft {
			t.Errorf("%s: pushed as file_type %q, want %q", name, sk.Document.FileType, ft)
		}
		// hash of a relative name is the same document.
		if rel, err := filepath.Rel(mustGetwd(t), filepath.Join(dir, name)); err == nil {
			if got := hashOf(t, rel); got != sk.DocHash {
				t.Errorf("%s by a relative name: %s, want %s", name, got, sk.DocHash)
			}
		}
	}
	// The v0.2 documents were mapped: their elements are the document's,
	// not one code block of their JSON.
	if _, elems := skeletonOf(t, c, "file:///one/quarterly-ledger.dpe.json"); len(elems) < 3 {
		t.Errorf("the v0.2 ledger was pushed as %d element(s)", len(elems))
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// A manifest page whose JSON lists no elements: get and hash name the
// page from 1 and say what the page must hold.
func TestGetAndHash_PageWithoutElementsSaysWhatToFix(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "p1.json"), `{"title":"p"}`)
	page := "file://" + filepath.ToSlash(filepath.Join(dir, "p1.json"))
	writeFile(t, filepath.Join(dir, "m.dpe.json"), `{"doc_ref":"m","file_type":"md","title":"M","page_count":1,"pages":[{"page_index":0,"uri":"`+page+`","element_count":0}]}`)
	for _, args := range [][]string{{"get", filepath.Join(dir, "m.dpe.json"), "--page", "1"}, {"hash", filepath.Join(dir, "m.dpe.json")}} {
		code, _, errOut := runCLI(t, args...)
		if code == exitOK || !strings.Contains(errOut, "page 1: ") || !strings.Contains(errOut, `must be a page object listing its elements`) {
			t.Errorf("%s: exit %d\n%s", args[0], code, errOut)
		}
	}
}
