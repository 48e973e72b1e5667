package convert

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// listLines writes each ListItem as "depth label text <parent text>":
// label is item_number with its list_style ("5", "b lower-alpha") or "•",
// parent the text of the element parent_id names.
func listLines(doc *dpe.Document) []string {
	byID := map[string]*dpe.Element{}
	for _, p := range doc.Pages {
		for _, el := range p.Elements {
			byID[el.ID] = el
		}
	}
	var out []string
	for _, el := range elementsOf(doc, "ListItem") {
		label := "•"
		if string(el.Metadata["ordered"]) == "true" {
			label = fmt.Sprint(metaInt(el, "item_number"))
			if s := metaString(el, "list_style"); s != "" {
				label += " " + s
			}
		}
		parent := ""
		if p := byID[metaString(el, "parent_id")]; p != nil {
			parent = p.Category + ":" + p.Text
		}
		out = append(out, fmt.Sprintf("%d %s %s <%s>", metaInt(el, "category_depth"), label, el.Text, parent))
	}
	return out
}

// The same numbered lists (from 1 and from 5, nested letters, numbers
// inside bullets, roman) written by pandoc to DOCX, ODT, HTML and EPUB
// and by LibreOffice Writer to ODT: every reader gives each item the
// source's number and style, and a nested item its parent item.
func TestListNumbering_Handbook(t *testing.T) {
	want := []string{
		"0 1 Collect the samples <Title:Procedures>",
		"0 2 Upload the results <Title:Procedures>",
		"1 1 lower-alpha Check the checksum <ListItem:Upload the results>",
		"1 2 lower-alpha Sign the form <ListItem:Upload the results>",
		"0 3 Archive the batch <Title:Procedures>",
		"0 5 Hand over the keys <Title:Procedures>",
		"0 6 Write the log <Title:Procedures>",
		"0 • Call the duty officer <Title:Procedures>",
		"1 1 Dial the desk <ListItem:Call the duty officer>",
		"1 2 Leave a message <ListItem:Call the duty officer>",
		"0 • Lock the door <Title:Procedures>",
		"0 1 lower-roman First annex <Title:Appendix>",
		"0 2 lower-roman Second annex <Title:Appendix>",
		"0 3 lower-roman Third annex <Title:Appendix>",
	}
	c := testConverter(t)
	for _, name := range []string{"handbook.docx", "handbook.odt", "handbook-soffice.odt", "handbook.html", "handbook.epub"} {
		t.Run(name, func(t *testing.T) {
			got := listLines(convertFixture(t, c, name))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("list items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// python-docx's "List Number" styles carry the numbering in the
// paragraph style (no numPr in the paragraph); "List Number 2" is a list
// of its own, one level deeper.
func TestListNumbering_StyleNumbering(t *testing.T) {
	got := listLines(convertFixture(t, testConverter(t), "python-docx-lists.docx"))
	want := []string{
		"0 1 Collect <Title:Steps>",
		"0 2 Upload <Title:Steps>",
		"1 1 Check the checksum <ListItem:Upload>",
		"0 3 Archive <Title:Steps>",
		"0 • A note <Title:Steps>",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("list items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestListCounter(t *testing.T) {
	var c listCounter
	got := []int{c.number(0, 3), c.number(1, 1), c.number(1, 1), c.number(0, 3), c.number(1, 1), c.number(99, 0), c.number(-1, 0)}
	if fmt.Sprint(got) != "[3 1 2 4 1 1 5]" {
		t.Errorf("numbers %v", got)
	}
}
