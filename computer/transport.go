package computer

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// transportFor builds the go-sdk transport for a validated config.
func (c *Computer) transportFor(cfg protocol.MCPServerConfig) (mcp.Transport, time.Duration, error) {
	switch cfg.Type {
	case protocol.ServerTypeStdio:
		var p protocol.StdioParameters
		if err := json.Unmarshal(cfg.ServerParameters, &p); err != nil {
			return nil, 0, err
		}
		cmd := exec.Command(p.Command, p.Args...)
		// Like the MCP Python SDK: the child inherits the environment,
		// the config's env on top.
		cmd.Env = os.Environ()
		for k, v := range p.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		if p.Cwd != nil {
			cmd.Dir = *p.Cwd
		}
		cmd.Stderr = &stderrLog{log: c.log, server: cfg.Name}
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, 0, nil
	case protocol.ServerTypeStreamable:
		var p protocol.StreamableParameters
		if err := json.Unmarshal(cfg.ServerParameters, &p); err != nil {
			return nil, 0, err
		}
		var timeout time.Duration
		if p.Timeout != "" {
			timeout, _ = parseISODuration(p.Timeout)
		}
		// sse_read_timeout and terminate_on_close have no go-sdk knob;
		// the session's own lifetime governs the stream.
		return &mcp.StreamableClientTransport{
			Endpoint:   p.URL,
			HTTPClient: &http.Client{Transport: headerTransport(p.Headers)},
		}, timeout, nil
	case protocol.ServerTypeSSE:
		var p protocol.SSEParameters
		if err := json.Unmarshal(cfg.ServerParameters, &p); err != nil {
			return nil, 0, err
		}
		return &mcp.SSEClientTransport{
			Endpoint:   p.URL,
			HTTPClient: &http.Client{Transport: headerTransport(p.Headers)},
		}, time.Duration(p.Timeout * float64(time.Second)), nil
	}
	return nil, 0, fmt.Errorf("unsupported type %q", cfg.Type)
}

type headerRoundTripper struct {
	h    http.Header
	base http.RoundTripper
}

func (t headerRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.h {
		r.Header[k] = vs
	}
	return t.base.RoundTrip(r)
}

func headerTransport(headers map[string]any) http.RoundTripper {
	if len(headers) == 0 {
		return http.DefaultTransport
	}
	h := http.Header{}
	for k, v := range headers {
		if v == nil {
			continue
		}
		if s, ok := v.(string); ok {
			h.Set(k, s)
		} else {
			h.Set(k, fmt.Sprint(v))
		}
	}
	return headerRoundTripper{h: h, base: http.DefaultTransport}
}

// stderrLog forwards a stdio server's stderr to the debug log, bounded.
type stderrLog struct {
	log    *slog.Logger
	server string
	mu     sync.Mutex
	n      int
}

func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	const budget = 1 << 20
	if w.n < budget {
		w.n += len(p)
		line := strings.TrimRight(string(p), "\n")
		if len(line) > 2000 {
			line = line[:2000]
		}
		w.log.Debug("mcp server stderr", "mcp_server", w.server, "text", line)
	}
	return len(p), nil
}

var _ io.Writer = (*stderrLog)(nil)
