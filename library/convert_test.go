package library

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/convert"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

// goldenCase is one source converted and compared with testdata/golden.
type goldenCase struct {
	fsys fs.FS
	path string
}

func goldenCases() []goldenCase {
	corpus := Corpus()
	local := os.DirFS("../convert/testdata/text")
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

// TestConvert_Golden pins the Document JSON the library serves for
// Markdown, CSV/TSV, text and code (converted by package convert). Run with -update after an intended change.
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
			conv := convert.New(convert.Options{})
			defer conv.Close()
			c, err := convertFile(context.Background(), conv, ref, data)
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
			_, err := checkDPE("d.dpe.json", []byte(tt.src))
			if (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
