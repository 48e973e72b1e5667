package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/protocol"
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
	// None of everything's resources is dpe://: without --all nothing is
	// listed, and the server is skipped with a note saying why.
	if code, out, errOut := runCLI(t, "ls", "resources", "--url="+url, "--computer", "alpha", "--server", "everything", "--json"); code != exitNothingListed || strings.TrimSpace(out) != "" || !strings.Contains(errOut, "--all") {
		t.Errorf("dpe-only listing of everything: exit %d, %q %q", code, out, errOut)
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
	logs := &syncBuffer{}
	go func() {
		done <- runContext(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), pw, logs)
		pw.Close()
	}()
	t.Cleanup(func() {
		defer logTail(t, "serve "+strings.Join(args, " "), logs.String())
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
		`level=WARN msg="library: skip file" component=library path=leak.txt reason="symlink leaves the folder"`,
		`level=WARN msg="library: skip file" component=library path=docs reason="symlink leaves the folder"`,
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
	deadline := testbudget.Until(t, 10*time.Second)
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

// A cluster node without a shared secret would obey anyone who can write to
// Redis: serve refuses to start one unless told to trust Redis.
func TestServe_RedisNeedsAClusterSecret(t *testing.T) {
	t.Setenv("DPE_TUI_CLUSTER_SECRET", "")
	code, _, errOut := runCLI(t, "serve", "--addr", "127.0.0.1:0", "--redis", "redis://127.0.0.1:1/0")
	if code != 2 || !strings.Contains(errOut, "--redis needs --cluster-secret") {
		t.Errorf("serve --redis without a secret: exit %d, %q; want a usage error", code, errOut)
	}
}

// TestMain lets a test run the real command in a child process (the
// multi-node test kills a node with SIGKILL): with DPE_TUI_TEST_MAIN=1 the
// test binary is dpe-tui.
func TestMain(m *testing.M) {
	// Help goldens are laid out at this width (fang reads it once).
	os.Setenv("__FANG_TEST_WIDTH", "100")
	if os.Getenv("DPE_TUI_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	// The TUIs the tests run keep their places under a state dir of the
	// run's, never the user's.
	state, err := os.MkdirTemp("", "dpe-tui-state-")
	if err == nil {
		os.Setenv("XDG_STATE_HOME", state)
	}
	code := m.Run()
	if state != "" {
		os.RemoveAll(state)
	}
	if builtBinary.dir != "" {
		os.RemoveAll(builtBinary.dir)
	}
	if hostileCache.dir != "" {
		os.RemoveAll(hostileCache.dir)
	}
	os.Exit(code)
}

// startRedis runs a real redis-server on a free loopback port, without
// persistence, in a temp dir; stop takes it away, start gives it back on
// the same port.
type redisProc struct {
	t      *testing.T
	bin    string
	dir    string
	port   int
	cmd    *exec.Cmd
	exited chan error // cmd's Wait result, put back by whoever reads it
}

func startRedis(t *testing.T) *redisProc {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if _, serr := os.Stat("/usr/bin/redis-server"); serr != nil {
			interoptest.Need(t, "redis-server not installed (Debian package redis-server)")
		}
		bin = "/usr/bin/redis-server"
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	r := &redisProc{t: t, bin: bin, dir: t.TempDir(), port: port}
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *redisProc) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

func (r *redisProc) start() {
	r.t.Helper()
	r.cmd = exec.Command(r.bin, "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", r.dir)
	r.cmd.Dir = r.dir
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("redis-server: %v", err)
	}
	exited := make(chan error, 1)
	cmd := r.cmd
	go func() { exited <- cmd.Wait() }()
	r.exited = exited
	// The port was free when startRedis chose it; on a restart another
	// process may hold it by now (the suite binds ports all the time), so
	// "something answers" is not enough: the answer must come from the
	// redis-server just started.
	addr := fmt.Sprintf("127.0.0.1:%d", r.port)
	waitFor(r.t, "redis-server listening", func() bool {
		select {
		case err := <-exited:
			exited <- err
			r.t.Fatalf("redis-server on %s exited at once (%v): the port is taken", addr, err)
		default:
		}
		pid, err := redisPID(addr)
		if err == nil && pid != cmd.Process.Pid {
			r.t.Fatalf("%s is answered by redis process %d, not by the one just started (%d)", addr, pid, cmd.Process.Pid)
		}
		return err == nil
	})
}

// redisPID asks the Redis server at addr for its process id (INFO server).
func redisPID(addr string) (int, error) {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.WriteString(c, "*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n"); err != nil {
		return 0, err
	}
	br := bufio.NewReader(c)
	head, err := br.ReadString('\n')
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(head, "$")))
	if !strings.HasPrefix(head, "$") || err != nil || n <= 0 || n > 1<<20 {
		return 0, fmt.Errorf("INFO answer %q is not a bulk string", head)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(br, body); err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "process_id:"); ok {
			return strconv.Atoi(v)
		}
	}
	return 0, errors.New("INFO server has no process_id")
}

func (r *redisProc) stop() {
	if r.cmd != nil {
		_ = r.cmd.Process.Kill()
		err := <-r.exited
		r.exited <- err
		r.cmd = nil
	}
}

// logTail logs the end of a serve node's log when the test failed: what a
// node saw is most of what explains a cluster test's failure.
func logTail(t *testing.T, who, log string) {
	if !t.Failed() {
		return
	}
	const most = 16 << 10
	if len(log) > most {
		log = "…" + log[len(log)-most:]
	}
	t.Logf("log of %s:\n%s", who, log)
}

// waitFor polls cond; the bound is a deadlock guard, not a timing assertion.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitForWithin(t, what, 0, cond)
}

// waitForWithin is waitFor giving up after most (when not zero) if the
// test's deadline is later, so that a condition that will never hold fails
// with what was seen instead of running into the binary's timeout.
func waitForWithin(t *testing.T, what string, most time.Duration, cond func() bool) {
	t.Helper()
	start := time.Now()
	deadline := testbudget.Until(t, 20*time.Second)
	if most > 0 && time.Until(deadline) > most {
		deadline = time.Now().Add(most)
	}
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, time.Since(start).Round(time.Second))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startChildServe runs `dpe-tui serve` in a child process and returns its
// URL and the process (to kill).
func startChildServe(t *testing.T, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "DPE_TUI_TEST_MAIN=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logTail(t, "child serve "+strings.Join(args, " "), logs.String())
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "dpe-tui serve: listening on "); ok {
				urls <- u
			}
		}
	}()
	select {
	case u := <-urls:
		return u, cmd
	case <-time.After(testbudget.Left(t, 30*time.Second)):
		t.Fatal("child serve printed no URL")
	}
	return "", nil
}

func lsComputers(t *testing.T, url string) (int, []string, string) {
	t.Helper()
	code, out, errOut := runCLI(t, "ls", "computers", "--url="+url, "--json")
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			if n, ok := m["name"].(string); ok {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return code, names, errOut
}

// Two serve nodes sharing the office through a real Redis: an agent on
// node 1 (server only) works with the computers of node 2; notifications
// cross; a second agent on node 2 is refused; SIGKILL of node 2 drops its
// computers from node 1 within the node TTL and they rejoin via node 1;
// Redis going away keeps node 1 serving, and it rejoins when Redis returns.
func TestServe_RedisTwoNodes(t *testing.T) {
	rds := startRedis(t)
	ttl := "1500ms"
	url1 := startServe(t, "--redis", rds.url(), "--cluster-secret", "s3cret-shared-by-nodes", "--no-computers", "--node-ttl", ttl)
	url2, node2 := startChildServe(t, "--redis", rds.url(), "--cluster-secret", "s3cret-shared-by-nodes", "--node-ttl", ttl)

	code, names, errOut := lsComputers(t, url1)
	if code != 0 || !slices.Equal(names, []string{"alpha", "beta"}) {
		t.Fatalf("ls computers on node 1: exit %d %v %s", code, names, errOut)
	}
	code, out, errOut := runCLI(t, "ls", "resources", "--url="+url1, "--computer", "beta", "--server", "archive", "--json")
	if code != 0 || strings.Count(out, "dpe://") < 12 {
		t.Fatalf("ls resources of node 2's beta via node 1: exit %d\n%s\n%s", code, out, errOut)
	}
	uri := firstLibraryURI(t, url1, "dpe://")
	code, out, errOut = runCLI(t, "get", uri, "--url="+url1, "--computer", "alpha", "--format", "text")
	if code != 0 || len(strings.TrimSpace(out)) == 0 {
		t.Fatalf("get %s via node 1: exit %d %s", uri, code, errOut)
	}

	// A held agent on node 1: notifications from node 2's side reach it,
	// and a second agent for the office on node 2 is refused.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	agent, err := client.Dial(ctx, client.Options{URL: url1, Office: "demo", Name: "watcher"})
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	code, _, errOut = runCLI(t, "ls", "computers", "--url="+url2, "--name", "intruder")
	if code == 0 || !strings.Contains(errOut, "already has an agent") {
		t.Errorf("second agent on node 2: exit %d %q", code, errOut)
	}

	// Node 2 is killed: alpha and beta leave node 1's office (notified)...
	if err := node2.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	left := map[string]bool{}
	for len(left) < 2 {
		select {
		case ev := <-agent.Events():
			if n, ok := ev.(client.NotifyEvent); ok && n.Name == protocol.NotifyLeaveOffice {
				left[n.Computer] = true
			}
		case <-ctx.Done():
			t.Fatalf("leave notifications after the kill: %v", left)
		}
	}
	// ctx bounds the wait; the time is reported, not asserted (a loaded
	// machine may take longer than the 1.5 s TTL and a heartbeat).
	t.Logf("computers dropped %s after the kill", time.Since(killed).Round(10*time.Millisecond))
	if cs, err := agent.Computers(ctx); err != nil || len(cs) != 0 {
		t.Fatalf("node 1's list_room after the kill: %v %v", cs, err)
	}
	// ...and rejoin through node 1. The computer's connection takes one
	// URL today, so the rejoin is a computer started against node 1.
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "note.md"), []byte("# Rejoined\n\nBack through node 1.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cctx, ccancel := context.WithCancel(context.Background())
	cdone := make(chan int, 1)
	go func() {
		cdone <- runContext(cctx, []string{"computer", "--url", url1, "--office", "demo", "--name", "alpha", "--docs", docs}, io.Discard, io.Discard)
	}()
	defer func() {
		ccancel()
		<-cdone
	}()
	waitFor(t, "alpha rejoins via node 1", func() bool {
		cs, err := agent.Computers(ctx)
		return err == nil && len(cs) == 1 && cs[0].Name == "alpha"
	})

	// Redis goes away: node 1 keeps its office; routed requests still work.
	agent.Close()
	rds.stop()
	time.Sleep(time.Second) // let node 1 see the outage (it also works before it does)
	code, out, errOut = runCLI(t, "ls", "resources", "--url="+url1, "--computer", "alpha", "--server", "library", "--json")
	if code != 0 || !strings.Contains(out, "dpe://") {
		t.Fatalf("ls during the Redis outage: exit %d\n%s\n%s", code, out, errOut)
	}
	// Redis returns: a new node sees node 1's computer again.
	rds.start()
	url3 := startServe(t, "--redis", rds.url(), "--cluster-secret", "s3cret-shared-by-nodes", "--no-computers", "--node-ttl", ttl)
	var last string
	defer func() {
		if t.Failed() {
			t.Logf("last ls computers on node 3: %s", last)
		}
	}()
	// Node 1 registers again within a heartbeat (a third of the TTL) of
	// Redis's return; two minutes is a deadlock guard, not a timing claim.
	waitForWithin(t, "node 3 lists node 1's computer after the outage", 2*time.Minute, func() bool {
		code, names, errOut := lsComputers(t, url3)
		last = fmt.Sprintf("exit %d %v %s", code, names, errOut)
		return code == 0 && slices.Equal(names, []string{"alpha"})
	})
}
