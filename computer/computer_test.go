package computer

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/server"
)

func startComputer(t *testing.T, opt Options) (*Computer, error) {
	t.Helper()
	if opt.Logger == nil {
		opt.Logger, _ = newLog(t)
	}
	c := New(opt)
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return c, c.Start(ctx)
}

func listRoom(t *testing.T, a *agent) []protocol.SessionInfo {
	t.Helper()
	args := a.emit(protocol.EventListRoom, protocol.ListRoomReq{AgentCallData: protocol.AgentCallData{Agent: a.name, ReqID: "r"}, OfficeID: a.office})
	var ret protocol.ListRoomRet
	b, _ := json.Marshal(firstArg(args))
	if err := json.Unmarshal(b, &ret); err != nil {
		t.Fatalf("list_room ack %s: %v", b, err)
	}
	return ret.Sessions
}

func hasComputer(sessions []protocol.SessionInfo, name string) bool {
	for _, s := range sessions {
		if s.Role == protocol.RoleComputer && s.Name == name {
			return true
		}
	}
	return false
}

func TestStart_JoinsOfficeWithAPIKey(t *testing.T) {
	url, _ := startSMCP(t, "k-123")
	for _, tc := range []struct{ name, url string }{
		{"pc-http", url},
		{"pc-ws", strings.Replace(url, "http://", "ws://", 1) + "/?extra=1"},
	} {
		if _, err := startComputer(t, Options{URL: tc.url, Office: "o", Name: tc.name, APIKey: "k-123"}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
	}
	a := newAgent(t, url, "o", "k-123")
	s := listRoom(t, a)
	for _, name := range []string{"pc-http", "pc-ws"} {
		if !hasComputer(s, name) {
			t.Fatalf("%s not in office: %+v", name, s)
		}
	}
	for _, si := range s {
		if si.Role == protocol.RoleComputer && si.A2CVersion != protocol.Version {
			t.Fatalf("%s joined with a2c_version %q, want %q", si.Name, si.A2CVersion, protocol.Version)
		}
	}
}

func TestStart_Failures(t *testing.T) {
	url, _ := startSMCP(t, "k-123")
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + closed.Addr().String()
	closed.Close()
	// Occupy the name "pc" in office "o".
	if _, err := startComputer(t, Options{URL: url, Office: "o", Name: "pc", APIKey: "k-123"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opt  Options
		want string
	}{
		{"WrongAPIKeyIsRefused", Options{URL: url, Office: "o", Name: "pc2", APIKey: "wrong"}, "401"},
		{"DuplicateNameJoinIsRefused", Options{URL: url, Office: "o", Name: "pc", APIKey: "k-123"}, "refused"},
		{"ClosedPortFails", Options{URL: closedURL, Office: "o", Name: "pc3", ConnectTimeout: 2 * time.Second}, "connect to"},
		{"BadURL", Options{URL: "ftp://x", Office: "o", Name: "pc4"}, "scheme"},
		{"MissingOffice", Options{URL: url, Name: "pc5"}, "required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := startComputer(t, tc.opt)
			if err == nil {
				t.Fatal("Start succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
	t.Run("JoinRefusalIsJoinError", func(t *testing.T) {
		_, err := startComputer(t, Options{URL: url, Office: "o", Name: "pc", APIKey: "k-123"})
		var je *JoinError
		if !errors.As(err, &je) || je.Reason == "" {
			t.Fatalf("err %v is not a *JoinError with a reason", err)
		}
	})
}

func TestStart_RejoinsOfficeAfterServerRestart(t *testing.T) {
	log, _ := newLog(t)
	s1, err := server.New(server.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	go func() { _ = s1.Serve(l) }()
	url := "http://" + addr
	if _, err := startComputer(t, Options{URL: url, Office: "o", Name: "pc"}); err != nil {
		t.Fatal(err)
	}
	_ = s1.Close()

	s2, err := server.New(server.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	var l2 net.Listener
	eventually(t, "port reusable", func() bool {
		l2, err = net.Listen("tcp", addr)
		return err == nil
	})
	go func() { _ = s2.Serve(l2) }()
	t.Cleanup(func() { _ = s2.Close() })

	a := newAgent(t, url, "o", "")
	eventually(t, "computer re-joined the office", func() bool { return hasComputer(listRoom(t, a), "pc") })
}

// After a reconnect the server may still hold a session under our name;
// the refused re-join is retried until the name is free.
func TestStart_RetriesRefusedRejoin(t *testing.T) {
	log, _ := newLog(t)
	s1, err := server.New(server.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	go func() { _ = s1.Serve(l) }()
	pcLog, pcLogs := newLog(t)
	if _, err := startComputer(t, Options{URL: "http://" + addr, Office: "o", Name: "pc", Logger: pcLog}); err != nil {
		t.Fatal(err)
	}
	_ = s1.Close()

	// s2 first listens elsewhere, where a squatter takes the name "pc".
	s2, err := server.New(server.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	side, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s2.Serve(side) }()
	t.Cleanup(func() { _ = s2.Close() })
	squatter, err := startComputer(t, Options{URL: "http://" + side.Addr().String(), Office: "o", Name: "pc"})
	if err != nil {
		t.Fatal(err)
	}
	// Now s2 also answers on the original address; pc reconnects there and
	// is refused while the squatter holds the name.
	var l2 net.Listener
	eventually(t, "port reusable", func() bool {
		l2, err = net.Listen("tcp", addr)
		return err == nil
	})
	go func() { _ = s2.Serve(l2) }() // a second listener; s2.Close closes it too

	a := newAgent(t, "http://"+addr, "o", "")
	eventually(t, "pc's re-join refused", func() bool {
		return strings.Contains(pcLogs.String(), `msg="join office failed"`)
	})
	_ = squatter.Close()
	eventually(t, "pc re-joined after the name was freed", func() bool {
		for _, s := range listRoom(t, a) {
			if s.Name == "pc" && s.Role == protocol.RoleComputer {
				return true
			}
		}
		return false
	})
}

func TestGetConfig_ServersAsConfiguredWithSecretsMasked(t *testing.T) {
	secretEnv := protocol.MCPServerConfig{
		Name: "shell", Type: protocol.ServerTypeStdio, Disabled: true, ForbiddenTools: []string{"rm"},
		ServerParameters: json.RawMessage(`{"command":"mcp-shell","args":["--token","tok-1"],"env":{"OPENAI_API_KEY":"sk-live-1"},"cwd":null}`),
	}
	remote := protocol.MCPServerConfig{
		Name: "remote", Type: protocol.ServerTypeStreamable, Disabled: true,
		ServerParameters: json.RawMessage(`{"url":"https://mcp.example/mcp?access_token=at-1","headers":{"Authorization":"Bearer b-1"},"timeout":"PT30S","terminate_on_close":true}`),
	}
	pw, yes := "input-secret", true
	o := startOffice(t, Options{Inputs: []protocol.MCPServerInput{{ID: "pw", Type: "promptString", Description: "password", Default: &pw, Password: &yes}}},
		func(c *Computer) {
			ctx := context.Background()
			for _, cfg := range []protocol.MCPServerConfig{secretEnv, remote} {
				if err := c.AddServer(ctx, cfg); err != nil {
					t.Fatal(err)
				}
			}
			inProc(t, c, "lib", newDocServer(docServerOptions{Host: host, Docs: 1}))
		})
	args := o.agent.emit(protocol.EventGetConfig, map[string]any{"agent": o.agent.name, "req_id": "r1", "computer": o.name})
	if len(args) != 1 {
		t.Fatalf("ack has %d args", len(args))
	}
	raw, _ := json.Marshal(args[0])
	for _, leak := range []string{"tok-1", "sk-live-1", "at-1", "b-1", "input-secret"} {
		if strings.Contains(string(raw), leak) {
			t.Fatalf("secret %q leaked in get_config: %s", leak, raw)
		}
	}
	var ret struct {
		Inputs  []protocol.MCPServerInput           `json:"inputs"`
		Servers map[string]protocol.MCPServerConfig `json:"servers"`
	}
	if err := json.Unmarshal(raw, &ret); err != nil {
		t.Fatal(err)
	}
	if len(ret.Servers) != 3 {
		t.Fatalf("servers %v, want shell, remote, lib", ret.Servers)
	}
	sh := ret.Servers["shell"]
	if !sh.Disabled || sh.Type != "stdio" || len(sh.ForbiddenTools) != 1 || sh.Name != "shell" {
		t.Fatalf("shell %+v", sh)
	}
	var p protocol.StdioParameters
	if err := json.Unmarshal(sh.ServerParameters, &p); err != nil || p.Command != "mcp-shell" || p.Env["OPENAI_API_KEY"] != protocol.Masked {
		t.Fatalf("shell params %s", sh.ServerParameters)
	}
	if len(ret.Inputs) != 1 || *ret.Inputs[0].Default != protocol.Masked {
		t.Fatalf("inputs %+v", ret.Inputs)
	}
}

func TestHostConflict_WarnsAndFirstRegisteredWins(t *testing.T) {
	o := startOffice(t, Options{Resolver: NewFileResolver(t.TempDir())}, func(c *Computer) {
		inProc(t, c, "first", newDocServer(docServerOptions{Host: host, Docs: 2, Tag: "FIRST "}))
		inProc(t, c, "second", newDocServer(docServerOptions{Host: host, Docs: 2, Tag: "SECOND "}))
	})
	logs := o.logs.String()
	var warn string
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, "level=WARN") && strings.Contains(line, "first registered wins") {
			warn = line
		}
	}
	if warn == "" {
		t.Fatalf("no host conflict WARN in logs:\n%s", logs)
	}
	for _, want := range []string{"host=" + host, "first=first", "second=second"} {
		if !strings.Contains(warn, want) {
			t.Fatalf("WARN %q does not name %q", warn, want)
		}
	}
	ret, perr := getDPE(t, o, "dpe://"+host+"/doc-001")
	if perr != nil {
		t.Fatal(perr)
	}
	body := readFileURI(t, ret.URI)
	if !strings.Contains(body, `"title":"FIRST Doc doc-001"`) {
		t.Fatalf("routed to the wrong server: %.200s", body)
	}
}

func TestAddServer_AfterStartNotifiesOffice(t *testing.T) {
	o := startOffice(t, Options{}, nil)
	inProc(t, o.comp, "late", newDocServer(docServerOptions{Host: host, Docs: 1}))
	eventually(t, "notify:update_config", func() bool {
		return len(o.agent.noticesMatching(protocol.NotifyUpdateConfig+` {"computer":"pc"}`)) > 0
	})
	var ret resourcesRet
	if perr := o.agent.call(protocol.EventGetResources, o.name, map[string]any{"mcp_server": "late"}, &ret); perr != nil {
		t.Fatal(perr)
	}
}

func TestAddServer_DuplicateNameRefused(t *testing.T) {
	c := New(Options{Logger: quietLog()})
	t.Cleanup(func() { _ = c.Close() })
	inProc(t, c, "lib", newDocServer(docServerOptions{Host: host, Docs: 1}))
	err := c.AddInProcess(context.Background(), protocol.MCPServerConfig{Name: "lib"}, newDocServer(docServerOptions{Host: host}))
	if err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Fatalf("err %v", err)
	}
	if n := len(c.Servers()); n != 1 {
		t.Fatalf("%d servers registered", n)
	}
}

func TestTools_ListAndCallRespectForbiddenTools(t *testing.T) {
	o := startOffice(t, Options{}, func(c *Computer) {
		inProc(t, c, "tools", newToolsOnlyServer(), func(cfg *protocol.MCPServerConfig) {
			cfg.ForbiddenTools = []string{"rm_rf"}
			tags := []string{"util"}
			cfg.ToolMeta = map[string]protocol.ToolMeta{"echo": {Tags: tags}}
		})
	})
	var tools protocol.GetToolsRet
	if perr := o.agent.call(protocol.EventGetTools, o.name, nil, &tools); perr != nil {
		t.Fatal(perr)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "echo" {
		t.Fatalf("tools %+v, want only echo", tools.Tools)
	}
	meta, _ := tools.Tools[0].Meta["a2c_tool_meta"].(string)
	if !strings.Contains(meta, `"tags":["util"]`) {
		t.Fatalf("a2c_tool_meta %q", meta)
	}
	call := func(name string) mcp.CallToolResult {
		var res mcp.CallToolResult
		if perr := o.agent.call(protocol.EventToolCall, o.name, map[string]any{"tool_name": name, "params": map[string]any{"text": "hi"}, "timeout": 5}, &res); perr != nil {
			t.Fatal(perr)
		}
		return res
	}
	if r := call("echo"); r.IsError || len(r.Content) != 1 || r.Content[0].(*mcp.TextContent).Text != "echo:hi" {
		t.Fatalf("echo: %+v", r)
	}
	if r := call("rm_rf"); !r.IsError {
		t.Fatalf("forbidden tool ran: %+v", r)
	}
	if r := call("nope"); !r.IsError {
		t.Fatalf("unknown tool: %+v", r)
	}
}

func TestUnimplementedClientEventIsAnswered(t *testing.T) {
	o := startOffice(t, Options{}, nil)
	perr := o.agent.call("client:get_weather", o.name, nil, nil)
	if perr == nil || perr.Code != protocol.CodeNotFound {
		t.Fatalf("got %+v, want a 404 answer instead of a timeout", perr)
	}
}
