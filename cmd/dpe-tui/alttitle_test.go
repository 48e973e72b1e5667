package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// A picture with both a description and a title (Markdown's alt text and
// image title) keeps its description as its alternative text in every
// format pandoc and LibreOffice write it to: DOCX docPr descr (title
// beside it), Writer's ODT svg:desc (svg:title beside it: the ODT read
// the title), PPTX descr "fig:<title> <file>" with the caption after it,
// and Impress's ODP of that (the ODP took the title and left the caption
// as body text). The caption stays a FigureCaption after the picture.
func TestGet_AltTextIsTheDescription(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(realFixtures, "src", "alt.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`!\[([^\]]+)\]\([^ )]+ "([^"]+)"\)`).FindSubmatch(src)
	if m == nil {
		t.Fatal("alt.md has no picture with a title")
	}
	alt, title := string(m[1]), string(m[2])
	for _, name := range []string{"pandoc-alt.docx", "soffice-alt.odt", "pandoc-alt.pptx", "soffice-alt.odp"} {
		code, out, errOut := runCLI(t, "get", "--format", "json", filepath.Join(realFixtures, name))
		if code != exitOK || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", name, code, errOut)
		}
		var doc struct {
			Pages []struct {
				Elements []struct {
					Category string `json:"category"`
					Text     string `json:"text"`
				} `json:"elements"`
			} `json:"pages"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range doc.Pages {
			for i, e := range p.Elements {
				if e.Category != "Image" {
					continue
				}
				got = append(got, e.Text)
				if i+1 >= len(p.Elements) || p.Elements[i+1].Category != "FigureCaption" || p.Elements[i+1].Text != alt {
					t.Errorf("%s: no FigureCaption %q after the picture: %+v", name, alt, p.Elements[i+1:])
				}
			}
		}
		if len(got) != 1 || got[0] != alt {
			t.Errorf("%s: pictures' alt text %q, want [%q] (not the title %q)", name, got, alt, title)
		}
	}
}
