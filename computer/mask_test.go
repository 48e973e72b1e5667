package computer

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func TestMaskConfig_HidesSecrets(t *testing.T) {
	tests := []struct {
		name, typ, params string
		secrets           []string // must not appear
		keep              []string // must still appear
	}{
		{"EnvValues", "stdio", `{"command":"srv","args":[],"env":{"HOME_DIR":"/home/u","DB":"postgres://u:pw@db/x"}}`,
			[]string{"/home/u", "pw@db"}, []string{`"HOME_DIR":"******"`, `"command":"srv"`}},
		{"SecretFlags", "stdio", `{"command":"srv","args":["--api-key=sk-123","--token","tok-456","-v","--port","8080","API_KEY=sk-789"]}`,
			[]string{"sk-123", "tok-456", "sk-789"}, []string{`"--api-key=******"`, `"--token"`, `"8080"`, `"-v"`, `"API_KEY=******"`}},
		{"HeaderValues", "streamable", `{"url":"https://mcp.example/mcp","headers":{"Authorization":"Bearer abc","X-Trace":"on"}}`,
			[]string{"Bearer abc"}, []string{`"Authorization":"******"`, `https://mcp.example/mcp`}},
		{"URLSecrets", "sse", `{"url":"https://user:hunter2@mcp.example/sse?api_key=k1&page=2"}`,
			[]string{"hunter2", "k1"}, []string{"page=2", "user"}},
		{"SecretNamedParameter", "stdio", `{"command":"srv","client_secret":"cs-1"}`,
			[]string{"cs-1"}, []string{`"client_secret":"******"`}},
		{"ArgURL", "stdio", `{"command":"srv","args":["https://h/x?token=t-9"]}`,
			[]string{"t-9"}, []string{"h/x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := maskConfig(protocol.MCPServerConfig{Name: "s", Type: tc.typ, ServerParameters: json.RawMessage(tc.params)})
			out := string(m.ServerParameters)
			for _, s := range tc.secrets {
				if strings.Contains(out, s) {
					t.Errorf("secret %q leaked: %s", s, out)
				}
			}
			for _, k := range tc.keep {
				if !strings.Contains(out, k) {
					t.Errorf("%q missing: %s", k, out)
				}
			}
			if m.ForbiddenTools == nil || m.ToolMeta == nil {
				t.Error("forbidden_tools/tool_meta must be [] / {} rather than null")
			}
		})
	}
}

func TestMaskInputs_PasswordDefaultsHidden(t *testing.T) {
	pw, yes := "s3cret", true
	plain := "eu-west"
	in := []protocol.MCPServerInput{
		{ID: "pw", Type: "promptString", Default: &pw, Password: &yes},
		{ID: "region", Type: "promptString", Default: &plain},
	}
	out := maskInputs(in)
	if *out[0].Default != protocol.Masked || *out[1].Default != "eu-west" {
		t.Fatalf("got %q %q", *out[0].Default, *out[1].Default)
	}
	if *in[0].Default != "s3cret" {
		t.Fatal("maskInputs modified its input")
	}
}
