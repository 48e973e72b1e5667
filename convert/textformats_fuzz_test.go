package convert

import (
	"encoding/json"
	"os"
	"testing"
	"testing/fstest"
)

// checkTextDoc asserts what every conversion must give, whatever the
// input: valid JSON, page_count == len(pages) ≥ 1, unique element ids,
// page_index matching position.
func checkTextDoc(t *testing.T, raw []byte) {
	t.Helper()
	var d tDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("output does not decode: %v", err)
	}
	if len(d.Pages) < 1 || d.PageCount != len(d.Pages) {
		t.Fatalf("page_count %d / %d pages", d.PageCount, len(d.Pages))
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

// FuzzConvertMarkdown: the Markdown reader never panics and always
// produces a valid Document.
func FuzzConvertMarkdown(f *testing.F) {
	seedFromFiles(f, "testdata/text/edge-cases.md", "../library/corpus/guides/field-guide.md", "../library/corpus/notes/cjk-notes.md")
	for _, s := range []string{"", "---", "---\ntitle: x\n---\n", "# a\n# b\n## c", "- [ ] x\n  - [x] y\n    1. z",
		"![a](data:image/png;base64,AAAA \"t\")", "![a](data:,%zz)", "| a |\n|---|\n| \x1b[2J |", "$$\n$$", "$$$$$",
		"<div>\x00\xff</div>", "```math\n", "> # q\n> ---", "![x](../../x.png)", "\xef\xbb\xbf# BOM"} {
		f.Add([]byte(s))
	}
	assets := fsAssets(fstest.MapFS{"img/a.png": {Data: []byte("\x89PNG")}, "doc.md": {Data: nil}})
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, err := textConvert(t, "doc.md", data, "dpe://h.example.x/doc.md", "doc.md", assets)
		if err != nil {
			// Content sniffing may take a Markdown file for HTML or
			// e-mail; those readers have their own fuzzers.
			return
		}
		checkTextDoc(t, raw)
	})
}

// FuzzConvertCSV: CSV and TSV either convert to a valid Document or return
// an error; they never panic.
func FuzzConvertCSV(f *testing.F) {
	seedFromFiles(f, "testdata/text/ragged.csv", "testdata/text/semicolon-ragged.csv", "testdata/text/small.tsv")
	for _, s := range []string{"", "\n", "a", "\"", "a,\"b\nc", "\"a\"\"\",b\r\n", "\t\t\t\n", "\x00,\xff", "a,b\n" + "1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"t.csv", "t.tsv"} {
			raw, err := textConvert(t, name, data, "", "", nil)
			if err != nil {
				continue
			}
			checkTextDoc(t, raw)
		}
	})
}

// FuzzConvertText covers the code and plain-text splitters.
func FuzzConvertText(f *testing.F) {
	for _, s := range []string{"", "\f", "\f\f\n\n", "a\r\n\r\nb", "x\n", "\xff\xfe\x00", "\xfe\xffa", "\xef\xbb\xbf\xe9"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"t.txt", "t.go"} {
			raw, err := textConvert(t, name, data, "", "", nil)
			if err != nil {
				continue // sniffed as another format, or an empty file
			}
			checkTextDoc(t, raw)
		}
	})
}
