// Package interoptest starts the test peers that nobody here wrote — the
// Socket.IO servers in interop/peers (python-socketio + aiohttp, Node
// socket.io 4.8) and the npm MCP "everything" server — for the tests of
// several packages. A missing runtime skips a test locally and fails it
// under CI (CI=true), where .ci/run has installed everything.
package interoptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// Need reports a missing test dependency: a skip locally, a failure under CI.
func Need(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format+" (CI is set, so this is a failure)", args...)
	}
	t.Skipf(format+" (set CI=true to make this a failure)", args...)
}

// RepoRoot is the directory holding go.mod, above the test's directory.
func RepoRoot(t testing.TB) string {
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

// Runtime is one peer implementation of interop/peers.
type Runtime struct {
	Name   string
	lookup func(t testing.TB, root string) (cmd string, args, env []string)
}

// Runtimes lists the peer implementations.
func Runtimes() []Runtime {
	return []Runtime{{"python-socketio", pythonPeer}, {"node-socket.io", nodePeer}}
}

func pythonPeer(t testing.TB, root string) (string, []string, []string) {
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		Need(t, "python peer: %s not found", py)
	}
	if out, err := exec.Command(py, "-c", "import socketio, aiohttp").CombinedOutput(); err != nil {
		Need(t, "python peer: python3-socketio / python3-aiohttp missing: %s", bytes.TrimSpace(out))
	}
	return py, []string{filepath.Join(root, "interop", "peers", "smcp_peer.py")}, nil
}

func nodePeer(t testing.TB, root string) (string, []string, []string) {
	node, mods := NodeModules(t, "socket.io")
	return node, []string{filepath.Join(root, "interop", "peers", "smcp_peer.js")}, []string{"NODE_PATH=" + mods}
}

// NodeModules returns the node binary and interop/node_modules, after
// checking that pkg is installed there.
func NodeModules(t testing.TB, pkg string) (node, modules string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		Need(t, "node not found in PATH")
	}
	modules = filepath.Join(RepoRoot(t), "interop", "node_modules")
	if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
		Need(t, "%s not installed in %s (run npm ci in interop/)", pkg, modules)
	}
	return node, modules
}

// Peer is a running peer process.
type Peer struct {
	URL  string
	Name string
	// Stop ends the process (stdin closed, killed if it lingers); safe to
	// call more than once. It also runs when the test ends.
	Stop func()
}

// Start runs a peer with extra args, reads "PORT n" from its stdout and
// stops it when the test ends; its stderr is logged if the test failed.
func Start(t testing.TB, rt Runtime, args ...string) *Peer {
	t.Helper()
	cmdPath, base, env := rt.lookup(t, RepoRoot(t))
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
		t.Fatalf("start %s peer: %v", rt.Name, err)
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
			t.Logf("%s peer stderr:\n%s", rt.Name, stderr.String())
		}
	})
	select {
	case p := <-portc:
		return &Peer{URL: "http://127.0.0.1:" + p, Name: rt.Name, Stop: stop}
	case <-exited:
		t.Fatalf("%s peer exited before listening:\n%s", rt.Name, stderr.String())
	case <-time.After(testbudget.Left(t, 20*time.Second)):
		t.Fatalf("%s peer did not print its port before the test's deadline:\n%s", rt.Name, stderr.String())
	}
	return nil
}

// Everything locates @modelcontextprotocol/server-everything (npm) in
// interop/node_modules: the node binary and the entry named by its bin.
func Everything(t testing.TB) (node, entry string) {
	t.Helper()
	node, modules := NodeModules(t, "@modelcontextprotocol/server-everything")
	pkg := filepath.Join(modules, "@modelcontextprotocol", "server-everything")
	b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Bin map[string]string `json:"bin"`
	}
	if err := json.Unmarshal(b, &meta); err != nil || meta.Bin["mcp-server-everything"] == "" {
		t.Fatalf("server-everything package.json has no mcp-server-everything bin: %v", err)
	}
	return node, filepath.Join(pkg, meta.Bin["mcp-server-everything"])
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
