package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The export prompt proposes a name no file has: with the title's name
// taken in the save directory, the next free one; ~/ in a typed name is
// the home directory, as in a shell.
func TestDocExport_ProposesAFreeNameAndExpandsTilde(t *testing.T) {
	m := openJSON(t, 80, 24, twoPageTableDoc())
	dir := t.TempDir()
	m.e.opt.SaveDir = dir
	press(t, m, "e")
	first := m.bar.input.Value()
	press(t, m, "esc")
	if first == "" || strings.Contains(first, "-2") {
		t.Fatalf("proposed %q with nothing in the save directory", first)
	}
	saveAs(t, filepath.Join(dir, first), []byte("taken"))
	press(t, m, "e")
	got := m.bar.input.Value()
	if want := strings.TrimSuffix(first, ".md") + "-2.md"; got != want {
		t.Fatalf("with %s taken, proposed %q, want %q", first, got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, first)); string(b) != "taken" {
		t.Fatal("the file there was touched")
	}

	home := t.TempDir()
	t.Setenv("HOME", home)
	m.bar.input.SetValue("~/notes/export.md")
	if err := os.Mkdir(filepath.Join(home, "notes"), 0o700); err != nil {
		t.Fatal(err)
	}
	press(t, m, "enter")
	if _, err := os.Stat(filepath.Join(home, "notes", "export.md")); err != nil {
		t.Fatalf("~/notes/export.md not written in the home directory: %v (status %q)", err, m.statusText())
	}
	if _, err := os.Stat(filepath.Join(dir, "~")); err == nil {
		t.Fatal("a directory named ~ was made in the save directory")
	}
}
