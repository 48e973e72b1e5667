package client

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Config is a computer's client:get_config answer.
type Config struct {
	Servers []ServerConfig // sorted by name
	Inputs  []protocol.MCPServerInput
	Raw     json.RawMessage // the answer as received
}

// ServerConfig is one MCP server of a computer.
type ServerConfig struct {
	Name, Type string
	Disabled   bool
	Parameters json.RawMessage // server_parameters, shape depends on Type
	Raw        json.RawMessage // the entry as received
}

// Config asks computer for its MCP servers (client:get_config).
func (c *Client) Config(ctx context.Context, computer string) (*Config, error) {
	var ret struct {
		Inputs  []json.RawMessage `json:"inputs"`
		Servers json.RawMessage   `json:"servers"`
	}
	raw, err := c.do(ctx, protocol.EventGetConfig, computer,
		protocol.GetConfigReq{AgentCallData: c.agentCall(), Computer: computer}, &ret)
	if err != nil {
		return nil, err
	}
	cfg := &Config{Raw: raw}
	for _, in := range ret.Inputs {
		var v protocol.MCPServerInput
		if json.Unmarshal(in, &v) == nil {
			cfg.Inputs = append(cfg.Inputs, v)
		}
	}
	cfg.Servers = decodeServers(ret.Servers)
	return cfg, nil
}

// decodeServers reads servers as the spec's name → config object, and
// tolerates a list of configs with a name field. Entries that are not
// objects are skipped; fields of the wrong type read as zero values.
func decodeServers(raw json.RawMessage) []ServerConfig {
	var out []ServerConfig
	add := func(name string, entry json.RawMessage) {
		var m map[string]json.RawMessage
		if json.Unmarshal(entry, &m) != nil || m == nil {
			return
		}
		sc := ServerConfig{Name: name, Raw: entry, Parameters: m["server_parameters"]}
		var s string
		if json.Unmarshal(m["name"], &s) == nil && sc.Name == "" {
			sc.Name = s
		}
		_ = json.Unmarshal(m["type"], &sc.Type)
		_ = json.Unmarshal(m["disabled"], &sc.Disabled)
		if sc.Name != "" {
			out = append(out, sc)
		}
	}
	var byName map[string]json.RawMessage
	if json.Unmarshal(raw, &byName) == nil {
		for name, entry := range byName {
			add(name, entry)
		}
	} else {
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) == nil {
			for _, entry := range list {
				add("", entry)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
