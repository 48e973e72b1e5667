package computer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// The config file may come from another MCP client. Claude Desktop, Cursor
// and a project's .mcp.json write
//
//	{"mcpServers": {"name": {"command", "args", "env", "cwd"} | {"url", "headers", "type"}}}
//
// and VS Code writes the same entries under "servers" (with "type"
// "stdio", "http" or "sse"), where SMCP's MCPServerConfig also lives. So
// the shape is told entry by entry: an entry with server_parameters is
// SMCP's, one with command or url is the common one. The user never says
// which.

// isCommonEntry reports whether a server entry is in the common
// (mcpServers / VS Code) shape rather than SMCP's.
func isCommonEntry(probe map[string]json.RawMessage) bool {
	if _, ok := probe["server_parameters"]; ok {
		return false
	}
	_, cmd := probe["command"]
	_, url := probe["url"]
	return cmd || url
}

// commonEntry is one server of the common shape. Fields other clients add
// (autoApprove, description, timeout …) are ignored: they change nothing
// about how the server is started.
type commonEntry struct {
	Type     string            `json:"type"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	Cwd      *string           `json:"cwd"`
	URL      string            `json:"url"`
	Headers  map[string]any    `json:"headers"`
	Disabled bool              `json:"disabled"`
	EnvFile  *string           `json:"envFile"`
}

// fromCommonEntry converts a common-shape entry to an MCPServerConfig's JSON.
func fromCommonEntry(raw json.RawMessage, key, who string) (json.RawMessage, error) {
	var e commonEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, &ConfigError{Server: who, Field: jsonField(err), Reason: jsonReason(err)}
	}
	bad := func(field, reason string) error { return &ConfigError{Server: who, Field: field, Reason: reason} }
	if e.EnvFile != nil {
		// Starting the server without the variables it expects would fail
		// later and less clearly.
		return nil, bad("envFile", "not supported: put the variables in env (${env:VAR} reads them from this environment)")
	}
	if e.Command != "" && e.URL != "" {
		return nil, bad("command", "give command or url, not both")
	}
	cfg := protocol.MCPServerConfig{Name: key, Disabled: e.Disabled, ForbiddenTools: []string{}, ToolMeta: map[string]protocol.ToolMeta{}}
	var params any
	switch {
	case strings.TrimSpace(e.Command) != "":
		switch strings.ToLower(e.Type) {
		case "", "stdio":
		default:
			return nil, bad("type", fmt.Sprintf("%s with a command: want stdio", quoteTrunc(e.Type)))
		}
		cfg.Type = protocol.ServerTypeStdio
		args := e.Args
		if args == nil {
			args = []string{}
		}
		params = protocol.StdioParameters{Command: e.Command, Args: args, Env: e.Env, Cwd: e.Cwd}
	case e.URL != "":
		switch strings.ToLower(e.Type) {
		case "sse":
			cfg.Type = protocol.ServerTypeSSE
			params = protocol.SSEParameters{URL: e.URL, Headers: e.Headers}
		case "", "http", "streamable", "streamable-http", "streamablehttp":
			cfg.Type = protocol.ServerTypeStreamable
			params = protocol.StreamableParameters{URL: e.URL, Headers: e.Headers, TerminateOnClose: true}
		default:
			return nil, bad("type", fmt.Sprintf("%s with a url: want http or sse", quoteTrunc(e.Type)))
		}
	default:
		return nil, bad("command", "missing (or url)")
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, bad("", err.Error())
	}
	cfg.ServerParameters = p
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(cfg); err != nil {
		return nil, bad("", err.Error())
	}
	return buf.Bytes(), nil
}
