package convert

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The pandoc fixtures (scripts/make-fixtures-pdf) are Markdown taken the
// way a user's document goes: pandoc's DOCX printed to PDF by
// LibreOffice. The Markdown is the truth the conversion is held to.

// mdSource is what a pandoc fixture's Markdown holds.
type mdSource struct {
	tables [][][]string // rows of cells
	prose  []string     // headings and paragraphs outside tables, code and lists
	code   [][]string   // code blocks' lines
	items  []mdItem     // bullet items
}

type mdItem struct {
	depth int
	text  string
}

func readMarkdown(t *testing.T, name string) *mdSource {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "pdf", name))
	if err != nil {
		t.Fatal(err)
	}
	src := &mdSource{}
	var table [][]string
	var code []string
	inCode := false
	endTable := func() {
		if table != nil {
			src.tables = append(src.tables, table)
			table = nil
		}
	}
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "```":
			if inCode {
				src.code = append(src.code, code)
				code = nil
			}
			inCode = !inCode
		case inCode:
			code = append(code, line)
		case strings.HasPrefix(trimmed, "|"):
			if strings.Trim(trimmed, "|-: ") == "" {
				continue // the header's separator
			}
			var row []string
			for _, c := range strings.Split(strings.Trim(trimmed, "|"), "|") {
				row = append(row, strings.TrimSpace(c))
			}
			table = append(table, row)
		case strings.HasPrefix(trimmed, "- "):
			endTable()
			depth := (len(line) - len(strings.TrimLeft(line, " "))) / 4
			src.items = append(src.items, mdItem{depth, strings.TrimPrefix(trimmed, "- ")})
		case trimmed != "":
			endTable()
			src.prose = append(src.prose, strings.TrimSpace(strings.TrimLeft(trimmed, "#")))
		default:
			endTable()
		}
	}
	endTable()
	return src
}

// A pandoc table (no rules; pandoc aligns columns left, right or centre as
// the Markdown says, and wraps a long cell) is one Table with the
// source's rows and columns in order, and its text is nowhere else.
func TestPDF_PandocTablesReadAsTables(t *testing.T) {
	src := readMarkdown(t, "pandoc-tables.md")
	if len(src.tables) < 3 {
		t.Fatalf("%d tables in the source", len(src.tables))
	}
	doc := convertFixture(t, testConverter(t), filepath.Join("pdf", "pandoc-tables.pdf"))
	tables := elementsOf(doc, "Table")
	if len(tables) != len(src.tables) {
		t.Errorf("%d Table elements, want %d", len(tables), len(src.tables))
	}
	for k, want := range src.tables {
		if k >= len(tables) {
			break
		}
		var got [][]string
		for _, row := range strings.Split(tables[k].Text, "\n") {
			got = append(got, strings.Split(row, "\t"))
		}
		if g, w := gridString(got), gridString(want); g != w {
			t.Errorf("table %d:\n%s\nwant (%d rows × %d columns)\n%s", k+1, g, len(want), len(want[0]), w)
		}
	}
	// Everything else is the prose, once each and in order.
	var rest []string
	for _, p := range doc.Pages {
		for _, el := range p.Elements {
			if el.Category != "Table" {
				rest = append(rest, el.Text)
			}
		}
	}
	if g, w := strings.Join(rest, "\n"), strings.Join(src.prose, "\n"); g != w {
		t.Errorf("the text outside the tables:\n%s\nwant\n%s", g, w)
	}
}

func gridString(rows [][]string) string {
	var sb strings.Builder
	for _, r := range rows {
		sb.WriteString(strings.Join(r, " | "))
		sb.WriteByte('\n')
	}
	return sb.String()
}

// Japanese and Chinese text has no spaces between words, and a line
// wrapped inside it joins the next without one; Korean keeps its spaces.
func TestPDF_CJKTextIsNotSplitBySpaces(t *testing.T) {
	src := readMarkdown(t, "pandoc-text.md")
	doc := convertFixture(t, testConverter(t), filepath.Join("pdf", "pandoc-text.pdf"))
	texts := map[string]bool{}
	for _, p := range doc.Pages {
		for _, el := range p.Elements {
			texts[el.Text] = true
		}
	}
	n := 0
	for _, para := range src.prose {
		if !strings.ContainsFunc(para, spaceless) {
			continue
		}
		n++
		if !texts[para] {
			t.Errorf("no element reads %q; the elements:\n%s", para, strings.Join(mapKeys(texts), "\n"))
		}
	}
	if n < 3 {
		t.Fatalf("%d CJK paragraphs in the source", n)
	}
}

func mapKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A code block keeps its lines' indentation (a PDF has no space
// characters there: it is rebuilt from where each line starts).
func TestPDF_CodeKeepsItsIndentation(t *testing.T) {
	src := readMarkdown(t, "pandoc-text.md")
	if len(src.code) == 0 {
		t.Fatal("no code block in the source")
	}
	doc := convertFixture(t, testConverter(t), filepath.Join("pdf", "pandoc-text.pdf"))
	var got []string
	for _, el := range elementsOf(doc, "CodeSnippet") {
		got = append(got, el.Text)
	}
	for k, want := range src.code {
		if k >= len(got) || got[k] != strings.Join(want, "\n") {
			t.Errorf("code block %d: CodeSnippets\n%s\nwant\n%s", k+1, strings.Join(got, "\n--\n"), strings.Join(want, "\n"))
		}
	}
}

// Bullets of every level ("•", then "–" in pandoc's DOCX) are the list's
// marks, not the items' text, and an item's depth is its nesting.
func TestPDF_NestedBulletsAreMarksWithTheirDepth(t *testing.T) {
	src := readMarkdown(t, "pandoc-text.md")
	if len(src.items) < 3 {
		t.Fatalf("%d items in the source", len(src.items))
	}
	doc := convertFixture(t, testConverter(t), filepath.Join("pdf", "pandoc-text.pdf"))
	var got, want []string
	for _, el := range elementsOf(doc, "ListItem") {
		got = append(got, strconv.Itoa(metaInt(el, "category_depth"))+" "+el.Text)
	}
	for _, it := range src.items {
		want = append(want, strconv.Itoa(it.depth)+" "+it.text)
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("list items (depth text):\n%s\nwant\n%s", g, w)
	}
}
