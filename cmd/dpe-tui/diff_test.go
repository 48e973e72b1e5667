package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// diff names the doc_metadata fields that changed (added, removed,
// changed, with old and new values), sanitized and cut, in text and md.
func TestDiff_DocMetadataNamesTheFields(t *testing.T) {
	raw, err := os.ReadFile(fixture("base"))
	if err != nil {
		t.Fatal(err)
	}
	with := func(meta map[string]any) string {
		var d map[string]any
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		d["doc_metadata"] = meta
		b, _ := json.Marshal(d)
		return writeTemp(t, "doc.json", string(b))
	}
	a := with(map[string]any{"author": "Ann", "draft": true, "pages": 3})
	b := with(map[string]any{"author": "Bob", "pages": 3, "reviewed\x1b]0;x\x07": strings.Repeat("long ", 40)})
	code, out, errOut := runCLI(t, "diff", a, b)
	if code != exitDiffer {
		t.Fatalf("diff: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"doc_metadata changed\n", `  ~ author: "Ann" → "Bob"`, "  - draft: true", `  + reviewed: "long long`} {
		if !strings.Contains(out, want) {
			t.Errorf("diff should say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "pages:") {
		t.Errorf("an unchanged field is named:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "reviewed") && (ansi.StringWidth(l) > 2+2+maxMetaValue*2 || !strings.Contains(l, "…")) {
			t.Errorf("a long value should be cut with …: %q", l)
		}
	}
	assertNoControls(t, out)
	_, md, _ := runCLI(t, "diff", "--format", "md", a, b)
	if !strings.Contains(md, "- doc_metadata changed\n  - ~ author: \"Ann\" → \"Bob\"") {
		t.Errorf("md should list the fields under the line:\n%s", md)
	}
}

// Two revisions pandoc wrote to DOCX: a numbered list renumbered from 7
// (its items' text unchanged) and one table cell edited. diff says each
// item's metadata changed and names item_number with its old and new
// value, and names the table's cell by row, column and header with its
// old and new text, instead of listing each element removed and added
// again (and the table as its whole flattened text).
func TestDiff_MetadataAndCellChangesAreNamed(t *testing.T) {
	a, b := filepath.Join(realFixtures, "revision-old.docx"), filepath.Join(realFixtures, "revision-new.docx")
	code, out, errOut := runCLI(t, "diff", a, b)
	if code != exitDiffer {
		t.Fatalf("diff: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"  ± changed #4 ListItem: Hand over the keys\n      metadata changed: item_number\n      ~ item_number: 5 → 7\n",
		"  ± changed #5 ListItem: Write the log\n      metadata changed: item_number\n      ~ item_number: 6 → 8\n",
		"  ± changed #6 Table: 1 cell changed\n      ~ cell row 2, column 2 (Count): \"2\" → \"3\"\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff should say\n%s\ngot:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "\nchanges: 3 changed\n") {
		t.Errorf("the changes line should count the listing's units:\n%s", out)
	}
	for _, not := range []string{"added", "removed", "Logbooks"} {
		if strings.Contains(strings.SplitN(out, "\n", 4)[3], not) { // past the differ, changes and delta lines
			t.Errorf("diff lists %q (an element removed and added, or the table flattened):\n%s", not, out)
		}
	}
	_, md, _ := runCLI(t, "diff", "--format", "md", a, b)
	if !strings.Contains(md, "- ± changed #4 `ListItem`: Hand over the keys\n  - metadata changed: item\\_number\n") ||
		!strings.Contains(md, "  - ~ cell row 2, column 2 (Count): \"2\" → \"3\"\n") {
		t.Errorf("md should list the fields and the cell under the element:\n%s", md)
	}
	_, js, _ := runCLI(t, "diff", "--format", "json", a, b)
	var d struct {
		Pages []struct {
			Elements []struct {
				Op, Category    string
				MetadataChanged []string `json:"metadata_changed"`
				Cells           []struct {
					Op, Old, New string
					Row, Col     int
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(js), &d); err != nil || len(d.Pages) != 1 || len(d.Pages[0].Elements) != 3 {
		t.Fatalf("diff --format json: %v\n%s", err, js)
	}
	els := d.Pages[0].Elements
	if els[0].Op != "changed" || strings.Join(els[0].MetadataChanged, ",") != "item_number" ||
		len(els[2].Cells) != 1 || els[2].Cells[0].Row != 1 || els[2].Cells[0].Col != 1 || els[2].Cells[0].Old != "2" || els[2].Cells[0].New != "3" {
		t.Errorf("json: %+v", els)
	}
}
