package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// With every --max-conns slot held by a client that has sent no request
// for longer than newGrace, a new client is served at once: it takes the
// slot of the oldest such connection, which is answered 503 and closed,
// while the younger one stays (a plain accept cap kept every new client
// waiting until the stalled ones hit --read-timeout, here two minutes).
func TestMCPHTTP_SlowClientsCannotStarveOthers(t *testing.T) {
	url, _ := startMCPHTTP(t, "--max-conns", "2", "--read-timeout", "2m")
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	var stalled []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+host+"\r\n") // and nothing more
		stalled = append(stalled, c)
		time.Sleep(50 * time.Millisecond) // accepted in this order
	}
	time.Sleep(newGrace)                                                  // both are slow now
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, far under the 2 min the stalled ones may take
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(initializeBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("a new client beside two stalled ones: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %s", resp.Status)
	}
	_ = stalled[0].SetReadDeadline(time.Now().Add(30 * time.Second))
	if said, err := io.ReadAll(stalled[0]); err != nil || !strings.HasPrefix(string(said), "HTTP/1.1 503 ") {
		t.Errorf("the oldest stalled connection was not answered 503 and closed: %q %v", said, err)
	}
	_ = stalled[1].SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	var ne net.Error
	if _, err := stalled[1].Read(make([]byte, 1)); !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("the younger stalled connection was closed too: %v", err)
	}
}

// A flood past --max-conns while every slot has a request in progress:
// each new connection is answered (503 with Retry-After, naming the cap),
// none is closed without a response; once the slots are free a client is
// served again.
func TestMCPHTTP_FloodPastMaxConnsIsAnswered503(t *testing.T) {
	url, _ := startMCPHTTP(t, "--max-conns", "2", "--read-timeout", "2m")
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	var busy []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// Whole headers and half a body: a request in progress, its
		// handler reading the rest.
		io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+host+"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":")
		busy = append(busy, c)
	}
	time.Sleep(200 * time.Millisecond) // both are read by their handlers
	const flood = 20
	errs := make(chan error, flood)
	for range flood {
		go func() {
			c, err := net.Dial("tcp", host)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(time.Minute)) // a guard: the answer comes at once
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if err := req.Write(c); err != nil {
				errs <- fmt.Errorf("write: %w", err)
				return
			}
			resp, err := http.ReadResponse(bufio.NewReader(c), req)
			if err != nil {
				errs <- fmt.Errorf("no response: %w", err)
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "--max-conns") {
				errs <- fmt.Errorf("%s, Retry-After %q, %q", resp.Status, resp.Header.Get("Retry-After"), body)
				return
			}
			errs <- nil
		}()
	}
	for range flood {
		if err := <-errs; err != nil {
			t.Errorf("a connection over the cap: %v", err)
		}
	}
	for _, c := range busy {
		_ = c.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		resp := mcpPostCtx(ctx, url, initializeBody)
		if resp != nil && resp.StatusCode == http.StatusOK {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no client served once the slots were free: %v", resp)
		}
		time.Sleep(50 * time.Millisecond) // the server sees the closes
	}
}

// mcpPostCtx is an initialize POST, nil when it fails.
func mcpPostCtx(ctx context.Context, url, body string) *http.Response {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	resp.Body.Close()
	return resp
}

// --max-sessions: past it a new session is refused with 503 naming the
// limit, and once one ends (DELETE) a new one opens.
func TestMCPHTTP_SessionCap(t *testing.T) {
	url, _ := startMCPHTTP(t, "--max-sessions", "2")
	var ids []string
	for range 2 {
		resp := mcpPost(t, url, "", "", initializeBody)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize: %s", resp.Status)
		}
		ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
	}
	resp := mcpPost(t, url, "", "", initializeBody)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "--max-sessions") {
		t.Fatalf("a third session: %s %q", resp.Status, body)
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", ids[0])
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	del, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	del.Body.Close()
	if resp := mcpPost(t, url, "", "", initializeBody); resp.StatusCode != http.StatusOK {
		t.Errorf("a session after one ended: %s", resp.Status)
	}
	if code, _, errOut := runCLI(t, "mcp", "--http", "127.0.0.1:0", "--max-sessions", "0"); code != exitUsage || !strings.Contains(errOut, "--max-sessions must be > 0") {
		t.Errorf("--max-sessions 0: exit %d %q", code, errOut)
	}
}

// `mcp --http --profile P` requires the bearer token P's token_cmd prints.
func TestMCPHTTP_ProfileTokenCmd(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("[profiles.serve]\ntoken_cmd = \"echo cmd-token\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url, _ := startMCPHTTP(t, "--config", cfg, "--profile", "serve")
	if resp := mcpPost(t, url, "", "", initializeBody); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %s, want 401", resp.Status)
	}
	if resp := mcpPost(t, url, "cmd-token", "", initializeBody); resp.StatusCode != http.StatusOK {
		t.Errorf("with token_cmd's token: %s", resp.Status)
	}
}
