package identity

import (
	"bytes"
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
	f.Add([]byte(`{"file_type":"md","pages":[{"number":1,"title":null,"elements":[{"category":"Table","text":"a","text_as_html":"<t>","metadata":{"k":9007199254740991}}]}]}`))
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
		if r1.DocHash != r2.DocHash || (r1.DocHash != "" && !strings.HasPrefix(r1.DocHash, Prefix)) {
			t.Fatalf("doc_hash %q then %q", r1.DocHash, r2.DocHash)
		}
		_ = Check(data)
	})
}

func TestCheckFindings(t *testing.T) {
	doc := `{"file_type":"md","pages":[{"number":1,"elements":[]},{"number":1,"elements":[{"category":"NarrativeText","text":"x","metadata":{"ids":[9007199254740992]}}]}]}`
	fs := Check([]byte(doc))
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule+" "+f.Path)
	}
	want := []string{RulePageNumberUnique + " $.pages[1].number", RuleSafeInteger + " $.pages[1].elements[0].metadata.ids[0]"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
