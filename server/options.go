package server

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Version is the A2C-SMCP version this server speaks (MAJOR.MINOR.PATCH
	// of the 0.2, 0.3 or 0.4 line); default protocol.Version. In 0.x a
	// client of another MINOR is refused with 4008 (versioning.md
	// §兼容性判定规则). From 0.3 a connection may leave auth.role out: its
	// role is the one its first server:join_office declares.
	Version string
	// APIKey, when set, is required from every connection in the x-api-key
	// header or in auth.api_key.
	APIKey string
	// Path is the engine.io HTTP path; default protocol.DefaultPath
	// (versioning.md §HTTP 拦截路径由实现决定).
	Path string
	// RequestTimeout bounds a routed client:* request that carries no
	// "timeout" field; default 30s.
	RequestTimeout time.Duration
	// MaxPendingPerAgent caps the routed requests one agent may have
	// waiting for a computer's answer; default 256. A request past the cap
	// is refused at once, so a peer can never make the server hold an
	// unbounded number of requests and timers.
	MaxPendingPerAgent int
	// MaxRequestTimeout caps the "timeout" (seconds) a request may ask
	// for; default 120s. A larger value is lowered to it both for the
	// server's own timer and in the payload forwarded to the computer.
	MaxRequestTimeout time.Duration
	// MaxMessageBytes caps one engine.io message (a websocket frame or a
	// polling POST body); default 64 MiB. A websocket connection that sends
	// a larger message is closed before the payload is read (logged once);
	// a larger polling POST is answered 413 unread.
	MaxMessageBytes int64
	// Redis, when set (redis://HOST:PORT/N), makes this server one node of
	// a cluster: every node given the same Redis (and RedisPrefix) serves
	// the same offices. Offices keep working on each node while Redis is
	// unreachable, for the sessions connected to that node.
	Redis string
	// RedisPrefix namespaces the registry keys and adapter channels, so
	// that several clusters can share one Redis; default "dpe-tui".
	RedisPrefix string
	// NodeTTL is how long a node that stops heartbeating (crashed, cut off)
	// stays visible to the others: its sessions leave every office within
	// NodeTTL plus a third of it. Default 10s.
	NodeTTL time.Duration
	// ClusterSecret seals and signs what nodes say to each other through
	// Redis (clusterseal.go); every node of a cluster needs the same one.
	// With Redis set it is required unless InsecureCluster is: then nodes
	// act on whatever Redis carries, whoever wrote it.
	ClusterSecret   string
	InsecureCluster bool
	// Logger receives structured logs; nil means slog.Default().
	Logger *slog.Logger
}

const (
	defaultRequestTimeout = 30 * time.Second
	// timeoutGrace is added to a request's own timeout so the computer's
	// answer (which may itself be a timeout error) arrives before ours
	// (error-handling.md §Server 端超时: "添加少量缓冲时间（如 5 秒）").
	timeoutGrace              = 5 * time.Second
	defaultMaxPendingPerAgent = 256
	defaultMaxRequestTimeout  = 120 * time.Second
	defaultMaxMessageBytes    = 64 << 20
)

// enginePath normalises Path to "/x/" form.
func (o Options) enginePath() string {
	p := strings.TrimSpace(o.Path)
	if p == "" {
		p = protocol.DefaultPath
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

// version is Version parsed, or an error naming what is spoken.
func (o Options) version() (protocol.SemVer, error) {
	raw := strings.TrimSpace(o.Version)
	if raw == "" {
		raw = protocol.Version
	}
	v, err := protocol.ParseVersion(raw)
	if err != nil {
		return v, err
	}
	if v.Major != 0 || v.Minor < 2 || v.Minor > 4 {
		return v, fmt.Errorf("a2c_version %s: this server speaks the 0.2, 0.3 and 0.4 lines", v)
	}
	return v, nil
}

func (o Options) requestTimeout() time.Duration {
	if o.RequestTimeout > 0 {
		return o.RequestTimeout
	}
	return defaultRequestTimeout
}

func (o Options) maxPending() int {
	if o.MaxPendingPerAgent > 0 {
		return o.MaxPendingPerAgent
	}
	return defaultMaxPendingPerAgent
}

func (o Options) maxRequestTimeout() time.Duration {
	if o.MaxRequestTimeout > 0 {
		return o.MaxRequestTimeout
	}
	return defaultMaxRequestTimeout
}

func (o Options) maxMessageBytes() int64 {
	if o.MaxMessageBytes > 0 {
		return o.MaxMessageBytes
	}
	return defaultMaxMessageBytes
}

func (o Options) nodeTTL() time.Duration {
	if o.NodeTTL > 0 {
		return o.NodeTTL
	}
	return defaultNodeTTL
}

func (o Options) redisPrefix() string {
	if p := strings.TrimSpace(o.RedisPrefix); p != "" {
		return p
	}
	return defaultRedisPrefix
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}
