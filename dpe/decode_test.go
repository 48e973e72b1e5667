package dpe

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const specDoc = `{
  "doc_ref": "rpt-2026",
  "uri": "dpe://com.example.docs/rpt-2026",
  "file_uri": "file:///data/reports/2026-annual.xlsx",
  "file_type": "xlsx",
  "title": "2026 年度报告",
  "summary": "...",
  "page_count": 2,
  "keywords": ["财务", "年报"],
  "last_modified": "2026-01-15T08:30:00Z",
  "x_custom": {"a": 1},
  "pages": [
    {"page_index": 0, "title": "概览", "doc_ref": "rpt-2026", "x_page": true,
     "elements": [
       {"element_id": "t-1", "category": "Title", "text": "Hello \"world\"\n", "doc_ref": "rpt-2026", "page_index": 0,
        "ele_metadata": {"category_depth": 0, "text_as_html": "<b>x</b>"}, "x_el": [1,2]},
       {"element_id": "n-1", "category": "NarrativeText", "text": "caf\u00e9 \ud83d\ude00"}
     ]},
    {"page_index": 1, "title": "Sheet2", "uri": "https://oss/doc-1/page-1.json", "element_count": 8}
  ]
}`

func TestDecode_LazyPagesKeepRawUntilEnsurePage(t *testing.T) {
	d, err := Decode([]byte(specDoc), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "2026 年度报告" || d.PageCount != 2 || len(d.Keywords) != 2 || d.URI != "dpe://com.example.docs/rpt-2026" {
		t.Fatalf("document fields: %+v", d)
	}
	if len(d.Pages) != 2 {
		t.Fatalf("%d pages", len(d.Pages))
	}
	p0, p1 := d.Pages[0], d.Pages[1]
	if p0.Decoded || p0.Elements != nil || len(p0.Raw) == 0 || p0.Title != "概览" {
		t.Fatalf("page 0 must be indexed, not decoded: %+v", p0)
	}
	if !json.Valid(p0.Raw) || !bytes.HasPrefix(p0.Raw, []byte(`{"page_index": 0`)) {
		t.Fatalf("page 0 Raw is not the page object: %s", p0.Raw)
	}
	if p1.URI != "https://oss/doc-1/page-1.json" || p1.ElementCount != 8 || p1.Decoded {
		t.Fatalf("manifest page: %+v", p1)
	}
	if p0.ElementCount != -1 {
		t.Fatalf("absent element_count must be -1, got %d", p0.ElementCount)
	}
	if err := d.EnsurePage(0, Limits{}); err != nil {
		t.Fatal(err)
	}
	if !p0.Decoded || len(p0.Elements) != 2 {
		t.Fatalf("after EnsurePage: decoded=%v elements=%d", p0.Decoded, len(p0.Elements))
	}
	e0, e1 := p0.Elements[0], p0.Elements[1]
	if e0.ID != "t-1" || e0.Category != "Title" || e0.Text != "Hello \"world\"\n" || e0.DocRef != "rpt-2026" {
		t.Fatalf("element 0: %+v", e0)
	}
	if string(e0.Metadata["text_as_html"]) != `"<b>x</b>"` || !bytes.Contains(e0.Raw, []byte(`"x_el": [1,2]`)) {
		t.Fatalf("element 0 metadata/raw: %v %s", e0.Metadata, e0.Raw)
	}
	if e1.Text != "café 😀" || e1.PageIndex != 0 {
		t.Fatalf("element 1: %+v", e1)
	}
	if err := d.EnsurePage(1, Limits{}); !errors.Is(err, ErrManifestPage) {
		t.Fatalf("EnsurePage on a manifest page: %v, want ErrManifestPage", err)
	}
}

func TestDecode_UnknownFieldsKeptInExtra(t *testing.T) {
	d, err := Decode([]byte(specDoc), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if string(d.Extra["x_custom"]) != `{"a": 1}` {
		t.Fatalf("top-level Extra: %v", d.Extra)
	}
	if string(d.Pages[0].Extra["x_page"]) != "true" {
		t.Fatalf("page Extra: %v", d.Pages[0].Extra)
	}
	if _, ok := d.Extra["pages"]; ok {
		t.Fatal("named fields must not be duplicated in Extra")
	}
}

func TestDecode_KernelShapeNumberAndDocMetadataSortedByIndex(t *testing.T) {
	in := `{"file_uri":"https://example.com/report.pdf","doc_metadata":{"summary":"Q2","created_at":"2024-06-15T10:30:00Z","filename":"report.pdf"},
	"pages":[
	  {"page_id":2,"number":1,"title":"Second","page_metadata":{"k":1},"elements":[{"ele_id":2,"element_id":"b","category":"NarrativeText","text":"two"}]},
	  {"page_id":1,"number":0,"title":"Cover","elements":[{"ele_id":1,"element_id":"a","category":"Title","text":"one"}]}
	]}`
	d, err := Decode([]byte(in), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary != "Q2" || d.Title != "report.pdf" || d.Extra["doc_metadata"] == nil {
		t.Fatalf("doc_metadata not lifted/kept: %+v", d)
	}
	if d.Pages[0].Title != "Cover" || d.Pages[0].Index != 0 || d.Pages[1].Index != 1 {
		t.Fatalf("pages not sorted by number: %q %q", d.Pages[0].Title, d.Pages[1].Title)
	}
	if d.Pages[1].Extra["page_metadata"] == nil {
		t.Fatal("page_metadata must be kept in Extra")
	}
	if err := d.EnsurePage(1, Limits{}); err != nil {
		t.Fatal(err)
	}
	if el := d.Pages[1].Elements[0]; el.ID != "b" || el.PageIndex != 1 {
		t.Fatalf("element: %+v", el)
	}
	// page_index wins over number in either order.
	d, err = Decode([]byte(`{"pages":[{"page_index":3,"number":9,"elements":[]},{"number":9,"page_index":2,"elements":[]}]}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Pages[0].Index != 2 || d.Pages[1].Index != 3 {
		t.Fatalf("page_index must win over number: %d %d", d.Pages[0].Index, d.Pages[1].Index)
	}
}

func TestDecode_NotADocumentSaysWhy(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[1,2]`, "top-level JSON is an array"},
		{`"x"`, "top-level JSON is a string"},
		{`{}`, `no "pages" array`},
		{`{"pages":null}`, `no "pages" array`},
		{`{"pages":"p"}`, `"pages" is a string, want an array`},
		{`{"pages":[1]}`, `$.pages[0] is a number, want a page object`},
		{`{"pages":[{"elements":[[]]}]}`, `$.pages[0].elements[0] is an array, want an element object`},
		{`   `, "empty input"},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(tt.in), Limits{})
		if !errors.Is(err, ErrNotDocument) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Decode(%s) = %v, want ErrNotDocument containing %q", tt.in, err, tt.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "not a DPE document: ") {
			t.Errorf("message %q must start with \"not a DPE document: \"", err)
		}
	}
}

func TestDecode_MalformedJSONIsSyntaxErrorWithOffset(t *testing.T) {
	tests := []string{
		`{"pages":[}`, `{"pages":[{"elements":[{"text":"a}]}]}`, `{"pages":[]} x`, `{"pages":[],}`,
		`{"a":01,"pages":[]}`, `{"a":"\q","pages":[]}`, "{\"a\":\"\x01\",\"pages\":[]}", `{"a":tru,"pages":[]}`,
		`{"pages":[{"elements":[{"t":[1,]}]}]}`, `{"pages":[{"elements":[{"t":{"a" 1}}]}]}`, `[1,2`, `{"a":1.}`, `{"a":-}`,
		`{"a":"\u12"}`, `{"pages":[{"elements":[{1:2}]}]}`,
	}
	for _, in := range tests {
		_, err := Decode([]byte(in), Limits{})
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Decode(%q) = %v, want *SyntaxError", in, err)
			continue
		}
		if json.Valid([]byte(in)) {
			t.Errorf("test input %q is valid JSON", in)
		}
		if !strings.Contains(err.Error(), "malformed JSON at byte ") {
			t.Errorf("message %q", err)
		}
	}
}

func TestDecode_LimitsNameWhatAndLimit(t *testing.T) {
	deep := `{"pages":[{"elements":[{"x":` + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + `}]}]}`
	tests := []struct {
		name, in string
		lim      Limits
		want     string
	}{
		{"bytes", `{"pages":[]}`, Limits{MaxBytes: 5}, "document size over the limit: 12 bytes > 5 bytes"},
		{"pages", `{"pages":[{},{},{}]}`, Limits{MaxPages: 2}, "pages over the limit: 3 > 2"},
		{"elements", `{"pages":[{"page_index":0,"elements":[{},{},{}]}]}`, Limits{MaxElementsPerPage: 2}, "elements on page 1 over the limit: 3 > 2"},
		{"depth", `{"pages":[{"elements":[{"x":[[[1]]]}]}]}`, Limits{MaxDepth: 6}, "JSON nesting depth over the limit: 7 > 6"},
		{"depth-hostile", deep, Limits{}, "JSON nesting depth over the limit: 65 > 64"},
		{"depth-top", strings.Repeat("[", 100), Limits{}, "JSON nesting depth over the limit"},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(tt.in), tt.lim)
		var le *LimitError
		if !errors.As(err, &le) || err.Error() != tt.want && !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: Decode = %v, want *LimitError %q", tt.name, err, tt.want)
		}
	}
	// Exactly at the limits is fine.
	if _, err := Decode([]byte(`{"pages":[{"elements":[{"x":[1]}]}]}`), Limits{MaxDepth: 6, MaxPages: 1, MaxElementsPerPage: 1}); err != nil {
		t.Errorf("at the limits: %v", err)
	}
}

func TestDecode_WrongTypedFieldsKeptAndReported(t *testing.T) {
	d, err := Decode([]byte(`{"title":5,"keywords":["a",1],"page_count":"2","pages":[{"page_index":"0","title":[],"elements":[{"element_id":"x","text":{"a":1}}]}]}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "" || string(d.Extra["title"]) != "5" || d.Keywords != nil || d.Extra["keywords"] == nil {
		t.Fatalf("wrong-typed fields: title=%q extra=%v", d.Title, d.Extra)
	}
	got := map[string]bool{}
	for _, f := range Validate(d) {
		got[f.Path+" "+f.Rule] = true
	}
	for _, want := range []string{
		"$.title field-type", "$.keywords keywords-array", "$.page_count field-type",
		"$.pages[0].page_index field-type", "$.pages[0].title field-type", "$.pages[0].elements[0].text field-type",
	} {
		if !got[want] {
			t.Errorf("missing finding %q in %v", want, got)
		}
	}
}

func TestDecodePage_ManifestFetchResultFullyDecoded(t *testing.T) {
	p, err := DecodePage([]byte(`{"elements":[{"element_id":"e","category":"Table","text":"a\tb"}],"page_index":4,"title":"T"}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Decoded || p.Index != 4 || p.Title != "T" || len(p.Elements) != 1 || p.Elements[0].PageIndex != 4 || p.Elements[0].Text != "a\tb" {
		t.Fatalf("page: %+v %+v", p, p.Elements)
	}
	if _, err := DecodePage([]byte(`{"page_index":1,"uri":"x"}`), Limits{}); !errors.Is(err, ErrNotDocument) {
		t.Fatalf("page without elements: %v", err)
	}
	if _, err := DecodePage([]byte(`[]`), Limits{}); !errors.Is(err, ErrNotDocument) {
		t.Fatalf("array page: %v", err)
	}
}

// TestDecode_StringsMatchEncodingJSON: element text decodes exactly as
// encoding/json would (escapes, surrogates, invalid UTF-8 → U+FFFD).
func TestDecode_StringsMatchEncodingJSON(t *testing.T) {
	texts := []string{`"plain"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, "\"bad \xff utf8\"", `"tab\t\\ \/ \b\f\r"`, `""`}
	for _, tx := range texts {
		in := `{"pages":[{"elements":[{"text":` + tx + `}]}]}`
		d, err := Decode([]byte(in), Limits{})
		if err != nil {
			t.Fatalf("%s: %v", tx, err)
		}
		if err := d.EnsurePage(0, Limits{}); err != nil {
			t.Fatal(err)
		}
		var want string
		if err := json.Unmarshal([]byte(tx), &want); err != nil {
			t.Fatal(err)
		}
		if got := d.Pages[0].Elements[0].Text; got != want {
			t.Errorf("text %s = %q, want %q", tx, got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		specDoc, `{"pages":[]}`, `[]`, `{"pages":[{"number":1,"elements":[{"text":"\u00e9"}]}]}`,
		`{"pages":[{"uri":"x"}],"doc_metadata":{"title":"t"}}`, `{"pages":[{"elements":[{"x":[[[[]]]]}]}]}`,
		`{"pages":"x"}`, `{"a":1e5,"b":-0.5E-3,"pages":[{"page_index":-1}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Decode(data, Limits{MaxDepth: 20})
		if err != nil {
			var se *SyntaxError
			if errors.As(err, &se) && json.Valid(data) && !bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
				t.Fatalf("valid JSON reported as malformed: %v", err)
			}
			return
		}
		if !json.Valid(data[skipBOM(data):]) {
			t.Fatalf("malformed JSON accepted: %q", data)
		}
		for i, p := range d.Pages {
			if err := d.EnsurePage(i, Limits{MaxDepth: 20}); err != nil && !errors.Is(err, ErrManifestPage) && !strings.Contains(err.Error(), "neither") {
				t.Fatalf("EnsurePage(%d) after a successful Decode: %v", i, err)
			}
			if !p.Decoded {
				continue
			}
			// Differential check against encoding/json.
			var ref struct {
				Elements []map[string]json.RawMessage `json:"elements"`
			}
			if err := json.Unmarshal(p.Raw, &ref); err != nil || len(ref.Elements) != len(p.Elements) {
				t.Fatalf("page %d: encoding/json sees %d elements (%v), we see %d", i, len(ref.Elements), err, len(p.Elements))
			}
			for j, m := range ref.Elements {
				var want string
				if json.Unmarshal(m["text"], &want) == nil && p.Elements[j].Text != want {
					t.Fatalf("page %d element %d: text %q, encoding/json %q", i, j, p.Elements[j].Text, want)
				}
			}
		}
		_ = Validate(d)
	})
}
