package main

import (
	"encoding/json"
	"github.com/charmbracelet/x/ansi"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
)

func writeJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// everythingConfigs is the same server-everything (stdio, from interop/)
// in the mcpServers shape and in SMCP's MCPServerConfig shape, with extra
// servers of the common shape added to both.
func everythingConfigs(t *testing.T, extra map[string]any) (mcpServers, smcp string) {
	t.Helper()
	node, entry := interoptest.Everything(t)
	common := map[string]any{"everything": map[string]any{"command": node, "args": []string{entry, "stdio"}}}
	smcpServers := map[string]any{"everything": map[string]any{"type": "stdio",
		"server_parameters": map[string]any{"command": node, "args": []string{entry, "stdio"}}}}
	for k, v := range extra {
		common[k] = v
		smcpServers[k] = v // sniffed entry by entry: a common entry may sit beside SMCP ones
	}
	return writeJSON(t, map[string]any{"mcpServers": common}), writeJSON(t, map[string]any{"servers": smcpServers})
}

// uris are the dpe-tui ls resources rows' URIs, sorted.
func uris(out string) []string {
	var got []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "local" {
			got = append(got, f[1]+" "+f[2])
		}
	}
	slices.Sort(got)
	return got
}

func oneLine(t *testing.T, what, s string) {
	t.Helper()
	if strings.Count(strings.TrimRight(s, "\n"), "\n") != 0 || s == "" {
		t.Fatalf("%s: want exactly one line on stderr, got %q", what, s)
	}
}

// TestEmbedded_MCPConfigEverything: --mcp-config with the reference
// everything server in the mcpServers shape lists its resources, get prints
// a text resource, get -o saves its blob resource under the name from its
// URI; the same config in SMCP's shape lists the same.
func TestEmbedded_MCPConfigEverything(t *testing.T) {
	common, smcp := everythingConfigs(t, nil)

	code, out, errOut := runCLI(t, "ls", "resources", "--all", "--mcp-config", common)
	const features = "demo://resource/static/document/features.md"
	if code != 0 || !strings.Contains(out, "everything") || !strings.Contains(out, features) {
		t.Fatalf("ls resources (mcpServers shape): exit %d\n%s\n%s", code, out, errOut)
	}
	listed := uris(out)
	code, out2, errOut := runCLI(t, "--mcp-config", smcp, "ls", "resources", "--all")
	if code != 0 || !slices.Equal(uris(out2), listed) {
		t.Fatalf("ls resources (SMCP shape): exit %d\n%v\nwant %v\n%s", code, uris(out2), listed, errOut)
	}

	code, out, errOut = runCLI(t, "get", features, "--mcp-config", common)
	if code != 0 || !strings.HasPrefix(out, "# Everything Server - Features") {
		t.Fatalf("get text resource: exit %d\n%.300s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "read from MCP server everything on computer local") {
		t.Fatalf("get does not say who answered: %q", errOut)
	}

	dir := t.TempDir()
	const blob = "demo://resource/dynamic/blob/1"
	code, out, errOut = runCLI(t, "get", blob, "--mcp-config", common, "-o", dir)
	if code != 0 {
		t.Fatalf("get -o: exit %d\n%s\n%s", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "1"))
	if err != nil {
		t.Fatalf("saved file: %v (stderr %q)", err, errOut)
	}
	// The server sends this text base64-encoded: the file holds it decoded.
	if !regexp.MustCompile(`^Resource 1: This is a base64 blob created at [^\n]+$`).Match(data) {
		t.Fatalf("saved bytes %q", data)
	}
	// Never overwritten.
	code, _, errOut = runCLI(t, "get", blob, "--mcp-config", common, "-o", dir)
	if code != 1 || !strings.Contains(errOut, "exists") {
		t.Fatalf("second save: exit %d %q", code, errOut)
	}
	// A blob is not printed to a terminal.
	code, _, errOut = runCLI(t, "get", blob, "--mcp-config", common)
	if code != 1 || !strings.Contains(errOut, "save it with -o DIR") {
		t.Fatalf("blob to stdout: exit %d %q", code, errOut)
	}
}

// TestEmbedded_MCPConfigBrokenServer: one server whose command does not
// exist, one that dies with a secret on stderr, one that works: the
// working one lists, each broken one is named with its error on stderr,
// the secret masked.
func TestEmbedded_MCPConfigBrokenServer(t *testing.T) {
	t.Setenv("DPE_TUI_TEST_SECRET", "s3cret-value-77")
	common, _ := everythingConfigs(t, map[string]any{
		"broken": map[string]any{"command": "/nonexistent/dpe-tui-no-such-server"},
		"leaky": map[string]any{"command": "/bin/sh", "args": []string{"-c", `echo "key=$K" >&2; exit 1`},
			"env": map[string]any{"K": "${env:DPE_TUI_TEST_SECRET}"}},
	})
	code, out, errOut := runCLI(t, "ls", "resources", "--all", "--mcp-config", common)
	if code != 0 || !strings.Contains(out, "demo://resource/static/document/features.md") {
		t.Fatalf("ls resources: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, `skipped server broken on local`) || !strings.Contains(errOut, "dpe-tui-no-such-server") {
		t.Fatalf("broken server not named with its error: %q", errOut)
	}
	if !strings.Contains(errOut, "skipped server leaky on local") || !strings.Contains(errOut, "key=******") {
		t.Fatalf("dying server's stderr not shown (masked): %q", errOut)
	}
	if strings.Contains(errOut+out, "s3cret-value-77") {
		t.Fatalf("secret shown: %q", errOut)
	}
	code, out, _ = runCLI(t, "ls", "servers", "--mcp-config", common)
	for _, s := range []string{"broken", "leaky", "everything"} {
		if code != 0 || !strings.Contains(out, s) {
			t.Fatalf("ls servers lacks %s: exit %d\n%s", s, code, out)
		}
	}
}

// TestDocs_LsResourcesInProcess: --docs DIR (before the command, too)
// lists and gets the folder's documents with no server process: PATH is
// empty, so nothing could be started.
func TestDocs_LsResourcesInProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "My Notes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.md"), []byte("# Plan\n\nShip the harbour report.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	code, out, errOut := runCLI(t, "--docs", dir, "ls", "resources")
	const uri = "dpe://local.docs.my-notes/plan.md"
	if code != 0 || !strings.Contains(out, "my-notes") || !strings.Contains(out, uri) {
		t.Fatalf("--docs ls resources: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "get", uri, "--docs", dir, "--format", "text")
	if code != 0 || !strings.Contains(out, "Ship the harbour report.") {
		t.Fatalf("--docs get: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "--docs", filepath.Join(dir, "plan.md"), "ls", "resources")
	if code != exitUsage || !strings.Contains(errOut, "plan.md: not a directory (a regular file)") {
		t.Fatalf("--docs FILE: exit %d %q", code, errOut)
	}
}

// TestEmbedded_MissingFileFailsAtOnce: open, get and check of a missing
// or unreadable file: exit 1, one line, nothing started.
func TestEmbedded_MissingFileFailsAtOnce(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.json")
	for _, cmd := range []string{"open", "get", "check"} {
		code, out, errOut := runCLI(t, cmd, missing)
		if code != 1 || out != "" || !strings.Contains(errOut, "missing.json: no such file or directory") {
			t.Fatalf("%s missing: exit %d, stdout %q, stderr %q", cmd, code, out, errOut)
		}
		oneLine(t, cmd, errOut)
	}
	code, _, errOut := runCLI(t, "open", t.TempDir())
	if code != 1 || !strings.Contains(errOut, "is a directory") {
		t.Fatalf("open DIR: exit %d %q", code, errOut)
	}
	oneLine(t, "open DIR", errOut)
	if os.Geteuid() != 0 {
		locked := filepath.Join(t.TempDir(), "locked.json")
		if err := os.WriteFile(locked, []byte("{}"), 0o000); err != nil {
			t.Fatal(err)
		}
		code, _, errOut = runCLI(t, "open", locked)
		if code != 1 || !strings.Contains(errOut, "permission denied") {
			t.Fatalf("open unreadable: exit %d %q", code, errOut)
		}
		oneLine(t, "open unreadable", errOut)
	}
}

func TestEmbedded_WithURLIsUsageError(t *testing.T) {
	cfg := writeJSON(t, map[string]any{"mcpServers": map[string]any{"x": map[string]any{"command": "x"}}})
	for _, args := range [][]string{
		{"ls", "resources", "--url", "http://127.0.0.1:1", "--mcp-config", cfg},
		{"get", "dpe://a.b/c", "--url", "http://127.0.0.1:1", "--docs", t.TempDir()},
		{"check", "dpe://a.b/c", "--url", "http://127.0.0.1:1", "--docs", t.TempDir()},
		{"--url", "http://127.0.0.1:1", "--mcp-config", cfg},
	} {
		code, _, errOut := runCLI(t, args...)
		if code != 2 || !strings.Contains(errOut, "cannot be used with --url") || !strings.Contains(errOut, "in this process") {
			t.Fatalf("%v: exit %d %q", args, code, errOut)
		}
	}
}

// TestEmbedded_RemoteHasNoEventForNonDPE: with --url (or the demo), a
// non-dpe resource cannot be read, and get says why, before connecting:
// a usage error that first says which inputs get reads (ftp:// and
// mailto: are the same case).
func TestEmbedded_RemoteHasNoEventForNonDPE(t *testing.T) {
	for _, args := range [][]string{
		{"get", "demo://resource/static/document/features.md", "--url", "http://127.0.0.1:1"},
		{"get", "ftp://x/y"},
		{"get", "mailto:a@b"},
	} {
		code, _, errOut := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errOut, "not a dpe://, file://, http(s):// or s3:// URI, nor a file; A2C-SMCP has no event for reading other resources") {
			t.Fatalf("%v: exit %d %q", args, code, errOut)
		}
		oneLine(t, "remote non-dpe", errOut)
	}
}

// One long file name does not make ls resources lines run past the
// terminal: at $COLUMNS (or the terminal's width) the widest columns are
// cut with …; a pipe without COLUMNS gets the cells whole (each capped).
func TestLs_ResourcesFitTheTerminalWidth(t *testing.T) {
	cleanEnv(t)
	dir := filepath.Join(t.TempDir(), "docs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("quarterly-harbour-report-", 8) + "final.md"
	if err := os.WriteFile(filepath.Join(dir, long), []byte("# Harbour\n\nText.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	for _, cols := range []int{80, 200} {
		t.Setenv("COLUMNS", strconv.Itoa(cols))
		code, out, errOut := runCLI(t, "--docs", dir, "ls", "resources")
		if code != 0 || !strings.Contains(out, "…") || !strings.Contains(out, "quarte") {
			t.Fatalf("ls resources at %d columns: exit %d\n%s\n%s", cols, code, out, errOut)
		}
		if cols == 200 && !strings.Contains(out, "dpe://local.docs.docs/quarterly-harbour") || !strings.Contains(out, "report-final.md") {
			t.Errorf("at %d columns the long URI should keep its start and its file name's end:\n%s", cols, out)
		}
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if w := ansi.StringWidth(l); w > cols {
				t.Errorf("a line is %d cells wide at COLUMNS=%d: %q", w, cols, l)
			}
		}
	}
	t.Setenv("COLUMNS", "")
	_, whole, _ := runCLI(t, "--docs", dir, "ls", "resources")
	if w := ansi.StringWidth(strings.Split(whole, "\n")[1]); w <= 80 {
		t.Errorf("without a width, the row should keep its cells (%d cells):\n%s", w, whole)
	}
	// Piped, the URI is whole, whatever its length: it is what a script
	// passes to get (a URI cut to 80 cells named no resource).
	if uri := "dpe://local.docs.docs/" + url.PathEscape(long); !strings.Contains(whole, uri+"  ") {
		t.Errorf("piped, the URI %s should be whole:\n%s", uri, whole)
	}
}
