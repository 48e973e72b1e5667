package computer

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func TestLoadConfigFile_AcceptsMapAndListFormsInOrder(t *testing.T) {
	tests := []struct {
		name string
		file string
	}{
		{"Map", `{"servers": {
			"zeta": {"type":"stdio","server_parameters":{"command":"z","args":[]}},
			"alpha": {"name":"alpha","type":"sse","disabled":true,"server_parameters":{"url":"http://127.0.0.1:1/sse","timeout":5}},
			"mid": {"type":"streamable","server_parameters":{"url":"https://mcp.example/mcp","timeout":"PT30S","headers":{"Authorization":"Bearer x"}}}
		}, "inputs": [{"id":"tok","type":"promptString","description":"token","password":true}]}`},
		{"ServersList", `{"servers": [
			{"name":"zeta","type":"stdio","server_parameters":{"command":"z","args":[]}},
			{"name":"alpha","type":"sse","disabled":true,"server_parameters":{"url":"http://127.0.0.1:1/sse","timeout":5}},
			{"name":"mid","type":"streamable","server_parameters":{"url":"https://mcp.example/mcp","timeout":"PT30S"}}
		], "inputs": [{"id":"tok","type":"promptString","description":"token"}]}`},
		{"BareList", `[
			{"name":"zeta","type":"stdio","server_parameters":{"command":"z","args":[]}},
			{"name":"alpha","type":"sse","disabled":true,"server_parameters":{"url":"http://127.0.0.1:1/sse"}},
			{"name":"mid","type":"streamable","server_parameters":{"url":"https://mcp.example/mcp"}}
		]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mcp.json")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			servers, inputs, err := LoadConfigFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range servers {
				names = append(names, s.Name)
			}
			if strings.Join(names, ",") != "zeta,alpha,mid" {
				t.Fatalf("order %v, want file order zeta,alpha,mid", names)
			}
			if !servers[1].Disabled || servers[1].Type != protocol.ServerTypeSSE {
				t.Fatalf("alpha: %+v", servers[1])
			}
			if tc.name != "BareList" && (len(inputs) != 1 || inputs[0].ID != "tok") {
				t.Fatalf("inputs %+v", inputs)
			}
		})
	}
}

func TestLoadConfigFile_ErrorsNameServerAndField(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"MissingType", `{"servers":{"a":{"server_parameters":{"command":"x"}}}}`, `mcp server "a": type: missing`},
		{"UnknownType", `{"servers":{"a":{"type":"grpc","server_parameters":{}}}}`, `mcp server "a": type: "grpc"`},
		{"MissingCommand", `{"servers":{"a":{"type":"stdio","server_parameters":{"args":[]}}}}`, `mcp server "a": server_parameters.command: missing`},
		{"ArgsNotList", `{"servers":{"a":{"type":"stdio","server_parameters":{"command":"x","args":"-v"}}}}`, `mcp server "a": server_parameters.args: wrong type`},
		{"MissingParameters", `{"servers":{"a":{"type":"stdio"}}}`, `mcp server "a": server_parameters: missing`},
		{"BadURL", `{"servers":{"a":{"type":"sse","server_parameters":{"url":"ftp://x/"}}}}`, `mcp server "a": server_parameters.url: scheme "ftp"`},
		{"BadDuration", `{"servers":{"a":{"type":"streamable","server_parameters":{"url":"http://x/","timeout":"30s"}}}}`, `mcp server "a": server_parameters.timeout:`},
		{"NegativeSSETimeout", `{"servers":{"a":{"type":"sse","server_parameters":{"url":"http://x/","timeout":-1}}}}`, `mcp server "a": server_parameters.timeout: must be`},
		{"NameDiffersFromKey", `{"servers":{"a":{"name":"b","type":"stdio","server_parameters":{"command":"x"}}}}`, `mcp server "a": name: "b" differs`},
		{"DuplicateName", `[{"name":"a","type":"stdio","server_parameters":{"command":"x"}},{"name":"a","type":"stdio","server_parameters":{"command":"y"}}]`, `mcp server "a": name: duplicate`},
		{"ListEntryWithoutName", `[{"type":"stdio","server_parameters":{"command":"x"}}]`, `mcp server "#0": name: missing`},
		{"DisabledWrongType", `{"servers":{"a":{"type":"stdio","disabled":"yes","server_parameters":{"command":"x"}}}}`, `mcp server "a": disabled: wrong type`},
		{"UnsupportedEncoding", `{"servers":{"a":{"type":"stdio","server_parameters":{"command":"x","encoding":"latin-1"}}}}`, `server_parameters.encoding: "latin-1" not supported`},
		{"BadInput", `{"servers":{},"inputs":[{"id":"p","type":"pickString"}]}`, `input "p": options: pickString needs options`},
		{"NotJSON", `servers: []`, `want a JSON object or list`},
		{"Empty", ``, `empty file`},
		{"TrailingGarbage", `{"servers":{}} {}`, `trailing data`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ParseConfig([]byte(tc.file))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("%T is not a *ConfigError", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatal("error is not one line")
			}
		})
	}
}

func TestLoadConfigFile_MissingFileNamesPath(t *testing.T) {
	_, _, err := LoadConfigFile(filepath.Join(t.TempDir(), "nope.json"))
	if err == nil || !strings.Contains(err.Error(), "nope.json") {
		t.Fatalf("err %v", err)
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"servers":{"a":{"type":"stdio","server_parameters":{"command":"x","args":["--token","s"],"env":{"K":"v"}}}},"inputs":[]}`))
	f.Add([]byte(`[{"name":"b","type":"sse","server_parameters":{"url":"http://u:p@h/x?api_key=1"}}]`))
	f.Add([]byte(`{"servers":[{"name":"c","type":"streamable","server_parameters":{"url":"https://h/","headers":{"A":1},"timeout":"P1DT2H3M4.5S"}}]}`))
	f.Add([]byte(`{"servers":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, _, err := ParseConfig(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		for _, s := range servers {
			if err := ValidateServerConfig(s); err != nil {
				t.Fatalf("accepted config fails validation: %v", err)
			}
			m := maskConfig(s)
			if !json.Valid(m.ServerParameters) {
				t.Fatalf("masked parameters are not JSON: %s", m.ServerParameters)
			}
		}
	})
}

func TestParseISODuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"PT30S", 30 * time.Second, true},
		{"PT0.5S", 500 * time.Millisecond, true},
		{"P1DT2H", 26 * time.Hour, true},
		{"PT1M30S", 90 * time.Second, true},
		{"P1W", 7 * 24 * time.Hour, true},
		{"P", 0, false},
		{"PT", 0, false},
		{"30s", 0, false},
		{"P1Y", 0, false},
		{"", 0, false},
	}
	for _, tc := range tests {
		got, err := parseISODuration(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseISODuration(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func FuzzParseISODuration(f *testing.F) {
	for _, s := range []string{"PT30S", "P1DT2H3M4.5S", "P1W", "PT", "P99999999999999999999D"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseISODuration(s)
		if err == nil && d < 0 {
			t.Fatalf("%q → negative %v", s, d)
		}
	})
}

// TestParseConfig_CommonShapesSniffed: the shapes other MCP clients write
// (Claude Desktop / Cursor / .mcp.json "mcpServers", VS Code "servers"
// with a type) become the same MCPServerConfig as SMCP's own shape, entry
// by entry, without being told which shape it is.
func TestParseConfig_CommonShapesSniffed(t *testing.T) {
	smcp := `{"servers": {
		"fs": {"type":"stdio","server_parameters":{"command":"npx","args":["-y","srv"],"env":{"TOKEN":"${env:GH}"},"cwd":"/tmp"}},
		"web": {"type":"streamable","server_parameters":{"url":"https://mcp.example/mcp","headers":{"Authorization":"Bearer x"},"terminate_on_close":true}},
		"old": {"type":"sse","server_parameters":{"url":"http://127.0.0.1:9/sse"}}
	}}`
	claude := `{"mcpServers": {
		"fs": {"command":"npx","args":["-y","srv"],"env":{"TOKEN":"${env:GH}"},"cwd":"/tmp","autoApprove":["x"]},
		"web": {"url":"https://mcp.example/mcp","headers":{"Authorization":"Bearer x"}},
		"old": {"type":"sse","url":"http://127.0.0.1:9/sse"}
	}}`
	vscode := `{"inputs": [], "servers": {
		"fs": {"type":"stdio","command":"npx","args":["-y","srv"],"env":{"TOKEN":"${env:GH}"},"cwd":"/tmp"},
		"web": {"type":"http","url":"https://mcp.example/mcp","headers":{"Authorization":"Bearer x"}},
		"old": {"type":"sse","server_parameters":{"url":"http://127.0.0.1:9/sse"}}
	}}`
	want, _, err := ParseConfig([]byte(smcp))
	if err != nil {
		t.Fatal(err)
	}
	for name, file := range map[string]string{"mcpServers": claude, "vscode-mixed": vscode} {
		t.Run(name, func(t *testing.T) {
			got, _, err := ParseConfig([]byte(file))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d servers, want %d", len(got), len(want))
			}
			for i := range want {
				g, w := got[i], want[i]
				if g.Name != w.Name || g.Type != w.Type || g.Disabled != w.Disabled {
					t.Fatalf("server %d: %+v, want %+v", i, g, w)
				}
				var gp, wp map[string]any
				_ = json.Unmarshal(g.ServerParameters, &gp)
				_ = json.Unmarshal(w.ServerParameters, &wp)
				for k, v := range wp {
					gb, _ := json.Marshal(gp[k])
					wb, _ := json.Marshal(v)
					if string(gb) != string(wb) {
						t.Fatalf("%s.%s = %s, want %s", g.Name, k, gb, wb)
					}
				}
			}
			// Shown by get_config with the secrets masked.
			shown, _ := json.Marshal(maskConfig(got[1]))
			if strings.Contains(string(shown), "Bearer") {
				t.Fatalf("header shown: %s", shown)
			}
		})
	}
}

func TestParseConfig_CommonShapeErrors(t *testing.T) {
	for name, tc := range map[string]struct{ file, want string }{
		"EnvFile":     {`{"mcpServers":{"a":{"command":"x","envFile":".env"}}}`, `mcp server "a": envFile: not supported`},
		"Both":        {`{"mcpServers":{"a":{"command":"x","url":"http://h/"}}}`, `mcp server "a": command: give command or url, not both`},
		"BadType":     {`{"mcpServers":{"a":{"url":"http://h/","type":"ws"}}}`, `mcp server "a": type: "ws" with a url`},
		"BadURL":      {`{"mcpServers":{"a":{"url":"ftp://h/"}}}`, `mcp server "a": server_parameters.url: scheme "ftp"`},
		"ListNoName":  {`[{"command":"x"}]`, `mcp server "#0": name:`},
		"WrongArgs":   {`{"mcpServers":{"a":{"command":"x","args":"-v"}}}`, `mcp server "a": args: wrong type`},
		"EmptyObject": {`{"mcpServers":{"a":{}}}`, `mcp server "a": want command or url`},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := ParseConfig([]byte(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

// LoadConfigFile reads and parses a config file for these tests (the
// product reads the file in stack: regular files only, bounded).
func LoadConfigFile(path string) ([]protocol.MCPServerConfig, []protocol.MCPServerInput, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return ParseConfig(data)
}
