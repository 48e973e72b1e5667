package protocol

import "encoding/json"

// Server types of MCPServerConfig (data-structures.md §MCP Server 配置结构).
const (
	ServerTypeStdio      = "stdio"
	ServerTypeStreamable = "streamable"
	ServerTypeSSE        = "sse"
)

// MCPServerConfig is one entry of GetConfigRet.servers and of the computer's
// config file. ServerParameters stays raw because its shape depends on Type.
type MCPServerConfig struct {
	Name             string              `json:"name"`
	Type             string              `json:"type"`
	Disabled         bool                `json:"disabled"`
	ForbiddenTools   []string            `json:"forbidden_tools"`
	ToolMeta         map[string]ToolMeta `json:"tool_meta"`
	DefaultToolMeta  *ToolMeta           `json:"default_tool_meta,omitempty"`
	VRL              *string             `json:"vrl,omitempty"`
	ServerParameters json.RawMessage     `json:"server_parameters"`
}

// ToolMeta is A2C tool metadata.
type ToolMeta struct {
	AutoApply       *bool          `json:"auto_apply,omitempty"`
	RetObjectMapper map[string]any `json:"ret_object_mapper,omitempty"`
	Alias           *string        `json:"alias,omitempty"`
	Tags            []string       `json:"tags,omitempty"`
}

// StdioParameters are server_parameters for type "stdio".
type StdioParameters struct {
	Command              string            `json:"command"`
	Args                 []string          `json:"args"`
	Env                  map[string]string `json:"env"`
	Cwd                  *string           `json:"cwd"`
	Encoding             string            `json:"encoding,omitempty"`
	EncodingErrorHandler string            `json:"encoding_error_handler,omitempty"`
}

// StreamableParameters are server_parameters for type "streamable".
// Timeouts are ISO 8601 durations as the spec has them.
type StreamableParameters struct {
	URL              string         `json:"url"`
	Headers          map[string]any `json:"headers"`
	Timeout          string         `json:"timeout,omitempty"`
	SSEReadTimeout   string         `json:"sse_read_timeout,omitempty"`
	TerminateOnClose bool           `json:"terminate_on_close"`
}

// SSEParameters are server_parameters for type "sse". Timeouts are seconds.
type SSEParameters struct {
	URL            string         `json:"url"`
	Headers        map[string]any `json:"headers"`
	Timeout        float64        `json:"timeout,omitempty"`
	SSEReadTimeout float64        `json:"sse_read_timeout,omitempty"`
}

// MCPServerInput is one entry of GetConfigRet.inputs.
type MCPServerInput struct {
	ID          string            `json:"id"`
	Description string            `json:"description"`
	Type        string            `json:"type"`
	Default     *string           `json:"default,omitempty"`
	Password    *bool             `json:"password,omitempty"`
	Options     []string          `json:"options,omitempty"`
	Command     string            `json:"command,omitempty"`
	Args        map[string]string `json:"args,omitempty"`
}

// Masked replaces secret values in config output (env, headers).
const Masked = "******"
