package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenFile_ErrorNamesTheFileOnce: a file the converter cannot read
// is named once in the error, though the converter's error starts with
// its path too (it said "open F: F: damaged zip archive").
func TestOpenFile_ErrorNamesTheFileOnce(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.docx")
	if err := os.WriteFile(bad, []byte("PK\x03\x04garbage-not-a-zip"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := start80(t, openFileOptions(t, bad, nil))
	s.waitFor("damaged zip")
	f := strings.Join(strings.Fields(s.final()), " ")
	if n := strings.Count(f, bad); n != 1 { // the header cuts it at 80 columns
		t.Errorf("the path is named %d times on screen, want once in the error:\n%s", n, f)
	}
	if !strings.Contains(f, "open "+bad+": damaged zip archive") {
		t.Errorf("the error does not read open FILE: damaged zip archive:\n%s", f)
	}
}
