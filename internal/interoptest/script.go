package interoptest

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// Python is the interpreter the version peers run under: the system one,
// where apt installs python3-socketio and python3-aiohttp.
const Python = "/usr/bin/python3"

// StartScript runs interop/peers/<script> (a python-socketio A2C-SMCP
// server of some version, e.g. smcp_peer_03.py) with args and returns its
// base URL. It stops when the test ends (stdin closed, then killed after
// 5 s). A missing python3-socketio is Need's skip, a failure under CI.
func StartScript(t testing.TB, script string, args ...string) string {
	t.Helper()
	if out, err := exec.Command(Python, "-c", "import socketio, aiohttp").CombinedOutput(); err != nil {
		Need(t, "%s: python3-socketio / python3-aiohttp missing: %s", script, strings.TrimSpace(string(out)))
	}
	cmd := exec.Command(Python, append([]string{filepath.Join(RepoRoot(t), "interop", "peers", script)}, args...)...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	portc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if p, ok := strings.CutPrefix(sc.Text(), "PORT "); ok {
				portc <- p
			}
		}
	}()
	select {
	case p := <-portc:
		return "http://127.0.0.1:" + p
	case <-done:
		t.Fatalf("%s exited before listening", script)
	case <-time.After(testbudget.Left(t, 20*time.Second)):
		t.Fatalf("%s did not print its port before the test's deadline", script)
	}
	return ""
}

// ScriptStats is what a version peer's GET /stats says.
type ScriptStats struct {
	Handshakes, Rejected int
	Events               map[string]int
}

// Stats reads GET /stats of the peer at url.
func Stats(t testing.TB, url string) ScriptStats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/stats", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s ScriptStats
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	return s
}
