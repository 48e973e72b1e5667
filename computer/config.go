package computer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// ConfigError is a config problem, naming the server (or input) and the
// field so that one line tells the operator what to fix.
type ConfigError struct {
	Server string // server name, or "" for file-level problems
	Input  string // input id, when the problem is in inputs
	Field  string // e.g. "server_parameters.command"
	Reason string
}

func (e *ConfigError) Error() string {
	var who string
	switch {
	case e.Input != "":
		who = fmt.Sprintf("input %q", e.Input)
	case e.Server != "":
		who = fmt.Sprintf("mcp server %q", e.Server)
	default:
		who = "mcp config"
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", who, e.Field, e.Reason)
	}
	return who + ": " + e.Reason
}

// ParseConfig parses a Computer config file (JSON):
//
//	{"servers": {"name": MCPServerConfig, ...}, "inputs": [MCPServerInput, ...]}
//
// or the shape other MCP clients write ({"mcpServers": {"name": {"command",
// "args", "env", "cwd"} | {"url", "headers"}}}, VS Code's "servers"), told
// apart entry by entry (configshape.go).
// "servers" may also be a list of MCPServerConfig (each with "name"), and the
// whole file may be just that list. Map order is kept: it is the
// registration order, which decides first-registered-wins host routing.
// Every server is validated (ValidateServerConfig). The file itself is
// read by stack (regular files only, bounded), so a FIFO never blocks.
func ParseConfig(data []byte) ([]protocol.MCPServerConfig, []protocol.MCPServerInput, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, nil, &ConfigError{Reason: "empty file"}
	}
	var rawServers []namedRaw
	var rawInputs json.RawMessage
	switch data[0] {
	case '[':
		list, err := decodeServerList(data)
		if err != nil {
			return nil, nil, err
		}
		rawServers = list
	case '{':
		dec := json.NewDecoder(bytes.NewReader(data))
		if _, err := dec.Token(); err != nil {
			return nil, nil, &ConfigError{Reason: "invalid JSON: " + err.Error()}
		}
		seenServers := false
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, nil, &ConfigError{Reason: "invalid JSON: " + err.Error()}
			}
			key, _ := tok.(string)
			var val json.RawMessage
			if err := dec.Decode(&val); err != nil {
				return nil, nil, &ConfigError{Field: key, Reason: "invalid JSON: " + err.Error()}
			}
			switch key {
			case "servers", "mcpServers":
				if seenServers {
					return nil, nil, &ConfigError{Field: key, Reason: "servers given twice"}
				}
				seenServers = true
				val = bytes.TrimSpace(val)
				switch {
				case len(val) > 0 && val[0] == '{':
					m, err := decodeOrderedObject(val)
					if err != nil {
						return nil, nil, &ConfigError{Field: key, Reason: err.Error()}
					}
					rawServers = m
				case len(val) > 0 && val[0] == '[':
					list, err := decodeServerList(val)
					if err != nil {
						return nil, nil, err
					}
					rawServers = list
				case string(val) == "null":
				default:
					return nil, nil, &ConfigError{Field: key, Reason: "want an object or a list"}
				}
			case "inputs":
				rawInputs = val
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, nil, &ConfigError{Reason: "invalid JSON: " + err.Error()}
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, nil, &ConfigError{Reason: "trailing data after the JSON object"}
		}
	default:
		return nil, nil, &ConfigError{Reason: "want a JSON object or list"}
	}

	servers := make([]protocol.MCPServerConfig, 0, len(rawServers))
	seen := map[string]bool{}
	for i, nr := range rawServers {
		cfg, err := decodeServerConfig(nr.raw, nr.key, i)
		if err != nil {
			return nil, nil, err
		}
		if seen[cfg.Name] {
			return nil, nil, &ConfigError{Server: cfg.Name, Field: "name", Reason: "duplicate server name"}
		}
		seen[cfg.Name] = true
		servers = append(servers, cfg)
	}
	inputs, err := decodeInputs(rawInputs)
	if err != nil {
		return nil, nil, err
	}
	return servers, inputs, nil
}

type namedRaw struct {
	key string // map key; "" in list form
	raw json.RawMessage
}

func decodeOrderedObject(data []byte) ([]namedRaw, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out []namedRaw
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		out = append(out, namedRaw{key: key, raw: val})
	}
	return out, nil
}

func decodeServerList(data []byte) ([]namedRaw, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, &ConfigError{Field: "servers", Reason: "invalid JSON list: " + err.Error()}
	}
	out := make([]namedRaw, len(list))
	for i, r := range list {
		out[i] = namedRaw{raw: r}
	}
	return out, nil
}

func decodeServerConfig(raw json.RawMessage, key string, index int) (protocol.MCPServerConfig, error) {
	who := key
	if who == "" {
		who = fmt.Sprintf("#%d", index)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil || probe == nil {
		return protocol.MCPServerConfig{}, &ConfigError{Server: who, Reason: "want a JSON object"}
	}
	if isCommonEntry(probe) {
		if key == "" {
			return protocol.MCPServerConfig{}, &ConfigError{Server: who, Field: "name", Reason: "an entry with command or url needs its name as the key of an object"}
		}
		conv, err := fromCommonEntry(raw, key, who)
		if err != nil {
			return protocol.MCPServerConfig{}, err
		}
		raw = conv
	} else if _, sp := probe["server_parameters"]; !sp {
		if _, typed := probe["type"]; !typed {
			return protocol.MCPServerConfig{}, &ConfigError{Server: who, Reason: "want command or url (or SMCP's type and server_parameters)"}
		}
	}
	var cfg protocol.MCPServerConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return protocol.MCPServerConfig{}, &ConfigError{Server: who, Field: jsonField(err), Reason: jsonReason(err)}
	}
	if key != "" {
		if cfg.Name == "" {
			cfg.Name = key
		} else if cfg.Name != key {
			return protocol.MCPServerConfig{}, &ConfigError{Server: key, Field: "name",
				Reason: fmt.Sprintf("%q differs from its key", cfg.Name)}
		}
	}
	if cfg.Name == "" {
		return protocol.MCPServerConfig{}, &ConfigError{Server: who, Field: "name", Reason: "missing"}
	}
	if err := ValidateServerConfig(cfg); err != nil {
		return protocol.MCPServerConfig{}, err
	}
	return cfg, nil
}

func jsonField(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Field
	}
	return ""
}

func jsonReason(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "wrong type: got JSON " + te.Value + ", want " + te.Type.String()
	}
	return "invalid JSON: " + err.Error()
}

// ValidateServerConfig checks one MCPServerConfig (data-structures.md
// §MCP Server 配置结构) and its server_parameters for its type.
func ValidateServerConfig(cfg protocol.MCPServerConfig) error {
	bad := func(field, reason string) error {
		return &ConfigError{Server: cfg.Name, Field: field, Reason: reason}
	}
	if strings.TrimSpace(cfg.Name) == "" {
		return bad("name", "missing")
	}
	if strings.ContainsFunc(cfg.Name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return bad("name", "contains control characters")
	}
	for i, t := range cfg.ForbiddenTools {
		if t == "" {
			return bad(fmt.Sprintf("forbidden_tools[%d]", i), "empty tool name")
		}
	}
	params := bytes.TrimSpace(cfg.ServerParameters)
	if len(params) == 0 || string(params) == "null" {
		return bad("server_parameters", "missing")
	}
	if params[0] != '{' {
		return bad("server_parameters", "want a JSON object")
	}
	decode := func(v any) error {
		if err := json.Unmarshal(params, v); err != nil {
			f := jsonField(err)
			if f != "" {
				f = "server_parameters." + f
			} else {
				f = "server_parameters"
			}
			return bad(f, jsonReason(err))
		}
		return nil
	}
	switch cfg.Type {
	case protocol.ServerTypeStdio:
		var p protocol.StdioParameters
		if err := decode(&p); err != nil {
			return err
		}
		if strings.TrimSpace(p.Command) == "" {
			return bad("server_parameters.command", "missing")
		}
		switch strings.ToLower(p.Encoding) {
		case "", "utf-8", "utf8":
		default:
			return bad("server_parameters.encoding", fmt.Sprintf("%q not supported (only utf-8)", p.Encoding))
		}
		switch p.EncodingErrorHandler {
		case "", "strict", "ignore", "replace":
		default:
			return bad("server_parameters.encoding_error_handler", fmt.Sprintf("%q: want strict, ignore or replace", p.EncodingErrorHandler))
		}
		if p.Cwd != nil && strings.TrimSpace(*p.Cwd) == "" {
			return bad("server_parameters.cwd", "empty")
		}
		for k := range p.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				return bad("server_parameters.env", fmt.Sprintf("bad variable name %q", k))
			}
		}
	case protocol.ServerTypeStreamable:
		var p protocol.StreamableParameters
		if err := decode(&p); err != nil {
			return err
		}
		if err := validateHTTPURL(p.URL); err != nil {
			return bad("server_parameters.url", err.Error())
		}
		if err := validateHeaders(p.Headers); err != nil {
			return bad("server_parameters.headers", err.Error())
		}
		if p.Timeout != "" {
			if _, err := parseISODuration(p.Timeout); err != nil {
				return bad("server_parameters.timeout", err.Error())
			}
		}
		if p.SSEReadTimeout != "" {
			if _, err := parseISODuration(p.SSEReadTimeout); err != nil {
				return bad("server_parameters.sse_read_timeout", err.Error())
			}
		}
	case protocol.ServerTypeSSE:
		var p protocol.SSEParameters
		if err := decode(&p); err != nil {
			return err
		}
		if err := validateHTTPURL(p.URL); err != nil {
			return bad("server_parameters.url", err.Error())
		}
		if err := validateHeaders(p.Headers); err != nil {
			return bad("server_parameters.headers", err.Error())
		}
		if p.Timeout < 0 || math.IsNaN(p.Timeout) {
			return bad("server_parameters.timeout", "must be ≥ 0 seconds")
		}
		if p.SSEReadTimeout < 0 || math.IsNaN(p.SSEReadTimeout) {
			return bad("server_parameters.sse_read_timeout", "must be ≥ 0 seconds")
		}
	case "":
		return bad("type", "missing (want stdio, streamable or sse)")
	default:
		return bad("type", fmt.Sprintf("%q: want stdio, streamable or sse", cfg.Type))
	}
	return nil
}

func validateHTTPURL(s string) error {
	if s == "" {
		return errors.New("missing")
	}
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q: want http or https", u.Scheme)
	}
	if u.Host == "" {
		return errors.New("missing host")
	}
	return nil
}

func validateHeaders(h map[string]any) error {
	for k, v := range h {
		if k == "" || strings.ContainsAny(k, " \t\r\n:") {
			return fmt.Errorf("bad header name %q", k)
		}
		switch v.(type) {
		case string, float64, bool, nil:
		default:
			return fmt.Errorf("header %q: want a string value", k)
		}
	}
	return nil
}

func decodeInputs(raw json.RawMessage) ([]protocol.MCPServerInput, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, &ConfigError{Field: "inputs", Reason: "want a list"}
	}
	out := make([]protocol.MCPServerInput, 0, len(list))
	seen := map[string]bool{}
	for i, r := range list {
		var in protocol.MCPServerInput
		if err := json.Unmarshal(r, &in); err != nil {
			return nil, &ConfigError{Field: fmt.Sprintf("inputs[%d].%s", i, jsonField(err)), Reason: jsonReason(err)}
		}
		bad := func(field, reason string) error {
			return &ConfigError{Input: in.ID, Field: field, Reason: reason}
		}
		if in.ID == "" {
			return nil, &ConfigError{Field: fmt.Sprintf("inputs[%d].id", i), Reason: "missing"}
		}
		if seen[in.ID] {
			return nil, bad("id", "duplicate input id")
		}
		seen[in.ID] = true
		switch in.Type {
		case "promptString":
		case "pickString":
			if len(in.Options) == 0 {
				return nil, bad("options", "pickString needs options")
			}
		case "command":
			if in.Command == "" {
				return nil, bad("command", "missing")
			}
		default:
			return nil, bad("type", fmt.Sprintf("%q: want promptString, pickString or command", in.Type))
		}
		out = append(out, in)
	}
	return out, nil
}

var isoDurationRE = regexp.MustCompile(`^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$`)

// parseISODuration parses the ISO 8601 durations the spec uses for
// streamable timeouts ("PT30S", "P1DT2H", "PT0.5S"). Years and months are
// refused: their length is not fixed.
func parseISODuration(s string) (time.Duration, error) {
	m := isoDurationRE.FindStringSubmatch(s)
	if m == nil || s == "P" || strings.HasSuffix(s, "T") {
		return 0, fmt.Errorf("%s is not an ISO 8601 duration like PT30S", quoteTrunc(s))
	}
	units := []time.Duration{7 * 24 * time.Hour, 24 * time.Hour, time.Hour, time.Minute, time.Second}
	var total float64
	for i, u := range units {
		if m[i+1] == "" {
			continue
		}
		v, err := strconv.ParseFloat(m[i+1], 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", quoteTrunc(s), err)
		}
		total += v * float64(u)
	}
	if total > float64(math.MaxInt64) {
		return 0, fmt.Errorf("%s is too long", quoteTrunc(s))
	}
	return time.Duration(total), nil
}
