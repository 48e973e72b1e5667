package render

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// el builds an element; meta values are marshalled to JSON.
func el(t testing.TB, category, text string, meta map[string]any) *dpe.Element {
	t.Helper()
	e := &dpe.Element{Category: category, Text: text, ID: "id-" + category}
	if meta != nil {
		e.Metadata = map[string]json.RawMessage{}
		for k, v := range meta {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("marshal %s: %v", k, err)
			}
			e.Metadata[k] = b
		}
	}
	raw, _ := json.Marshal(map[string]any{"category": category, "text": text, "ele_metadata": meta})
	e.Raw = raw
	return e
}

// testPNG is a small gradient with a transparent corner.
func testPNG(t testing.TB, w, h int) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255})
		}
	}
	img.Set(0, 0, color.NRGBA{})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

const htmlTable = `<table><thead><tr><th>Region</th><th colspan="2">2024</th><th>Notes</th></tr></thead>
<tbody><tr><td rowspan="2">North</td><td>Q1</td><td>1,200</td><td>steady</td></tr>
<tr><td>Q2</td><td>1,450</td><td>new <b>store</b><br>opened</td></tr>
<tr><td>South</td><td>Q1</td><td>980</td><td></td></tr></tbody></table>`

func wideTableText(cols, rows int) string {
	var sb strings.Builder
	for r := range rows {
		for c := range cols {
			if c > 0 {
				sb.WriteByte('\t')
			}
			if r == 0 {
				sb.WriteString("Column " + string(rune('A'+c%26)))
			} else {
				sb.WriteString("value r" + itoa(r) + "c" + itoa(c))
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

func itoa(n int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + jsonNum(n)) }

func jsonNum(n int) string { b, _ := json.Marshal(n); return string(b) }

type fixture struct {
	name string
	el   *dpe.Element
	view TableView
}

// fixtures is one element per category and notable variant.
func fixtures(t testing.TB) []fixture {
	md := func(k string, v any) map[string]any { return map[string]any{k: v} }
	return []fixture{
		{"title_depth0", el(t, "Title", "Annual Report 2024", md("category_depth", 0)), TableView{}},
		{"title_depth1", el(t, "Title", "Financial Highlights", md("category_depth", 1)), TableView{}},
		{"title_depth2_long", el(t, "Title", strings.Repeat("A very long heading that wraps ", 4), md("category_depth", 2)), TableView{}},
		{"narrative_plain", el(t, "NarrativeText", "Revenue grew 15% year-over-year, driven by strong performance in cloud services. Operating margin expanded by two points while headcount stayed flat across all regions.", nil), TableView{}},
		{"narrative_markdown", el(t, "NarrativeText", "Revenue grew **15%** year-over-year.\n\n- cloud up `22%`\n- devices flat\n\nSee [the appendix](https://example.com/a) for details.", nil), TableView{}},
		{"list_depth0", el(t, "ListItem", "First point of the list that is long enough to wrap onto a second line at eighty columns wide.", nil), TableView{}},
		{"list_depth1_numbered", el(t, "ListItem", "2. Second, nested", md("category_depth", 1)), TableView{}},
		{"code_go", el(t, "CodeSnippet", "package main\n\nfunc main() {\n\tprintln(\"hello\") // greet\n}\n", md("language", "go")), TableView{}},
		{"code_detected", el(t, "CodeSnippet", "#!/usr/bin/env python3\ndef f(x):\n    return x * 2\n", nil), TableView{}},
		{"code_long_line", el(t, "CodeSnippet", "x = '"+strings.Repeat("y", 120)+"'", md("languages", []string{"eng", "python"})), TableView{}},
		{"table_html_spans", el(t, "Table", "Region 2024 Notes North Q1 1,200", md("text_as_html", htmlTable)), TableView{}},
		{"table_markdown", el(t, "Table", "| Name | Age |\n|---|---:|\n| Alice | 30 |\n| Bob \\| Jr | 4 |\n", nil), TableView{}},
		{"table_csv", el(t, "Table", "city,pop\n\"Paris, FR\",2100000\nOslo,700000\n", nil), TableView{}},
		{"table_wide_scroll0", el(t, "Table", wideTableText(12, 4), nil), TableView{}},
		{"table_wide_scroll3", el(t, "Table", wideTableText(12, 4), nil), TableView{XOffset: 3}},
		{"table_wide_bonus", el(t, "Table", "a\tb\n"+strings.Repeat("x", 40)+"\t"+strings.Repeat("y", 40)+"\n", nil), TableView{ColWidthBonus: 10}},
		{"table_unparseable", el(t, "Table", "just some words", nil), TableView{}},
		{"tablechunk_tsv", el(t, "TableChunk", "k\tv\none\t1\ntwo\t2\n", nil), TableView{}},
		{"image_png", el(t, "Image", "", map[string]any{"image_base64": testPNG(t, 32, 16), "image_mime_type": "image/png", "caption": "Figure 1: gradient"}), TableView{}},
		{"image_undecodable", el(t, "Image", "OCR text of the image", map[string]any{"image_base64": base64.StdEncoding.EncodeToString([]byte("not an image")), "image_mime_type": "image/png"}), TableView{}},
		{"image_no_data", el(t, "Image", "", map[string]any{"image_path": "figures/fig1.png", "image_width": 640, "image_height": 480}), TableView{}},
		{"formula", el(t, "Formula", "E = mc^2", nil), TableView{}},
		{"checkbox_checked", el(t, "CheckBox", "I agree to the terms", md("checked", true)), TableView{}},
		{"checkbox_unchecked", el(t, "CheckBox", "Subscribe", md("checked", false)), TableView{}},
		{"header", el(t, "Header", "ACME Corp — Confidential", nil), TableView{}},
		{"footer", el(t, "Footer", "Printed 2024-03-01", nil), TableView{}},
		{"page_number", el(t, "PageNumber", "12", nil), TableView{}},
		{"page_break", el(t, "PageBreak", "", nil), TableView{}},
		{"figure_caption", el(t, "FigureCaption", "Figure 2: Revenue by quarter", nil), TableView{}},
		{"form_kv_meta", el(t, "FormKeysValues", "", md("key_value_pairs", []any{
			map[string]any{"key": map[string]any{"text": "Name"}, "value": map[string]any{"text": "Jane Doe"}},
			map[string]any{"key": "Date of birth", "value": "1990-01-01"},
		})), TableView{}},
		{"form_kv_text", el(t, "FormKeysValues", "Invoice: 42\nTotal due: 1,000 EUR", nil), TableView{}},
		{"address", el(t, "Address", "1 Main St\nSpringfield", nil), TableView{}},
		{"email", el(t, "EmailAddress", "jane@example.com", nil), TableView{}},
		{"composite", el(t, "CompositeElement", "A chunk combining several elements.", nil), TableView{}},
		{"text", el(t, "Text", "Generic text element.", nil), TableView{}},
		{"unknown_category", el(t, "Marginalia", "A note in the margin.", nil), TableView{}},
		{"v01_heading", el(t, "heading", "Legacy heading", md("category_depth", 1)), TableView{}},
		{"v01_list", el(t, "list", "legacy item", nil), TableView{}},
		{"v01_code", el(t, "code", "SELECT 1;", md("language", "sql")), TableView{}},
		{"v01_table", el(t, "table", "a,b\n1,2\n", nil), TableView{}},
		{"v01_separator", el(t, "separator", "", nil), TableView{}},
		{"v01_link", el(t, "link", "Project home", md("url", "https://example.com")), TableView{}},
		{"v01_audio", el(t, "audio", "Interview recording", map[string]any{"mime_type": "audio/mpeg", "duration": "3:12"}), TableView{}},
		{"v01_widget", el(t, "widget", "A widget", nil), TableView{}},
		{"v01_annotation", el(t, "annotation", "Reviewer note", nil), TableView{}},
	}
}
