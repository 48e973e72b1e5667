package wire

import (
	"strings"
	"testing"
)

func TestNormalizeURI_CoreSection1_1(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"HTTP://Example.COM/%7euser/%2f", "http://example.com/~user/%2F"},
		{"s3://Bucket/A%c3%a9", "s3://bucket/A%C3%A9"},
		{"file:///a/./b/../c", "file:///a/./b/../c"},
		{"urn:ISBN:0451", "urn:ISBN:0451"},
		{"http://user:PW@Host:80/x", "http://user:PW@host:80/x"},
		{"http://h%45st/", "http://hest/"},
	} {
		got, v := NormalizeURI(tc.in)
		if v != nil || got != tc.want {
			t.Errorf("NormalizeURI(%q) = %q, %v; want %q", tc.in, got, v, tc.want)
		}
	}
	for _, bad := range []string{"", "docs/a.md", "1http://x", "file:///a b", "file:///é", "http://x/%zz", "http://x/%4"} {
		if _, v := NormalizeURI(bad); v == nil || v.Code != CodeValidation {
			t.Errorf("NormalizeURI(%q) accepted", bad)
		}
	}
}

func TestParseElement_ValidationOrderOfCore2_8(t *testing.T) {
	h64 := strings.Repeat("a", 64)
	for _, tc := range []struct {
		body string
		code Code
		ptr  string
	}{
		{`[]`, CodeValidation, ""},
		{`{"text":"x"}`, CodeValidation, ""},
		{`{"category":5}`, CodeValidation, "/category"},
		{`{"category":"Bogus","zzz":1}`, CodeCategoryUnknown, "/category"},
		{`{"category":"NarrativeText","text_as_html":null}`, CodeValidation, "/text_as_html"},
		{`{"category":"NarrativeText","b":1,"a":2}`, CodeValidation, "/a"},
		{`{"category":"Image","blob":"sha256:xyz"}`, CodeValidation, "/blob"},
		{`{"category":"NarrativeText","text":1}`, CodeValidation, "/text"},
		{`{"category":"NarrativeText","metadata":{"n":9007199254740993}}`, CodeValidation, "/metadata/n"},
	} {
		_, _, v := ParseElement([]byte(tc.body))
		if v == nil || v.Code != tc.code || v.Pointer != tc.ptr {
			t.Errorf("%s: %v, want %s at %q", tc.body, v, tc.code, tc.ptr)
		}
	}
	for _, tc := range []struct {
		body string
		code Code
		ptr  string
	}{
		{`{"elements":["dpe2:` + h64 + `"]}`, CodeContractUnsupported, "/elements/0"},
		{`{"elements":["dpe1:` + strings.ToUpper(h64) + `"]}`, CodeValidation, "/elements/0"},
		{`{"elements":"x"}`, CodeValidation, "/elements"},
	} {
		_, _, v := ParsePage([]byte(tc.body))
		if v == nil || v.Code != tc.code || v.Pointer != tc.ptr {
			t.Errorf("%s: %v, want %s at %q", tc.body, v, tc.code, tc.ptr)
		}
	}
	if _, _, v := ParseDocument([]byte(`{"file_type":"Markdown","pages":[]}`)); v == nil || v.Pointer != "/file_type" {
		t.Errorf("Markdown (not a file_type's syntax) accepted: %v", v)
	}
}

// TestHash_NullAndAbsentAreOneValueEmptyStringIsAnother: contract 1 §3.2.
func TestHash_NullAndAbsentAreOneValueEmptyStringIsAnother(t *testing.T) {
	_, a, _ := ParseElement([]byte(`{"category":"Title","text":null,"metadata":{"x":null}}`))
	_, b, _ := ParseElement([]byte(`{"category":"Title"}`))
	_, c, _ := ParseElement([]byte(`{"category":"Title","text":""}`))
	if a != b || a == c || !ValidHash(a) {
		t.Fatalf("null/absent %s %s, empty %s", a, b, c)
	}
}

// TestHash_UpstreamVectorMetadataNullEquivalence is vector
// metadata_null_equivalence of 0.2.1/vectors (commit 0808ede): one md
// page, one NarrativeText "x" with metadata {"lang":"zh"}.
func TestHash_UpstreamVectorMetadataNullEquivalence(t *testing.T) {
	_, eh, v := ParseElement([]byte(`{"category":"NarrativeText","text":"x","metadata":{"lang":"zh","gone":null}}`))
	if v != nil {
		t.Fatal(v)
	}
	_, ph, v := ParsePage([]byte(`{"elements":["` + eh + `"]}`))
	if v != nil {
		t.Fatal(v)
	}
	_, dh, v := ParseDocument([]byte(`{"file_type":"md","pages":["` + ph + `"]}`))
	if v != nil {
		t.Fatal(v)
	}
	if !strings.HasPrefix(dh, "dpe1:f3a0a43c") {
		t.Fatalf("doc_hash %s, want upstream's dpe1:f3a0a43c…", dh)
	}
}
