package library

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRead_ChangedFileServedFresh: a read of a folder document after its
// file changed serves the new content at once, not the cached conversion
// until the next rescan.
func TestRead_ChangedFileServedFresh(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "note.md")
	if err := os.WriteFile(p, []byte("# Note\n\nThe first version.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lib, err := Open(Options{Dir: dir, Host: "org.example.docs", Finder: &FinderOptions{Memory: true, Rescan: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	cs := connect(t, lib.Server())
	const uri = "dpe://org.example.docs/note.md"
	if doc := read(t, cs, uri); !strings.Contains(doc.Text, "The first version.") {
		t.Fatalf("first read: %s", doc.Text)
	}
	if err := os.WriteFile(p, []byte("# Note\n\nThe second, longer version.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A distinct mtime even on a coarse clock.
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	doc := read(t, cs, uri)
	if !strings.Contains(doc.Text, "The second, longer version.") || strings.Contains(doc.Text, "The first version.") {
		t.Fatalf("read after the change: %s", doc.Text)
	}
}
