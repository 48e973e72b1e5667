package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// opaqueServer is an MCP server (streamable HTTP on loopback) listing one
// resource whose URI has a scheme and no "//": mine:opaque.
func opaqueServer(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "mine", Version: "1"}, nil)
	srv.AddResource(&mcp.Resource{URI: "mine:opaque", Name: "opaque", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "opaque text"}}}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return writeJSON(t, map[string]any{"mcpServers": map[string]any{"mine": map[string]any{"url": hs.URL}}})
}

// TestGet_ListedOpaqueURIIsAURI: a string with a URI scheme that a local
// server lists is read as that URI, not as a file path; an existing file
// of that name is still the file; one that is neither says both.
func TestGet_ListedOpaqueURIIsAURI(t *testing.T) {
	cfg := opaqueServer(t)
	code, out, errOut := runCLI(t, "get", "mine:opaque", "--mcp-config", cfg)
	if code != exitOK || out != "opaque text\n" || !strings.Contains(errOut, "read from MCP server mine") {
		t.Fatalf("listed: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "get", "mine:other", "--mcp-config", cfg)
	if code != exitRuntime || out != "" || !strings.Contains(errOut, "mine:other: no such file, and no MCP server of computer local lists it") {
		t.Fatalf("neither: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	oneLine(t, "neither", errOut)

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine:opaque"), []byte("# From the file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, out, errOut = runCLI(t, "get", "mine:opaque", "--mcp-config", cfg, "--format", "text")
	if code != exitOK || !strings.Contains(out, "From the file") {
		t.Fatalf("existing file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestGet_LocalBinaryNamesItsKind: a local file has no MIME type, so the
// error says what its bytes are instead of an empty pair of brackets.
func TestGet_LocalBinaryNamesItsKind(t *testing.T) {
	cleanEnv(t)
	exe, err := os.Executable() // an ELF file on Linux
	if err != nil {
		t.Fatal(err)
	}
	head, err := os.ReadFile(exe)
	if err != nil || !bytes.HasPrefix(head, []byte("\x7fELF")) {
		t.Skip("the test binary is not an ELF file here")
	}
	code, _, errOut := runCLI(t, "get", exe)
	if code == 0 || !strings.Contains(errOut, "is binary (ELF executable, ") || strings.Contains(errOut, "(,") {
		t.Errorf("get %s: exit %d, stderr %q; want the kind named", exe, code, errOut)
	}
}
