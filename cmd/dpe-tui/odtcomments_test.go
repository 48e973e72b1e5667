package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestODT_CommentsAreAnnotationsAsInDOCX: LibreOffice's ODT of a DOCX
// with Word comments (office:annotation around the words) gives the same
// annotations in element metadata as the DOCX does: who, what, about
// which words, on the same elements; ODT comments were dropped.
func TestODT_CommentsAreAnnotationsAsInDOCX(t *testing.T) {
	type note struct{ on, author, date, text, covers string }
	notes := func(file string) []note {
		t.Helper()
		code, out, errOut := runCLI(t, "get", "--format", "json", filepath.Join(realFixtures, file))
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", file, code, errOut)
		}
		var d struct {
			Pages []struct {
				Elements []struct {
					Category string
					Text     string
					Meta     struct {
						Annotations []struct{ Author, Date, Text, Covers string }
					} `json:"ele_metadata"`
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		var got []note
		for _, p := range d.Pages {
			for _, e := range p.Elements {
				for _, a := range e.Meta.Annotations {
					// LibreOffice writes the date without its zone.
					got = append(got, note{e.Category + " " + e.Text, a.Author, strings.TrimSuffix(a.Date, "Z"), a.Text, a.Covers})
				}
			}
		}
		return got
	}
	docx, odt := notes("review.docx"), notes("review-soffice.odt")
	if len(docx) != 2 || len(odt) != len(docx) {
		t.Fatalf("DOCX annotations %+v\nODT annotations %+v", docx, odt)
	}
	for i := range docx {
		if odt[i] != docx[i] {
			t.Errorf("annotation %d: ODT %+v, DOCX %+v", i, odt[i], docx[i])
		}
	}
}
