package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A comment on a table cell is an annotation of the Table, in DOCX (Word
// comment ranges in a cell's paragraph) and in Writer's ODT of it
// (office:annotation in the cell), as a paragraph's comments are its own;
// both dropped it. get --format md writes it after the table as a
// paragraph of its own: a hard line break after the last row would join
// it to the table.
func TestGet_TableCellCommentsAreAnnotations(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(realFixtures, "src", "review-table.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`author="([^"]+)"[^>]*>([^<]+)</span>([^<]+)<`).FindSubmatch(src)
	if m == nil {
		t.Fatal("review-table.md has no comment")
	}
	author, text, covers := string(m[1]), string(m[2]), string(m[3])
	for _, name := range []string{"review-table.docx", "review-table-soffice.odt"} {
		file := filepath.Join(realFixtures, name)
		code, out, errOut := runCLI(t, "get", "--format", "json", file)
		if code != exitOK || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", name, code, errOut)
		}
		var doc struct {
			Pages []struct {
				Elements []struct {
					Category string `json:"category"`
					Meta     struct {
						Annotations []struct{ Author, Text, Covers string }
					} `json:"ele_metadata"`
				} `json:"elements"`
			} `json:"pages"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range doc.Pages {
			for _, e := range p.Elements {
				for _, a := range e.Meta.Annotations {
					got = append(got, e.Category+": "+a.Author+" on "+a.Covers+": "+a.Text)
				}
			}
		}
		if want := "Table: " + author + " on " + covers + ": " + text; len(got) != 1 || got[0] != want {
			t.Errorf("%s: annotations %q, want [%q]", name, got, want)
		}
		code, out, _ = runCLI(t, "get", "--format", "md", file)
		i := strings.Index(out, "*Comment by "+author)
		if code != exitOK || i < 0 || !strings.HasSuffix(out[:i], "|\n\n") || !strings.Contains(out[i:], text) {
			t.Errorf("%s: the comment is not a paragraph after the table:\n%s", name, out)
		}
	}
}
