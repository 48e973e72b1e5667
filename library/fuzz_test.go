package library

import (
	"encoding/json"
	"os"
	"testing"
	"testing/fstest"
)

// checkConverted asserts what every conversion must give, whatever the
// input: valid JSON, page_count == len(pages) ≥ 1, unique element ids,
// page_index matching position.
func checkConverted(t *testing.T, c *converted) {
	t.Helper()
	if !json.Valid(c.JSON) {
		t.Fatalf("invalid JSON output")
	}
	var d DocumentJSON
	if err := json.Unmarshal(c.JSON, &d); err != nil {
		t.Fatalf("output does not decode: %v", err)
	}
	if len(d.Pages) < 1 || d.PageCount != len(d.Pages) || c.Info.PageCount != len(d.Pages) {
		t.Fatalf("page_count %d / info %d / %d pages", d.PageCount, c.Info.PageCount, len(d.Pages))
	}
	ids := map[string]bool{}
	for i, p := range d.Pages {
		if p.PageIndex != i {
			t.Fatalf("page %d has page_index %d", i, p.PageIndex)
		}
		for _, e := range p.Elements {
			if ids[e.ElementID] {
				t.Fatalf("duplicate element id %s", e.ElementID)
			}
			ids[e.ElementID] = true
		}
	}
}

func seedFromFiles(f *testing.F, paths ...string) {
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

// FuzzConvertMarkdown: the Markdown converter never panics and always
// produces a valid Document.
func FuzzConvertMarkdown(f *testing.F) {
	seedFromFiles(f, "testdata/convert/edge-cases.md", "corpus/guides/field-guide.md", "corpus/notes/cjk-notes.md")
	for _, s := range []string{"", "---", "---\ntitle: x\n---\n", "# a\n# b\n## c", "- [ ] x\n  - [x] y\n    1. z",
		"![a](data:image/png;base64,AAAA \"t\")", "![a](data:,%zz)", "| a |\n|---|\n| \x1b[2J |", "$$\n$$", "$$$$$",
		"<div>\x00\xff</div>", "```math\n", "> # q\n> ---", "![x](../../x.png)", "\xef\xbb\xbf# BOM"} {
		f.Add([]byte(s))
	}
	fsys := fstest.MapFS{"img/a.png": {Data: []byte("\x89PNG")}, "doc.md": {Data: nil}}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := convertSource(sourceRef{files: &folder{fsys: fsys}, path: "doc.md", uri: "dpe://h.example.x/doc.md"}, data)
		if err != nil {
			t.Fatalf("markdown conversion failed: %v", err)
		}
		checkConverted(t, c)
	})
}

// FuzzConvertCSV: CSV and TSV either convert to a valid Document or return
// an error; they never panic.
func FuzzConvertCSV(f *testing.F) {
	seedFromFiles(f, "testdata/convert/ragged.csv", "testdata/convert/semicolon-ragged.csv", "testdata/convert/small.tsv")
	for _, s := range []string{"", "\n", "a", "\"", "a,\"b\nc", "\"a\"\"\",b\r\n", "\t\t\t\n", "\x00,\xff", "a,b\n" + "1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"t.csv", "t.tsv"} {
			c, err := convertSource(sourceRef{path: name}, data)
			if err != nil {
				continue
			}
			checkConverted(t, c)
		}
	})
}

// FuzzCheckDPE: the .dpe.json gate accepts only objects with a non-empty
// pages array and never panics.
func FuzzCheckDPE(f *testing.F) {
	for _, s := range []string{`{"pages":[{}]}`, `{"pages":[]}`, `[]`, `{"pages":[{}],"keywords":[1,"a"],"title":3}`, `{"pages":[{}]}x`, "\ufeff{\"pages\":[1]}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := checkDPE("d.dpe.json", data)
		if err != nil {
			return
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(c.JSON, &top) != nil {
			t.Fatal("accepted JSON that is not an object")
		}
		if c.Info.PageCount < 1 {
			t.Fatal("accepted a document without pages")
		}
	})
}

// FuzzConvertText covers the code and plain-text splitters.
func FuzzConvertText(f *testing.F) {
	for _, s := range []string{"", "\f", "\f\f\n\n", "a\r\n\r\nb", "x\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"t.txt", "t.go"} {
			c, err := convertSource(sourceRef{path: name}, data)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkConverted(t, c)
		}
	})
}
