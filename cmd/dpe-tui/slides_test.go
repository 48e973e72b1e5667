package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A deck pandoc wrote from Markdown keeps what the Markdown said: the
// numbered list is ordered from its real start (a:buAutoNum startAt), two
// code blocks stay two and name no language (the deck names none, so
// neither the fence nor the frame guesses one), and the picture's alt text
// is its caption, not pandoc's "fig:" title marker and file name in descr.
func TestGet_PandocSlidesKeepListsCodeAndAltText(t *testing.T) {
	file := filepath.Join(realFixtures, "pandoc-slides.pptx")
	code, out, errOut := runCLI(t, "get", "--format", "md", file)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, w := range []string{
		"\n5. Fifth item\n6. Sixth item\n7. Seventh item\n",
		"\n```\ndef greet(name):\n    return \"hello \" + name\n```\n",
		"\n```\npackage main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n```\n",
		"![A red rectangle](",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("%q missing in:\n%s", w, out)
		}
	}
	if strings.Contains(out, "fig:") {
		t.Errorf("pandoc's figure marker in the alt text:\n%s", out)
	}
	code, out, errOut = runCLI(t, "get", "--format", "json", file)
	if code != exitOK {
		t.Fatalf("json: exit %d, stderr %q", code, errOut)
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
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var nums []any
	for _, p := range doc.Pages {
		for _, e := range p.Elements {
			if e.Category == "ListItem" {
				if e.Meta["ordered"] != true {
					t.Errorf("%q not ordered: %v", e.Text, e.Meta)
				}
				nums = append(nums, e.Meta["item_number"])
			}
		}
	}
	if len(nums) != 3 || nums[0] != 5.0 || nums[1] != 6.0 || nums[2] != 7.0 {
		t.Errorf("item numbers %v, want 5 6 7", nums)
	}
}
