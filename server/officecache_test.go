package server

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// A read that began before a membership change is not stored; one after it
// is, until it ages out.
func TestOfficeCache_ChangeDuringReadIsNotStored(t *testing.T) {
	c := newOfficeCache(10 * time.Second)
	now := time.Now()
	_, ok, token := c.get("o", now)
	if ok {
		t.Fatal("hit in an empty cache")
	}
	c.changed("other") // any change: the read may have missed it
	c.put("o", token, []entry{{SID: "old"}}, now)
	if _, ok, _ := c.get("o", now); ok {
		t.Fatal("a read older than a change was stored")
	}
	_, _, token = c.get("o", now)
	c.put("o", token, []entry{{SID: "new"}}, now)
	if es, ok, _ := c.get("o", now.Add(c.maxAge/2)); !ok || es[0].SID != "new" {
		t.Fatalf("fresh entry: %v %v", es, ok)
	}
	if _, ok, _ := c.get("o", now.Add(c.maxAge)); ok {
		t.Fatal("an entry past its age was used")
	}
	c.changed("o")
	if _, ok, _ := c.get("o", now); ok {
		t.Fatal("an office that changed was still cached")
	}
}

// evalCalls is how many scripts Redis has run (INFO commandstats).
func evalCalls(t *testing.T, rdb *redis.Client) int {
	t.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(info, "\n") {
		for _, cmd := range []string{"cmdstat_evalsha:calls=", "cmdstat_eval:calls="} {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(l), cmd); ok {
				v, _ := strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
				n += v
			}
		}
	}
	return n
}

// list_room on a node of a cluster reads the registry once while the office
// stays as it is, and an agent that heard of a member entering or leaving
// on another node sees it in its next list_room.
func TestCluster_ListRoomCachedUntilTheOfficeChanges(t *testing.T) {
	rds := startRedis(t)
	opt := Options{Redis: rds.URL(), RedisPrefix: "t9", RequestTimeout: 5 * time.Second, ClusterSecret: testClusterSecret}
	s1, base1 := startServer(t, opt)
	s2, base2 := startServer(t, opt)
	eventually(t, "nodes join the cluster", func() bool { return s1.cluster.isUp() && s2.cluster.isUp() })
	rdb := redis.NewClient(&redis.Options{Addr: strings.TrimSuffix(strings.TrimPrefix(rds.URL(), "redis://"), "/0")})
	defer rdb.Close()

	mustDial(t, base2, peerConfig{Role: protocol.RoleComputer}).join(protocol.RoleComputer, "c1", "o")
	agent := mustDial(t, base1, peerConfig{Role: protocol.RoleAgent})
	agent.join(protocol.RoleAgent, "a", "o")
	want := []string{"agent:a", "computer:c1"}
	if got := names(t, agent, "o"); !slices.Equal(got, want) {
		t.Fatalf("list_room: %v, want %v", got, want)
	}
	before := evalCalls(t, rdb)
	for range 5 {
		if got := names(t, agent, "o"); !slices.Equal(got, want) {
			t.Fatalf("list_room: %v, want %v", got, want)
		}
	}
	// The cache may age out once meanwhile on a slow machine, not five
	// times.
	if n := evalCalls(t, rdb) - before; n > 1 {
		t.Errorf("5 list_rooms ran %d registry scripts", n)
	}

	c2 := mustDial(t, base2, peerConfig{Role: protocol.RoleComputer})
	c2.join(protocol.RoleComputer, "c2", "o")
	waitNoteOf(t, agent, protocol.NotifyEnterOffice, "c2")
	want = []string{"agent:a", "computer:c1", "computer:c2"}
	if got := names(t, agent, "o"); !slices.Equal(got, want) {
		t.Fatalf("list_room after c2 entered: %v, want %v", got, want)
	}
	c2.close()
	waitNoteOf(t, agent, protocol.NotifyLeaveOffice, "c2")
	want = []string{"agent:a", "computer:c1"}
	if got := names(t, agent, "o"); !slices.Equal(got, want) {
		t.Fatalf("list_room after c2 left: %v, want %v", got, want)
	}
}

// waitNoteOf waits for ev about computer (c1's enter_office may reach the
// agent after it joined: notifications cross nodes through Redis).
func waitNoteOf(t *testing.T, agent *peer, ev, computer string) {
	t.Helper()
	for range 10 {
		if n := agent.waitNote(ev); n["computer"] == computer {
			return
		}
	}
	t.Fatalf("no %s of %s", ev, computer)
}
