package convert

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
)

// update rewrites the golden files: go test ./convert -run Golden -update
var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// structure lists what the Markdown export cannot show: every element's
// category with its depth, code language, table HTML (merged cells) and
// whether an image is embedded.
func structure(doc *dpe.Document) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "file_type=%s page_count=%d title=%q keywords=%q\n", doc.FileType, doc.PageCount, doc.Title, doc.Keywords)
	for _, p := range doc.Pages {
		fmt.Fprintf(&sb, "page %d %q\n", p.Index, p.Title)
		for _, el := range p.Elements {
			fmt.Fprintf(&sb, "  %s", el.Category)
			if _, ok := el.Metadata["category_depth"]; ok {
				fmt.Fprintf(&sb, " depth=%d", metaInt(el, "category_depth"))
			}
			if s := metaString(el, "language"); s != "" {
				fmt.Fprintf(&sb, " language=%s", s)
			}
			if s := metaString(el, "image_mime_type"); s != "" {
				fmt.Fprintf(&sb, " mime=%s embedded=%v", s, metaString(el, "image_base64") != "")
			}
			if s := metaString(el, "text_as_html"); s != "" {
				fmt.Fprintf(&sb, " html=%s", s)
			}
			fmt.Fprintf(&sb, " %q\n", trunc(el.Text, 60))
		}
	}
	return sb.String()
}

func metaString(el *dpe.Element, key string) string {
	var s string
	json.Unmarshal(el.Metadata[key], &s)
	return s
}

// inlineFormulas is the sentence holding doc's one inline formula, and
// that formula's line and LaTeX as its ele_metadata records them.
func inlineFormulas(t *testing.T, doc *dpe.Document) (sentence string, lines, tex []string) {
	t.Helper()
	for _, p := range doc.Pages {
		for _, el := range p.Elements {
			if _, ok := el.Metadata["inline_formula_texts"]; ok {
				json.Unmarshal(el.Metadata["inline_formula_texts"], &lines)
				json.Unmarshal(el.Metadata["inline_formula_latex"], &tex)
				return el.Category + " " + el.Text, lines, tex
			}
		}
	}
	return "", nil, nil
}

// golden compares the Markdown export plus the structure listing of doc
// with testdata/<name>.golden.
func golden(t *testing.T, name string, doc *dpe.Document) {
	t.Helper()
	got := render.Markdown(doc) + "\n<!-- structure -->\n" + structure(doc)
	file := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (rerun with -update if the change is right):\n%s", name, got)
	}
}

// headings is "depth text" for every Title.
func headings(doc *dpe.Document) []string {
	var out []string
	for _, el := range elementsOf(doc, "Title") {
		out = append(out, fmt.Sprintf("%d %s", metaInt(el, "category_depth"), el.Text))
	}
	return out
}

func listDepths(doc *dpe.Document) []int {
	var out []int
	for _, el := range elementsOf(doc, "ListItem") {
		out = append(out, metaInt(el, "category_depth"))
	}
	return out
}

// wantContains fails unless every want is in got (in order).
func wantInOrder(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("%s: %q lacks %q (in order)", what, got, want[i:])
	}
}

func anyTableHTML(doc *dpe.Document, sub string) bool {
	for _, el := range append(elementsOf(doc, "Table"), elementsOf(doc, "TableChunk")...) {
		if strings.Contains(metaString(el, "text_as_html"), sub) {
			return true
		}
	}
	return false
}

func embeddedImage(doc *dpe.Document) bool {
	for _, el := range elementsOf(doc, "Image") {
		if metaString(el, "image_base64") != "" && strings.HasPrefix(metaString(el, "image_mime_type"), "image/") {
			return true
		}
	}
	return false
}

// zipOf builds a zip from name/content pairs.
func zipOf(t testing.TB, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		w, err := zw.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[i+1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bombZip is a zip of small parts plus one part that inflates to size
// bytes (of XML whitespace, so only the budget can stop it).
func bombZip(t testing.TB, part string, size int, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		w, _ := zw.Create(files[i])
		w.Write([]byte(files[i+1]))
	}
	const prefix = `<?xml version="1.0"?><root>`
	// Compressed piecewise (rawDeflate): the sizes in the headers are true.
	total := len(prefix) + (size+(1<<20)-1)&^((1<<20)-1)
	comp, crc := rawDeflate(t, prefix, " ", total)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: part, Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(len(comp)), UncompressedSize64: uint64(total)})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(comp)
	zw.Close()
	return buf.Bytes()
}

const laughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
`

// convertBytes runs the whole shipped path (sniff, reader, pages) on data.
func convertBytes(t *testing.T, c *Converter, name string, data []byte) (*dpe.Document, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return c.Convert(ctx, BytesSource(name, data))
}

// hostileCase is one bad file and the words its one-line error must hold.
type hostileCase struct {
	name string
	data []byte
	want string
}

func runHostile(t *testing.T, cases []hostileCase) {
	t.Helper()
	c := New(Options{Limits: Limits{MaxDecompressed: 8 << 20}, CacheDir: "-"})
	defer c.Close()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := convertBytes(t, c, tc.name, tc.data)
			if err == nil {
				t.Fatalf("no error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tc.name+": ") || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Fatalf("error %q, want one line starting with the file name and holding %q", msg, tc.want)
			}
			if strings.Contains(tc.want, "over the limit") {
				var le *dpe.LimitError
				if !errors.As(err, &le) {
					t.Errorf("error %v is not a *dpe.LimitError", err)
				}
			}
		})
	}
}

func TestTableGridSpans(t *testing.T) {
	g := &grid{rows: [][]*cell{
		{{text: "a", colspan: 2, rowspan: 1, col: 0}, {text: "b", colspan: 1, rowspan: 2, col: 2}},
		{{text: "c", colspan: 1, rowspan: 1, col: 0}, {text: "d", colspan: 1, rowspan: 1, col: 1}},
	}}
	if h := g.html(); h != `<table><tr><td colspan="2">a</td><td rowspan="2">b</td></tr><tr><td>c</td><td>d</td></tr></table>` {
		t.Errorf("html %s", h)
	}
	if s := g.text(); s != "a\t\tb\nc\td\t" {
		t.Errorf("text %q", s)
	}
}
