package computer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// placeholderRE matches ${input:id} and ${env:VAR}, the placeholders of SMCP
// configs and of the common mcpServers / VS Code shape.
var placeholderRE = regexp.MustCompile(`\$\{(input|env):([^}]*)\}`)

// resolveInputs replaces ${input:id} placeholders in server_parameters
// string values with the inputs' defaults (data-structures.md §输入配置结构:
// inputs define the placeholders of a server config), and ${env:VAR} with
// the variable from this process's environment. A headless Computer
// cannot prompt, so an input without a default, or a "command" input, is a
// config error naming the server and the input; so is an unset variable.
// get_config keeps showing the placeholders, not the values.
func resolveInputs(cfg protocol.MCPServerConfig, inputs []protocol.MCPServerInput) (protocol.MCPServerConfig, error) {
	out, _, err := resolvePlaceholders(cfg, inputs, os.LookupEnv)
	return out, err
}

// resolvePlaceholders is resolveInputs that also returns every value it put
// in, so that errors and stderr shown later can have them masked.
func resolvePlaceholders(cfg protocol.MCPServerConfig, inputs []protocol.MCPServerInput, lookupEnv func(string) (string, bool)) (protocol.MCPServerConfig, []string, error) {
	if !placeholderRE.Match(cfg.ServerParameters) {
		return cfg, nil, nil
	}
	byID := make(map[string]protocol.MCPServerInput, len(inputs))
	for _, in := range inputs {
		byID[in.ID] = in
	}
	dec := json.NewDecoder(bytes.NewReader(cfg.ServerParameters))
	dec.UseNumber()
	var params any
	if err := dec.Decode(&params); err != nil {
		return cfg, nil, &ConfigError{Server: cfg.Name, Field: "server_parameters", Reason: "invalid JSON"}
	}
	var firstErr error
	var values []string
	fail := func(reason string) {
		if firstErr == nil {
			firstErr = &ConfigError{Server: cfg.Name, Field: "server_parameters", Reason: reason}
		}
	}
	replace := func(m string) string {
		sub := placeholderRE.FindStringSubmatch(m)
		kind, id := sub[1], sub[2]
		if kind == "env" {
			v, ok := lookupEnv(id)
			if !ok {
				fail(fmt.Sprintf("environment variable %s is not set", quoteTrunc(id)))
				return m
			}
			values = append(values, v)
			return v
		}
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
			values = append(values, *in.Default)
			return *in.Default
		}
		fail(fmt.Sprintf("input %s %s", quoteTrunc(id), reason))
		return m
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch t := v.(type) {
		case string:
			return placeholderRE.ReplaceAllStringFunc(t, replace)
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
		return cfg, nil, firstErr
	}
	b, err := json.Marshal(params)
	if err != nil {
		return cfg, nil, err
	}
	out := cfg
	out.ServerParameters = b
	return out, values, nil
}
