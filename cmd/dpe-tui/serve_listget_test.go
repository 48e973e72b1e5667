package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dpe-tui/dpe-tui/internal/hostilefiles"
)

// What `serve --docs` lists, `get` accepts: over a folder of good files
// (odd names included: a tab, a control character, invalid UTF-8, NFD,
// a zero-width space), a broken one, a hostile one, a FIFO, a symlink out
// of the folder and a file of no known type, every listed URI is either
// read or answered with that document's own error, never refused as an
// invalid or unknown URI; the good ones are read whole; and every file not
// listed (names no dpe:// URI may carry among them) is named in a WARN of
// the log with why.
func TestServe_DocsListedIsAcceptedOrSkippedWithAWarn(t *testing.T) {
	if testing.Short() {
		t.Skip("serves a folder and reads each document")
	}
	dir := t.TempDir()
	good := map[string]string{
		"good.md":            "# Good\n\nGood body.\n",
		"tab\tname.md":       "# Tab\n\nTab body.\n",
		"ctl\x01name.md":     "# Control\n\nControl body.\n",
		"bad\xffname.md":     "# Invalid\n\nInvalid body.\n",
		"cafe\u0301.md":      "# NFD\n\nNFD body.\n",
		"zero\u200bwidth.md": "# Zero\n\nZero body.\n",
	}
	for name, body := range good {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.docx"), []byte("PK\x03\x04 not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range hostilefiles.All() {
		if f.Name == "md-link-paragraphs.md" {
			if err := hostilefiles.WriteFile(filepath.Join(dir, f.Name), f); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("# Secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.xyz"), []byte("?"), 0o644); err != nil {
		t.Fatal(err)
	}

	logFile := filepath.Join(t.TempDir(), "serve.log")
	url := startServe(t, "--docs", dir, "--log", logFile)
	code, out, errOut := runCLI(t, "ls", "resources", "--url="+url, "--computer", "alpha", "--server", "library", "--json")
	if code != 0 {
		t.Fatalf("ls: exit %d %s", code, errOut)
	}
	listed := map[string]bool{}
	var read strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			URI string `json:"uri"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.URI == "" {
			t.Fatalf("ls line %q: %v", line, err)
		}
		listed[r.URI] = true
		code, got, errOut := runCLI(t, "get", r.URI, "--url="+url, "--format", "text")
		switch {
		case code == 0:
			read.WriteString(got)
		case !strings.Contains(errOut, "cannot be converted"):
			t.Errorf("get %s, as listed: exit %d, not the document's own error: %.300s", r.URI, code, errOut)
		}
	}
	// The names a dpe:// URI can carry are served whole.
	for _, body := range []string{"Good body.", "NFD body.", "Zero body."} {
		if !strings.Contains(read.String(), body) {
			t.Errorf("%q was not read through its listed URI", body)
		}
	}
	if len(listed) != 5 {
		t.Errorf("%d listed, want the 3 good files a URI can name, the broken and the hostile one: %v", len(listed), listed)
	}
	logs, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, skipped := range []struct{ name, why string }{
		{"pipe.md", "FIFO"}, {"out.md", "symlink leaves the folder"}, {"notes.xyz", "unsupported"},
		{"tab", "cannot be a dpe:// URI"}, {"ctl", "cannot be a dpe:// URI"}, {"bad", "cannot be a dpe:// URI"},
	} {
		found := false
		for _, line := range strings.Split(string(logs), "\n") {
			if strings.Contains(line, "skip") && strings.Contains(line, skipped.name) && strings.Contains(line, skipped.why) {
				found = true
			}
		}
		if !found {
			t.Errorf("no WARN names %s (%s):\n%.3000s", skipped.name, skipped.why, logs)
		}
	}
}
