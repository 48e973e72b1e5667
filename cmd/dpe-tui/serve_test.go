package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
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

	url := startServe(t, "--mcp-config", file, "--log", os.DevNull)

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

// startServe runs `dpe-tui serve --addr 127.0.0.1:0 args...` until the test
// ends and returns the URL it prints.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), pw, io.Discard)
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
	return url
}

// `serve --docs` on a folder holding leak.png → /etc/passwd (an image of a
// Markdown file), leak.txt → /etc/passwd and docs → /: none is listed,
// embedded or readable by URI through the real agent commands, and the
// log has a WARN naming each.
func TestServe_DocsServesNothingOutsideDir(t *testing.T) {
	passwd, err := os.ReadFile("/etc/passwd")
	if err != nil || len(passwd) == 0 {
		t.Skip("no /etc/passwd to leak")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "guide.md"), []byte("# Guide\n\nSee the picture.\n\n![leak](leak.png)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"leak.png": "/etc/passwd", "leak.txt": "/etc/passwd", "docs": "/"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	logFile := filepath.Join(t.TempDir(), "serve.log")
	url := startServe(t, "--docs", dir, "--log", logFile)

	code, out, errOut := runCLI(t, "ls", "resources", "--url="+url, "--computer", "alpha", "--server", "library", "--json")
	if code != 0 {
		t.Fatalf("ls resources: exit %d: %s", code, errOut)
	}
	var uris []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct{ URI string }
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("bad line %q: %v", l, err)
		}
		uris = append(uris, r.URI)
	}
	if want := []string{"dpe://io.github.dpetui.library/guide.md"}; !slices.Equal(uris, want) {
		t.Errorf("listed %v, want %v", uris, want)
	}
	code, out, errOut = runCLI(t, "get", "dpe://io.github.dpetui.library/guide.md", "--url="+url, "--format", "json")
	if code != 0 || !strings.Contains(out, "See the picture.") {
		t.Fatalf("get guide.md: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, base64.StdEncoding.EncodeToString(passwd)) || strings.Contains(out, "image_base64") {
		t.Error("the symlinked image was embedded")
	}
	for _, uri := range []string{"dpe://io.github.dpetui.library/leak.txt", "dpe://io.github.dpetui.library/docs/etc/passwd"} {
		code, out, errOut := runCLI(t, "get", uri, "--url="+url, "--format", "text")
		if code == 0 || strings.Contains(out+errOut, "root:") {
			t.Errorf("get %s: exit %d\n%s%s", uri, code, out, errOut)
		}
	}
	logs, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`level=WARN msg="library: skip symlink" component=library path=leak.txt reason="symlink leaves the served folder"`,
		`level=WARN msg="library: skip symlink" component=library path=docs reason="symlink leaves the served folder"`,
		`level=WARN msg="library: image not embedded" component=library path=leak.png document=guide.md reason="symlink leaves the served folder"`,
	} {
		if !strings.Contains(string(logs), line) {
			t.Errorf("serve log lacks\n  %s\ngot:\n%s", line, logs)
		}
	}
}

// The limit flags reach the server: with --max-message-bytes 4096 an agent
// sending a larger request is disconnected and the server says why, once.
func TestServe_MaxMessageBytesClosesTheSender(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "serve.log")
	url := startServe(t, "--max-message-bytes", "4096", "--log", logFile)
	uri := "dpe://io.github.dpetui.library/" + strings.Repeat("a", 8000)
	code, _, errOut := runCLI(t, "get", uri, "--url="+url, "--computer", "alpha", "--timeout", "10s")
	if code == 0 {
		t.Fatalf("get with an 8 KB request under a 4 KB cap succeeded")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		logs, _ := os.ReadFile(logFile)
		if n := strings.Count(string(logs), "message over the size limit"); n == 1 && strings.Contains(string(logs), "limit_bytes=4096") {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("serve logged the oversize message %d times (want once); get said %q\n%s", n, errOut, logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServe_LimitFlagsMustBePositive(t *testing.T) {
	for _, args := range [][]string{
		{"--max-pending", "0"}, {"--max-request-timeout", "-1s"}, {"--max-message-bytes", "0"},
	} {
		code, _, errOut := runCLI(t, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
		if code != 2 || !strings.Contains(errOut, args[0]+" must be > 0") {
			t.Errorf("serve %v: exit %d, %q; want usage error naming the flag", args, code, errOut)
		}
	}
}
