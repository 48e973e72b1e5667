package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
)

// TestServe_MCPConfigFrontsServerEverything: `serve --mcp-config` starts
// the reference MCP "everything" server over stdio, and its resources page
// through client:get_resources to `ls`.
func TestServe_MCPConfigFrontsServerEverything(t *testing.T) {
	node, entry := interoptest.Everything(t)
	cfg := map[string]any{"servers": map[string]any{"everything": map[string]any{
		"name": "everything", "type": "stdio", "disabled": false, "forbidden_tools": []string{}, "tool_meta": map[string]any{},
		"server_parameters": map[string]any{"command": node, "args": []string{entry, "stdio"}, "env": map[string]string{"SECRET_TOKEN": "t0p"},
			"cwd": nil, "encoding": "utf-8", "encoding_error_handler": "strict"},
	}}}
	file := filepath.Join(t.TempDir(), "mcp.json")
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--mcp-config", file, "--log", os.DevNull}, pw, io.Discard)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("serve exited %d", code)
			}
		case <-time.After(20 * time.Second):
			t.Error("serve did not stop after its context ended")
		}
	})
	url := ""
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "dpe-tui serve: listening on "); ok {
			url = u
			break
		}
	}
	if url == "" {
		t.Fatal("serve printed no URL")
	}
	go io.Copy(io.Discard, pr)

	code, out, errOut := runCLI(t, "ls", "servers", "--url="+url, "--computer", "alpha")
	if code != 0 || !strings.Contains(out, "everything") || !strings.Contains(out, "stdio") {
		t.Fatalf("ls servers: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "ls", "resources", "--url="+url, "--computer", "alpha", "--server", "everything", "--all", "--json")
	if code != 0 {
		t.Fatalf("ls resources: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 5 {
		t.Fatalf("everything listed %d resources through get_resources, want its sample set:\n%s", len(lines), out)
	}
	for _, l := range lines {
		var r struct{ URI, Server string }
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.URI == "" || r.Server != "everything" {
			t.Fatalf("bad resource line %q: %v", l, err)
		}
	}
	// None of everything's resources is dpe://: without --all nothing is listed.
	if code, out, _ := runCLI(t, "ls", "resources", "--url="+url, "--computer", "alpha", "--server", "everything", "--json"); code != 0 || strings.TrimSpace(out) != "" {
		t.Errorf("dpe-only listing of everything: exit %d, %q", code, out)
	}
	if strings.Contains(out, "t0p") {
		t.Error("a config secret leaked into the listing")
	}
}
