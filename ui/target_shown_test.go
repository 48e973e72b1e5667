package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeader_NamesTheFileShownDecoded: open's header names the file the
// document on screen came from — the one a link or o opened over the
// first, not the first — as its path decoded and in NFC (it showed
// file:///…/%E6%97%A5… and NFD's split accents), and open -'s copy as
// stdin.
func TestHeader_NamesTheFileShownDecoded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "日本語")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	nfd := "cafe\u0301.md" // as macOS names it
	file := filepath.Join(dir, "links.md")
	if err := os.WriteFile(file, []byte("# Links\n\nSee [the other]("+nfd+").\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, nfd), []byte("# Other\n\nThe other file.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startAt(t, openFileOptions(t, "file://"+filepath.ToSlash(file), nil), 200, 20)
	s.waitFor("See the other")
	if head := strings.SplitN(s.frame(), "\n", 2)[0]; !strings.Contains(head, "file "+dir+"/links.md") || strings.Contains(head, "%") {
		t.Fatalf("the header does not name the file decoded:\n%s", head)
	}
	s.idle()
	s.keys("tab")
	s.waitFor("link 1/1")
	s.keys("enter")
	s.waitFor("The other file.")
	if head := strings.SplitN(s.frame(), "\n", 2)[0]; !strings.Contains(head, "café.md") || strings.Contains(head, "links.md") {
		t.Fatalf("the header does not name the file shown, in NFC:\n%q", head)
	}
	s.final()

	opt := openFileOptions(t, file, nil)
	opt.OpenTargetName = "stdin"
	s = startAt(t, opt, 120, 20)
	s.waitFor("See the other")
	if head := strings.SplitN(s.frame(), "\n", 2)[0]; !strings.Contains(head, "file stdin") {
		t.Fatalf("open -'s copy is not called stdin:\n%s", head)
	}
	s.final()
}
