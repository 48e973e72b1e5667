package computer

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// maskConfig is cfg as client:get_config shows it: secrets replaced with
// protocol.Masked. Env and header values are always secrets; other
// parameters are masked when their name looks like one (api_key, token,
// password …), in args ("--token=x", "--api-key x", "API_KEY=x") and in
// URL userinfo and query parameters. Over-masking is the safe failure.
func maskConfig(cfg protocol.MCPServerConfig) protocol.MCPServerConfig {
	out := cfg
	if out.ForbiddenTools == nil {
		out.ForbiddenTools = []string{}
	}
	if out.ToolMeta == nil {
		out.ToolMeta = map[string]protocol.ToolMeta{}
	}
	dec := json.NewDecoder(bytes.NewReader(cfg.ServerParameters))
	dec.UseNumber()
	var params map[string]any
	if err := dec.Decode(&params); err != nil || params == nil {
		out.ServerParameters = json.RawMessage(`{}`)
		return out
	}
	for k, v := range params {
		switch k {
		case "env", "headers":
			if m, ok := v.(map[string]any); ok {
				for hk, hv := range m {
					if hv != nil {
						m[hk] = protocol.Masked
					}
				}
			}
		case "args":
			if list, ok := v.([]any); ok {
				params[k] = maskArgs(list)
			}
		case "url":
			if s, ok := v.(string); ok {
				params[k] = maskURL(s)
			}
		default:
			if secretName(k) && v != nil {
				params[k] = protocol.Masked
			}
		}
	}
	b, err := json.Marshal(params)
	if err != nil {
		b = []byte(`{}`)
	}
	out.ServerParameters = b
	return out
}

func maskInputs(in []protocol.MCPServerInput) []protocol.MCPServerInput {
	out := make([]protocol.MCPServerInput, len(in))
	for i, v := range in {
		if v.Default != nil && ((v.Password != nil && *v.Password) || secretName(v.ID)) {
			m := protocol.Masked
			v.Default = &m
		}
		out[i] = v
	}
	return out
}

// secretName reports whether a parameter, flag or variable name looks like
// it holds a credential.
func secretName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"key", "token", "secret", "passw", "pwd", "auth", "credential", "cookie", "private", "signature", "bearer"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

func maskArgs(list []any) []any {
	out := make([]any, len(list))
	copy(out, list)
	for i := 0; i < len(out); i++ {
		s, ok := out[i].(string)
		if !ok {
			continue
		}
		if strings.HasPrefix(s, "-") {
			name, _, hasValue := strings.Cut(strings.TrimLeft(s, "-"), "=")
			if !secretName(name) {
				continue
			}
			if hasValue {
				out[i] = s[:strings.IndexByte(s, '=')+1] + protocol.Masked
			} else if i+1 < len(out) {
				if next, ok := out[i+1].(string); ok && !strings.HasPrefix(next, "-") {
					out[i+1] = protocol.Masked
					i++
				}
			}
			continue
		}
		if name, _, ok := strings.Cut(s, "="); ok && secretName(name) {
			out[i] = name + "=" + protocol.Masked
			continue
		}
		if strings.Contains(s, "://") {
			out[i] = maskURL(s)
		}
	}
	return out
}

func maskURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	changed := false
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), protocol.Masked)
			changed = true
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if secretName(k) {
				q[k] = []string{protocol.Masked}
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	if !changed {
		return s
	}
	return u.String()
}
