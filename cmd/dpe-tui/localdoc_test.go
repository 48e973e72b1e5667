package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
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

// A .json file that is no DPE document: hash, hash - and push read it by
// one rule. A single DPE v1 element object is not a document: hash prints
// its content_hash (or its problems), push names it and sends nothing; a
// JSON that is neither (or not JSON at all) is converted like any file,
// and hash prints what the remote then holds; stdin, which has no name to
// convert under, refuses it in one line.
func TestHashAndPush_AgreeOnJSONThatIsNoDocument(t *testing.T) {
	_, url, c := remoteWithCounter(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "el.json"), `{"category":"Title","text":"x","blob":null,"mime_type":null,"text_as_html":null,"metadata":{}}`)
	writeFile(t, filepath.Join(dir, "ok.json"), `{"category":"Title","text":"x"}`)
	writeFile(t, filepath.Join(dir, "foo.json"), `{"foo":1}`)
	writeFile(t, filepath.Join(dir, "cat.json"), `{"category":"books","n":2}`)
	writeFile(t, filepath.Join(dir, "g.json"), "not json {\n")
	code, out, errOut := runPush(t, "push", dir, "--remote", url, "--prefix", "file:///j/")
	if code == exitOK || !strings.Contains(out, "push: 5 documents: 3 created, 2 failed;") {
		t.Fatalf("push: exit %d\n%s%s", code, out, errOut)
	}
	for _, name := range []string{"el.json", "ok.json"} {
		if !strings.Contains(out+errOut, name+" is a DPE v1 element object, not a document") {
			t.Errorf("push does not say %s is an element object:\n%s%s", name, out, errOut)
		}
		if res, err := c.GetSkeleton(t.Context(), "file:///j/"+name, ""); err == nil && res.Skeleton != nil {
			t.Errorf("%s was pushed as %s", name, res.Skeleton.DocHash)
		}
	}
	for _, name := range []string{"foo.json", "cat.json", "g.json"} {
		sk, _ := skeletonOf(t, c, "file:///j/"+name)
		if got := hashOf(t, filepath.Join(dir, name)); got != sk.DocHash {
			t.Errorf("%s: hash prints %s, the remote holds %s", name, got, sk.DocHash)
		}
	}
	code, out, errOut = runCLI(t, "hash", filepath.Join(dir, "ok.json"))
	if code != exitOK || !strings.HasPrefix(out, "content_hash dpe1:") {
		t.Errorf("hash ok.json: exit %d %q %s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "hash", filepath.Join(dir, "el.json"))
	if code != exitRuntime || strings.Count(errOut, "DPE_VALIDATION") != 3 {
		t.Errorf("hash el.json: exit %d, want its 3 fields a Title does not carry:\n%s", code, errOut)
	}
	code, out, errOut = runStdin(t, `{"foo":1}`, "hash", "-")
	if code != exitRuntime || out != "" || strings.Count(errOut, "\n") != 1 ||
		!strings.Contains(errOut, "dpe-tui: stdin is not a DPE document") {
		t.Errorf("hash - of {\"foo\":1}: exit %d %q\n%s", code, out, errOut)
	}
}

// A convert output hashes as its source does: convert writes the file's
// mod time as last_modified, which the v0.2 → v1 mapping does not hash.
func TestHash_ConvertOutputHasItsSourcesIdentity(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "note.md")
	writeFile(t, src, "# Note\n\nSome text.\n")
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(src, old, old); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "convert", src)
	if code != exitOK || !strings.Contains(out, `"last_modified":"2020-01-02T03:04:05Z"`) {
		t.Fatalf("convert: exit %d\n%.300s\n%s", code, out, errOut)
	}
	v02 := filepath.Join(dir, "v02.json")
	writeFile(t, v02, out)
	if a, b := hashOf(t, v02), hashOf(t, src); a != b {
		t.Errorf("convert output hashes %s, its source %s", a, b)
	}
}

// A single object's problems are all listed, one a line, in the JSON path
// notation of documents, under one line that names stdin once.
func TestHash_ObjectListsEveryProblemAsAJSONPath(t *testing.T) {
	code, out, errOut := runStdin(t, `{"category":"Title","text":"x","metadata":{},"extra":1,"text_as_html":"<b>","blob":null}`, "hash", "-")
	lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
	want := []string{"  DPE_VALIDATION $.blob: ", "  DPE_VALIDATION $.extra: ", "  DPE_VALIDATION $.text_as_html: ",
		"dpe-tui: stdin (read as a DPE v1 element object) cannot be hashed under dpe1: 3 problem(s)"}
	if code != exitRuntime || out != "" || len(lines) != len(want) {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want %q…", i+1, lines[i], w)
		}
	}
}

// hash of a URL that serves no DPE document says how to hash it as push
// would (a local file is converted under its name, a URL is not).
func TestHashURL_OfMarkdownSaysHowToHashIt(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		io.WriteString(w, "# Testing\n\nSome text.\n")
	}))
	defer hs.Close()
	code, out, errOut := runCLI(t, "hash", hs.URL+"/TESTING.md")
	if code != exitRuntime || out != "" || strings.Count(errOut, "\n") != 1 ||
		!strings.Contains(errOut, "not a DPE document: save it and hash FILE to hash it as push converts it") {
		t.Errorf("exit %d %q %s", code, out, errOut)
	}
}
