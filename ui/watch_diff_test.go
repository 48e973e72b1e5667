package ui

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
)

// TestDiff_DOnALocalFileComparesWithTheFileOnDisk: D on a file converted
// here (not watched) reads it again, stays at the same place, and marks
// what changed since the version on screen, as watch mode marks it; it
// refused before ("a file converted here has no served version"). The
// file is not watched after: a later change is not read by itself.
func TestDiff_DOnALocalFileComparesWithTheFileOnDisk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "handbook.docx")
	saveAs(t, path, docxOf(t, handbookPages("Sign the log.")))
	s := start80(t, openFileOptions(t, path, nil))
	s.waitFor("Open the valve.")
	s.keys("]")
	s.waitFor("Sign the log.")
	s.idle()
	saveAs(t, path, docxOf(t, handbookPages("Sign the log twice.")))
	s.keys("D")
	s.waitFor("handbook.docx read again and compared with the version shown before: +1 −1")
	s.waitFor("Sign the log twice.")
	s.keys("n")
	s.waitFor("change 1/1: changed")
	s.waitFor("was: Sign the log.")
	s.idle()
	saveAs(t, path, docxOf(t, handbookPages("Sign the log three times.")))
	time.Sleep(15 * watchInterval) // a watch would have read it by now
	s.idle()
	out := s.final()
	if !strings.Contains(out, "page 2/3") || strings.Contains(out, "three times") {
		t.Fatalf("D left page 2, or the file is watched after it:\n%s", out)
	}
	out = regexp.MustCompile(`file /tmp/\S*`).ReplaceAllString(out, "file <tmp>/handbook.docx")
	golden.RequireEqual(t, out)
}
