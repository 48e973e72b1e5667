package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/stack"
)

// Real inputs the corpus never had, each driven through the real commands
// against our stack or a scripted peer.

func startDocsStack(t *testing.T, dir string, mut func(*stack.Options)) *stack.Stack {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	opt := stack.Options{DocsDir: dir, FinderDir: t.TempDir()}
	if mut != nil {
		mut(&opt)
	}
	st, err := stack.Start(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// lsJSON lists the library server's resources as JSON rows.
func lsJSON(t *testing.T, url string, extra ...string) []map[string]any {
	t.Helper()
	args := append([]string{"ls", "resources", "--url=" + url, "--computer", "alpha", "--server", "library", "--json"}, extra...)
	code, out, errOut := runBounded(t, args...)
	if code != 0 {
		t.Fatalf("ls resources: exit %d: %s", code, errOut)
	}
	var rows []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("ls --json line %q: %v", l, err)
		}
		rows = append(rows, r)
	}
	return rows
}

func TestRealInputs_NonASCIIDocRefsListedThenGot(t *testing.T) {
	// Each name once: the file name, and a word only its content holds.
	names := map[string]string{
		"café.md":           "nfc",
		"cafe\u0301 nfd.md": "nfd",
		"报告.md":             "cjk",
		"party 🎉.md":        "emoji",
		"my notes.md":       "spaces",
		"a%2Fb.md":          "slashescape",
		"100%25.md":         "percentescape",
		"x-y.md":            "hyphen",
	}
	dir := t.TempDir()
	for name, word := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("# Heading\n\nbody word "+word+"marker\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st := startDocsStack(t, dir, nil)
	rows := lsJSON(t, st.URL)
	byWord := map[string]string{}
	for _, r := range rows {
		uri, _ := r["uri"].(string)
		name, _ := r["name"].(string)
		for fn, word := range names {
			if name == fn || strings.HasSuffix(name, fn) {
				byWord[word] = uri
			}
		}
	}
	if len(byWord) != len(names) {
		t.Fatalf("listed %d of %d names: %v", len(byWord), len(names), rows)
	}
	for word, uri := range byWord {
		// The URI exactly as listed: get and check both succeed.
		code, out, errOut := runBounded(t, "get", uri, "--url="+st.URL, "--format", "text")
		if code != 0 || !strings.Contains(out, word+"marker") {
			t.Errorf("get %s (%s): exit %d, stdout %q, stderr %q", uri, word, code, out, errOut)
		}
		code, _, errOut = runBounded(t, "check", uri, "--url="+st.URL)
		if code != 0 && code != exitRuntime || strings.Contains(errOut, "4013") || strings.Contains(errOut, "protocol error") {
			t.Errorf("check %s (%s): exit %d, stderr %q", uri, word, code, errOut)
		}
	}
	// Typed by a person: raw UTF-8 is percent-encoded once, and reaches
	// the same document.
	typed := "dpe://" + stack.HostLibrary + "/café.md"
	code, out, errOut := runBounded(t, "get", typed, "--url="+st.URL, "--format", "text")
	if code != 0 || !strings.Contains(out, "nfcmarker") {
		t.Errorf("typed %s: exit %d, stdout %q, stderr %q", typed, code, out, errOut)
	}
	if want := "caf%C3%A9.md"; !strings.Contains(byWord["nfc"], want) {
		t.Errorf("listed NFC URI %q, want it to contain %s", byWord["nfc"], want)
	}
	typed = "dpe://" + stack.HostLibrary + "/my notes.md"
	if code, out, errOut = runBounded(t, "get", typed, "--url="+st.URL, "--format", "text"); code != 0 || !strings.Contains(out, "spacesmarker") {
		t.Errorf("typed %s: exit %d, stdout %q, stderr %q", typed, code, out, errOut)
	}
	// An escape of an unreserved character is kept as typed, not folded
	// to "-": the server's own spelling is "x-y.md", so this one is not
	// found, and says so.
	typed = "dpe://" + stack.HostLibrary + "/x%2Dy.md"
	if code, _, errOut = runBounded(t, "get", typed, "--url="+st.URL); code == 0 {
		t.Errorf("typed %s: exit 0, want not found (stderr %q)", typed, errOut)
	}
}
