package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A DOCX from pandoc with Word comments and a captioned picture: each
// comment is an annotation in the metadata of the element it is anchored
// in (the words it covers, its author, date and text), and the caption,
// which pandoc also writes as the picture's alternative text, is read
// once (get showed it twice, as the image's text and as the caption).
func TestDOCX_CommentsAreAnnotationsAndCaptionsOnce(t *testing.T) {
	file := filepath.Join(realFixtures, "review.docx")
	code, out, errOut := runCLI(t, "convert", file)
	if code != exitOK {
		t.Fatalf("convert: exit %d: %s", code, errOut)
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
	type note struct{ on, author, date, text, covers string }
	var got []note
	for _, p := range d.Pages {
		for _, e := range p.Elements {
			for _, a := range e.Meta.Annotations {
				got = append(got, note{e.Category + " " + e.Text, a.Author, a.Date, a.Text, a.Covers})
			}
		}
	}
	want := []note{
		{"NarrativeText The pump on the left was replaced in May.", "Jo Smith", "2024-07-01T09:00:00Z", "Check the serial number first.", "on the left"},
		{"ListItem Valve two leaks", "Ann Lee", "2024-07-02T10:00:00Z", "Which one?", "two"},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("annotations %+v, want %+v", got, want)
	}
	for _, format := range []string{"text", "md"} {
		code, out, errOut := runCLI(t, "get", "--format", format, file)
		if code != exitOK {
			t.Fatalf("get --format %s: exit %d: %s", format, code, errOut)
		}
		if n := strings.Count(shownText(out), "The new pump on its frame"); n != 1 {
			t.Errorf("get --format %s: the caption appears %d times:\n%s", format, n, out)
		}
		// The comment is shown once, on its own marked line under the
		// sentence, never in it.
		if !strings.Contains(out, "\nThe pump on the left was replaced in May.") || strings.Count(out, "Check the serial number") != 1 ||
			!strings.Contains(out, "Comment by Jo Smith, 2024-07-01, on “on the left”: Check the serial number first.") {
			t.Errorf("get --format %s: a comment's text is in the body, or not on its own line:\n%s", format, out)
		}
	}
}
