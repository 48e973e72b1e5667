package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGet_MailtoLinksAreKeptInEveryFormat: pandoc's one text saved as
// HTML, EPUB, DOCX and ODT gives the same link on its paragraph: the
// mailto link "the editor" (HTML and EPUB dropped it, so tab found no
// link there while DOCX and ODT had it).
func TestGet_MailtoLinksAreKeptInEveryFormat(t *testing.T) {
	cleanEnv(t)
	for _, ext := range []string{"html", "epub", "docx", "odt"} {
		t.Run(ext, func(t *testing.T) {
			file := filepath.Join("..", "..", "convert", "testdata", "pandoc-notes."+ext)
			code, out, errOut := runCLI(t, "get", file, "--format", "json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var doc struct {
				Pages []struct {
					Elements []struct {
						Text string `json:"text"`
						Meta struct {
							LinkURLs  []string `json:"link_urls"`
							LinkTexts []string `json:"link_texts"`
						} `json:"ele_metadata"`
					} `json:"elements"`
				} `json:"pages"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range doc.Pages {
				for _, el := range p.Elements {
					if !strings.Contains(el.Text, "Write to the editor") {
						continue
					}
					found = true
					i := slices.Index(el.Meta.LinkURLs, "mailto:editor@example.com")
					if i < 0 || i >= len(el.Meta.LinkTexts) || el.Meta.LinkTexts[i] != "the editor" {
						t.Errorf("%q: link_urls %q link_texts %q, want the mailto link on \"the editor\"", el.Text, el.Meta.LinkURLs, el.Meta.LinkTexts)
					}
				}
			}
			if !found {
				t.Fatal("no paragraph says \"Write to the editor\"")
			}
		})
	}
}
