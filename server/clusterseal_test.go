package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/dpe-tui/dpe-tui/protocol"
)

const testClusterSecret = "test secret shared by the nodes"

// lockedBuffer is a log sink two goroutines may write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCluster_ForgedRedisMessagesAreDropped: a rogue that can write to Redis
// but lacks the cluster secret publishes straight to it. Its fake registry
// entry is not listed, its unsigned tool_call never reaches the computer,
// a sealed request it copied off the wire is not run twice, its fake
// notification reaches no agent, and each kind of drop is logged once.
func TestCluster_ForgedRedisMessagesAreDropped(t *testing.T) {
	rds := startRedis(t)
	ttl := 1500 * time.Millisecond
	var logs1, logs2 lockedBuffer
	node := func(logs *lockedBuffer) (*Server, string) {
		s, base := startServer(t, Options{Redis: rds.URL(), RedisPrefix: "t5", NodeTTL: ttl, RequestTimeout: 5 * time.Second,
			ClusterSecret: testClusterSecret, Logger: slog.New(slog.NewTextHandler(logs, nil))})
		eventually(t, "node joins the cluster", s.cluster.isUp)
		return s, base
	}
	_, base1 := node(&logs1)
	s2, base2 := node(&logs2)

	comp := mustDial(t, base2, peerConfig{Role: protocol.RoleComputer})
	calls := comp.answer("client:tool_call", func(p map[string]any) []any { return []any{map[string]any{"ran": p["req_id"]}} })
	comp.join(protocol.RoleComputer, "c2", "o")
	agent := mustDial(t, base1, peerConfig{Role: protocol.RoleAgent})
	agent.join(protocol.RoleAgent, "a", "o")
	call := func(id string) {
		t.Helper()
		args := agent.call("client:tool_call", map[string]any{"computer": "c2", "agent": "a", "req_id": id, "timeout": 3,
			"tool_name": "t", "params": map[string]any{}})
		if m, _ := first(args).(map[string]any); m["ran"] != id {
			t.Fatalf("tool_call %s: %v", id, args)
		}
	}

	rdb := redis.NewClient(&redis.Options{Addr: strings.TrimSuffix(strings.TrimPrefix(rds.URL(), "redis://"), "/0")})
	defer rdb.Close()
	ctx := context.Background()
	var compSID string
	all, err := rdb.HGetAll(ctx, "t5:office:o").Result()
	if err != nil {
		t.Fatal(err)
	}
	for sid, raw := range all {
		if strings.Contains(raw, `"name":"c2"`) {
			compSID = sid
		}
	}
	if compSID == "" {
		t.Fatalf("c2 not in the registry: %v", all)
	}

	// A fake computer on a live node, unsigned and with a made-up MAC.
	for i, mac := range []string{"", strings.Repeat("ab", 32)} {
		e, _ := json.Marshal(entry{SID: fmt.Sprintf("rogue%d", i), Name: fmt.Sprintf("alpha%d", i), Role: protocol.RoleComputer,
			Office: "o", Version: protocol.Version, Node: s2.cluster.node, MAC: mac})
		if err := rdb.HSet(ctx, "t5:office:o", fmt.Sprintf("rogue%d", i), string(e)).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if got := names(t, agent, "o"); !slices.Equal(got, []string{"agent:a", "computer:c2"}) {
		t.Errorf("list_room with forged entries: %v", got)
	}
	if e := errorAck(t, agent.call("client:tool_call", map[string]any{"computer": "alpha0", "agent": "a", "timeout": 1})); e.Code != protocol.CodeNotFound {
		t.Errorf("tool_call to a forged computer: %+v, want 404", e)
	}

	// Watch node 2's channel to copy a sealed request off the wire.
	sub := rdb.Subscribe(ctx, "t5:rpc:"+s2.cluster.node)
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	call("legit1")
	if p := <-calls; p["req_id"] != "legit1" {
		t.Fatalf("computer got %v", p)
	}
	wire, err := sub.ReceiveMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(wire.Payload, "legit1") || strings.Contains(wire.Payload, "tool_call") {
		t.Errorf("a routed request crossed Redis readable: %q", wire.Payload)
	}

	// Forged requests in the clear, then the copied sealed one, then a real
	// one: node 2 reads its channel in order, so when the real one has run,
	// every message before it has been handled.
	forged := func(id string) string {
		b, _ := json.Marshal(rpcMessage{ID: id, From: "rogue", SID: compSID, Name: "c2", Office: "o",
			Event: "client:tool_call", WaitMS: 3000, At: time.Now().UnixMilli(),
			Args: []json.RawMessage{json.RawMessage(`{"computer":"c2","agent":"a","req_id":"` + id + `","tool_name":"t","params":{}}`)}})
		return string(b)
	}
	for _, msg := range []string{forged("forged1"), forged("forged2"), wire.Payload, wire.Payload} {
		if err := rdb.Publish(ctx, "t5:rpc:"+s2.cluster.node, msg).Err(); err != nil {
			t.Fatal(err)
		}
	}
	call("legit2")
	if p := <-calls; p["req_id"] != "legit2" {
		t.Fatalf("the computer ran %v before the real request: a forged or replayed message got through", p["req_id"])
	}

	// A forged notification to the office, then a real one.
	note, _ := json.Marshal(rpcMessage{ID: "n1", From: "rogue", Note: true, Office: "o", Event: protocol.NotifyUpdateConfig,
		At: time.Now().UnixMilli(), Args: []json.RawMessage{json.RawMessage(`{"computer":"alpha0"}`)}})
	if err := rdb.Publish(ctx, "t5:rpc:notes", string(note)).Err(); err != nil {
		t.Fatal(err)
	}
	comp.call(protocol.EventUpdateConfig, map[string]any{"computer": "c2"})
	if n := agent.waitNote(protocol.NotifyUpdateConfig); n["computer"] != "c2" {
		t.Errorf("the agent heard a forged notification: %v", n)
	}

	// Each node warns once per reason: node 1 of the unsigned entries and
	// the clear notification, node 2 of the clear requests (and
	// notification) and the replayed one.
	for i, c := range []struct {
		logs    *lockedBuffer
		reasons []string
	}{
		{&logs1, []string{"registry entry not signed", "not sealed"}},
		{&logs2, []string{"not sealed", "replayed or stale"}},
	} {
		eventually(t, "drops logged", func() bool { return strings.Contains(c.logs.String(), c.reasons[len(c.reasons)-1]) })
		out := c.logs.String()
		warns := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "level=WARN") && strings.Contains(l, "dropped a cluster message") {
				warns++
			}
		}
		if warns != len(c.reasons) {
			t.Errorf("node %d: %d drop warnings, want one for each of %q:\n%s", i+1, warns, c.reasons, out)
		}
		for _, r := range c.reasons {
			if !strings.Contains(out, r) {
				t.Errorf("node %d: no warning for %q", i+1, r)
			}
		}
	}
}

// TestCluster_NeedsASecret: a cluster without a secret is refused unless
// the caller says it trusts Redis.
func TestCluster_NeedsASecret(t *testing.T) {
	if _, err := New(Options{Redis: "redis://127.0.0.1:1/0"}); err == nil || !strings.Contains(err.Error(), "secret") {
		t.Fatalf("New without a secret: %v", err)
	}
	s, err := New(Options{Redis: "redis://127.0.0.1:1/0", InsecureCluster: true})
	if err != nil {
		t.Fatalf("New with InsecureCluster: %v", err)
	}
	_ = s.Close()
}

// TestCluster_RefusedPasswordIsOneWarning: a Redis that refuses the node
// (here: a password it was not given) is said once at WARN, not on every
// heartbeat, and joining when it lets the node in is said too.
func TestCluster_RefusedPasswordIsOneWarning(t *testing.T) {
	rds := startRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: strings.TrimSuffix(strings.TrimPrefix(rds.URL(), "redis://"), "/0")})
	defer rdb.Close()
	ctx := context.Background()
	if err := rdb.ConfigSet(ctx, "requirepass", "pw").Err(); err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	ttl := 600 * time.Millisecond
	s, _ := startServer(t, Options{Redis: rds.URL(), RedisPrefix: "t6", NodeTTL: ttl, ClusterSecret: testClusterSecret,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	eventually(t, "the refusal is logged", func() bool { return strings.Contains(logs.String(), "cannot join the cluster") })
	time.Sleep(ttl) // a few more heartbeats fail: still one warning
	if out := logs.String(); strings.Count(out, "level=WARN") != 1 || !strings.Contains(out, "NOAUTH") {
		t.Errorf("want one WARN naming NOAUTH:\n%s", out)
	}
	authed := redis.NewClient(&redis.Options{Addr: rdb.Options().Addr, Password: "pw"})
	defer authed.Close()
	if err := authed.ConfigSet(ctx, "requirepass", "").Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the node joins", s.cluster.isUp)
	eventually(t, "joining is logged", func() bool { return strings.Contains(logs.String(), "joined the cluster") })
}

// TestCluster_MalformedRegistryIsSkippedAndBounded: whatever else is in an
// office's registry hash (not JSON, a node that is not a string, a node
// with no heartbeat, this node's own name on a foreign entry) is left out
// of list_room while the real members are listed, and an office holding
// more entries than the bound is not read at all: the node answers with its
// own members.
func TestCluster_MalformedRegistryIsSkippedAndBounded(t *testing.T) {
	rds := startRedis(t)
	opt := Options{Redis: rds.URL(), RedisPrefix: "t6", RequestTimeout: 5 * time.Second, ClusterSecret: testClusterSecret}
	s1, base1 := startServer(t, opt)
	s2, base2 := startServer(t, opt)
	eventually(t, "nodes join the cluster", func() bool { return s1.cluster.isUp() && s2.cluster.isUp() })

	mustDial(t, base2, peerConfig{Role: protocol.RoleComputer}).join(protocol.RoleComputer, "c2", "o")
	agent := mustDial(t, base1, peerConfig{Role: protocol.RoleAgent})
	agent.join(protocol.RoleAgent, "a", "o")
	want := []string{"agent:a", "computer:c2"}
	if got := names(t, agent, "o"); !slices.Equal(got, want) {
		t.Fatalf("list_room: %v, want %v", got, want)
	}

	rdb := redis.NewClient(&redis.Options{Addr: strings.TrimSuffix(strings.TrimPrefix(rds.URL(), "redis://"), "/0")})
	defer rdb.Close()
	ctx := context.Background()
	signed := func(e entry) string {
		s2.cluster.seal.sign(&e)
		b, _ := json.Marshal(e)
		return string(b)
	}
	for sid, raw := range map[string]string{
		"junk":     "not json {",
		"array":    `[1,2]`,
		"numnode":  `{"sid":"numnode","name":"x1","role":"computer","office":"o","node":7}`,
		"deadnode": signed(entry{SID: "deadnode", Name: "x2", Role: protocol.RoleComputer, Office: "o", Version: protocol.Version, Node: "feedfeedfeedfeed"}),
		"self":     signed(entry{SID: "self", Name: "x3", Role: protocol.RoleComputer, Office: "o", Version: protocol.Version, Node: s1.cluster.node}),
		"other":    signed(entry{SID: "other", Name: "x4", Role: protocol.RoleComputer, Office: "elsewhere", Version: protocol.Version, Node: s2.cluster.node}),
	} {
		if err := rdb.HSet(ctx, "t6:office:o", sid, raw).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// Written behind the nodes' backs, which announce every change they
	// make: node 1's list_room cache (officecache.go) cannot know.
	s1.cluster.rooms.reset()
	if got := names(t, agent, "o"); !slices.Equal(got, want) {
		t.Errorf("list_room with malformed registry entries: %v, want %v", got, want)
	}

	// Over the bound: the 8 entries now in the hash are more than 4.
	s1.cluster.mu.Lock()
	s1.cluster.maxEntries = 4
	s1.cluster.mu.Unlock()
	s1.cluster.rooms.reset()
	if got := names(t, agent, "o"); !slices.Equal(got, []string{"agent:a"}) {
		t.Errorf("list_room over the registry bound: %v, want this node's members only", got)
	}
}
