package library

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

// goldenCase is one source converted and compared with testdata/golden.
type goldenCase struct {
	fsys fs.FS
	path string
}

func goldenCases() []goldenCase {
	corpus := Corpus()
	local := os.DirFS("testdata/convert")
	return []goldenCase{
		{corpus, "reports/annual-operations-2026.md"},
		{corpus, "guides/field-guide.md"},
		{corpus, "notes/cjk-notes.md"},
		{corpus, "notes/shift-rota-memo.txt"},
		{corpus, "data/station-readings-wide.csv"},
		{corpus, "data/parts-inventory.tsv"},
		{corpus, "code/ring_buffer.go"},
		{corpus, "code/debounce.ts"},
		{local, "edge-cases.md"},
		{local, "ragged.csv"},
		{local, "semicolon-ragged.csv"},
		{local, "empty.csv"},
		{local, "small.tsv"},
	}
}

// TestConvert_Golden pins the Document JSON of Markdown, CSV/TSV, text and
// code conversion. Run with -update after an intended change.
func TestConvert_Golden(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.path, func(t *testing.T) {
			data, err := fs.ReadFile(tc.fsys, tc.path)
			if err != nil {
				t.Fatal(err)
			}
			// No mod time: the date is derived from the path, so goldens
			// do not depend on checkout time.
			ref := sourceRef{files: &folder{fsys: tc.fsys}, path: tc.path, uri: escapeDocRef(DefaultHost, tc.path), fileURI: fileURIOf("/corpus", tc.path)}
			c, err := convertSource(ref, data)
			if err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, c.JSON, "", "  "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			golden := filepath.Join("testdata", "golden", strings.ReplaceAll(tc.path, "/", "__")+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./library -run TestConvert_Golden -update)", err)
			}
			if !bytes.Equal(pretty.Bytes(), want) {
				t.Errorf("%s differs from %s (run with -update if intended)\n%s", tc.path, golden, firstDiff(pretty.String(), string(want)))
			}
		})
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return "line " + itoa(i+1) + ":\n got: " + trunc(a) + "\nwant: " + trunc(b)
		}
	}
	return ""
}

func itoa(i int) string { return jsonNumber(i) }

func jsonNumber(i int) string { b, _ := json.Marshal(i); return string(b) }

func trunc(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// TestConvert_MarkdownStructure checks the Markdown rules one by one on the
// edge-case file (the golden pins the whole output; this names the rules).
func TestConvert_MarkdownStructure(t *testing.T) {
	data, err := os.ReadFile("testdata/convert/edge-cases.md")
	if err != nil {
		t.Fatal(err)
	}
	var d DocumentJSON
	raw, err := Convert("edge-cases.md", data, "dpe://h.example.x/a/b%2Fc.md")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if d.DocRef != "a/b/c.md" || d.URI != "dpe://h.example.x/a/b%2Fc.md" {
		t.Errorf("doc_ref %q uri %q", d.DocRef, d.URI)
	}
	if len(d.Pages) != 3 || d.PageCount != 3 {
		t.Fatalf("pages = %d, want 3 (preamble + two H2 sections)", len(d.Pages))
	}
	find := func(pred func(ElementJSON) bool) *ElementJSON {
		for _, p := range d.Pages {
			for i := range p.Elements {
				if pred(p.Elements[i]) {
					return &p.Elements[i]
				}
			}
		}
		return nil
	}
	byText := func(s string) *ElementJSON {
		return find(func(e ElementJSON) bool { return strings.Contains(e.Text, s) })
	}
	tests := []struct {
		rule string
		ok   func() bool
	}{
		{"preamble is page 0", func() bool { return d.Pages[0].Elements[0].Text == "Text before any heading goes on page 0." }},
		{"H2 splits pages and titles them", func() bool { return d.Pages[1].Title == "First section" && d.Pages[2].Title == "Second section" }},
		{"Title depth is level-1", func() bool {
			e := byText("Deep heading")
			return e != nil && e.Category == catTitle && e.Metadata["category_depth"] == float64(3)
		}},
		{"links collected", func() bool {
			e := byText("A paragraph with a link")
			return e != nil && len(toStrings(e.Metadata["link_urls"])) == 2
		}},
		{"hard break kept", func() bool { e := byText("Line one"); return e != nil && strings.Contains(e.Text, "\nline two") }},
		{"task items are CheckBox with checked", func() bool {
			a, b := byText("nested task"), byText("nested done")
			return a != nil && b != nil && a.Category == catCheckBox && a.Metadata["checked"] == false && b.Metadata["checked"] == true
		}},
		{"nested list depth and parent", func() bool {
			parent, child := byText("ordered"), byText("nested task")
			return parent != nil && child != nil && child.Metadata["category_depth"] == float64(1) && child.Metadata["parent_id"] == parent.ElementID
		}},
		{"code in list item has language and parent", func() bool {
			e := byText("echo code inside")
			p := byText("nested done")
			return e != nil && e.Category == catCodeSnippet && e.Metadata["language"] == "sh" && e.Metadata["parent_id"] == p.ElementID
		}},
		{"table has escaped text_as_html", func() bool {
			e := find(func(e ElementJSON) bool { return e.Category == catTable })
			return e != nil && strings.Contains(e.Metadata["text_as_html"].(string), "a &lt; b &amp; &#34;y&#34;")
		}},
		{"$$ block is Formula", func() bool {
			e := byText("E = mc^2")
			return e != nil && e.Category == catFormula && e.Text == "E = mc^2"
		}},
		{"invalid data URI has no image data", func() bool {
			e := byText("broken data")
			return e != nil && e.Category == catImage && e.Metadata["image_base64"] == nil
		}},
		{"remote image is image_path", func() bool {
			e := byText("remote")
			return e != nil && e.Metadata["image_path"] == "https://example.org/i.png"
		}},
		{"image title is FigureCaption", func() bool {
			img, cap := byText("missing local"), byText("Caption of a missing image")
			return img != nil && cap != nil && cap.Category == catFigureCaption && slices.Equal(toStrings(cap.Metadata["related_ids"]), []string{img.ElementID})
		}},
		{"path escape is not read", func() bool { e := byText("escape"); return e != nil && e.Metadata["image_base64"] == nil }},
		{"HTML block is Text with text_as_html", func() bool {
			e := find(func(e ElementJSON) bool { return e.Category == catText })
			return e != nil && e.Text == "" && strings.Contains(e.Metadata["text_as_html"].(string), "<script>")
		}},
		{"thematic break is PageBreak", func() bool {
			last := d.Pages[2].Elements[len(d.Pages[2].Elements)-1]
			return last.Category == catPageBreak
		}},
	}
	for _, tt := range tests {
		if !tt.ok() {
			t.Errorf("rule failed: %s", tt.rule)
		}
	}
}

func TestConvert_FrontMatterOnlyWhenWellFormed(t *testing.T) {
	tests := []struct {
		name, src, title string
		pages            int
	}{
		{"front matter", "---\ntitle: T\nkeywords: a, b\n---\n# H\n", "T", 1},
		{"thematic break first", "---\n\n# H\n\ntext\n", "H", 1},
		{"unclosed", "---\ntitle: T\n# H\n", "H", 1},
		{"empty", "", "x.md", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := Convert("x.md", []byte(tt.src), "")
			if err != nil {
				t.Fatal(err)
			}
			var d DocumentJSON
			if err := json.Unmarshal(raw, &d); err != nil {
				t.Fatal(err)
			}
			if d.Title != tt.title || len(d.Pages) != tt.pages {
				t.Errorf("title %q pages %d, want %q %d", d.Title, len(d.Pages), tt.title, tt.pages)
			}
		})
	}
}

func TestConvert_CSVChunksRowsAndRepeatsHeader(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("id,name\n")
	for i := 0; i < 2*csvRowsPerPage+1; i++ {
		sb.WriteString(jsonNumber(i) + ",n\n")
	}
	raw, err := Convert("t.csv", []byte(sb.String()), "")
	if err != nil {
		t.Fatal(err)
	}
	var d DocumentJSON
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Pages) != 3 {
		t.Fatalf("pages = %d, want 3", len(d.Pages))
	}
	for i, p := range d.Pages {
		e := p.Elements[0]
		if e.Category != catTable || !strings.HasPrefix(e.Text, "id\tname\n") || !strings.HasPrefix(e.Metadata["text_as_html"].(string), "<table><thead><tr><th>id</th>") {
			t.Errorf("page %d: header not repeated: %.40q", i, e.Text)
		}
		if (i > 0) != (e.Metadata["is_continuation"] == true) {
			t.Errorf("page %d: is_continuation = %v", i, e.Metadata["is_continuation"])
		}
	}
	if last := d.Pages[2].Elements[0].Text; strings.Count(last, "\n") != 1 {
		t.Errorf("last page holds %d rows, want 1", strings.Count(last, "\n"))
	}
}

func TestConvert_CodeSplitsLongFilesWithLanguage(t *testing.T) {
	src := strings.Repeat("x = 1\n", codeLinesPerPage*2+5)
	raw, err := Convert("pkg/m.py", []byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	var d DocumentJSON
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Pages) != 3 || d.FileType != "py" {
		t.Fatalf("pages %d file_type %q", len(d.Pages), d.FileType)
	}
	for i, p := range d.Pages {
		e := p.Elements[0]
		if e.Category != catCodeSnippet || e.Metadata["language"] != "python" || e.Metadata["line_start"] != float64(i*codeLinesPerPage+1) {
			t.Errorf("page %d: %s %v", i, e.Category, e.Metadata)
		}
	}
}

func TestConvert_DPEJSONValidation(t *testing.T) {
	tests := []struct {
		name, src string
		ok        bool
	}{
		{"object with pages", `{"pages":[{"page_index":0,"elements":[]}]}`, true},
		{"leading BOM and space", "\ufeff \n{\"pages\":[{}]}", true},
		{"array", `[{"pages":[]}]`, false},
		{"no pages", `{"title":"x"}`, false},
		{"pages null", `{"pages":null}`, false},
		{"pages not array", `{"pages":{}}`, false},
		{"empty pages", `{"pages":[]}`, false},
		{"truncated", `{"pages":[`, false},
		{"trailing garbage", `{"pages":[{}]} x`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Convert("d.dpe.json", []byte(tt.src), "")
			if (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestConvert_UnsupportedExtensionIsAnError(t *testing.T) {
	if _, err := Convert("image.png", []byte{0x89, 'P'}, ""); err == nil {
		t.Error("png converted")
	}
}

func TestClassify_FileTypesAreLowercase(t *testing.T) {
	for _, name := range []string{"A.MD", "B.CSV", "c.TSV", "D.GO", "e.Dpe.Json", "f.TXT", "g.Rs"} {
		k, ft := classify(name)
		if k == kindNone || ft != strings.ToLower(ft) {
			t.Errorf("%s: kind %d file_type %q", name, k, ft)
		}
	}
	if k, _ := classify(path.Join("x", "y.bin")); k != kindNone {
		t.Error("bin classified")
	}
}
