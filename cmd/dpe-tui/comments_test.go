package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGet_CommentsAreShown: the comments Word and Writer keep on a
// paragraph and on a list item (pandoc's comment spans in DOCX, and
// LibreOffice's ODT of it; the spans themselves in pandoc's HTML and
// EPUB, whose text was read into the body) are written under the text they are on, with
// author, day and the words they cover: in md after a hard break,
// italic, the list item staying one item; in text in brackets. They
// were kept in ele_metadata annotations and never shown.
func TestGet_CommentsAreShown(t *testing.T) {
	para := "Comment by Jo Smith, 2024-07-01, on “on the left”: Check the serial number first."
	// pandoc's HTML and EPUB (comment spans): a list item's comment does
	// not say the words it covers.
	for f, item := range map[string]string{
		"review.docx": "Comment by Ann Lee, 2024-07-02, on “two”: Which one?", "review-soffice.odt": "Comment by Ann Lee, 2024-07-02, on “two”: Which one?",
		"review.html": "Comment by Ann Lee, 2024-07-02: Which one?", "review.epub": "Comment by Ann Lee, 2024-07-02: Which one?",
	} {
		t.Run(f, func(t *testing.T) {
			file := filepath.Join(realFixtures, f)
			code, md, errOut := runCLI(t, "get", "--format", "md", file)
			if code != exitOK {
				t.Fatalf("get: exit %d: %s", code, errOut)
			}
			for _, w := range []string{"\nThe pump on the left was replaced in May.\\\n*" + para + "*\n", "\n- Valve two leaks\\\n  *" + item + "*\n"} {
				if !strings.Contains(md, w) {
					t.Errorf("get --format md lacks %q:\n%s", w, md)
				}
			}
			code, text, _ := runCLI(t, "get", "--format", "text", file)
			for _, w := range []string{"\nThe pump on the left was replaced in May.\n[" + para + "]\n", "\n• Valve two leaks\n  [" + item + "]\n"} {
				if code != exitOK || !strings.Contains(text, w) {
					t.Errorf("get --format text lacks %q:\n%s", w, text)
				}
			}
		})
	}
}
