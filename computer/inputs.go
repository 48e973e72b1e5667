package computer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

var inputRefRE = regexp.MustCompile(`\$\{input:([^}]*)\}`)

// resolveInputs replaces ${input:id} placeholders in server_parameters
// string values with the inputs' defaults (data-structures.md §输入配置结构:
// inputs define the placeholders of a server config). A headless Computer
// cannot prompt, so an input without a default, or a "command" input, is a
// config error naming the server and the input. get_config keeps showing
// the placeholders, not the values.
func resolveInputs(cfg protocol.MCPServerConfig, inputs []protocol.MCPServerInput) (protocol.MCPServerConfig, error) {
	if !inputRefRE.Match(cfg.ServerParameters) {
		return cfg, nil
	}
	byID := make(map[string]protocol.MCPServerInput, len(inputs))
	for _, in := range inputs {
		byID[in.ID] = in
	}
	dec := json.NewDecoder(bytes.NewReader(cfg.ServerParameters))
	dec.UseNumber()
	var params any
	if err := dec.Decode(&params); err != nil {
		return cfg, &ConfigError{Server: cfg.Name, Field: "server_parameters", Reason: "invalid JSON"}
	}
	var firstErr error
	var walk func(v any) any
	walk = func(v any) any {
		switch t := v.(type) {
		case string:
			return inputRefRE.ReplaceAllStringFunc(t, func(m string) string {
				id := inputRefRE.FindStringSubmatch(m)[1]
				in, ok := byID[id]
				var reason string
				switch {
				case !ok:
					reason = "not defined in inputs"
				case in.Type == "command":
					reason = "command inputs are not supported"
				case in.Default == nil:
					reason = "has no default and a headless computer cannot prompt"
				default:
					return *in.Default
				}
				if firstErr == nil {
					firstErr = &ConfigError{Server: cfg.Name, Field: "server_parameters",
						Reason: fmt.Sprintf("input %s %s", quoteTrunc(id), reason)}
				}
				return m
			})
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		case map[string]any:
			for k := range t {
				t[k] = walk(t[k])
			}
		}
		return v
	}
	params = walk(params)
	if firstErr != nil {
		return cfg, firstErr
	}
	b, err := json.Marshal(params)
	if err != nil {
		return cfg, err
	}
	out := cfg
	out.ServerParameters = b
	return out, nil
}
