package client

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
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
	// MaxAckBytes refuses any message from the server larger than this,
	// checked on the websocket frame headers before the message is read
	// into memory (default DefaultMaxAckBytes). A call waiting when such a
	// message arrives fails with *AckTooLargeError and the connection is
	// dropped (the stream cannot be resynchronised mid-message).
	MaxAckBytes int64
	// OwnComputerKey is the secret shared with the computers this process
	// started (stack.Stack.OriginKey). An answer carrying a valid OriginTag
	// for its computer and access URI is marked Access.OwnComputer, which
	// lets it hand out file:// URIs. Nil: no computer is trusted.
	OwnComputerKey []byte
	// Limits bound what a listing may carry; zero fields take defaults.
	Limits ListingLimits
}

// Defaults of the size limits.
const (
	DefaultMaxAckBytes = 64 << 20
	// DefaultMaxFieldBytes truncates a single string field of a listed
	// resource (name, description, uri, mime type) on receipt.
	DefaultMaxFieldBytes = 64 << 10
	// DefaultMaxCursorBytes refuses a next_cursor longer than this.
	DefaultMaxCursorBytes = 4 << 10
)

// ListingLimits bound the strings of a resource listing.
type ListingLimits struct {
	MaxFieldBytes  int // default DefaultMaxFieldBytes
	MaxCursorBytes int // default DefaultMaxCursorBytes
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
	if opt.MaxAckBytes <= 0 {
		opt.MaxAckBytes = DefaultMaxAckBytes
	}
	if opt.Limits.MaxFieldBytes <= 0 {
		opt.Limits.MaxFieldBytes = DefaultMaxFieldBytes
	}
	if opt.Limits.MaxCursorBytes <= 0 {
		opt.Limits.MaxCursorBytes = DefaultMaxCursorBytes
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

// redactURL is sanitize.URL (the one redactor: userinfo, query values,
// fragment) for a parsed URL.
func redactURL(u *url.URL) string { return sanitize.URL(u.String()) }
