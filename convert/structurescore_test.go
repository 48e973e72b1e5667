package convert

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/interoptest"
)

// structureSources are the Markdown sources of the fixtures pandoc wrote
// (scripts/make-fixtures), each with the files made from it.
var structureSources = map[string][]string{
	"handbook.md":       {"handbook.docx", "handbook.odt", "handbook.html", "handbook.epub"},
	"adjacent-lists.md": {"adjacent-lists.docx", "adjacent-lists.odt", "adjacent-lists.html", "adjacent-lists.md"},
	"nested-lists.md":   {"nested-lists.docx", "nested-lists.odt", "nested-lists.html", "nested-lists.md"},
	"marks.md":          {"marks.docx", "marks.odt", "marks.html"},
	"code-blocks.md":    {"code-blocks.docx"},
	"formulas.md":       {"formulas.docx", "formulas.odt", "formulas.html", "formulas.epub"},
	"review.md":         {"review.docx", "review.html", "review.epub"},
	"notes.md":          {"pandoc-notes.docx", "pandoc-notes.odt", "pandoc-notes.html", "pandoc-notes.epub"},
	"quotes.md":         {"pandoc-quotes.docx", "pandoc-quotes.odt", "pandoc-quotes.md"},
	"links.md":          {"links.docx", "links.odt", "links.html", "links.epub", "links-toc.html"},
}

// TestStructure_ScoresAgainstPandocAST compares each fixture pandoc wrote
// with pandoc's own JSON AST of its source: headings by level and text,
// list items by text and number, tables by rows × columns, code blocks by
// text, footnotes by number and text. Each category's score is the share of pandoc's items the
// conversion has (each matched once); every one must be ≥ 0.98 per
// format.
func TestStructure_ScoresAgainstPandocAST(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		interoptest.Need(t, "pandoc is not installed")
	}
	c := New(Options{})
	defer c.Close()
	srcs := make([]string, 0, len(structureSources))
	for s := range structureSources {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	for _, src := range srcs {
		want := pandocStructure(t, filepath.Join("testdata", "src", src))
		for _, file := range structureSources[src] {
			t.Run(file, func(t *testing.T) {
				got := docStructure(convertFixture(t, c, file))
				for _, cat := range []string{"heading", "list item", "table", "code block", "footnote"} {
					w := want[cat]
					if len(w) == 0 {
						continue
					}
					score, missing := recall(w, got[cat])
					t.Logf("%s: %s %.3f (%d of %d)", file, cat, score, len(w)-len(missing), len(w))
					if score < 0.98 {
						t.Errorf("%s: %s score %.3f < 0.98; missing %q", file, cat, score, missing)
					}
				}
			})
		}
	}
}

// recall is the share of want found in got, each got item used once,
// and the items of want not found.
func recall(want, got []string) (float64, []string) {
	left := map[string]int{}
	for _, g := range got {
		left[g]++
	}
	var missing []string
	for _, w := range want {
		if left[w] > 0 {
			left[w]--
			continue
		}
		missing = append(missing, w)
	}
	return float64(len(want)-len(missing)) / float64(len(want)), missing
}

// norm is text compared whatever its spacing.
func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

// docStructure is a converted document's items by category, in the
// notation pandocStructure uses.
func docStructure(doc *dpe.Document) map[string][]string {
	out := map[string][]string{}
	for _, p := range doc.Pages {
		for _, el := range p.Elements {
			switch el.Category {
			case "Title":
				out["heading"] = append(out["heading"], fmt.Sprintf("h%d %s", metaInt(el, "category_depth")+1, norm(el.Text)))
			case "ListItem", "CheckBox":
				num := "-"
				if ordered, _ := el.Metadata["ordered"]; string(ordered) == "true" {
					num = strconv.Itoa(max(1, metaInt(el, "item_number")))
				}
				out["list item"] = append(out["list item"], fmt.Sprintf("%d %s %s", metaInt(el, "category_depth"), num, norm(el.Text)))
			case "Table":
				out["table"] = append(out["table"], fmt.Sprintf("%d×%d", metaInt(el, "table_rows"), metaInt(el, "table_cols")))
			case "CodeSnippet":
				out["code block"] = append(out["code block"], norm(el.Text))
			}
			if n := metaInt(el, "footnote"); n > 0 {
				out["footnote"] = append(out["footnote"], fmt.Sprintf("%d %s", n, norm(strings.TrimPrefix(el.Text, fmt.Sprintf("[%d]", n)))))
			}
		}
	}
	return out
}

// pandocStructure is what pandoc's Markdown reader finds in src, by
// category.
func pandocStructure(t *testing.T, src string) map[string][]string {
	t.Helper()
	data, err := exec.Command("pandoc", "-f", "markdown", "-t", "json", src).Output()
	if err != nil {
		t.Fatalf("pandoc %s: %v", src, err)
	}
	var doc struct {
		Blocks []json.RawMessage `json:"blocks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	var blocks func(bs []json.RawMessage, depth int)
	blocks = func(bs []json.RawMessage, depth int) {
		for _, raw := range bs {
			var b struct {
				T string          `json:"t"`
				C json.RawMessage `json:"c"`
			}
			if json.Unmarshal(raw, &b) != nil {
				continue
			}
			var c []json.RawMessage
			_ = json.Unmarshal(b.C, &c)
			switch b.T {
			case "Header":
				if len(c) == 3 {
					out["heading"] = append(out["heading"], fmt.Sprintf("h%s %s", string(c[0]), norm(astText(c[2]))))
				}
			case "BulletList", "OrderedList":
				var items [][]json.RawMessage
				start := 0
				if b.T == "BulletList" {
					_ = json.Unmarshal(b.C, &items)
				} else if len(c) == 2 {
					var attrs []json.RawMessage
					_ = json.Unmarshal(c[0], &attrs)
					if len(attrs) > 0 {
						start, _ = strconv.Atoi(string(attrs[0]))
					}
					_ = json.Unmarshal(c[1], &items)
				}
				for i, it := range items {
					num := "-"
					if b.T == "OrderedList" {
						num = strconv.Itoa(start + i)
					}
					own := ""
					if len(it) > 0 {
						own = norm(astText(it[0]))
					}
					out["list item"] = append(out["list item"], fmt.Sprintf("%d %s %s", depth, num, own))
					if len(it) > 1 {
						blocks(it[1:], depth+1)
					}
				}
			case "CodeBlock":
				var s string
				if len(c) == 2 && json.Unmarshal(c[1], &s) == nil {
					out["code block"] = append(out["code block"], norm(s))
				}
			case "Table":
				out["table"] = append(out["table"], astTableShape(c))
			case "BlockQuote", "Div":
				var inner []json.RawMessage
				if b.T == "BlockQuote" {
					_ = json.Unmarshal(b.C, &inner)
				} else if len(c) == 2 {
					_ = json.Unmarshal(c[1], &inner)
				}
				blocks(inner, depth)
			}
		}
	}
	blocks(doc.Blocks, 0)
	// Footnotes are numbered in the order their references are read.
	var notes func(raw json.RawMessage)
	notes = func(raw json.RawMessage) {
		var n struct {
			T string          `json:"t"`
			C json.RawMessage `json:"c"`
		}
		if json.Unmarshal(raw, &n) == nil && n.T != "" {
			if n.T == "Note" {
				out["footnote"] = append(out["footnote"], fmt.Sprintf("%d %s", len(out["footnote"])+1, norm(astText(n.C))))
				return
			}
			notes(n.C)
			return
		}
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) == nil {
			for _, x := range list {
				notes(x)
			}
		}
	}
	for _, b := range doc.Blocks {
		notes(b)
	}
	return out
}

// astTableShape is a pandoc 2.10+ Table's rows × columns (header and
// body rows; columns from its column specs).
func astTableShape(c []json.RawMessage) string {
	if len(c) < 6 {
		return "?"
	}
	var specs []json.RawMessage
	_ = json.Unmarshal(c[2], &specs)
	rows := 0
	var head []json.RawMessage // [attr, rows]
	if json.Unmarshal(c[3], &head) == nil && len(head) == 2 {
		var rs []json.RawMessage
		_ = json.Unmarshal(head[1], &rs)
		rows += len(rs)
	}
	var bodies [][]json.RawMessage // each [attr, rowHeadCols, headRows, rows]
	if json.Unmarshal(c[4], &bodies) == nil {
		for _, b := range bodies {
			if len(b) == 4 {
				var hr, rs []json.RawMessage
				_ = json.Unmarshal(b[2], &hr)
				_ = json.Unmarshal(b[3], &rs)
				rows += len(hr) + len(rs)
			}
		}
	}
	return fmt.Sprintf("%d×%d", rows, len(specs))
}

// astText is the plain text of pandoc JSON blocks or inlines.
func astText(raw json.RawMessage) string {
	var sb strings.Builder
	var walk func(raw json.RawMessage)
	walk = func(raw json.RawMessage) {
		var n struct {
			T string          `json:"t"`
			C json.RawMessage `json:"c"`
		}
		if json.Unmarshal(raw, &n) != nil || n.T == "" {
			var list []json.RawMessage
			if json.Unmarshal(raw, &list) == nil {
				for _, x := range list {
					walk(x)
				}
			}
			return
		}
		switch n.T {
		case "Str":
			var s string
			_ = json.Unmarshal(n.C, &s)
			sb.WriteString(s)
		case "Space", "SoftBreak", "LineBreak":
			sb.WriteByte(' ')
		case "Code", "Math":
			var c []json.RawMessage
			if json.Unmarshal(n.C, &c) == nil && len(c) == 2 {
				var s string
				_ = json.Unmarshal(c[1], &s)
				sb.WriteString(s)
			}
		case "Note", "RawInline":
		case "Link", "Image", "Span", "Quoted", "Cite":
			var c []json.RawMessage
			if json.Unmarshal(n.C, &c) == nil && len(c) >= 2 {
				if n.T == "Span" && strings.Contains(string(c[0]), `"comment-start"`) {
					return // a comment's text is an annotation, not the body's
				}
				walk(c[1])
			}
		default:
			walk(n.C)
		}
	}
	walk(raw)
	return sb.String()
}
