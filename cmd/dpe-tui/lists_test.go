package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// get --format md writes the source's numbering (the real start, nested
// items under their parent, the count continuing after a nested list) as
// CommonMark, a lettered or roman item as a bullet item that starts with
// its label (not renumbered 1.), and text shows the same labels.
func TestGet_NumberedListsAsInTheSource(t *testing.T) {
	for _, file := range []string{"handbook.docx", "handbook.odt", "handbook-soffice.odt", "handbook.html", "handbook.epub"} {
		t.Run(file, func(t *testing.T) {
			code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, file))
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			want := "1. Collect the samples\n2. Upload the results\n   - a. Check the checksum\n   - b. Sign the form\n3. Archive the batch\n"
			if !strings.Contains(out, want) {
				t.Errorf("numbered list with a nested one missing:\n%s", out)
			}
			for _, w := range []string{"\n5. Hand over the keys\n6. Write the log\n", "- Call the duty officer\n  1. Dial the desk\n  2. Leave a message\n- Lock the door\n",
				"- i. First annex\n- ii. Second annex\n- iii. Third annex\n"} {
				if !strings.Contains(out, w) {
					t.Errorf("%q missing in:\n%s", w, out)
				}
			}
			code, out, errOut = runCLI(t, "get", "--format", "text", filepath.Join(realFixtures, file))
			if code != exitOK || errOut != "" {
				t.Fatalf("text: exit %d, stderr %q", code, errOut)
			}
			for _, w := range []string{"5. Hand over the keys", "b. Sign the form", "iii. Third annex"} {
				if !strings.Contains(out, w) {
					t.Errorf("text: %q missing in:\n%s", w, out)
				}
			}
		})
	}
}

// The same text written by pandoc to DOCX, ODT, HTML and EPUB (and the
// DOCX re-written by LibreOffice): diff reports no element added or
// removed, so no list item "changed" for its numbering and no table for
// how its writer spelt the columns' alignment.
func TestDiff_SameListsAcrossFormats(t *testing.T) {
	a := filepath.Join(realFixtures, "handbook.docx")
	for _, file := range []string{"handbook.odt", "handbook-soffice.odt", "handbook.html", "handbook.epub"} {
		t.Run(file, func(t *testing.T) {
			_, out, errOut := runCLI(t, "diff", a, filepath.Join(realFixtures, file), "--format", "json")
			var d struct {
				Delta struct{ Added, Removed, Retained int }
				Pages []struct {
					Status   string
					Elements []struct{ Op, Category, Text string }
				}
			}
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatalf("diff --format json: %v\n%s\n%s", err, out, errOut)
			}
			if d.Delta.Added != 0 || d.Delta.Removed != 0 || d.Delta.Retained < 19 {
				t.Errorf("delta %+v, want nothing added or removed", d.Delta)
			}
			for _, p := range d.Pages {
				for _, e := range p.Elements {
					if e.Category == "ListItem" || e.Category == "Table" {
						t.Errorf("%s %s: %q", e.Category, e.Op, e.Text)
					}
				}
			}
		})
	}
}

// A numbered list under a bulleted item, then a numbered list right after
// the bullets, as python-docx writes them (List Number 2 under List
// Bullet) and as LibreOffice Writer writes that DOCX to ODT: a list of its
// own after its parent item, deeper only by its list style's indent. The
// ODT reads as the DOCX does (diff finds no list item changed), and the
// Markdown export nests the numbered items under their bullet.
func TestGet_ODTNumberedListNestedUnderABullet(t *testing.T) {
	docx, odt := filepath.Join(realFixtures, "python-docx-nested.docx"), filepath.Join(realFixtures, "soffice-nested.odt")
	code, out, errOut := runCLI(t, "get", "--format", "md", odt)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want := "- Check the doors\n  1. Front door\n  2. Back door\n- Check the lights\n1. Sign the book\n2. Hand over\n"
	if !strings.Contains(out, want) {
		t.Errorf("get --format md lacks\n%s\nin:\n%s", want, out)
	}
	_, js, errOut := runCLI(t, "diff", docx, odt, "--format", "json")
	var d struct {
		Pages []struct {
			Elements []struct{ Op, Category, Text string }
		}
	}
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		t.Fatalf("diff --format json: %v\n%s\n%s", err, js, errOut)
	}
	for _, p := range d.Pages {
		for _, e := range p.Elements {
			if e.Category == "ListItem" {
				t.Errorf("%s %s: %q", e.Category, e.Op, e.Text)
			}
		}
	}
}
