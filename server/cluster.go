package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/zishang520/socket.io/servers/socket/v3"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// A cluster is this node's part of a multi-node deployment sharing offices
// through Redis. Two mechanisms work together:
//
//   - Sealed pub/sub messages carry the traffic (rpc.go): a request for a
//     computer on another node and its answer, and office notifications,
//     which every node delivers to its own members of the office.
//   - A registry in Redis holds who is in which office, so that the room
//     rules (one agent per office, unique names) are decided atomically
//     across nodes (a Lua script), and so that list_room and routing find
//     remote members without a FetchSockets round trip to every node (which
//     waits the adapter's requests timeout when a node is gone). Each node
//     heartbeats a key with an expiry; entries of a node whose key expired
//     are ignored at once and then reaped, with leave notifications, by
//     whichever node claims them first.
//
// The node keeps its own members in offices as before: they are the truth
// for this node. When Redis is unreachable the node serves its own members
// only (single-node offices), logs that once, and re-registers them when
// Redis returns.
//
// Redis is not trusted (clusterseal.go): what a node reads from it is
// acted on only when sealed or signed with the cluster secret.
type cluster struct {
	s      *Server
	log    *slog.Logger
	rdb    *redis.Client
	seal   *sealer
	node   string
	prefix string
	ttl    time.Duration
	// maxEntries bounds how many registry entries one office listing
	// reads (maxRemoteEntries; tests lower it). Guarded by mu.
	maxEntries int

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	rpc *rpc // routed requests to computers on other nodes

	// rooms caches other nodes' members of offices for list_room
	// (officecache.go).
	rooms *officeCache

	mu        sync.Mutex
	up        bool
	everUp    bool
	warned    bool            // the current outage (or the failure to join) is logged
	drops     map[string]bool // reasons a message or entry was dropped, logged once each
	abandoned bool            // set by tests (abandon): behave as a crashed node, no clean-up in Redis
}

// entry is one registered session.
type entry struct {
	SID     string `json:"sid"`
	Name    string `json:"name"`
	Role    string `json:"role"`
	Office  string `json:"office"`
	Version string `json:"version"`
	Node    string `json:"node"`
	MAC     string `json:"mac,omitempty"` // clusterseal.go
}

const (
	defaultNodeTTL     = 10 * time.Second
	defaultRedisPrefix = "dpe-tui"
	// redisOpTimeout bounds one registry operation; the go-redis dial,
	// read and write timeouts are the same, so that an unreachable Redis
	// costs an event handler at most this long before the node falls back
	// to single-node service.
	redisOpTimeout = time.Second
	// maxRemoteEntries bounds how many registry entries one office listing
	// reads: the registry is written by other nodes, not by this one.
	maxRemoteEntries = 100_000
)

// claimScript registers a session in an office unless the room rules
// refuse it. Entries of nodes whose heartbeat expired are dropped on the
// way. It runs atomically in Redis, so two nodes racing to admit two agents
// into one office cannot both win.
//
// KEYS[1] office hash (sid → entry), KEYS[2] this node's member hash.
// ARGV: sid, role, name, entry JSON, node key prefix.
var claimScript = redis.NewScript(`
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local sid = all[i]
  if sid ~= ARGV[1] then
    local ok, e = pcall(cjson.decode, all[i+1])
    if (not ok) or type(e) ~= 'table' or redis.call('EXISTS', ARGV[5] .. tostring(e.node)) == 0 then
      redis.call('HDEL', KEYS[1], sid)
    else
      if ARGV[2] == 'agent' and e.role == 'agent' then return 'agent' end
      if e.name == ARGV[3] then return 'name' end
    end
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
return 'ok'
`)

// errConflict is a room rule refusal decided in Redis.
type errConflict struct{ msg string }

func (e errConflict) Error() string { return e.msg }

func newCluster(s *Server, opt Options) (*cluster, error) {
	if opt.ClusterSecret == "" && !opt.InsecureCluster {
		return nil, errors.New("a cluster needs a shared secret (ClusterSecret): without one, anyone who can reach Redis commands every node")
	}
	seal, err := newSealer(opt.ClusterSecret)
	if err != nil {
		return nil, fmt.Errorf("cluster secret: %w", err)
	}
	ro, err := redis.ParseURL(opt.Redis)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	ro.DialTimeout = redisOpTimeout
	ro.ReadTimeout = redisOpTimeout
	ro.WriteTimeout = redisOpTimeout
	ro.PoolTimeout = redisOpTimeout
	ro.MaxRetries = -1 // the supervisor retries; a handler must not wait for retries
	ro.ContextTimeoutEnabled = true
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("node id: %w", err)
	}
	c := &cluster{
		s:      s,
		log:    s.log.With("node", hex.EncodeToString(id[:])),
		seal:   seal,
		drops:  map[string]bool{},
		rdb:    redis.NewClient(ro),
		node:   hex.EncodeToString(id[:]),
		prefix: opt.redisPrefix(),
		ttl:    opt.nodeTTL(),
		rooms:  newOfficeCache(opt.nodeTTL()),
		done:   make(chan struct{}),

		maxEntries: maxRemoteEntries,
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	// go-redis logs pool and dial failures itself, to stderr, past our
	// logger and --log-format. Its logger is one for the process (the
	// library offers no other); the last node started owns it. While Redis
	// is down these are a stream: the supervisor reports the outage once,
	// they go to debug.
	redis.SetLogger(redisLogger{c.log})
	return c, nil
}

// redisLogger is go-redis's logger on ours.
type redisLogger struct{ log *slog.Logger }

func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "redis client", "msg", fmt.Sprintf(format, v...))
}

// dropped logs, once per reason, a message or registry entry that was not
// acted on; later ones go to debug.
func (c *cluster) dropped(reason, where string, size int) {
	c.mu.Lock()
	first := !c.drops[reason]
	c.drops[reason] = true
	c.mu.Unlock()
	if first {
		c.log.Warn("dropped a cluster message from Redis (logged once per reason; check who can write to Redis)",
			"reason", reason, "channel", where, "bytes", size)
		return
	}
	c.log.Debug("dropped a cluster message", "reason", reason, "channel", where, "bytes", size)
}

func (c *cluster) nodesKey() string               { return c.prefix + ":nodes" }
func (c *cluster) nodeKeyPrefix() string          { return c.prefix + ":node:" }
func (c *cluster) nodeKey(n string) string        { return c.nodeKeyPrefix() + n }
func (c *cluster) membersKey(n string) string     { return c.nodeKeyPrefix() + n + ":members" }
func (c *cluster) officeKey(office string) string { return c.prefix + ":office:" + office }
func (c *cluster) reapKey(n string) string        { return c.prefix + ":reap:" + n }
func officeRoom(office string) socket.Room        { return socket.Room("office:" + office) }
func (c *cluster) opCtx() (context.Context, func()) {
	return context.WithTimeout(c.ctx, redisOpTimeout)
}

// start runs the supervisor: heartbeat, outage detection, re-registration
// and reaping of dead nodes, every ttl/3.
func (c *cluster) start() {
	c.startRPC()
	go func() {
		defer close(c.done)
		t := time.NewTicker(c.ttl / 3)
		defer t.Stop()
		for {
			c.tick()
			select {
			case <-c.ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

func (c *cluster) tick() {
	c.mu.Lock()
	abandoned := c.abandoned
	c.mu.Unlock()
	if abandoned {
		return
	}
	ctx, cancel := c.opCtx()
	defer cancel()
	pipe := c.rdb.TxPipeline()
	pipe.Set(ctx, c.nodeKey(c.node), time.Now().UTC().Format(time.RFC3339), c.ttl)
	added := pipe.SAdd(ctx, c.nodesKey(), c.node)
	if _, err := pipe.Exec(ctx); err != nil {
		c.fail(err)
		return
	}
	// Back after an outage, or reaped by another node while we could not
	// heartbeat: our registrations may be gone; make them again.
	if c.setUp() || added.Val() == 1 {
		c.resync()
	}
	c.reap()
}

// fail marks Redis down; the first failure of an outage is logged, and so
// is a Redis never reached (unreachable, or the password refused).
func (c *cluster) fail(err error) {
	if c.ctx.Err() != nil || errors.Is(err, errLinkDown) {
		return
	}
	c.mu.Lock()
	warn := !c.warned
	c.up, c.warned = false, true
	everUp := c.everUp
	c.mu.Unlock()
	c.rooms.reset()
	switch {
	case warn && everUp:
		c.log.Warn("redis unavailable: serving this node's offices only until it returns", "err", err)
	case warn:
		c.log.Warn("cannot join the cluster: redis unreachable or refused us; serving this node's offices only until it answers", "err", err)
	}
}

// setUp marks Redis up and reports whether it was down before.
func (c *cluster) setUp() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.up {
		return false
	}
	c.rooms.reset()
	c.up, c.warned = true, false
	if c.everUp {
		c.log.Info("redis is back: rejoined the cluster")
	} else {
		c.log.Info("joined the cluster", "prefix", c.prefix, "node_ttl", c.ttl)
	}
	c.everUp = true
	return true
}

func (c *cluster) isUp() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.up && !c.abandoned
}

func (c *cluster) entryFor(m *member, office, name string) entry {
	e := entry{SID: m.sid, Name: name, Role: m.role, Office: office, Version: m.version, Node: c.node}
	c.seal.sign(&e)
	return e
}

// claim registers m as name in office, or returns errConflict when a
// session on any live node holds the room rule against it.
func (c *cluster) claim(m *member, office, name string) error {
	b, err := json.Marshal(c.entryFor(m, office, name))
	if err != nil {
		return err
	}
	ctx, cancel := c.opCtx()
	defer cancel()
	res, err := claimScript.Run(ctx, c.rdb, []string{c.officeKey(office), c.membersKey(c.node)},
		m.sid, m.role, name, string(b), c.nodeKeyPrefix()).Text()
	if err != nil {
		return err
	}
	switch res {
	case "ok":
		return nil
	case "agent":
		return errConflict{fmt.Sprintf("office %s already has an agent", office)}
	case "name":
		return errConflict{fmt.Sprintf("name %q is already taken in office %s", name, office)}
	}
	return fmt.Errorf("claim: unexpected answer %q", res)
}

// release removes m's registration in office.
func (c *cluster) release(sid, office string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	skip := c.abandoned
	c.mu.Unlock()
	if skip || office == "" || !c.isUp() {
		return
	}
	ctx, cancel := c.opCtx()
	defer cancel()
	pipe := c.rdb.TxPipeline()
	pipe.HDel(ctx, c.officeKey(office), sid)
	pipe.HDel(ctx, c.membersKey(c.node), sid)
	if _, err := pipe.Exec(ctx); err != nil {
		c.fail(err)
	}
}

// resync registers every local member again (after an outage). A member
// that now collides with one admitted elsewhere meanwhile stays served on
// this node, and the collision is logged: neither session did anything
// wrong, and disconnecting one would lose its work.
func (c *cluster) resync() {
	for _, m := range c.s.offices.all() {
		office, name := c.s.offices.where(m)
		if office == "" {
			continue
		}
		err := c.claim(m, office, name)
		var conflict errConflict
		switch {
		case errors.As(err, &conflict):
			c.log.Warn("after the redis outage a session collides with one on another node; it stays on this node only",
				"sid", m.sid, "name", name, "office", office, "reason", conflict.msg)
		case err != nil:
			c.fail(err)
			return
		}
	}
}

// live reports, for each node, whether its heartbeat key exists.
func (c *cluster) live(ctx context.Context, nodes []string) (map[string]bool, error) {
	out := make(map[string]bool, len(nodes))
	if len(nodes) == 0 {
		return out, nil
	}
	pipe := c.rdb.Pipeline()
	cmds := make([]*redis.IntCmd, len(nodes))
	for i, n := range nodes {
		cmds[i] = pipe.Exists(ctx, c.nodeKey(n))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, err
	}
	for i, n := range nodes {
		out[n] = cmds[i].Val() == 1
	}
	return out, nil
}

// officeScript reads an office's registry entries of other live nodes in
// one round trip (list_room and every routed request ask it, so three
// round trips here made a 3-node office listing more than twice as slow as
// one node's). Liveness is Redis's heartbeat keys, as it was when the node
// asked EXISTS itself; the entries are still only acted on when they verify
// (remote).
//
// KEYS[1] office hash. ARGV: the most entries to read, this node, node key
// prefix. Returns the entries' JSON, or the hash's length when it holds
// more than ARGV[1].
var officeScript = redis.NewScript(`
local n = redis.call('HLEN', KEYS[1])
if n > tonumber(ARGV[1]) then return n end
local all = redis.call('HVALS', KEYS[1])
local out, alive = {}, {}
for i = 1, #all do
  local ok, e = pcall(cjson.decode, all[i])
  if ok and type(e) == 'table' and type(e.node) == 'string' and e.node ~= ARGV[2] then
    local a = alive[e.node]
    if a == nil then
      a = redis.call('EXISTS', ARGV[3] .. e.node) == 1
      alive[e.node] = a
    end
    if a then out[#out + 1] = all[i] end
  end
end
return out
`)

// remote lists the office's entries registered by other live nodes.
func (c *cluster) remote(office string) ([]entry, error) {
	ctx, cancel := c.opCtx()
	defer cancel()
	c.mu.Lock()
	limit := c.maxEntries
	c.mu.Unlock()
	res, err := officeScript.Run(ctx, c.rdb, []string{c.officeKey(office)}, limit, c.node, c.nodeKeyPrefix()).Result()
	if err != nil {
		return nil, err
	}
	var all []any
	switch v := res.(type) {
	case int64:
		return nil, fmt.Errorf("office %s has %d registry entries, more than %d", office, v, limit)
	case []any:
		all = v
	default:
		return nil, fmt.Errorf("office %s: unexpected registry answer %T", office, res)
	}
	out := make([]entry, 0, len(all))
	for _, r := range all {
		raw, ok := r.(string)
		if !ok {
			continue
		}
		var e entry
		if json.Unmarshal([]byte(raw), &e) != nil || e.Node == c.node || e.Office != office || e.SID == "" {
			continue
		}
		if !c.seal.verify(e) {
			c.dropped("registry entry not signed with this cluster's secret", c.officeKey(office), len(raw))
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// remoteCached is remote through the office cache (list_room's reads).
func (c *cluster) remoteCached(office string) ([]entry, error) {
	es, ok, token := c.rooms.get(office, time.Now())
	if ok {
		return es, nil
	}
	es, err := c.remote(office)
	if err == nil {
		c.rooms.put(office, token, es, time.Now())
	}
	return es, err
}

// errLinkDown is the answer of a node that cannot see the cluster now.
var errLinkDown = errors.New("cluster link down")

// remoteComputer finds the computer called name in office on another node.
// While Redis is known to be down it fails at once with errLinkDown rather
// than waiting a Redis timeout in the event handler.
func (c *cluster) remoteComputer(office, name string) (entry, bool, error) {
	if !c.isUp() {
		return entry{}, false, errLinkDown
	}
	es, err := c.remote(office)
	if err != nil {
		return entry{}, false, err
	}
	for _, e := range es {
		if e.Role == protocol.RoleComputer && e.Name == name {
			return e, true, nil
		}
	}
	return entry{}, false, nil
}

// reap removes the registrations of nodes whose heartbeat expired and tells
// their offices that those sessions left. One node wins the reap of a dead
// node (SET NX), so each leave is announced once.
func (c *cluster) reap() {
	ctx, cancel := c.opCtx()
	defer cancel()
	nodes, err := c.rdb.SMembers(ctx, c.nodesKey()).Result()
	if err != nil {
		c.fail(err)
		return
	}
	nodes = slices.DeleteFunc(nodes, func(n string) bool { return n == c.node })
	alive, err := c.live(ctx, nodes)
	if err != nil {
		c.fail(err)
		return
	}
	for _, n := range nodes {
		if alive[n] {
			continue
		}
		won, err := c.rdb.SetNX(ctx, c.reapKey(n), c.node, c.ttl).Result()
		if err != nil || !won {
			continue
		}
		members, err := c.rdb.HGetAll(ctx, c.membersKey(n)).Result()
		if err != nil {
			c.fail(err)
			return
		}
		pipe := c.rdb.TxPipeline()
		var gone []entry
		for sid, raw := range members {
			var e entry
			if json.Unmarshal([]byte(raw), &e) != nil {
				continue
			}
			pipe.HDel(ctx, c.officeKey(e.Office), sid)
			if c.seal.verify(e) && e.SID == sid && e.Node == n {
				gone = append(gone, e)
			}
		}
		pipe.Del(ctx, c.membersKey(n))
		pipe.SRem(ctx, c.nodesKey(), n)
		if _, err := pipe.Exec(ctx); err != nil {
			c.fail(err)
			return
		}
		c.log.Warn("node stopped heartbeating: its sessions left their offices", "dead_node", n, "sessions", len(gone))
		for _, e := range gone {
			c.rooms.changed(e.Office)
			n := protocol.OfficeNotification{OfficeID: e.Office}
			name := e.Name
			if e.Role == protocol.RoleAgent {
				n.Agent = &name
			} else {
				n.Computer = &name
			}
			payload := wire(n)
			_ = c.s.nsp.To(officeRoom(e.Office)).Emit(protocol.NotifyLeaveOffice, payload)
			c.rpc.note(e.Office, "", protocol.NotifyLeaveOffice, payload)
		}
	}
}

// close leaves the cluster: this node's registrations are removed (its
// sessions have disconnected by now) and the supervisor stops.
func (c *cluster) close() {
	c.mu.Lock()
	abandoned := c.abandoned
	c.mu.Unlock()
	if !abandoned && c.isUp() {
		ctx, cancel := c.opCtx()
		pipe := c.rdb.TxPipeline()
		pipe.Del(ctx, c.nodeKey(c.node), c.membersKey(c.node))
		pipe.SRem(ctx, c.nodesKey(), c.node)
		_, _ = pipe.Exec(ctx)
		cancel()
	}
	c.cancel()
	<-c.done
	c.rpc.close()
	_ = c.rdb.Close()
}

// sessions lists an office: this node's members, and in a cluster with
// Redis up the members registered by the other live nodes.
func (s *Server) sessions(office string) []protocol.SessionInfo {
	out := s.offices.sessions(office)
	if !s.cluster.isUp() {
		return out
	}
	es, err := s.cluster.remoteCached(office)
	if err != nil {
		s.cluster.fail(err)
		return out
	}
	for _, e := range es {
		out = append(out, protocol.SessionInfo{SID: e.SID, Name: e.Name, Role: e.Role, OfficeID: e.Office, A2CVersion: e.Version})
	}
	sortSessions(out)
	return out
}
