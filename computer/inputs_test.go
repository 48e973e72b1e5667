package computer

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func TestResolveInputs_SubstitutesDefaults(t *testing.T) {
	tok, region := "tok-1", "eu"
	inputs := []protocol.MCPServerInput{
		{ID: "token", Type: "promptString", Default: &tok},
		{ID: "region", Type: "pickString", Options: protocol.PickOptions{{Label: "eu", Value: "eu"}, {Label: "us", Value: "us"}}, Default: &region},
		{ID: "nodefault", Type: "promptString"},
		{ID: "cmd", Type: "command", Command: "pass", Default: &tok},
	}
	tests := []struct {
		name, params, want, err string
	}{
		{"EnvAndArgs", `{"command":"x","args":["--region=${input:region}"],"env":{"TOKEN":"${input:token}"}}`,
			`{"args":["--region=eu"],"command":"x","env":{"TOKEN":"tok-1"}}`, ""},
		{"NoPlaceholdersUntouched", `{"command":"x","args":[1.50]}`, `{"command":"x","args":[1.50]}`, ""},
		{"Undefined", `{"command":"${input:nope}"}`, "", `input "nope" not defined`},
		{"NoDefault", `{"command":"x","env":{"A":"${input:nodefault}"}}`, "", `input "nodefault" has no default`},
		{"Command", `{"command":"${input:cmd}"}`, "", `command inputs are not supported`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := protocol.MCPServerConfig{Name: "s", Type: "stdio", ServerParameters: json.RawMessage(tc.params)}
			out, err := resolveInputs(cfg, inputs)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), `mcp server "s"`) {
					t.Fatalf("err %v, want %q naming the server", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(out.ServerParameters) != tc.want {
				t.Fatalf("got %s, want %s", out.ServerParameters, tc.want)
			}
			if string(cfg.ServerParameters) != tc.params {
				t.Fatal("input config modified")
			}
		})
	}
}
