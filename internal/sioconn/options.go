package sioconn

import (
	"cmp"
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"

	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// Defaults for the zero values of Options.
const (
	DefaultConnectTimeout = 10 * time.Second
	// DefaultMaxMessage caps one inbound message. A listing page
	// or a get_dpe answer is far below it; a document is fetched over HTTP,
	// not through the socket.
	DefaultMaxMessage = 64 << 20
)

// Options configure a Conn. The zero value of every field but URL is useful.
type Options struct {
	// URL is the server: http(s):// or ws(s)://host[:port][/path]. A path
	// other than "/" is the engine.io path, unless Path is set.
	URL string
	// URLs are further servers of the same office, tried in order after
	// URL (agent failover): Connect moves to the next when one does not
	// answer, and so does a reconnect attempt that fails; the one that
	// works stays current until it fails. Backoff and jitter are those of
	// every reconnect, and OnConnect (re-join) runs after a switch as
	// after any reconnect. A path in one of them is its engine.io path
	// unless Path is set.
	URLs []string
	// Path is the engine.io HTTP path. Default: the path of URL, else
	// protocol.DefaultPath ("/socket.io/").
	Path string
	// Namespace to connect; default protocol.Namespace.
	Namespace string
	// Version is sent as the a2c_version query parameter; default
	// protocol.Version. Lets a caller re-dial with a negotiated version.
	Version string
	// Query holds extra query parameters of the handshake.
	Query url.Values
	// Headers go on every handshake request (probe and websocket).
	// They may hold secrets (x-api-key): never logged, never in an error.
	Headers http.Header
	// Auth is the Socket.IO CONNECT auth payload.
	Auth map[string]any
	// TLS configures https/wss; nil is Go's default verification. Proxies
	// come from HTTPS_PROXY / HTTP_PROXY / NO_PROXY for every leg: the
	// library's websocket and polling transports hard-code
	// http.ProxyFromEnvironment, so the probe uses it too.
	TLS *tls.Config
	// ConnectTimeout bounds Connect (probe, engine open, namespace connect
	// and the first OnConnect); each attempt inside it, and each reconnect
	// attempt, gets a share (attemptTimeout). Default DefaultConnectTimeout;
	// callers pass their --timeout.
	ConnectTimeout time.Duration
	// MaxMessage caps one inbound websocket message in bytes: a larger one
	// is refused on its frame headers, before its payload is read, and the
	// connection is closed (and reconnected); an ack wait under it fails
	// with a *MessageTooLargeError. Default DefaultMaxMessage.
	MaxMessage int64
	// ReconnectOnServerDisconnect reconnects (after a second) when the
	// server disconnects the namespace ("io server disconnect"), which the
	// library, like socket.io-client, never does on its own.
	ReconnectOnServerDisconnect bool
	Logger                      *slog.Logger
	// Parser is the Socket.IO packet parser; nil is the library's, which
	// decodes every ack into []any (numbers as float64). RawAckParser
	// leaves the namespace's acks as json.RawMessage instead; EmitWithAck
	// returns what the parser produced. Either way an ack this side
	// answers with json.RawMessage arguments only is written as they are
	// (rawack.Encoder).
	Parser parser.Parser

	// OnConnect runs, in a goroutine of Conn, after every namespace
	// connect: the first and each reconnect (re-join goes here). Runs never
	// overlap. ctx ends with Close or after ConnectTimeout. Its first
	// result is the result of Connect.
	OnConnect func(ctx context.Context) error
	// OnDisconnect is told every drop of the namespace connection. It runs
	// on the library's goroutine and must not block.
	OnDisconnect func(reason string, err error)
	// OnReconnectAttempt is told each reconnect attempt (1, 2, …). It must
	// not block.
	OnReconnectAttempt func(n int)
	// OnConnectError is told a connect failure after Connect succeeded,
	// classified like Connect's errors; when Fatal(err), reconnecting has
	// already been stopped. It runs in a goroutine of Conn.
	OnConnectError func(err error)
}

// target is one server a Conn may use: its engine base URL (scheme://host,
// ws mapped to http) and engine.io path.
type target struct {
	base *url.URL
	path string
}

// normalized returns opt with defaults filled in and the servers to try,
// URL first. opt.Path is the first one's engine.io path.
func (opt Options) normalized() (Options, []target, error) {
	explicit := opt.Path
	var targets []target
	for _, raw := range append([]string{opt.URL}, opt.URLs...) {
		base, urlPath, err := ParseURL(raw)
		if err != nil {
			return opt, nil, err
		}
		p := cmp.Or(explicit, urlPath, protocol.DefaultPath)
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		targets = append(targets, target{base: base, path: p})
	}
	opt.Path = targets[0].path
	opt.Namespace = cmp.Or(opt.Namespace, protocol.Namespace)
	opt.Version = cmp.Or(opt.Version, protocol.Version)
	opt.ConnectTimeout = Positive(opt.ConnectTimeout, DefaultConnectTimeout)
	opt.MaxMessage = Positive(opt.MaxMessage, DefaultMaxMessage)
	opt.Logger = cmp.Or(opt.Logger, slog.New(slog.DiscardHandler))
	return opt, targets, nil
}

// ParseURL checks a server URL — http(s):// or ws(s)://host[:port][/path]
// — and returns its engine base (scheme://host, ws mapped to http) and its
// path when that is more than "/". Errors never repeat a secret of the URL.
func ParseURL(raw string) (base *url.URL, path string, err error) {
	if strings.TrimSpace(raw) == "" {
		return nil, "", fmt.Errorf("server URL is empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the URL, which may carry a password.
		return nil, "", fmt.Errorf("invalid server URL %q", sanitize.URL(raw))
	}
	base = &url.URL{Scheme: u.Scheme, Host: u.Host}
	switch u.Scheme {
	case "http", "https":
	case "ws":
		base.Scheme = "http"
	case "wss":
		base.Scheme = "https"
	default:
		return nil, "", fmt.Errorf("server URL %q: scheme must be http, https, ws or wss", Redact(u))
	}
	if u.Host == "" {
		return nil, "", fmt.Errorf("server URL %q has no host", Redact(u))
	}
	if u.Path != "/" {
		path = u.Path
	}
	return base, path, nil
}

// Positive is v, or def when v is not positive: the zero values of
// durations and sizes in options.
func Positive[T ~int | ~int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// query is the handshake query: Query plus a2c_version.
func (opt Options) query() url.Values {
	q := url.Values{}
	for k, vs := range opt.Query {
		q[k] = append([]string(nil), vs...)
	}
	q.Set(protocol.QueryVersion, opt.Version)
	return q
}

// Redact is sanitize.URL (the one redactor: userinfo, query values,
// fragment) for a parsed URL, so a secret in a URL never reaches a message.
func Redact(u *url.URL) string { return sanitize.URL(u.String()) }

// attemptTimeout bounds one engine connect attempt: short, so an attempt
// that hangs (a listener that never answers) is retried within Connect.
func attemptTimeout(connect time.Duration) time.Duration {
	return min(max(connect/4, 500*time.Millisecond), 3*time.Second)
}
