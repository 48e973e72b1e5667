package client

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Transports accepted in Options.Transport.
const (
	TransportWebSocket = "websocket"
	TransportPolling   = "polling"
)

// Defaults for the zero values of Options.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultRequestTimeout = 30 * time.Second
)

// Options configure Dial. The zero value of every field except URL, Office
// and Name is useful.
type Options struct {
	URL    string // server base URL: http(s):// or ws(s)://host:port; any path is ignored
	Office string // office_id to join
	Name   string // agent name
	// APIKey is sent as the x-api-key header. It is never logged and never
	// appears in an error.
	APIKey  string
	Headers http.Header // extra HTTP headers on every handshake request
	// Transport is "websocket" (default) or "polling". Only one is used: the
	// zishang520 client tries WebTransport at random unless told otherwise.
	// Polling is known not to work with zishang520 v3.0.6: its polling
	// transport runs writes and long-polls on one serial queue, so every emit
	// waits up to a ping interval (25 s) and the join times out; and its
	// chunked POSTs are dropped by python-engineio.
	Transport string
	Path      string // engine.io HTTP path; default /socket.io/
	// ConnectTimeout bounds Dial (connect and first join) and every
	// reconnect attempt. Default 10s.
	ConnectTimeout time.Duration
	// RequestTimeout bounds every call and is sent as the request's timeout
	// in seconds. Default 30s.
	RequestTimeout time.Duration
	InsecureTLS    bool // skip TLS verification (development only)
	Logger         *slog.Logger
}

// normalized returns opt with defaults filled in, or an error naming the bad field.
func (opt Options) normalized() (Options, error) {
	if strings.TrimSpace(opt.URL) == "" {
		return opt, fmt.Errorf("dial: server URL is empty")
	}
	u, err := url.Parse(opt.URL)
	if err != nil {
		return opt, fmt.Errorf("dial: invalid server URL: %w", err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return opt, fmt.Errorf("dial: server URL %q: scheme must be http, https, ws or wss", redactURL(u))
	}
	if u.Host == "" {
		return opt, fmt.Errorf("dial: server URL %q has no host", redactURL(u))
	}
	if opt.Office == "" {
		return opt, fmt.Errorf("dial: office is empty")
	}
	if opt.Name == "" {
		return opt, fmt.Errorf("dial: agent name is empty")
	}
	switch opt.Transport {
	case "":
		opt.Transport = TransportWebSocket
	case TransportWebSocket, TransportPolling:
	default:
		return opt, fmt.Errorf("dial: unknown transport %q (want websocket or polling)", opt.Transport)
	}
	if opt.Path == "" {
		opt.Path = protocol.DefaultPath
	}
	if !strings.HasPrefix(opt.Path, "/") {
		opt.Path = "/" + opt.Path
	}
	if opt.ConnectTimeout <= 0 {
		opt.ConnectTimeout = DefaultConnectTimeout
	}
	if opt.RequestTimeout <= 0 {
		opt.RequestTimeout = DefaultRequestTimeout
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	return opt, nil
}

// baseURL is scheme://host of opt.URL, with ws mapped to http: the engine
// and our handshake probe both speak HTTP first.
func (opt Options) baseURL() *url.URL {
	u, _ := url.Parse(opt.URL)
	b := &url.URL{Scheme: u.Scheme, Host: u.Host}
	switch b.Scheme {
	case "ws":
		b.Scheme = "http"
	case "wss":
		b.Scheme = "https"
	}
	return b
}

// headers are the extra headers plus x-api-key. Callers must never log them.
func (opt Options) headers() http.Header {
	h := opt.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	if opt.APIKey != "" {
		h.Set("X-Api-Key", opt.APIKey)
	}
	return h
}

// redactURL drops userinfo so a password in a URL never reaches a message.
func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}
