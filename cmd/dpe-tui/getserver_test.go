package main

import (
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
)

// TestGet_ServerChoosesBetweenTwoThatListIt: two servers that both list
// URIs like one cannot guess; the error says how to choose, and --server
// NAME reads it on that server. --server without your own servers, or on
// a dpe:// URI, is a usage error.
func TestGet_ServerChoosesBetweenTwoThatListIt(t *testing.T) {
	node, entry := interoptest.Everything(t)
	srv := map[string]any{"command": node, "args": []string{entry, "stdio"}}
	cfg := writeJSON(t, map[string]any{"mcpServers": map[string]any{"everything": srv, "slow": srv}})
	const uri = "demo://resource/dynamic/text/1"

	code, out, errOut := runCLI(t, "get", uri, "--mcp-config", cfg)
	if code != exitRuntime || out != "" || !strings.Contains(errOut, `both list URIs like it`) || !strings.Contains(errOut, "--server NAME") {
		t.Fatalf("ambiguous: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	oneLine(t, "ambiguous", errOut)

	for _, name := range []string{"slow", "everything"} {
		code, out, errOut = runCLI(t, "get", uri, "--mcp-config", cfg, "--server", name)
		if code != exitOK || !strings.Contains(out, "Resource 1") || !strings.Contains(errOut, "read from MCP server "+name+" on computer local") {
			t.Fatalf("--server %s: exit %d, stdout %.200q, stderr %q", name, code, out, errOut)
		}
	}
	code, _, errOut = runCLI(t, "get", uri, "--mcp-config", cfg, "--server", "nope")
	if code != exitRuntime || !strings.Contains(errOut, `"nope" is not registered`) {
		t.Fatalf("--server nope: exit %d %q", code, errOut)
	}
	for _, args := range [][]string{
		{"get", uri, "--server", "everything"},
		{"get", "dpe://a.b/c", "--mcp-config", cfg, "--server", "everything"},
	} {
		code, _, errOut = runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errOut, "--server picks which of your own MCP servers") {
			t.Fatalf("%v: exit %d %q", args, code, errOut)
		}
	}
}

// TestGet_SaveIntoMissingDirSaysSo: -o into a directory that does not
// exist names it, not a temporary file.
func TestGet_SaveIntoMissingDirSaysSo(t *testing.T) {
	cfg, _ := everythingConfigs(t, nil)
	const blob = "demo://resource/dynamic/blob/1"
	missing := t.TempDir() + "/nonexist_dir"
	for _, o := range []string{missing + "/", missing + "/x.bin"} {
		code, _, errOut := runCLI(t, "get", blob, "--mcp-config", cfg, "-o", o)
		want := "save: " + missing
		if code != exitRuntime || !strings.Contains(errOut, want) || !strings.Contains(errOut, "no such directory") || strings.Contains(errOut, ".dpe-tui-save") {
			t.Fatalf("-o %s: exit %d %q", o, code, errOut)
		}
		oneLine(t, o, errOut)
	}
}
