package client

import (
	"cmp"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/sioconn"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// Defaults for the zero values of Options.
const (
	DefaultConnectTimeout = sioconn.DefaultConnectTimeout
	DefaultRequestTimeout = 30 * time.Second
)

// Options configure Dial. The zero value of every field except URL, Office
// and Name is useful.
type Options struct {
	// URL is the server: http(s):// or ws(s)://host[:port][/path]. A path
	// other than "/" is the engine.io path (e.g. http://h:7800/smcp),
	// unless Path is set.
	URL string
	// URLs are further servers of the same office, tried in order after
	// URL when a connect or reconnect to the current one fails (agent
	// failover). The first working one stays current until it fails; the
	// same backoff and jitter apply between attempts, and the office is
	// re-joined after a switch. URL may be empty when URLs is not: the
	// first of URLs is then the first tried.
	URLs   []string
	Office string // office_id to join
	Name   string // agent name
	// APIKey is sent as the x-api-key header. It is never logged and never
	// appears in an error.
	APIKey  string
	Headers http.Header // extra HTTP headers on every handshake request
	// Path is the engine.io HTTP path. Default: the path of URL, else
	// /socket.io/. The transport is always websocket (internal/sioconn).
	Path string
	// Version forces the A2C-SMCP version sent (a2c_version), e.g. "0.3.0".
	// Empty: protocol.Version, and on a 4008 that names a version this
	// build speaks (protocol.Negotiate), one reconnect with that version.
	Version string
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
	// into memory (sioconn.Options.MaxMessage; default DefaultMaxAckBytes). A call waiting when such a
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
	DefaultMaxAckBytes = sioconn.DefaultMaxMessage
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
	if opt.URL == "" && len(opt.URLs) > 0 {
		opt.URL, opt.URLs = opt.URLs[0], opt.URLs[1:]
	}
	opt.URLs = slices.Clone(opt.URLs)
	for _, u := range append([]string{opt.URL}, opt.URLs...) {
		if _, _, err := sioconn.ParseURL(u); err != nil {
			return opt, fmt.Errorf("dial: %w", err)
		}
	}
	switch {
	case opt.Office == "":
		return opt, fmt.Errorf("dial: office is empty")
	case opt.Name == "":
		return opt, fmt.Errorf("dial: agent name is empty")
	}
	if opt.Version != "" && protocol.Speakable(opt.Version) != nil {
		return opt, fmt.Errorf("dial: A2C-SMCP version %q is not one this build speaks (%s)", opt.Version, protocol.ExplicitVersions)
	}
	if opt.Path != "" && !strings.HasPrefix(opt.Path, "/") {
		opt.Path = "/" + opt.Path
	}
	opt.ConnectTimeout = sioconn.Positive(opt.ConnectTimeout, DefaultConnectTimeout)
	opt.RequestTimeout = sioconn.Positive(opt.RequestTimeout, DefaultRequestTimeout)
	opt.MaxAckBytes = sioconn.Positive(opt.MaxAckBytes, DefaultMaxAckBytes)
	opt.Limits.MaxFieldBytes = sioconn.Positive(opt.Limits.MaxFieldBytes, DefaultMaxFieldBytes)
	opt.Limits.MaxCursorBytes = sioconn.Positive(opt.Limits.MaxCursorBytes, DefaultMaxCursorBytes)
	opt.Logger = cmp.Or(opt.Logger, slog.New(slog.DiscardHandler))
	return opt, nil
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
