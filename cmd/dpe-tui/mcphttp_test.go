package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// startMCPHTTP runs `mcp --http 127.0.0.1:0 ARGS…` and returns its /mcp URL
// and the stderr seen so far.
func startMCPHTTP(t *testing.T, args ...string) (string, *lineWriter) {
	t.Helper()
	addrs := make(chan string, 1)
	re := regexp.MustCompile(`serving MCP Streamable HTTP at (http://\S+/mcp)`)
	stderr := &lineWriter{on: func(lines []string) {
		if m := re.FindStringSubmatch(lines[len(lines)-1]); m != nil {
			select {
			case addrs <- m[1]:
			default:
			}
		}
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, append([]string{"mcp", "--http", "127.0.0.1:0", "--index-dir", t.TempDir()}, args...), io.Discard, stderr)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case u := <-addrs:
		return u, stderr
	case code := <-done:
		t.Fatalf("mcp --http exited %d", code)
	case <-time.After(testbudget.Left(t, 30*time.Second)):
		t.Fatal("mcp --http did not start")
	}
	return "", nil
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func mcpPost(t *testing.T, url, token, session, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// TestMCPHTTP_BearerTokenRequired: with --token-env, a request without the
// token (or with another) is 401 and one with it is served.
func TestMCPHTTP_BearerTokenRequired(t *testing.T) {
	t.Setenv("DPE_TEST_MCP_TOKEN", "s3cret-token")
	url, _ := startMCPHTTP(t, "--token-env", "DPE_TEST_MCP_TOKEN")
	for _, tok := range []string{"", "wrong"} {
		if resp := mcpPost(t, url, tok, "", initializeBody); resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("token %q: %s, want 401 with WWW-Authenticate", tok, resp.Status)
		}
	}
	if resp := mcpPost(t, url, "s3cret-token", "", initializeBody); resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("with the token: %s", resp.Status)
	}
}

// TestMCPHTTP_IdleSessionExpires: a session idle past --session-timeout is
// closed, and its id is then unknown (404).
func TestMCPHTTP_IdleSessionExpires(t *testing.T) {
	timeout := 300 * time.Millisecond
	url, _ := startMCPHTTP(t, "--session-timeout", timeout.String())
	resp := mcpPost(t, url, "", "", initializeBody)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %s", resp.Status)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if r := mcpPost(t, url, "", id, list); r.StatusCode != http.StatusOK {
		t.Fatalf("tools/list in the session: %s", r.Status)
	}
	// Idle for several timeouts (no request in between: each would reset it).
	time.Sleep(5 * timeout)
	if r := mcpPost(t, url, "", id, list); r.StatusCode != http.StatusNotFound {
		t.Errorf("tools/list after %s idle: %s, want 404 (session gone)", 5*timeout, r.Status)
	}
}

// TestMCPHTTP_SlowBodyIsClosed: a client that sends headers and then
// trickles nothing of its body is disconnected at --read-timeout, so slow
// bodies cannot hold file descriptors.
func TestMCPHTTP_SlowBodyIsClosed(t *testing.T) {
	readTimeout := 300 * time.Millisecond
	url, _ := startMCPHTTP(t, "--read-timeout", readTimeout.String())
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+host+"\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	// A guard against a hang, far past the read timeout: the server must
	// close first (an answer then EOF, or EOF).
	_ = c.SetReadDeadline(time.Now().Add(30 * readTimeout))
	_, err = io.Copy(io.Discard, bufio.NewReader(c))
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the connection with a stalled body was still open after %s (read timeout %s)", 30*readTimeout, readTimeout)
	}
}

// TestMCPHTTP_NonLoopbackNeedsATokenOrInsecureBind
func TestMCPHTTP_NonLoopbackNeedsATokenOrInsecureBind(t *testing.T) {
	code, _, errOut := runCLI(t, "mcp", "--http", "0.0.0.0:0")
	if code != 2 || !strings.Contains(errOut, "beyond loopback") || !strings.Contains(errOut, "--insecure-bind") {
		t.Errorf("mcp --http 0.0.0.0:0 without a token: exit %d %q, want a usage error", code, errOut)
	}
}

// A key sent over plain http to a host beyond loopback is warned about on
// stderr by the real command; to loopback, or over https, it is not.
func TestPlainHTTPKeyIsWarned(t *testing.T) {
	for _, tc := range []struct {
		url  string
		warn bool
	}{
		{"http://192.0.2.1:9", true},
		{"http://127.0.0.1:1", false},
		{"https://192.0.2.1:9", false},
	} {
		_, _, errOut := runCLI(t, "ls", "computers", "--url="+tc.url, "--api-key", "k", "--timeout", "300ms")
		if got := strings.Contains(errOut, "the API key goes over plain http"); got != tc.warn {
			t.Errorf("%s: warned %v, want %v\n%s", tc.url, got, tc.warn, errOut)
		}
	}
}

func TestServeExposureWarning(t *testing.T) {
	for _, tc := range []struct {
		addr, key string
		warn      bool
	}{
		{"0.0.0.0:7800", "", true}, {":7800", "", true}, {"192.0.2.1:7800", "", true},
		{"0.0.0.0:7800", "k", false}, {"127.0.0.1:7800", "", false}, {"[::1]:7800", "", false}, {"localhost:7800", "", false},
	} {
		if got := serveExposureWarning(tc.addr, tc.key) != ""; got != tc.warn {
			t.Errorf("serve --addr %s (key %q): warned %v, want %v", tc.addr, tc.key, got, tc.warn)
		}
	}
}

// A peer's 200 KB error message reaches the terminal as about a kilobyte.
func TestReport_LongPeerErrorIsCut(t *testing.T) {
	var b strings.Builder
	code := report(&protocol.Error{Code: protocol.CodeInternal, Message: strings.Repeat("x", 200_000)}, &b)
	out := b.String()
	if code == 0 || len(out) > 2*maxErrorCells || !strings.Contains(out, "cut:") || strings.Count(out, "\n") != 1 {
		t.Errorf("report of a 200 KB message: exit %d, %d bytes: %.200q", code, len(out), out)
	}
}

// The read timeout bounds a request's body, not the session: a go-sdk
// client idle for longer than it (its event stream open) still calls find.
func TestMCPHTTP_ClientOutlivesTheReadTimeout(t *testing.T) {
	readTimeout := 300 * time.Millisecond
	url, _ := startMCPHTTP(t, "--read-timeout", readTimeout.String())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	time.Sleep(4 * readTimeout)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find", Arguments: map[string]any{"query": "valve"}})
	if err != nil || res.IsError {
		t.Fatalf("find after %s idle: %v %+v", 4*readTimeout, err, res)
	}
}
