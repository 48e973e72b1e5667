package identity

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"testing"
)

// nestingVector is upstream's nesting_depth.json (core §2.8 step 0):
// cases at the limit are accepted, one level over refused as the object
// itself (path "").
type nestingVector struct {
	Kind  string `json:"kind"`
	Limit int    `json:"limit"`
	Cases []struct {
		Name       string          `json:"name"`
		ObjectKind string          `json:"object_kind"`
		Contract   string          `json:"contract"`
		Input      json.RawMessage `json:"input"`
		InputJSON  string          `json:"input_json"`
		Accept     bool            `json:"accept"`
		Code       string          `json:"code"`
		Path       *string         `json:"path"`
	} `json:"cases"`
}

// elementAtRE is the JSON path of an inline element of a document.
var elementAtRE = regexp.MustCompile(`^\$\.pages\[(\d+)\]\.elements\[(\d+)\]$`)

// inlineElement is the element at path (elementAtRE) of an expanded
// document, as its own wire object.
func inlineElement(t *testing.T, doc []byte, path string) []byte {
	t.Helper()
	m := elementAtRE.FindStringSubmatch(path)
	if m == nil {
		t.Fatalf("%q is not the place of an inline element", path)
	}
	pi, _ := strconv.Atoi(m[1])
	ei, _ := strconv.Atoi(m[2])
	var d struct {
		Pages []struct {
			Elements []json.RawMessage `json:"elements"`
		} `json:"pages"`
	}
	if err := json.Unmarshal(doc, &d); err != nil || pi >= len(d.Pages) || ei >= len(d.Pages[pi].Elements) {
		t.Fatalf("no element at %s: %v", path, err)
	}
	return d.Pages[pi].Elements[ei]
}

// TestVectors_NestingDepth runs nesting_depth.json through the package:
// each case's input (the indented value) and its input_json (the same
// value as text) are judged alike, as the vector requires. A refused
// expanded document names the offending object; the vector's path is
// relative to that object (it says so: "" is the object itself), so the
// object found there must be refused on its own at that path.
func TestVectors_NestingDepth(t *testing.T) {
	b, err := os.ReadFile("testdata/vectors/nesting_depth.json")
	if err != nil {
		t.Fatal(err)
	}
	var v nestingVector
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if v.Kind != "nesting_depth" || v.Limit != maxObjectDepth || len(v.Cases) == 0 {
		t.Fatalf("kind %q, limit %d (ours %d), %d cases", v.Kind, v.Limit, maxObjectDepth, len(v.Cases))
	}
	accepted, refused := 0, 0
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.Contract != "dpe1" {
				t.Fatalf("contract %q", c.Contract)
			}
			if !c.Accept && (c.Code == "" || c.Path == nil) {
				t.Fatal("the case neither accepts nor names a code and a path")
			}
			var val, txt any
			if json.Unmarshal(c.Input, &val) != nil || json.Unmarshal([]byte(c.InputJSON), &txt) != nil || !reflect.DeepEqual(val, txt) {
				t.Fatal("input and input_json are not the same value")
			}
			for form, in := range map[string][]byte{"input": c.Input, "input_json": []byte(c.InputJSON)} {
				p := judgeObject(t, c.ObjectKind, in)
				switch {
				case c.Accept && p != nil:
					t.Errorf("%s: refused (%s at %q: %s), want accepted", form, p.Code, p.Path, p.Message)
				case c.Accept:
				case p == nil:
					t.Errorf("%s: accepted, want %s at %q", form, c.Code, *c.Path)
				case string(p.Code) != c.Code:
					t.Errorf("%s: %s at %q (%s), want %s", form, p.Code, p.Path, p.Message, c.Code)
				case c.ObjectKind == "expanded_document":
					_, alone := ParseElement(inlineElement(t, in, p.Path))
					if alone == nil || string(alone.Code) != c.Code || alone.Path != *c.Path {
						t.Errorf("%s: refused at %s, but that element alone gives %v, want %s at %q", form, p.Path, alone, c.Code, *c.Path)
					}
				case p.Path != *c.Path:
					t.Errorf("%s: %s at %q, want %q", form, p.Code, p.Path, *c.Path)
				}
			}
		})
		if c.Accept {
			accepted++
		} else {
			refused++
		}
	}
	if accepted == 0 || refused == 0 {
		t.Fatalf("%d accepted and %d refused cases: the vector should have both", accepted, refused)
	}
}

// judgeObject parses in as the vector's object_kind: the first problem,
// or nil when it is accepted (an accepted expanded document must also
// hash).
func judgeObject(t *testing.T, kind string, in []byte) *Problem {
	t.Helper()
	var p *Problem
	switch kind {
	case "element":
		_, p = ParseElement(in)
	case "page":
		_, p = ParsePageObject(in)
	case "document":
		_, p = ParseDocumentObject(in)
	case "expanded_document":
		d, probs := ParseDocument(in)
		if len(probs) > 0 {
			return &probs[0]
		}
		if r := HashDocument(d); !r.OK() {
			return &r.Problems[0]
		}
	default:
		t.Fatalf("object_kind %q", kind)
	}
	return p
}
