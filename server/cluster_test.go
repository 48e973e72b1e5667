package server

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// redisServer is a real redis-server on a loopback port, in a temp dir,
// without persistence. stop and start keep the port, so that a test can
// take Redis away and give it back.
type redisServer struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
}

func startRedis(t testing.TB) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if _, serr := os.Stat("/usr/bin/redis-server"); serr == nil {
			bin = "/usr/bin/redis-server"
		} else {
			interoptest.Need(t, "redis-server not installed (Debian package redis-server)")
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	r := &redisServer{t: t, bin: bin, dir: t.TempDir(), port: port}
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *redisServer) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

func (r *redisServer) start() {
	r.t.Helper()
	cmd := exec.Command(r.bin, "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", r.dir)
	cmd.Dir = r.dir
	if err := cmd.Start(); err != nil {
		r.t.Fatalf("start redis-server: %v", err)
	}
	r.cmd = cmd
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", r.port), 200*time.Millisecond)
		if err == nil {
			_ = c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.t.Fatalf("redis-server did not listen on %d", r.port)
}

func (r *redisServer) stop() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.cmd = nil
}

// abandon makes the node behave as if its process died: it stops
// heartbeating and touches Redis no more, leaving its registrations for
// the other nodes to expire and reap.
func (c *cluster) abandon() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.abandoned = true
}

// eventually polls cond until it holds or wait passes (a deadlock guard,
// not a timing assertion).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func startNode(t testing.TB, redisURL, prefix string, ttl time.Duration) (*Server, string) {
	t.Helper()
	s, base := startServer(t, Options{Redis: redisURL, RedisPrefix: prefix, NodeTTL: ttl, RequestTimeout: 5 * time.Second,
		ClusterSecret: testClusterSecret})
	eventually(t, "node joins the cluster", s.cluster.isUp)
	return s, base
}

func names(t *testing.T, agent *peer, office string) []string {
	t.Helper()
	args := agent.call(protocol.EventListRoom, map[string]any{"agent": "a", "req_id": "r", "office_id": office})
	ret, _ := first(args).(map[string]any)
	sessions, ok := ret["sessions"].([]any)
	if !ok {
		t.Fatalf("list_room ack %v", args)
	}
	var out []string
	for _, s := range sessions {
		m, _ := s.(map[string]any)
		out = append(out, fmt.Sprint(m["role"], ":", m["name"]))
	}
	return out
}

func TestCluster_AgentAndComputerOnDifferentNodes(t *testing.T) {
	rds := startRedis(t)
	ttl := 1500 * time.Millisecond
	_, base1 := startNode(t, rds.URL(), "t1", ttl)
	s2, base2 := startNode(t, rds.URL(), "t1", ttl)

	comp := mustDial(t, base2, peerConfig{Role: protocol.RoleComputer, Version: "0.2.7"})
	got := comp.answer("client:get_config", func(p map[string]any) []any {
		return []any{map[string]any{"servers": map[string]any{}, "echo": p["req_id"]}, "second"}
	})
	comp.join(protocol.RoleComputer, "far", "o")

	agent := mustDial(t, base1, peerConfig{Role: protocol.RoleAgent})
	agent.join(protocol.RoleAgent, "a", "o")
	// The computer on node 2 hears the agent that joined on node 1.
	if n := comp.waitNote(protocol.NotifyEnterOffice); n["agent"] != "a" {
		t.Errorf("enter_office on node 2: %v", n)
	}
	if got, want := names(t, agent, "o"), []string{"agent:a", "computer:far"}; !slices.Equal(got, want) {
		t.Fatalf("list_room on node 1: %v, want %v", got, want)
	}

	// A routed request crosses nodes and its whole ack comes back.
	args := agent.call("client:get_config", map[string]any{"computer": "far", "agent": "a", "req_id": "q1", "timeout": 3})
	if len(args) != 2 || args[1] != "second" {
		t.Fatalf("routed ack %v (computer got %d)", args, len(got))
	}
	if m, _ := args[0].(map[string]any); m["echo"] != "q1" {
		t.Fatalf("routed ack %v", args)
	}
	if p := <-got; p["req_id"] != "q1" || p["timeout"] == nil {
		t.Fatalf("computer got %v", p)
	}
	// A computer that never answers: 408 from node 1's own timer.
	comp.answer("client:silent", nil)
	e := errorAck(t, agent.call("client:silent", map[string]any{"computer": "far", "agent": "a", "req_id": "q2", "timeout": 0.2}))
	if e.Code != protocol.CodeTimeout {
		t.Errorf("silent computer: %+v", e)
	}
	// Unknown name: 404 as on one node.
	if e := errorAck(t, agent.call("client:get_config", map[string]any{"computer": "nobody", "agent": "a"})); e.Code != protocol.CodeNotFound {
		t.Errorf("unknown computer: %+v", e)
	}

	// Notifications cross nodes both ways.
	comp.call(protocol.EventUpdateConfig, map[string]any{"computer": "far"})
	if n := agent.waitNote(protocol.NotifyUpdateConfig); n["computer"] != "far" {
		t.Errorf("update_config on node 1: %v", n)
	}
	agent.call(protocol.EventToolCallCancel, map[string]any{"agent": "a", "req_id": "q9"})
	if n := comp.waitNote(protocol.NotifyToolCallCancel); n["req_id"] != "q9" {
		t.Errorf("tool_call_cancel on node 2: %v", n)
	}

	// The room rules hold across nodes.
	second := mustDial(t, base2, peerConfig{Role: protocol.RoleAgent})
	r := second.call(protocol.EventJoinOffice, map[string]any{"role": "agent", "name": "b", "office_id": "o"})
	if r[0] != false || !strings.Contains(fmt.Sprint(r[1]), "already has an agent") {
		t.Errorf("second agent on node 2: %v", r)
	}
	twin := mustDial(t, base1, peerConfig{Role: protocol.RoleComputer})
	r = twin.call(protocol.EventJoinOffice, map[string]any{"role": "computer", "name": "far", "office_id": "o"})
	if r[0] != false || !strings.Contains(fmt.Sprint(r[1]), "already taken") {
		t.Errorf("duplicate computer name on node 1: %v", r)
	}

	// A computer leaving on node 2 is announced on node 1.
	comp.close()
	if n := agent.waitNote(protocol.NotifyLeaveOffice); n["computer"] != "far" {
		t.Errorf("leave_office on node 1: %v", n)
	}
	eventually(t, "node 1 forgets the computer", func() bool {
		return slices.Equal(names(t, agent, "o"), []string{"agent:a"})
	})
	_ = s2
}

func TestCluster_DeadNodeExpiresAndRedisOutage(t *testing.T) {
	rds := startRedis(t)
	ttl := 1500 * time.Millisecond
	s1, base1 := startNode(t, rds.URL(), "t2", ttl)
	s2, base2 := startNode(t, rds.URL(), "t2", ttl)

	agent := mustDial(t, base1, peerConfig{Role: protocol.RoleAgent})
	agent.join(protocol.RoleAgent, "a", "o")
	for _, n := range []string{"c1", "c2"} {
		mustDial(t, base2, peerConfig{Role: protocol.RoleComputer}).join(protocol.RoleComputer, n, "o")
	}
	eventually(t, "node 1 lists node 2's computers", func() bool {
		return slices.Equal(names(t, agent, "o"), []string{"agent:a", "computer:c1", "computer:c2"})
	})

	// Node 2 dies: no clean-up reaches Redis. Its computers leave node 1's
	// view within the TTL (plus a heartbeat), with leave notifications.
	s2.cluster.abandon()
	killed := time.Now()
	_ = s2.Close()
	eventually(t, "dead node's computers dropped", func() bool {
		return slices.Equal(names(t, agent, "o"), []string{"agent:a"})
	})
	// eventually bounds the wait (far past the TTL, so a loaded machine
	// does not miss it); the time itself is reported, not asserted.
	t.Logf("dropped after %s; the TTL bound is about %s", time.Since(killed).Round(10*time.Millisecond), ttl+ttl/3)
	seen := map[any]bool{}
	for range 2 {
		seen[agent.waitNote(protocol.NotifyLeaveOffice)["computer"]] = true
	}
	if !seen["c1"] || !seen["c2"] {
		t.Errorf("leave notifications: %v", seen)
	}
	// They rejoin through the surviving node.
	c1 := mustDial(t, base1, peerConfig{Role: protocol.RoleComputer})
	c1.join(protocol.RoleComputer, "c1", "o")
	c1.answer("client:ping", func(map[string]any) []any { return []any{"pong"} })
	if got := agent.call("client:ping", map[string]any{"computer": "c1", "agent": "a"}); len(got) != 1 || got[0] != "pong" {
		t.Fatalf("rejoined computer: %v", got)
	}

	// Redis goes away: node 1 keeps serving its own office.
	rds.stop()
	eventually(t, "node 1 notices the outage", func() bool { return !s1.cluster.isUp() })
	if got := agent.call("client:ping", map[string]any{"computer": "c1", "agent": "a"}); len(got) != 1 || got[0] != "pong" {
		t.Fatalf("during the outage: %v", got)
	}
	agent.waitNote(protocol.NotifyEnterOffice) // c1's
	c3 := mustDial(t, base1, peerConfig{Role: protocol.RoleComputer})
	c3.join(protocol.RoleComputer, "c3", "o")
	if n := agent.waitNote(protocol.NotifyEnterOffice); n["computer"] != "c3" {
		t.Errorf("enter_office during the outage: %v", n)
	}
	if got := names(t, agent, "o"); !slices.Equal(got, []string{"agent:a", "computer:c1", "computer:c3"}) {
		t.Errorf("list_room during the outage: %v", got)
	}

	// Redis returns (empty: no persistence): node 1 re-registers its
	// members, and a new node sees them and the room rules again.
	rds.start()
	eventually(t, "node 1 rejoins", s1.cluster.isUp)
	_, base3 := startNode(t, rds.URL(), "t2", ttl)
	late := mustDial(t, base3, peerConfig{Role: protocol.RoleAgent})
	r := late.call(protocol.EventJoinOffice, map[string]any{"role": "agent", "name": "b", "office_id": "o"})
	if r[0] != false {
		t.Errorf("second agent after the outage: %v", r)
	}
	c4 := mustDial(t, base3, peerConfig{Role: protocol.RoleComputer})
	c4.join(protocol.RoleComputer, "c4", "o")
	eventually(t, "node 1 lists node 3's computer", func() bool {
		return slices.Equal(names(t, agent, "o"), []string{"agent:a", "computer:c1", "computer:c3", "computer:c4"})
	})
}

// TestCluster_FastAnswersAcrossNodesAreNeverLost: a computer that answers at
// once, many times in a row and concurrently, has every answer relayed (the
// adapter's own emit-with-ack lost about one in six of these), and a
// computer that leaves its node mid-request is answered at once by that
// node, not by the asking node's timer.
func TestCluster_FastAnswersAcrossNodesAreNeverLost(t *testing.T) {
	rds := startRedis(t)
	_, base1 := startNode(t, rds.URL(), "t3", 1500*time.Millisecond)
	_, base2 := startNode(t, rds.URL(), "t3", 1500*time.Millisecond)

	comp := mustDial(t, base2, peerConfig{Role: protocol.RoleComputer})
	got := comp.answer("client:get_config", func(p map[string]any) []any { return []any{map[string]any{"echo": p["req_id"]}} })
	go func() {
		for range got {
		}
	}()
	comp.join(protocol.RoleComputer, "far", "o")
	agent := mustDial(t, base1, peerConfig{Role: protocol.RoleAgent})
	agent.join(protocol.RoleAgent, "a", "o")

	const n = 200
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := fmt.Sprintf("q%d", i)
			args := agent.call("client:get_config", map[string]any{"computer": "far", "agent": "a", "req_id": id, "timeout": 5})
			if m, _ := first(args).(map[string]any); m["echo"] != id {
				errs <- fmt.Sprintf("%s answered %v", id, args)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	// The computer leaves while a request waits for it: 500 from its node,
	// well before the 30 s the request asked for.
	comp.answer("client:hang", nil)
	hung := make(chan []any, 1)
	go func() {
		hung <- agent.call("client:hang", map[string]any{"computer": "far", "agent": "a", "req_id": "h", "timeout": 30})
	}()
	time.Sleep(200 * time.Millisecond)
	comp.close()
	select {
	case args := <-hung:
		if e := errorAck(t, args); e.Code != protocol.CodeInternal {
			t.Errorf("computer left mid-request: %+v, want 500", e)
		}
	case <-time.After(testbudget.Left(t, 10*time.Second)):
		t.Fatal("a request for a computer that left was not answered by its node")
	}
}

// TestCluster_RedisOutageIsNotANotFound: while this node cannot reach Redis,
// a request for a computer it does not hold may be for one on another node:
// the answer is a retryable "cluster link down", never the 404 of a
// computer that left. When Redis returns, the request reaches it again.
func TestCluster_RedisOutageIsNotANotFound(t *testing.T) {
	rds := startRedis(t)
	ttl := 900 * time.Millisecond
	s1, base1 := startNode(t, rds.URL(), "t4", ttl)
	s2, base2 := startNode(t, rds.URL(), "t4", ttl)

	comp := mustDial(t, base2, peerConfig{Role: protocol.RoleComputer})
	comp.answer("client:ping", func(map[string]any) []any { return []any{"pong"} })
	comp.join(protocol.RoleComputer, "c2", "o")
	agent := mustDial(t, base1, peerConfig{Role: protocol.RoleAgent})
	agent.join(protocol.RoleAgent, "a", "o")
	ping := func() []any {
		return agent.call("client:ping", map[string]any{"computer": "c2", "agent": "a", "timeout": 2})
	}
	if got := ping(); len(got) != 1 || got[0] != "pong" {
		t.Fatalf("before the outage: %v", got)
	}

	rds.stop()
	// Whether or not node 1 has noticed yet, the answer is the same.
	for i := range 2 {
		e := errorAck(t, ping())
		if e.Code != protocol.CodeInternal || !e.Retryable() || !strings.Contains(e.Message, "office unavailable on this node (cluster link down)") ||
			!strings.Contains(e.Message, "c2") {
			t.Fatalf("during the outage (%d): %+v, want a retryable 500 naming the cluster link", i, e)
		}
		eventually(t, "node 1 notices the outage", func() bool { return !s1.cluster.isUp() })
	}
	// A computer that is in no office anywhere can't be told from one on a
	// lost node either: also the link, not 404.
	if e := errorAck(t, agent.call("client:ping", map[string]any{"computer": "nobody", "agent": "a"})); e.Code == protocol.CodeNotFound {
		t.Errorf("unknown computer during the outage: %+v", e)
	}

	rds.start()
	eventually(t, "both nodes rejoin", func() bool { return s1.cluster.isUp() && s2.cluster.isUp() })
	eventually(t, "the computer is reached again", func() bool {
		got := ping()
		return len(got) == 1 && got[0] == "pong"
	})
	if e := errorAck(t, agent.call("client:ping", map[string]any{"computer": "nobody", "agent": "a"})); e.Code != protocol.CodeNotFound {
		t.Errorf("unknown computer after the outage: %+v, want 404", e)
	}
}
