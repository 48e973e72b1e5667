package identity

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The vectors under testdata/vectors are upstream's, byte for byte (see
// README.md there for the commit of each file). Every file of kind
// document, jcs or uri is run here through the package; the CLI test in
// cmd/dpe-tui runs the same files through `dpe-tui hash`.

// Vector is one upstream vector file.
type Vector struct {
	Name      string                     `json:"name"`
	Kind      string                     `json:"kind"`
	Documents map[string]json.RawMessage `json:"documents"`
	Expected  map[string]struct {
		DPE1 *Hashes `json:"dpe1"`
	} `json:"expected"`
	Relations []map[string][]string `json:"relations"`
	Cases     []struct {
		Input      json.RawMessage `json:"input"`
		Canonical  string          `json:"canonical"`
		SHA256     string          `json:"sha256"`
		Normalized string          `json:"normalized"`
	} `json:"cases"`
	InvalidCases []struct {
		Input string `json:"input"`
		Code  string `json:"code"`
	} `json:"invalid_cases"`
}

// LoadVectors reads every vector file of dir (test helper, also used by
// the CLI test through a copy of this loop).
func loadVectors(t *testing.T) map[string]*Vector {
	t.Helper()
	files, err := filepath.Glob("testdata/vectors/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	out := map[string]*Vector{}
	for _, f := range files {
		if filepath.Base(f) == "manifest.json" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v Vector
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = &v
	}
	return out
}

// supersededDocuments are documents of stored vector versions that the
// final manifest replaced (their sha256 is not the manifest's), which the
// final closed schema (core §2.8 step 3: an undefined field is rejected
// even when null) refuses: vector file → document → the field named.
func supersededDocuments() map[string]map[string]string {
	return map[string]map[string]string{
		// 0.1.4's copy still spells the Image fields image_blob and
		// image_mime_type (the final ones are blob and mime_type).
		"image_placeholder_null.json": {"null_fields": "$.pages[0].elements[0].image_blob"},
	}
}

func TestVectors_Documents(t *testing.T) {
	n := 0
	for file, v := range loadVectors(t) {
		if v.Kind != "document" {
			continue
		}
		t.Run(file, func(t *testing.T) {
			got := map[string]Hashes{}
			for name, raw := range v.Documents {
				if field, ok := supersededDocuments()[file][name]; ok {
					_, probs := ParseDocument(raw)
					// The first problem is §2.8's, at the old field; its
					// twin (image_mime_type) follows.
					if len(probs) != 2 || probs[0].Path != field {
						t.Fatalf("%s (superseded): %v, want the first of two problems at %s", name, probs, field)
					}
					continue
				}
				d, probs := ParseDocument(raw)
				if len(probs) > 0 {
					t.Fatalf("%s: %v", name, probs)
				}
				r := HashDocument(d)
				if !r.OK() {
					t.Fatalf("%s: %v", name, r.Problems)
				}
				got[name] = r.Hashes()
				want := v.Expected[name].DPE1
				if want == nil {
					t.Fatalf("%s: no dpe1 expectation", name)
				}
				if g, w := mustJSON(t, r.Hashes()), mustJSON(t, want); g != w {
					t.Errorf("%s:\n got %s\nwant %s", name, g, w)
				}
				n++
			}
			checkRelations(t, v.Relations, got, supersededDocuments()[file])
		})
	}
	if n == 0 {
		t.Fatal("no document vectors ran")
	}
}

// checkRelations asserts the vector's relations ("equal", "distinct")
// over refs like base.doc_hash, base.pages.0.page_hash,
// base.pages.0.elements.1.
func checkRelations(t *testing.T, rels []map[string][]string, got map[string]Hashes, superseded map[string]string) {
	t.Helper()
	for _, rel := range rels {
		for op, refs := range rel {
			if slices.ContainsFunc(refs, func(r string) bool { _, ok := superseded[strings.SplitN(r, ".", 2)[0]]; return ok }) {
				continue // a relation over a document the final schema refuses
			}
			vals := make([]Hash, len(refs))
			for i, ref := range refs {
				vals[i] = resolveRef(t, ref, got)
			}
			for i := range vals {
				for j := i + 1; j < len(vals); j++ {
					switch op {
					case "equal":
						if vals[i] != vals[j] {
							t.Errorf("relation equal: %s != %s", refs[i], refs[j])
						}
					case "distinct":
						if vals[i] == vals[j] {
							t.Errorf("relation distinct: %s == %s", refs[i], refs[j])
						}
					default:
						t.Fatalf("unknown relation %q", op)
					}
				}
			}
		}
	}
}

func resolveRef(t *testing.T, ref string, got map[string]Hashes) Hash {
	t.Helper()
	parts := strings.Split(ref, ".")
	h, ok := got[parts[0]]
	if !ok {
		t.Fatalf("relation ref %s: no document %s", ref, parts[0])
	}
	var pi, ei int
	switch {
	case len(parts) == 2 && parts[1] == "doc_hash":
		return h.DocHash
	case len(parts) == 4 && parts[1] == "pages" && parts[3] == "page_hash":
		fmt.Sscan(parts[2], &pi)
		return h.Pages[pi].PageHash
	case len(parts) == 5 && parts[1] == "pages" && parts[3] == "elements":
		fmt.Sscan(parts[2], &pi)
		fmt.Sscan(parts[4], &ei)
		return h.Pages[pi].Elements[ei]
	}
	t.Fatalf("relation ref %s: not understood", ref)
	return ""
}

func TestVectors_JCS(t *testing.T) {
	n := 0
	for file, v := range loadVectors(t) {
		if v.Kind != "jcs" {
			continue
		}
		for i, c := range v.Cases {
			got, err := Canonical(c.Input, "$")
			if err != nil {
				t.Errorf("%s case %d: %v", file, i, err)
				continue
			}
			sum := sha256.Sum256(got)
			if string(got) != c.Canonical || hex.EncodeToString(sum[:]) != c.SHA256 {
				t.Errorf("%s case %d: %s, want %s", file, i, got, c.Canonical)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no jcs cases ran")
	}
}

func TestVectors_FileURI(t *testing.T) {
	n := 0
	for file, v := range loadVectors(t) {
		if v.Kind != "uri" {
			continue
		}
		for _, c := range v.Cases {
			var in string
			if err := json.Unmarshal(c.Input, &in); err != nil {
				t.Fatal(err)
			}
			got, p := NormalizeFileURI(in)
			if p != nil || got != c.Normalized {
				t.Errorf("%s: %q → %q %v, want %q", file, in, got, p, c.Normalized)
			}
			if again, _ := NormalizeFileURI(got); again != got {
				t.Errorf("%s: not idempotent: %q → %q", file, got, again)
			}
			n++
		}
		for _, c := range v.InvalidCases {
			got, p := NormalizeFileURI(c.Input)
			if p == nil || p.Code != c.Code {
				t.Errorf("%s: %q → %q %v, want %s", file, c.Input, got, p, c.Code)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no uri cases ran")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// invalidCase is one case of a vector of kind "invalid" (core §2.8).
type invalidCase struct {
	Name       string          `json:"name"`
	ObjectKind string          `json:"object_kind"`
	Contract   string          `json:"contract"`
	Input      json.RawMessage `json:"input"`
	InputJSON  *string         `json:"input_json"`
	Code       string          `json:"code"`
	Path       *string         `json:"path"`
}

// supersededInvalid names the invalid_objects cases a newer vector
// replaced (testdata/superseded_invalid.json says which and why).
func supersededInvalid(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("testdata/superseded_invalid.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct{ Cases []string }
	if err := json.Unmarshal(b, &s); err != nil || len(s.Cases) == 0 {
		t.Fatalf("superseded_invalid.json: %v", err)
	}
	out := map[string]bool{}
	for _, c := range s.Cases {
		out[c] = true
	}
	return out
}

func TestVectors_Invalid(t *testing.T) {
	files, _ := filepath.Glob("testdata/vectors/*.json")
	superseded := supersededInvalid(t)
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Kind  string        `json:"kind"`
			Cases []invalidCase `json:"cases"`
		}
		if json.Unmarshal(b, &v) != nil || v.Kind != "invalid" {
			continue
		}
		for _, c := range v.Cases {
			t.Run(c.Name, func(t *testing.T) {
				if c.Contract != "dpe1" {
					// Objects of the hypothetical drill contract: we speak
					// dpe1 only, so there is no dpe2 object to validate.
					t.Skipf("contract %s is not one this implementation speaks", c.Contract)
				}
				in := []byte(c.Input)
				if c.InputJSON != nil {
					in = []byte(*c.InputJSON)
				}
				var p *Problem
				switch c.ObjectKind {
				case "element":
					_, p = ParseElement(in)
				case "page":
					_, p = ParsePageObject(in)
				case "document":
					_, p = ParseDocumentObject(in)
				case "expanded_document":
					d, probs := ParseDocument(in)
					if d == nil && len(probs) > 0 {
						p = &probs[0]
						p.Path = pointerOf(p.Path)
					}
				default:
					t.Fatalf("object_kind %q", c.ObjectKind)
				}
				if superseded[c.Name] {
					// file_type is open now: whatever else is wrong, the
					// file_type is not.
					if p != nil && strings.HasSuffix(p.Path, "file_type") {
						t.Fatalf("superseded case: the open file_type is refused: %s at %q (%s)", p.Code, p.Path, p.Message)
					}
					return
				}
				if p == nil {
					t.Fatalf("accepted, want %s", c.Code)
				}
				if p.Code != c.Code || c.Path != nil && p.Path != *c.Path {
					t.Fatalf("%s at %q (%s), want %s at %v", p.Code, p.Path, p.Message, c.Code, deref(c.Path))
				}
			})
			n++
		}
	}
	if n == 0 {
		t.Fatal("no invalid case ran")
	}
}

func deref(s *string) string {
	if s == nil {
		return "(any)"
	}
	return strconvQuote(*s)
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// pointerOf turns a JSON path of ParseDocument ($.pages[0].elements[1].x)
// into the RFC 6901 pointer the vectors use (/pages/0/elements/1/x); the
// vectors' paths have plain keys only.
func pointerOf(path string) string {
	s := strings.TrimPrefix(path, "$")
	s = strings.NewReplacer("[", "/", "]", "", ".", "/").Replace(s)
	return s
}

// TestVectors_CrossPageMoveDelta: the vector's own claim (core §3.3's
// multiset delta): an element moved to another page is retained, nothing
// added or removed, though both page_hashes and the doc_hash change.
func TestVectors_CrossPageMoveDelta(t *testing.T) {
	v := loadVectors(t)["cross_page_move.json"]
	res := map[string]*Result{}
	for _, name := range []string{"before", "after"} {
		d, probs := ParseDocument(v.Documents[name])
		if d == nil {
			t.Fatalf("%s: %v", name, probs)
		}
		res[name] = HashDocument(d)
	}
	b, a := res["before"], res["after"]
	if got, want := ComputeDelta(b, a), (Delta{Added: 0, Removed: 0, Retained: len(b.ElementHashes())}); got != want {
		t.Fatalf("delta %+v, want %+v", got, want)
	}
	c := Diff(b, a)
	if c.Equal || c.Delta.Added != 0 || c.Delta.Removed != 0 || len(c.Pages) != 2 {
		t.Fatalf("diff %+v", c)
	}
	// And the delta counts multisets: one more copy of a retained element
	// is one added.
	extra := append(a.ElementHashes(), a.ElementHashes()[0])
	if got := DeltaOf(b.ElementHashes(), extra); got != (Delta{Added: 1, Removed: 0, Retained: 2}) {
		t.Fatalf("delta with a duplicate %+v", got)
	}
}

// TestParseDocument_EveryProblemOfEachObject: a file with several
// mistakes gets all of them, §2.8's first first: an undefined field at
// the top does not hide the pages', and an element with two mistakes
// reports both (but not a "blob is missing" that setting one aside made).
func TestParseDocument_EveryProblemOfEachObject(t *testing.T) {
	raw := `{"file_type":"md","titel":"x","pages":[{"title":null,"elements":[` +
		`{"category":"NarrativeText","txet":"a"},` +
		`{"category":"Image","text":"b","blob":"nope","mime_typ":"image/png"}]},` +
		`{"title":7,"elements":[{"category":"Bogus","text":"c"}]}]}`
	_, probs := ParseDocument([]byte(raw))
	var got []string
	for _, p := range probs {
		got = append(got, string(p.Code)+" "+p.Path)
	}
	want := []string{
		"DPE_VALIDATION $.titel",
		"DPE_VALIDATION $.pages[1].title",
		"DPE_VALIDATION $.pages[0].elements[0].txet",
		"DPE_VALIDATION $.pages[0].elements[1].mime_typ",
		"DPE_VALIDATION $.pages[0].elements[1].blob",
		"DPE_CATEGORY_UNKNOWN $.pages[1].elements[0].category",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNestingDepth_Core2_8Step0: each object nests at most 64 deep
// (vectors/nesting_depth.json's rule: a scalar 0, a container 1 + its
// deepest child, an empty one 1; a page's elements and a document's
// pages count as their list of hashes). Exactly 64 is accepted, 65 is
// refused, naming the object itself; inline documents judge each object
// as its wire form.
func TestNestingDepth_Core2_8Step0(t *testing.T) {
	nest := func(levels int) string { // levels keys around {}: depth levels+1
		return strings.Repeat(`{"k":`, levels) + `{}` + strings.Repeat(`}`, levels)
	}
	el := func(levels int) string { return `{"category":"Title","text":"x","metadata":` + nest(levels) + `}` }
	if _, p := ParseElement([]byte(el(62))); p != nil {
		t.Fatalf("element at the limit (64): %v", p)
	}
	if _, p := ParseElement([]byte(el(63))); p == nil || p.Path != "" || p.Code != CodeValidation {
		t.Fatalf("element at 65: %v, want a problem of the object itself", p)
	}
	page := func(levels int) string { return `{"elements":[],"page_metadata":` + nest(levels) + `}` }
	if _, p := ParsePageObject([]byte(page(62))); p != nil {
		t.Fatalf("page at the limit: %v", p)
	}
	if _, p := ParsePageObject([]byte(page(63))); p == nil || p.Path != "" {
		t.Fatalf("page at 65: %v", p)
	}
	// Inline: the element is deep as its own object, not as the document's
	// descendant; the page's inline elements count as a list of hashes.
	doc := func(levels int) string {
		return `{"file_type":"md","pages":[{"elements":[` + el(levels) + `],"page_metadata":` + nest(levels) + `}]}`
	}
	if _, probs := ParseDocument([]byte(doc(62))); len(probs) != 0 {
		t.Fatalf("inline document, every object at the limit: %v", probs)
	}
	_, probs := ParseDocument([]byte(doc(63)))
	if len(probs) != 2 || probs[0].Path != "$.pages[0]" || probs[1].Path != "$.pages[0].elements[0]" {
		t.Fatalf("inline document, page and element at 65: %v", probs)
	}
}

// TestValidFileType: core §2.5's syntax, the cases of upstream's
// dpe-hash tests/test_file_type.py @ 49862b1.
func TestValidFileType(t *testing.T) {
	for _, ok := range []string{"md", "a", "a1", "a_b_1", "3mf", "markdown", "custom_format_v2", "max_length_value_0123456789abcde", "git_repo", "tfchat"} {
		if !ValidFileType(ok) {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{"", "Markdown", "git-repo", "_internal", "max_length_value_0123456789abcdef", "md ", "md\n", "märkdown", "md."} {
		if ValidFileType(bad) {
			t.Errorf("%q accepted", bad)
		}
		if _, p := ParseDocumentObject([]byte(`{"file_type":` + strconvQuote(bad) + `,"pages":[]}`)); p == nil || p.Path != "/file_type" || p.Code != CodeValidation {
			t.Errorf("%q: %v, want DPE_VALIDATION at /file_type", bad, p)
		}
	}
}
