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
	Options     PickOptions       `json:"options,omitempty"`
	Command     string            `json:"command,omitempty"`
	Args        map[string]string `json:"args,omitempty"`
}

// Masked replaces secret values in config output (env, headers).
const Masked = "******"

// PickOption is one choice of a pickString input: Label is shown, Value is
// what is put in (0.3.2, data-structures.md; python-sdk PickStringOption).
// Both may repeat.
type PickOption struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// PickOptions reads both shapes: 0.3.2's [{label, value}] and the plain
// strings of 0.2–0.3.1 (a string s is {s, s}). Entries of any other shape
// are dropped, so one bad entry does not lose the input. It is written in
// the 0.3.2 shape.
type PickOptions []PickOption

// UnmarshalJSON accepts strings and {label, value} objects.
func (p *PickOptions) UnmarshalJSON(b []byte) error {
	var items []json.RawMessage
	if json.Unmarshal(b, &items) != nil {
		*p = nil
		return nil
	}
	out := PickOptions{}
	for _, it := range items {
		var s string
		if json.Unmarshal(it, &s) == nil {
			out = append(out, PickOption{Label: s, Value: s})
			continue
		}
		var o struct {
			Label *string `json:"label"`
			Value *string `json:"value"`
		}
		if json.Unmarshal(it, &o) != nil || o.Value == nil {
			continue
		}
		opt := PickOption{Value: *o.Value, Label: *o.Value}
		if o.Label != nil && *o.Label != "" {
			opt.Label = *o.Label
		}
		out = append(out, opt)
	}
	*p = out
	return nil
}
