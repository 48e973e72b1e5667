package identity

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/gowebpki/jcs"
)

// FuzzCanonicalAndHash: JCS output is a fixed point, and hashing any
// document JSON either computes or reports problems — it never panics,
// and computing twice gives the same doc_hash.
func FuzzCanonicalAndHash(f *testing.F) {
	f.Add([]byte(`{"b":1,"a":[null,1.0,-0,1e21],"é":{"x":null}}`))
	f.Add([]byte(`{"file_type":"md","pages":[{"title":null,"elements":[{"category":"Table","text":"a","text_as_html":"<t>","metadata":{"k":9007199254740991}}]}]}`))
	f.Add([]byte(`{"file_type":"md","pages":[{"page_index":0,"elements":[{"category":"Image","ele_metadata":{"image_base64":"AAEC"}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := Canonical(data, "$"); err == nil {
			// The fixed point is of JCS itself: a large double such as
			// 444447900129929479.000 canonicalises to an integer literal
			// that Canonical's range check would (rightly) refuse as input.
			again, err := jcs.Transform(c)
			if err != nil || !bytes.Equal(again, c) {
				t.Fatalf("JCS is not a fixed point: %s → %s (%v)", c, again, err)
			}
		}
		d, err := dpe.Decode(data, dpe.DefaultLimits())
		if err != nil {
			return
		}
		for i := range d.Pages {
			_ = d.EnsurePage(i, dpe.DefaultLimits())
		}
		r1 := Compute(Map(data, d))
		r2 := Compute(Map(data, d))
		if r1.DocHash != r2.DocHash || (r1.DocHash != "" && !strings.HasPrefix(string(r1.DocHash), Prefix)) {
			t.Fatalf("doc_hash %q then %q", r1.DocHash, r2.DocHash)
		}
		_ = Check(data)
	})
}

func TestCheckFindings(t *testing.T) {
	doc := `{"file_type":"md","pages":[{"elements":[]},{"elements":[{"category":"NarrativeText","text":"x","metadata":{"ids":[9007199254740992]}}]}]}`
	fs := Check([]byte(doc))
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule+" "+f.Path)
	}
	want := []string{RuleSafeInteger + " $.pages[1].elements[0].metadata.ids[0]"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzParseDocument: the v1 parser never panics; a document it accepts
// always hashes (every check of the hash is already a parse rule), the
// same way twice, and the same after a round trip through its JSON tags
// (the wire type says what was parsed). Any single object it accepts
// hashes too.
func FuzzParseDocument(f *testing.F) {
	for _, v := range []string{
		`{"file_type":"md","pages":[{"title":null,"elements":[{"category":"NarrativeText","text":"x","metadata":{"lang":"zh","n":null}}]}]}`,
		`{"file_type":"pdf","title":"","doc_metadata":{"a":[null,1.0,1e21]},"pages":[{"page_metadata":{},"elements":[{"category":"Image","blob":"sha256:` + strings.Repeat("ab", 32) + `","mime_type":"image/png"},{"category":"Table","text_as_html":"<t/>"}]},{"elements":[]}]}`,
		`{"file_type":"md","pages":[{"elements":[{"category":"Title","text_as_html":"x"}]}],"x":null}`,
		`{"category":"Formula","text":"\ud83d\ude80","metadata":{"k":-0.0}}`,
		`{"elements":["dpe1:` + strings.Repeat("0", 64) + `"],"title":"t"}`,
	} {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if d, probs := ParseDocument(data); d != nil {
			if len(probs) != 0 {
				t.Fatalf("a document and problems: %v", probs)
			}
			r1, r2 := HashDocument(d), HashDocument(d)
			if !r1.OK() || r1.DocHash != r2.DocHash {
				t.Fatalf("accepted but not hashed: %v (%q, %q)", r1.Problems, r1.DocHash, r2.DocHash)
			}
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			d2, probs := ParseDocument(b)
			if d2 == nil {
				t.Fatalf("its own JSON %s does not parse: %v", b, probs)
			}
			if r3 := HashDocument(d2); r3.DocHash != r1.DocHash {
				t.Fatalf("round trip changes the doc_hash: %s → %s (%s)", r1.DocHash, r3.DocHash, b)
			}
		} else if len(probs) == 0 {
			t.Fatal("no document and no problem")
		}
		for _, shape := range []Shape{ShapeElement, ShapePageObject, ShapeDocumentObject} {
			if o, p := HashObject(data, shape); (o == nil) == (p == nil) {
				t.Fatalf("%v: object %v, problem %v", shape, o, p)
			}
		}
	})
}
