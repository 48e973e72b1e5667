package server

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// BenchmarkScale_Office measures list_room and routed request latency for
// many computers and agents spread over 3 server nodes sharing one real
// redis-server, against the same population on 1 node (no Redis: the
// single-process server it replaces). Loopback only.
//
// The room rules allow one agent per office, so the agents are in offices
// of their own and the computers are shared out among those offices: the
// default full size, DPE_SCALE_COMPUTERS=1000 DPE_SCALE_AGENTS=50 (what
// scripts/bench runs), is 50 offices of 20 computers. Without those
// variables it runs a small size (60 computers, 6 agents), which is what CI
// runs once with -benchtime 1x. DPE_SCALE_ROUNDS (default 20) is how many
// list_room and routed requests each agent sends per b.N; all agents send
// at once. Computers and agents are assigned to nodes round robin, so two
// in three routed requests cross nodes on 3 nodes.
//
// Reported: list_room-p50-ms, list_room-p99-ms, routed-p50-ms,
// routed-p99-ms, and how long the population took to join (setup-s).
func BenchmarkScale_Office(b *testing.B) {
	if testing.Short() {
		b.Skip("scale benchmark: skipped under -short")
	}
	computers := envInt("DPE_SCALE_COMPUTERS", 60)
	agents := envInt("DPE_SCALE_AGENTS", 6)
	rounds := envInt("DPE_SCALE_ROUNDS", 20)
	if agents < 1 || computers < agents || computers > 5000 || agents > 500 || rounds < 1 || rounds > 10000 {
		b.Fatalf("sizes out of bounds: %d computers, %d agents, %d rounds", computers, agents, rounds)
	}
	for _, nodes := range []int{1, 3} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			benchOffice(b, nodes, computers, agents, rounds)
		})
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func benchOffice(b *testing.B, nodes, computers, agents, rounds int) {
	quiet := slog.New(slog.DiscardHandler)
	opt := Options{Logger: quiet, RequestTimeout: 10 * time.Second}
	if nodes > 1 {
		opt.Redis = startRedis(b).URL()
		opt.RedisPrefix = "scale"
		opt.ClusterSecret = testClusterSecret
	}
	bases := make([]string, nodes)
	for i := range bases {
		s, base := startServer(b, opt)
		if s.cluster != nil {
			deadline := time.Now().Add(wait)
			for !s.cluster.isUp() {
				if time.Now().After(deadline) {
					b.Fatalf("node %d did not join the cluster", i)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		bases[i] = base
	}
	office := func(i int) string { return fmt.Sprintf("o%03d", i%agents) }

	// Join everyone, a bounded number at a time.
	t0 := time.Now()
	type member struct {
		p      *peer
		office string
		name   string
	}
	all := make([]member, computers+agents)
	sem := make(chan struct{}, 32)
	var wg sync.WaitGroup
	var failMu sync.Mutex
	var fail error
	for i := range all {
		role, name, node := protocol.RoleComputer, fmt.Sprintf("c%04d", i), i%nodes
		if i >= computers {
			role, name, node = protocol.RoleAgent, fmt.Sprintf("a%03d", i-computers), (i-computers)%nodes
		}
		all[i] = member{office: office(i), name: name}
		if i >= computers {
			all[i].office = office(i - computers)
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			p, err := dial(b, bases[node], peerConfig{Role: role})
			if err == nil && role == protocol.RoleComputer {
				p.answer(protocol.EventGetConfig, func(q map[string]any) []any {
					return []any{map[string]any{"servers": map[string]any{}, "inputs": []any{}, "req_id": q["req_id"]}}
				})
			}
			if err == nil {
				err = timedJoin(p, role, name, all[i].office)
			}
			failMu.Lock()
			defer failMu.Unlock()
			if err != nil && fail == nil {
				fail = fmt.Errorf("%s %s on node %d: %w", role, name, node, err)
			}
			all[i].p = p
		}()
	}
	wg.Wait()
	if fail != nil {
		b.Fatal(fail)
	}
	setup := time.Since(t0)
	byOffice := map[string][]string{}
	for _, m := range all[:computers] {
		byOffice[m.office] = append(byOffice[m.office], m.name)
	}
	// Every node sees the whole office before timing starts.
	for _, m := range all[computers:] {
		want := len(byOffice[m.office]) + 1
		deadline := time.Now().Add(wait)
		for {
			n, _, err := timedCall(m.p, protocol.EventListRoom, map[string]any{"agent": m.name, "req_id": "w", "office_id": m.office})
			if err == nil && n == want {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("agent %s sees %d of %d members (%v)", m.name, n, want, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	var mu sync.Mutex
	var listLat, routeLat []time.Duration
	b.ResetTimer()
	for range b.N {
		var wg sync.WaitGroup
		for j, m := range all[computers:] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mine := byOffice[m.office]
				var ls, rs []time.Duration
				for r := range rounds {
					n, d, err := timedCall(m.p, protocol.EventListRoom, map[string]any{"agent": m.name, "req_id": "l", "office_id": m.office})
					if err != nil || n != len(mine)+1 {
						setFail(&failMu, &fail, fmt.Errorf("list_room by %s: %d members, %v", m.name, n, err))
						return
					}
					ls = append(ls, d)
					target := mine[(j+r)%len(mine)]
					_, d, err = timedCall(m.p, protocol.EventGetConfig, map[string]any{"agent": m.name, "req_id": "g", "computer": target, "timeout": 10})
					if err != nil {
						setFail(&failMu, &fail, fmt.Errorf("get_config %s → %s: %v", m.name, target, err))
						return
					}
					rs = append(rs, d)
				}
				mu.Lock()
				listLat = append(listLat, ls...)
				routeLat = append(routeLat, rs...)
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	b.StopTimer()
	if fail != nil {
		b.Fatal(fail)
	}
	b.ReportMetric(pct(listLat, 50), "list_room-p50-ms")
	b.ReportMetric(pct(listLat, 99), "list_room-p99-ms")
	b.ReportMetric(pct(routeLat, 50), "routed-p50-ms")
	b.ReportMetric(pct(routeLat, 99), "routed-p99-ms")
	b.ReportMetric(setup.Seconds(), "setup-s")
}

func setFail(mu *sync.Mutex, fail *error, err error) {
	mu.Lock()
	defer mu.Unlock()
	if *fail == nil {
		*fail = err
	}
}

// pct is the p-th percentile in milliseconds (nearest rank).
func pct(d []time.Duration, p int) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return float64(s[min(max(i-1, 0), len(s)-1)]) / float64(time.Millisecond)
}

// timedCall sends ev with an ack timeout and returns, for a list_room
// answer, how many sessions it listed, and how long the answer took. A
// flat ErrorPayload is an error.
func timedCall(p *peer, ev string, payload map[string]any) (int, time.Duration, error) {
	type res struct {
		args []any
		err  error
	}
	ch := make(chan res, 1)
	start := time.Now()
	p.emitMu.Lock()
	p.sock.Timeout(wait).EmitWithAck(ev, payload)(func(args []any, err error) { ch <- res{args, err} })
	p.emitMu.Unlock()
	var r res
	select {
	case r = <-ch:
	case <-time.After(wait + time.Second):
		r.err = context.DeadlineExceeded
	}
	d := time.Since(start)
	if r.err != nil {
		return 0, d, r.err
	}
	m, _ := first(r.args).(map[string]any)
	if code, ok := m["code"].(float64); ok {
		return 0, d, fmt.Errorf("error %v: %v", code, m["message"])
	}
	sessions, _ := m["sessions"].([]any)
	return len(sessions), d, nil
}

func timedJoin(p *peer, role, name, office string) error {
	type res struct {
		args []any
		err  error
	}
	ch := make(chan res, 1)
	p.emitMu.Lock()
	p.sock.Timeout(wait).EmitWithAck(protocol.EventJoinOffice, map[string]any{"role": role, "name": name, "office_id": office})(func(args []any, err error) { ch <- res{args, err} })
	p.emitMu.Unlock()
	r := <-ch // the ack timeout above bounds this
	if r.err != nil {
		return r.err
	}
	if len(r.args) == 0 || r.args[0] != true {
		return fmt.Errorf("join refused: %v", r.args)
	}
	return nil
}
