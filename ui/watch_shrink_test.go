package ui

import (
	"path/filepath"
	"strings"
	"testing"
)

// A watched file that shrinks below the page shown (an edit removed a
// heading, an editor truncated before writing) shows its last page; the
// view drew past the pages it had and gave an internal error on every
// redraw.
func TestWatch_FileShrunkBelowThePageShownShowsItsLastPage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "handbook.docx")
	saveAs(t, path, docxOf(t, handbookPages("Sign the log.")))
	s := start80(t, watchOptions(t, path))
	s.waitFor("Open the valve.")
	s.keys("]", "]")
	s.waitFor("Hand over the shift.")
	s.idle()
	saveAs(t, path, docxOf(t, [][]string{{"Only one page now."}}))
	s.waitFor("Only one page now.")
	s.waitFor("handbook.docx changed on disk: +1")
	out := s.final()
	if strings.Contains(out, "internal error") || !strings.Contains(out, "page 1/1") {
		t.Fatalf("after the file shrank:\n%s", out)
	}
}

// The same with the inspector open on the page that went: it draws what
// it was opened on, and the reload's page is found in the new version.
func TestWatch_FileShrunkUnderTheInspectorKeepsItDrawing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "handbook.docx")
	saveAs(t, path, docxOf(t, handbookPages("Sign the log.")))
	s := start80(t, watchOptions(t, path))
	s.waitFor("Open the valve.")
	s.keys("]", "]")
	s.waitFor("Hand over the shift.")
	s.idle()
	s.keys(".")
	s.waitFor("Element 1 of page 3")
	saveAs(t, path, docxOf(t, [][]string{{"Only one page now."}}))
	s.waitFor("handbook.docx changed on disk: +1")
	out := s.final()
	if strings.Contains(out, "internal error") {
		t.Fatalf("after the file shrank under the inspector:\n%s", out)
	}
}
