package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A peer is a test-only SMCP server written on another Socket.IO
// implementation (interop/peers), run as a subprocess.
type peer struct {
	URL  string
	kind string
	stop func() // ends the peer process; safe to call more than once
}

type peerKind struct {
	name   string
	lookup func(t *testing.T, root string) (cmd string, args []string, env []string)
}

var peerKinds = []peerKind{
	{name: "python-socketio", lookup: pythonPeer},
	{name: "node-socket.io", lookup: nodePeer},
}

// skipOrFail follows the team rule: a missing runtime skips locally and
// fails under CI.
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format+" (CI is set, so this is a failure)", args...)
	}
	t.Skipf(format+" (set CI=true to make this a failure)", args...)
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

func pythonPeer(t *testing.T, root string) (string, []string, []string) {
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		skipOrFail(t, "python peer: %s not found", py)
	}
	if out, err := exec.Command(py, "-c", "import socketio, aiohttp").CombinedOutput(); err != nil {
		skipOrFail(t, "python peer: python3-socketio / python3-aiohttp missing: %s", bytes.TrimSpace(out))
	}
	return py, []string{filepath.Join(root, "interop", "peers", "smcp_peer.py")}, nil
}

func nodePeer(t *testing.T, root string) (string, []string, []string) {
	node, err := exec.LookPath("node")
	if err != nil {
		skipOrFail(t, "node peer: node not found in PATH")
	}
	mods := filepath.Join(root, "interop", "node_modules")
	if _, err := os.Stat(filepath.Join(mods, "socket.io", "package.json")); err != nil {
		skipOrFail(t, "node peer: socket.io not installed in %s (run npm install there)", mods)
	}
	return node, []string{filepath.Join(root, "interop", "peers", "smcp_peer.js")}, []string{"NODE_PATH=" + mods}
}

// startPeer runs a peer with extra args, reads "PORT n" from its stdout and
// stops it when the test ends (stdin closed, then killed if it lingers).
func startPeer(t *testing.T, k peerKind, args ...string) *peer {
	t.Helper()
	root := repoRoot(t)
	cmdPath, base, env := k.lookup(t, root)
	cmd := exec.Command(cmdPath, append(base, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s peer: %v", k.name, err)
	}
	exited := make(chan struct{})
	portc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if p, ok := strings.CutPrefix(sc.Text(), "PORT "); ok {
				select {
				case portc <- p:
				default:
				}
			}
		}
	}()
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := sync.OnceFunc(func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("%s peer stderr:\n%s", k.name, stderr.String())
		}
	})
	select {
	case p := <-portc:
		return &peer{URL: "http://127.0.0.1:" + p, kind: k.name, stop: stop}
	case <-exited:
		t.Fatalf("%s peer exited before listening:\n%s", k.name, stderr.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("%s peer did not print its port within 20s:\n%s", k.name, stderr.String())
	}
	return nil
}

// stats reads the peer's handshake counters.
func (p *peer) stats(t *testing.T) (handshakes, rejected int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/stats", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("peer stats: %v", err)
	}
	defer resp.Body.Close()
	var s struct{ Handshakes, Rejected int }
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatalf("peer stats: %v", err)
	}
	return s.Handshakes, s.Rejected
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// forEachPeer runs f as a subtest against every peer implementation.
func forEachPeer(t *testing.T, f func(t *testing.T, k peerKind)) {
	for _, k := range peerKinds {
		t.Run(k.name, func(t *testing.T) { f(t, k) })
	}
}

func testOptions(url, office, name string) Options {
	return Options{URL: url, Office: office, Name: name, ConnectTimeout: 10 * time.Second, RequestTimeout: 5 * time.Second}
}

func dialT(t *testing.T, opt Options) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, opt)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// waitEvent reads Events until match returns true or the bound passes.
func waitEvent(t *testing.T, c *Client, what string, match func(Event) bool) Event {
	t.Helper()
	bound := time.After(20 * time.Second)
	var seen []string
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				t.Fatalf("events closed before %s; saw %v", what, seen)
			}
			seen = append(seen, fmt.Sprintf("%+v", ev))
			if match(ev) {
				return ev
			}
		case <-bound:
			t.Fatalf("no %s within 20s; saw %v", what, seen)
		}
	}
}
