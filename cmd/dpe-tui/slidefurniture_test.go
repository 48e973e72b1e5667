package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// get reads a deck's date, footer and slide-number placeholders as the
// slide's furniture (Footer and PageNumber, ele_metadata placeholder), not
// as body text and not dropped: Impress's ODP (footer-decl and
// date-time-decl named by each page) and its PPTX of it (ftr, dt, sldNum
// placeholders) give the same per slide, the texts the source declares
// and the slide's own number; exports leave them out unless --furniture.
func TestGet_SlideFurniture(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(realFixtures, "src", "furniture.fodp"))
	if err != nil {
		t.Fatal(err)
	}
	decl := func(el string) string {
		m := regexp.MustCompile(`<presentation:` + el + `[^>]*>([^<]+)<`).FindSubmatch(src)
		if m == nil {
			t.Fatalf("no %s in furniture.fodp", el)
		}
		return string(m[1])
	}
	footer, date := decl("footer-decl"), decl("date-time-decl")
	furniture := map[string][][]string{}
	for _, name := range []string{"soffice-furniture.odp", "soffice-furniture.pptx"} {
		file := filepath.Join(realFixtures, name)
		code, out, errOut := runCLI(t, "get", "--format", "json", file)
		if code != exitOK || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", name, code, errOut)
		}
		var doc struct {
			Pages []struct {
				Elements []struct {
					Category string         `json:"category"`
					Text     string         `json:"text"`
					Meta     map[string]any `json:"ele_metadata"`
				} `json:"elements"`
			} `json:"pages"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Pages) < 2 {
			t.Fatalf("%s: %v, %d pages", name, err, len(doc.Pages))
		}
		for i, p := range doc.Pages {
			var got []string
			for _, e := range p.Elements {
				switch e.Category {
				case "Footer", "PageNumber", "Header":
					got = append(got, e.Category+" "+e.Meta["placeholder"].(string)+": "+e.Text)
				default:
					if strings.Contains(e.Text, footer) || strings.Contains(e.Text, date) {
						t.Errorf("%s page %d: furniture as %s %q", name, i+1, e.Category, e.Text)
					}
				}
			}
			sort.Strings(got)
			want := []string{"Footer date-time: " + date, "Footer footer: " + footer, "PageNumber page-number: " + strconv.Itoa(i+1)}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s page %d furniture:\n%s\nwant:\n%s", name, i+1, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			furniture[name] = append(furniture[name], got)
		}
		for _, format := range []string{"md", "text"} {
			_, out, _ := runCLI(t, "get", "--format", format, file)
			if strings.Contains(out, footer) || strings.Contains(out, date) {
				t.Errorf("%s %s: furniture in the export:\n%s", name, format, out)
			}
			_, out, _ = runCLI(t, "get", "--format", format, "--furniture", file)
			if n := strings.Count(out, footer); n != len(doc.Pages) {
				t.Errorf("%s %s --furniture: footer %d times, want once per slide (%d):\n%s", name, format, n, len(doc.Pages), out)
			}
		}
	}
	if o, p := furniture["soffice-furniture.odp"], furniture["soffice-furniture.pptx"]; len(o) != len(p) {
		t.Errorf("ODP has %d slides, PPTX %d", len(o), len(p))
	}
}
