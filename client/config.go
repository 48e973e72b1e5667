package client

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Config is a computer's client:get_config answer.
type Config struct {
	Servers []ServerConfig // sorted by name, then key
	Inputs  []protocol.MCPServerInput
	Raw     json.RawMessage // the answer as received
}

// ServerConfig is one MCP server of a computer.
type ServerConfig struct {
	// Key names the server on the wire (mcp_server of get_resources,
	// get_tools…): its key in the servers object. In 0.2 that is its
	// name; in 0.3 its bundle_id.
	Key protocol.ServerKey
	// Name is for display. In 0.3 it is the entry's name, which need not
	// be unique on a computer: never send it, send Key.
	Name       string
	Type       string
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
	cfg.Servers = decodeServers(ret.Servers, protocol.ServersByBundleID(c.version))
	return cfg, nil
}

// decodeServers reads servers as the spec's key → config object, and
// tolerates a list of configs with a name field. The key is the name in
// 0.2 and the bundle_id in 0.3 (byBundle), where the entry's name is for
// display only. Entries that are not objects are skipped; fields of the
// wrong type read as zero values.
func decodeServers(raw json.RawMessage, byBundle bool) []ServerConfig {
	var out []ServerConfig
	add := func(k string, entry json.RawMessage) {
		key := protocol.ServerKey(k)
		var m map[string]json.RawMessage
		if json.Unmarshal(entry, &m) != nil || m == nil {
			return
		}
		sc := ServerConfig{Key: key, Name: k, Raw: entry, Parameters: m["server_parameters"]}
		var s, bundle string
		_ = json.Unmarshal(m["bundle_id"], &bundle)
		if json.Unmarshal(m["name"], &s) == nil && s != "" && (sc.Name == "" || byBundle) {
			sc.Name = s
		}
		if sc.Key == "" {
			sc.Key = protocol.ServerKey(sc.Name)
			if byBundle && bundle != "" {
				sc.Key = protocol.ServerKey(bundle)
			}
		}
		if sc.Name == "" {
			sc.Name = string(sc.Key)
		}
		_ = json.Unmarshal(m["type"], &sc.Type)
		_ = json.Unmarshal(m["disabled"], &sc.Disabled)
		if sc.Key != "" {
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
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Key < out[j].Key
	})
	return out
}
