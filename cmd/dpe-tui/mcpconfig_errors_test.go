package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestEmbedded_ConfigFileErrorsAreUsage: every --mcp-config file that
// cannot be used (missing, a FIFO, not JSON, not a config) fails at once
// with exit 2 and one line naming the file; a FIFO does not block.
func TestEmbedded_ConfigFileErrorsAreUsage(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{fifo, "not a regular file (a FIFO)"},
		{dir, "not a regular file (a directory)"},
		{filepath.Join(dir, "missing.json"), "no such file or directory"},
		{write("trunc.json", `{"mcpServers": {"a": {"command": "x"`), "invalid JSON"},
		{write("empty.json", ""), "empty file"},
		{write("nocmd.json", `{"mcpServers": {"a": {"args": ["x"]}}}`), `"a"`},
		{write("both.json", `{"mcpServers": {"a": {"command": "x", "url": "http://127.0.0.1:1"}}}`), "not both"},
		{write("ftp.json", `{"mcpServers": {"a": {"url": "ftp://127.0.0.1/x"}}}`), `"a"`},
		{write("num.json", `{"mcpServers": {"a": {"command": 42}}}`), `"a"`},
		{write("twice.json", `{"mcpServers": {}, "servers": {}}`), "servers given twice"},
		{write("list.json", `[]`), "an empty list is not a config"},
	} {
		// runBounded: a blocked open would hang, not be slow.
		code, out, errOut := runBounded(t, "ls", "servers", "--mcp-config", tc.path)
		if code != exitUsage || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "--mcp-config "+tc.path+":") || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 naming the file and %q", filepath.Base(tc.path), code, out, errOut, tc.want)
			continue
		}
		oneLine(t, filepath.Base(tc.path), errOut)
		if strings.Count(errOut, tc.path) != 1 || strings.Contains(errOut, "see 'dpe-tui") {
			t.Errorf("%s: the file named once and no flag hint: %q", filepath.Base(tc.path), errOut)
		}
	}
}

// TestEmbedded_EmptyConfigIsANote: {} has no servers: one note on stderr
// naming the file, and the folder beside it is listed.
func TestEmbedded_EmptyConfigIsANote(t *testing.T) {
	p := filepath.Join(t.TempDir(), "none.json")
	if err := os.WriteFile(p, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "a.md"), []byte("# A\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "ls", "servers", "--mcp-config", p, "--docs", docs)
	if code != exitOK || errOut != "dpe-tui: "+p+": no MCP servers\n" || !strings.Contains(out, "local") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
