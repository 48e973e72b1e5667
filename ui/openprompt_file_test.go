package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The o prompt of a TUI that converts files takes a local file's path as
// open FILE does (/, ./, ../, ~/ or file://), and opens it over the
// document shown, so esc comes back; it said "missing scheme: want
// dpe://host/doc-ref".
func TestOpenPrompt_TakesALocalFilePath(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first.md")
	second := filepath.Join(dir, "second.md")
	if err := os.WriteFile(first, []byte("# First notes\n\nThe first file.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(second, []byte("# Second notes\n\nThe second file.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := start80(t, openFileOptions(t, first, nil))
	s.waitFor("The first file.")
	s.idle()
	s.keys("o")
	s.typeText(second)
	s.waitFor("✓ local file")
	s.keys("enter")
	s.waitFor("The second file.")
	s.idle()
	s.keys("esc") // back to the first
	s.waitFor("The first file.")
	out := s.final()
	if strings.Contains(out, "missing scheme") {
		t.Fatalf("the path was taken for a URI:\n%s", out)
	}
}
