package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// A chunk after the first holds body rows only; its header row comes from
// header_info in either shape (array, or {"columns": …}), and a chunk
// that starts with its header row does not get it twice.
func TestTable_ChunkHeaderFromHeaderInfo(t *testing.T) {
	r := New(NewTheme("notty"))
	for name, hi := range map[string]any{"array": []string{"id", "name"}, "object": map[string]any{"columns": []string{"id", "name"}}} {
		e := el(t, "TableChunk", "", map[string]any{"chunk_index": 1, "header_info": hi,
			"text_as_html": "<table><tr><td>1000</td><td>c</td></tr><tr><td>1001</td><td>d</td></tr></table>"})
		info, err := r.TableInfo(e, 80, TableView{})
		if err != nil || info.HeaderRows != 1 || info.Rows != 3 {
			t.Errorf("%s: %+v %v, want the header row and two body rows", name, info, err)
		}
		lines := strings.Split(r.Table(e, 80, TableView{}), "\n")
		if !strings.HasPrefix(lines[0], "id") || !strings.HasPrefix(lines[2], "1000") {
			t.Errorf("%s: header or first row wrong:\n%s", name, strings.Join(lines, "\n"))
		}
	}
	first := el(t, "TableChunk", "", map[string]any{"chunk_index": 0, "header_info": []string{"id", "name"},
		"text_as_html": "<table><tr><td>id</td><td>name</td></tr><tr><td>1</td><td>a</td></tr></table>"})
	if info, _ := r.TableInfo(first, 80, TableView{}); info.Rows != 2 || info.HeaderRows != 1 {
		t.Errorf("first chunk: %+v", info)
	}
	again := el(t, "Table", "", map[string]any{"is_continuation": true, "header_info": []string{"id", "name"},
		"text_as_html": "<table><tr><th>id</th><th>name</th></tr><tr><td>2</td><td>b</td></tr></table>"})
	if info, _ := r.TableInfo(again, 80, TableView{}); info.Rows != 2 || info.HeaderRows != 1 {
		t.Errorf("continuation with its own header: %+v", info)
	}
}

// The Markdown export writes a cell longer than the screen's cell limit
// whole, with | escaped.
func TestMarkdown_TableCellsWhole(t *testing.T) {
	long := strings.Repeat("word | ", 2000) + "end"
	e := el(t, "Table", "", map[string]any{"text_as_html": "<table><tr><th>k</th></tr><tr><td>" + long + "</td></tr></table>"})
	md := PageMarkdown(&dpe.Page{Decoded: true, Elements: []*dpe.Element{e}})
	if want := strings.ReplaceAll(long, "|", `\|`); !strings.Contains(md, "| "+want+" |") || strings.Contains(md, "…") {
		t.Errorf("the long cell is not whole (%d bytes of Markdown)", len(md))
	}
}

// An EmailAddress from a message header shows its field and name, on
// screen and in both exports.
func TestEmailAddress_LabelledWithFieldAndName(t *testing.T) {
	e := el(t, "EmailAddress", "duty@example.org", map[string]any{"field": "from", "name": "Duty Officer"})
	r := New(NewTheme("notty"))
	if got := r.Element(e, 80); !strings.Contains(got, "From: Duty Officer <duty@example.org>") {
		t.Errorf("screen: %q", got)
	}
	p := &dpe.Page{Decoded: true, Elements: []*dpe.Element{e}}
	if got := PageMarkdown(p); !strings.Contains(got, `From: Duty Officer \<duty@example.org\>`) {
		t.Errorf("markdown: %q", got)
	}
	if got := pagePlainText(p); !strings.Contains(got, "From: Duty Officer <duty@example.org>") {
		t.Errorf("text: %q", got)
	}
	bare := el(t, "EmailAddress", "x@example.org", nil)
	if got := pagePlainText(&dpe.Page{Decoded: true, Elements: []*dpe.Element{bare}}); !strings.Contains(got, "x@example.org") || strings.Contains(got, ":") {
		t.Errorf("bare address: %q", got)
	}
}

// A column the source aligns right or centre (text-align in
// text_as_html, as pandoc writes it) is drawn that way on screen and keeps
// its delimiter in the Markdown export; a spanning cell stays left.
func TestTable_AlignmentFromTheSource(t *testing.T) {
	e := el(t, "Table", "", map[string]any{"text_as_html": `<table><tr><th>Item</th><th style="text-align: right;">Count</th><th align="center">Where</th></tr>` +
		`<tr><td>Logbooks</td><td style="text-align:right">10</td><td align="center">x</td></tr>` +
		`<tr><td colspan="2">Total</td><td align="center">shelf</td></tr></table>`})
	r := New(NewTheme("notty"))
	lines := strings.Split(r.Table(e, 80, TableView{}), "\n")
	want := []string{
		"Item     │ Count │ Where",
		"─────────┼───────┼──────",
		"Logbooks │    10 │   x  ",
		"Total            │ shelf",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("screen:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if md := PageMarkdown(&dpe.Page{Decoded: true, Elements: []*dpe.Element{e}}); !strings.Contains(md, "| --- | ---: | :---: |") {
		t.Errorf("markdown delimiter row lost:\n%s", md)
	}
}

// A quoted element is drawn behind a bar per level on screen and behind
// "> " markers in both exports.
func TestQuote_BarOnScreenMarkersInExports(t *testing.T) {
	e := el(t, "NarrativeText", "A nested remark from the desk.", map[string]any{"quote": 2})
	r := New(NewTheme("notty"))
	for _, l := range r.ElementLines(e, 20) {
		if !strings.HasPrefix(l, "│ │ ") || ansi.StringWidth(l) > 20 {
			t.Errorf("screen line %q: want two bars, at most 20 cells", l)
		}
	}
	p := &dpe.Page{Decoded: true, Elements: []*dpe.Element{e}}
	if got := PageMarkdown(p); got != "> > A nested remark from the desk.\n" {
		t.Errorf("markdown %q", got)
	}
	if got := pagePlainText(p); got != "> > A nested remark from the desk.\n" {
		t.Errorf("text %q", got)
	}
}
