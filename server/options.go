package server

import (
	"log/slog"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// APIKey, when set, is required from every connection in the x-api-key
	// header or in auth.api_key.
	APIKey string
	// Path is the engine.io HTTP path; default protocol.DefaultPath
	// (versioning.md §HTTP 拦截路径由实现决定).
	Path string
	// RequestTimeout bounds a routed client:* request that carries no
	// "timeout" field; default 30s.
	RequestTimeout time.Duration
	// Logger receives structured logs; nil means slog.Default().
	Logger *slog.Logger
}

const (
	defaultRequestTimeout = 30 * time.Second
	// timeoutGrace is added to a request's own timeout so the computer's
	// answer (which may itself be a timeout error) arrives before ours
	// (error-handling.md §Server 端超时: "添加少量缓冲时间（如 5 秒）").
	timeoutGrace = 5 * time.Second
	// maxRequestTimeout caps what a payload may ask for.
	maxRequestTimeout = time.Hour
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

func (o Options) requestTimeout() time.Duration {
	if o.RequestTimeout > 0 {
		return o.RequestTimeout
	}
	return defaultRequestTimeout
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}
