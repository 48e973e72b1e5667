package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dpe-tui/dpe-tui/stack"
)

// runCLI runs the command in-process and returns exit code, stdout, stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func startStack(t *testing.T, resolver string) *stack.Stack {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := stack.Start(ctx, stack.Options{Resolver: resolver})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestLs_AgainstOurServer(t *testing.T) {
	st := startStack(t, "http")
	url := "--url=" + st.URL

	code, out, errOut := runCLI(t, "ls", "computers", url)
	if code != 0 || !strings.Contains(out, "alpha") || !strings.Contains(out, "beta") || !strings.Contains(out, "0.2.0") {
		t.Fatalf("ls computers: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "ls", "servers", url, "--computer", "alpha")
	if code != 0 || !strings.Contains(out, "library") || !strings.Contains(out, "notes") {
		t.Fatalf("ls servers: exit %d\n%s\n%s", code, out, errOut)
	}
	// ≥ 5 cursor pages: every one of the 260 notes arrives as a JSON line.
	code, out, errOut = runCLI(t, "ls", "resources", url, "--computer", "alpha", "--server", "notes", "--json")
	if code != 0 {
		t.Fatalf("ls resources: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < stack.NotesCount {
		t.Fatalf("ls resources --json printed %d lines, want ≥ %d", len(lines), stack.NotesCount)
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || !strings.HasPrefix(first["uri"].(string), "dpe://") {
		t.Fatalf("first JSON line %q: %v", lines[0], err)
	}
	// --limit-pages stops early and says more are available.
	code, out, errOut = runCLI(t, "ls", "resources", url, "--computer", "alpha", "--server", "notes", "--limit-pages", "2", "--json")
	if code != 0 || len(strings.Split(strings.TrimSpace(out), "\n")) != 2*stack.PageSize || !strings.Contains(errOut, "more available") {
		t.Fatalf("--limit-pages 2: exit %d, %d lines, stderr %q", code, len(strings.Split(strings.TrimSpace(out), "\n")), errOut)
	}
}

func firstLibraryURI(t *testing.T, url, match string) string {
	t.Helper()
	code, out, errOut := runCLI(t, "ls", "resources", "--url="+url, "--computer", "alpha", "--server", "library", "--json")
	if code != 0 {
		t.Fatalf("ls resources: %s", errOut)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if json.Unmarshal([]byte(l), &r) == nil {
			if u, _ := r["uri"].(string); strings.Contains(u, match) {
				return u
			}
		}
	}
	t.Fatalf("no library resource matching %q", match)
	return ""
}

func TestGet_FormatsForBothResolvers(t *testing.T) {
	for _, resolver := range []string{"file", "http"} {
		// A test-started stack is an external server to the command: its
		// file:// URIs need --allow-file-uri.
		var allow []string
		if resolver == "file" {
			allow = []string{"--allow-file-uri"}
		}
		t.Run(resolver, func(t *testing.T) {
			st := startStack(t, resolver)
			uri := firstLibraryURI(t, st.URL, "report")
			for _, format := range []string{"md", "text", "json"} {
				code, out, errOut := runCLI(t, append([]string{"get", uri, "--url=" + st.URL, "--format", format}, allow...)...)
				if code != 0 || len(out) < 100 {
					t.Fatalf("get --format %s: exit %d, %d bytes, %s", format, code, len(out), errOut)
				}
				if strings.ContainsRune(out, 0x1b) {
					t.Errorf("get --format %s printed an escape byte", format)
				}
				if format == "json" && !json.Valid([]byte(out)) {
					t.Errorf("get --format json is not JSON")
				}
				if format == "md" && !strings.Contains(out, "# ") {
					t.Errorf("get --format md has no heading")
				}
			}
			code, out, _ := runCLI(t, append([]string{"get", uri, "--url=" + st.URL, "--page", "1", "--format", "text"}, allow...)...)
			if code != 0 || out == "" {
				t.Fatalf("get --page 1: exit %d", code)
			}
			code, _, errOut := runCLI(t, append([]string{"get", uri, "--url=" + st.URL, "--page", "9999"}, allow...)...)
			if code != 1 || !strings.Contains(errOut, "page") {
				t.Errorf("get --page 9999: exit %d %q", code, errOut)
			}
		})
	}
}

func TestGet_LocalFileWithoutServer(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "doc.dpe.json")
	doc := `{"doc_ref":"d","uri":"dpe://x.y/d","title":"Local \u001b[2Jdoc","page_count":1,"pages":[{"page_index":0,"elements":[{"element_id":"e1","category":"Title","text":"Hello"},{"element_id":"e2","category":"NarrativeText","text":"World \u001b]0;pwned\u0007"}]}]}`
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "get", p, "--format", "text")
	if code != 0 || !strings.Contains(out, "Hello") || !strings.Contains(out, "World") {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
	if strings.ContainsRune(out, 0x1b) || strings.Contains(out, "\a") {
		t.Errorf("escape sequence survived in text output: %q", out)
	}
	// The escapes are control characters in text: a violation check names,
	// without printing them.
	code, out, _ = runCLI(t, "check", p)
	if code != exitViolations || !strings.Contains(out, "DPE-E040") {
		t.Errorf("check on text with control characters: exit %d, want %d naming DPE-E040\n%s", code, exitViolations, out)
	}
	if strings.ContainsRune(out, 0x1b) || strings.Contains(out, "\a") {
		t.Errorf("escape sequence survived in check output: %q", out)
	}
}

func TestCheck_ViolationsExitFour(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.json")
	bad := `{"doc_ref":"d","title":"bad","page_count":0,"keywords":"x","pages":[{"page_index":0,"elements":[{"element_id":"a","category":"Title","text":"t"},{"element_id":"a","category":"Blink","text":"t"}]},{"page_index":5}]}`
	if err := os.WriteFile(p, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "check", p)
	if code != exitViolations || exitViolations != 4 {
		t.Fatalf("exit %d, want 4\n%s", code, out)
	}
	for _, want := range []string{"page_count", "keywords", "$.pages[1]"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestExitCodes(t *testing.T) {
	st := startStack(t, "file")
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"unknown command", []string{"frobnicate"}, exitUsage},
		{"bad flag", []string{"ls", "computers", "--nope"}, exitUsage},
		{"ls what", []string{"ls", "things", "--url=" + st.URL}, exitUsage},
		{"typed uri with query", []string{"get", "dpe://io.github.dpetui.library/a?x=1", "--url=" + st.URL}, exitUsage},
		{"bad format", []string{"get", "x.json", "--format", "pdf"}, exitUsage},
		{"missing file", []string{"get", filepath.Join(t.TempDir(), "nope.json")}, exitRuntime},
		{"unknown host is a protocol error", []string{"get", "dpe://org.nowhere.docs/x", "--url=" + st.URL}, exitProtocol},
		{"unreachable server", []string{"ls", "computers", "--url=http://127.0.0.1:1", "--timeout=2s"}, exitRuntime},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, tc.args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.want, errOut)
			}
			if n := strings.Count(strings.TrimSpace(errOut), "\n"); code == exitRuntime && n > 0 {
				t.Errorf("error is not one line: %q", errOut)
			}
		})
	}
}

// TestHeadless_HostileDocumentLeavesNoEscapes renders the corpus's hostile
// document (ESC[2J, OSC 0 and 52, DCS, C1, bidi, invalid UTF-8, 10k-char
// names) through every headless output: none may carry a control byte,
// since stdout here is not a terminal and the program adds no styling.
func TestHeadless_HostileDocumentLeavesNoEscapes(t *testing.T) {
	st := startStack(t, "http")
	uri := firstLibraryURI(t, st.URL, "hostile")
	outputs := map[string][]string{
		"get md":       {"get", uri, "--url=" + st.URL, "--format", "md"},
		"get text":     {"get", uri, "--url=" + st.URL, "--format", "text"},
		"check":        {"check", uri, "--url=" + st.URL},
		"ls resources": {"ls", "resources", "--url=" + st.URL, "--computer", "alpha", "--server", "library", "--all"},
		"ls json":      {"ls", "resources", "--url=" + st.URL, "--computer", "alpha", "--server", "library", "--json"},
	}
	for name, args := range outputs {
		t.Run(name, func(t *testing.T) {
			_, out, errOut := runCLI(t, args...)
			for _, s := range []string{out, errOut} {
				assertNoControls(t, s)
			}
			if name == "get text" && !strings.Contains(out, "<U+202E>") {
				t.Errorf("bidi override should be shown visibly, not applied")
			}
		})
	}
}

func assertNoControls(t *testing.T, s string) {
	t.Helper()
	for i, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			t.Fatalf("control character %U at byte %d: %q", r, i, s[max(0, i-40):min(len(s), i+40)])
		case r == 0x202e || r == 0x202d || r == 0x2066 || r == 0x2067 || r == 0x2068:
			t.Fatalf("bidi control %U applied at byte %d", r, i)
		}
	}
	if !utf8.ValidString(s) {
		t.Fatal("invalid UTF-8 in output")
	}
}
