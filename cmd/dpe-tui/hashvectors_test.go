package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe/identity"
)

// The upstream conformance vectors (dpe/identity/testdata/vectors, see
// the README there) through the real command: every document of every
// document vector is a file given to `dpe-tui hash --json`; every jcs
// case is a value in a document's doc_metadata, whose doc_hash the
// contract fixes from the case's canonical form; every uri case goes
// through `hash --file-uri`.

const vectorDir = "../../dpe/identity/testdata/vectors"

type cliVector struct {
	Kind      string                     `json:"kind"`
	Documents map[string]json.RawMessage `json:"documents"`
	Expected  map[string]struct {
		DPE1 json.RawMessage `json:"dpe1"`
	} `json:"expected"`
	Relations []map[string][]string `json:"relations"`
	Cases     []struct {
		Input      json.RawMessage `json:"input"`
		Canonical  string          `json:"canonical"`
		Normalized string          `json:"normalized"`
	} `json:"cases"`
	InvalidCases []struct {
		Input string `json:"input"`
	} `json:"invalid_cases"`
}

func loadCLIVectors(t *testing.T) map[string]cliVector {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(vectorDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no vectors in %s: %v", vectorDir, err)
	}
	out := map[string]cliVector{}
	for _, f := range files {
		if filepath.Base(f) == "manifest.json" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v cliVector
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = v
	}
	return out
}

// hashFile runs `dpe-tui hash --json path` and returns its output.
func hashFile(t *testing.T, path string, args ...string) identity.Hashes {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"hash", "--json", path}, args...)...)
	if code != exitOK {
		t.Fatalf("hash %s: exit %d\n%s", path, code, errOut)
	}
	var h identity.Hashes
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatalf("hash --json: %v\n%s", err, out)
	}
	return h
}

func TestHash_UpstreamDocumentVectors(t *testing.T) {
	n := 0
	for file, v := range loadCLIVectors(t) {
		if v.Kind != "document" {
			continue
		}
		t.Run(file, func(t *testing.T) {
			dir := t.TempDir()
			got := map[string]identity.Hashes{}
			for name, doc := range v.Documents {
				if file == "image_placeholder_null.json" && name == "null_fields" {
					// The stored copy predates the final field names
					// (image_blob); hash refuses it, naming the field.
					path := filepath.Join(dir, name+".json")
					if err := os.WriteFile(path, doc, 0o600); err != nil {
						t.Fatal(err)
					}
					code, _, errOut := runCLI(t, "hash", path)
					if code != exitRuntime || !strings.Contains(errOut, "$.pages[0].elements[0].image_blob") {
						t.Errorf("%s: exit %d %s; want the undefined field named", name, code, errOut)
					}
					continue
				}
				path := filepath.Join(dir, name+".json")
				if err := os.WriteFile(path, doc, 0o600); err != nil {
					t.Fatal(err)
				}
				h := hashFile(t, path)
				got[name] = h
				var want identity.Hashes
				if err := json.Unmarshal(v.Expected[name].DPE1, &want); err != nil || want.DocHash == "" {
					t.Fatalf("%s: no dpe1 expectation: %v", name, err)
				}
				g, _ := json.Marshal(h)
				w, _ := json.Marshal(want)
				if string(g) != string(w) {
					t.Errorf("%s: hash --json\n got %s\nwant %s", name, g, w)
				}
				n++
			}
			for _, rel := range v.Relations {
				for op, refs := range rel {
					refused := false
					for _, r := range refs {
						if _, ok := got[strings.SplitN(r, ".", 2)[0]]; !ok {
							refused = true
						}
					}
					if refused {
						continue // over a document refused above
					}
					for i := 1; i < len(refs); i++ {
						a, b := vectorRef(t, refs[0], got), vectorRef(t, refs[i], got)
						if (op == "equal") != (a == b) {
							t.Errorf("relation %s: %s=%s, %s=%s", op, refs[0], a, refs[i], b)
						}
					}
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no document vector ran through hash")
	}
}

// vectorRef resolves base.doc_hash, base.pages.0.page_hash,
// base.pages.0.elements.1.
func vectorRef(t *testing.T, ref string, got map[string]identity.Hashes) identity.Hash {
	t.Helper()
	p := strings.Split(ref, ".")
	h, ok := got[p[0]]
	num := func(s string) int {
		i, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("ref %s: %v", ref, err)
		}
		return i
	}
	switch {
	case !ok:
	case len(p) == 2 && p[1] == "doc_hash":
		return h.DocHash
	case len(p) == 4 && p[1] == "pages" && p[3] == "page_hash":
		return h.Pages[num(p[2])].PageHash
	case len(p) == 5 && p[1] == "pages" && p[3] == "elements":
		return h.Pages[num(p[2])].Elements[num(p[4])]
	}
	t.Fatalf("relation ref %s: not understood", ref)
	return ""
}

func TestHash_UpstreamJCSVectors(t *testing.T) {
	dir := t.TempDir()
	n := 0
	for file, v := range loadCLIVectors(t) {
		if v.Kind != "jcs" {
			continue
		}
		for i, c := range v.Cases {
			if strings.Contains(c.Canonical, "null") {
				// In a document, norm removes null-valued keys before JCS
				// (contract §3.2): such a case is pure JCS, checked by the
				// package test only.
				continue
			}
			path := filepath.Join(dir, file+strconv.Itoa(i)+".json")
			doc := `{"file_type":"md","doc_metadata":{"v":` + string(c.Input) + `},"pages":[]}`
			if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
				t.Fatal(err)
			}
			// The document object's preimage (contract §5) around the
			// case's canonical form.
			sum := sha256.Sum256([]byte(`{"doc_metadata":{"v":` + c.Canonical + `},"file_type":"md","pages":[]}`))
			want := identity.Hash(identity.Prefix + hex.EncodeToString(sum[:]))
			if got := hashFile(t, path).DocHash; got != want {
				t.Errorf("%s case %d (%s): doc_hash %s, want %s (canonical %s)", file, i, c.Input, got, want, c.Canonical)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no jcs case ran through hash")
	}
}

func TestHash_UpstreamFileURIVectors(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "doc.json")
	if err := os.WriteFile(doc, []byte(`{"file_type":"md","pages":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	n := 0
	for file, v := range loadCLIVectors(t) {
		if v.Kind != "uri" {
			continue
		}
		for _, c := range v.Cases {
			var in string
			if err := json.Unmarshal(c.Input, &in); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runCLI(t, "hash", "--json", doc, "--file-uri", in)
			var got struct {
				FileURI string `json:"file_uri"`
			}
			if code != exitOK || json.Unmarshal([]byte(out), &got) != nil || got.FileURI != c.Normalized {
				t.Errorf("%s: hash --file-uri %q: exit %d, %s%s; want %q", file, in, code, out, errOut, c.Normalized)
			}
			n++
		}
		for _, c := range v.InvalidCases {
			code, out, errOut := runCLI(t, "hash", doc, "--file-uri", c.Input)
			if code != exitUsage || out != "" || !strings.Contains(errOut, "--file-uri: file_uri") {
				t.Errorf("%s: hash --file-uri %q: exit %d, stdout %q, stderr %q; want a usage error naming it", file, c.Input, code, out, errOut)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no uri case ran through hash")
	}
}

// TestHash_UpstreamInvalidVectors: every rejection case of core §2.8
// through `hash` (single objects with --object, expanded documents as
// they are): exit 1, and the first problem line names the vector's code
// and, where the case fixes it, its place.
func TestHash_UpstreamInvalidVectors(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(vectorDir, "invalid_objects.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Cases []struct {
			Name       string          `json:"name"`
			ObjectKind string          `json:"object_kind"`
			Contract   string          `json:"contract"`
			Input      json.RawMessage `json:"input"`
			InputJSON  *string         `json:"input_json"`
			Code       string          `json:"code"`
			Path       *string         `json:"path"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &v); err != nil || len(v.Cases) == 0 {
		t.Fatalf("invalid_objects.json: %v", err)
	}
	var superseded struct{ Cases []string }
	if b, err := os.ReadFile(filepath.Join(vectorDir, "..", "superseded_invalid.json")); err != nil || json.Unmarshal(b, &superseded) != nil {
		t.Fatalf("superseded_invalid.json: %v", err)
	}
	dir := t.TempDir()
	for _, c := range v.Cases {
		if c.Contract != "dpe1" {
			continue // the drill contract dpe2 is not one we speak
		}
		in := []byte(c.Input)
		if c.InputJSON != nil {
			in = []byte(*c.InputJSON)
		}
		path := filepath.Join(dir, c.Name+".json")
		if err := os.WriteFile(path, in, 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{"hash", path}
		if c.ObjectKind != "expanded_document" {
			args = append(args, "--object", c.ObjectKind)
		}
		code, out, errOut := runCLI(t, args...)
		first, _, _ := strings.Cut(errOut, "\n")
		fields := strings.Fields(first)
		if slices.Contains(superseded.Cases, c.Name) {
			// A newer vector made file_type open: it is not what hash
			// refuses, whatever else it does.
			if strings.Contains(first, "file_type") {
				t.Errorf("%s (superseded): the open file_type is refused: %s", c.Name, errOut)
			}
			continue
		}
		if code != exitRuntime || out != "" || len(fields) < 2 || fields[0] != c.Code {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %s", c.Name, code, out, errOut, c.Code)
			continue
		}
		if c.Path != nil {
			got := pointerOf(strings.TrimSuffix(fields[1], ":"))
			if got != *c.Path {
				t.Errorf("%s: problem at %q, want %q\n%s", c.Name, got, *c.Path, errOut)
			}
		}
	}
}

// TestHash_ObjectsChainToTheVectorsHashes: the three wire objects of
// metadata_null_equivalence's document, each hashed on its own by `hash`
// (shape sniffed), give the vector's content_hash, page_hash and doc_hash.
func TestHash_ObjectsChainToTheVectorsHashes(t *testing.T) {
	v := loadCLIVectors(t)["metadata_null_equivalence.json"]
	var want identity.Hashes
	if err := json.Unmarshal(v.Expected["plain"].DPE1, &want); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	objects := []struct {
		kind, body string
		want       identity.Hash
	}{
		{"content_hash", `{"category":"NarrativeText","text":"x","metadata":{"lang":"zh","gone":null}}`, want.Pages[0].Elements[0]},
		{"page_hash", `{"title":null,"elements":["` + string(want.Pages[0].Elements[0]) + `"]}`, want.Pages[0].PageHash},
		{"doc_hash", `{"file_type":"md","doc_metadata":{},"pages":["` + string(want.Pages[0].PageHash) + `"]}`, want.DocHash},
	}
	for i, o := range objects {
		path := filepath.Join(dir, strconv.Itoa(i)+".json")
		if err := os.WriteFile(path, []byte(o.body), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(t, "hash", path)
		if code != exitOK || out != o.kind+" "+string(o.want)+"\n" {
			t.Errorf("hash %s: exit %d, %q %s; want %s %s", o.body, code, out, errOut, o.kind, o.want)
		}
	}
}
