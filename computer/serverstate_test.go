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
)

func stdioCfg(t *testing.T, name string, p protocol.StdioParameters) protocol.MCPServerConfig {
	t.Helper()
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return protocol.MCPServerConfig{Name: name, Type: protocol.ServerTypeStdio, ServerParameters: raw}
}

// silentListener accepts connections and never answers: a server that is
// slow to start.
func silentListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns := make(chan net.Conn, 64)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(conns)
				return
			}
			conns <- c
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		for c := range conns {
			_ = c.Close()
		}
	})
	return "http://" + l.Addr().String() + "/mcp"
}

func stateOf(states []ServerState, name string) ServerState {
	for _, s := range states {
		if s.Name == name {
			return s
		}
	}
	return ServerState{}
}

// TestStartServers_EachServerIsItsOwnRow starts a working server, one whose
// command does not exist, one that dies with a secret on stderr, a disabled
// one and a slow one together: the working one lists while the slow one
// is still starting, each failure is its own row (get_config lists it,
// get_resources says why, secrets masked), and the office goes on.
func TestStartServers_EachServerIsItsOwnRow(t *testing.T) {
	url, _ := serveMCP(t, protocol.ServerTypeStreamable, newDocServer(docServerOptions{Host: host, Docs: 3, PageSize: 10}))
	good, _ := json.Marshal(protocol.StreamableParameters{URL: url})
	slow, _ := json.Marshal(protocol.StreamableParameters{URL: silentListener(t)})
	cfgs := []protocol.MCPServerConfig{
		{Name: "slow", Type: protocol.ServerTypeStreamable, ServerParameters: slow},
		stdioCfg(t, "missing", protocol.StdioParameters{Command: "/nonexistent/dpe-tui-no-such-server"}),
		stdioCfg(t, "dies", protocol.StdioParameters{Command: "/bin/sh", Args: []string{"-c", `echo "bad token $TOKEN" >&2; exit 3`},
			Env: map[string]string{"TOKEN": "tok-s3cret-42"}}),
		{Name: "off", Type: protocol.ServerTypeStdio, Disabled: true, ServerParameters: json.RawMessage(`{"command":"x"}`)},
		{Name: "good", Type: protocol.ServerTypeStreamable, ServerParameters: good},
	}
	var u *Startup
	o := startOffice(t, Options{RequestTimeout: 3 * time.Second}, func(c *Computer) {
		u = c.StartServers(cfgs, StartupOptions{Parallel: 2})
	})
	if got := u.States()[0].Status; got != ServerStarting && got != ServerFailed {
		t.Fatalf("slow server first state %q", got)
	}

	// The good one is ready, and lists, while the slow one starts: the
	// slot the slow one holds leaves the other one for the rest.
	eventually(t, "good ready while slow starts", func() bool {
		st := u.States()
		return stateOf(st, "good").Status == ServerReady && stateOf(st, "slow").Status == ServerStarting
	})
	var ret resourcesRet
	if perr := o.agent.call(protocol.EventGetResources, o.name, map[string]any{"mcp_server": "good"}, &ret); perr != nil || len(ret.Resources) == 0 {
		t.Fatalf("good lists %d resources, err %v", len(ret.Resources), perr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := u.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	st := u.States()
	want := map[string]ServerStatus{"slow": ServerFailed, "missing": ServerFailed, "dies": ServerFailed, "off": ServerDisabled, "good": ServerReady}
	for name, w := range want {
		if got := stateOf(st, name); got.Status != w {
			t.Errorf("%s: %+v, want %s", name, got, w)
		}
	}
	if e := stateOf(st, "missing").Err; !strings.Contains(e, "dpe-tui-no-such-server") || strings.HasPrefix(e, "mcp server") {
		t.Errorf("missing: Err %q should name the command once, not the server", e)
	}
	dies := stateOf(st, "dies")
	if !strings.Contains(dies.StderrTail, "bad token "+protocol.Masked) || strings.Contains(dies.StderrTail+dies.Err, "tok-s3cret-42") {
		t.Errorf("dies: stderr tail %q / err %q: want the line with the token masked", dies.StderrTail, dies.Err)
	}
	if !strings.Contains(stateOf(st, "slow").Err, "deadline") {
		t.Errorf("slow: %q, want a timeout", stateOf(st, "slow").Err)
	}

	// get_config lists every row; get_resources on a failed one says why.
	args := o.agent.emit(protocol.EventGetConfig, map[string]any{"agent": o.agent.name, "req_id": "r", "computer": o.name})
	raw, _ := json.Marshal(firstArg(args))
	for name := range want {
		if !strings.Contains(string(raw), `"`+name+`"`) {
			t.Errorf("get_config lacks %s: %s", name, raw)
		}
	}
	if strings.Contains(string(raw), "tok-s3cret-42") {
		t.Fatalf("get_config shows the secret: %s", raw)
	}
	perr := o.agent.call(protocol.EventGetResources, o.name, map[string]any{"mcp_server": "missing"}, &ret)
	if perr == nil || perr.Code != protocol.CodeMCPServerNotFound || !strings.Contains(perr.Message, "failed to start") || !strings.Contains(perr.Message, "dpe-tui-no-such-server") {
		t.Fatalf("get_resources on the failed server: %v", perr)
	}
	perr = o.agent.call(protocol.EventGetResources, o.name, map[string]any{"mcp_server": "dies"}, &ret)
	if perr == nil || !strings.Contains(perr.Message, "(stderr: bad token "+protocol.Masked+")") {
		t.Fatalf("get_resources on the server that died: %v", perr)
	}
	// ServerStates of the Computer agrees for the registered rows.
	if got := stateOf(o.comp.ServerStates(), "dies"); got.Status != ServerFailed || got.StderrTail == "" {
		t.Fatalf("Computer.ServerStates dies: %+v", got)
	}
}

func TestStartServers_PlaceholderProblemIsTheServersRow(t *testing.T) {
	t.Setenv("DPE_TUI_TEST_TOKEN", "env-value-9")
	cfgs := []protocol.MCPServerConfig{
		stdioCfg(t, "unset", protocol.StdioParameters{Command: "x", Env: map[string]string{"T": "${env:DPE_TUI_TEST_UNSET_VAR}"}}),
	}
	o := startOffice(t, Options{}, func(c *Computer) {
		u := c.StartServers(cfgs, StartupOptions{})
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if err := u.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if st := u.States()[0]; st.Status != ServerFailed || !strings.Contains(st.Err, "DPE_TUI_TEST_UNSET_VAR") {
			t.Fatalf("unset variable: %+v", st)
		}
	})
	_ = o
}

func TestResolvePlaceholders_Env(t *testing.T) {
	env := func(k string) (string, bool) {
		if k == "TOK" {
			return "v-1", true
		}
		return "", false
	}
	cfg := protocol.MCPServerConfig{Name: "s", Type: "stdio", ServerParameters: json.RawMessage(`{"command":"x","args":["--t=${env:TOK}"],"env":{"A":"${env:TOK}"}}`)}
	out, secrets, err := resolvePlaceholders(cfg, nil, env)
	if err != nil {
		t.Fatal(err)
	}
	if string(out.ServerParameters) != `{"args":["--t=v-1"],"command":"x","env":{"A":"v-1"}}` || len(secrets) != 2 {
		t.Fatalf("got %s, secrets %v", out.ServerParameters, secrets)
	}
	cfg.ServerParameters = json.RawMessage(`{"command":"${env:NOPE}"}`)
	if _, _, err := resolvePlaceholders(cfg, nil, env); err == nil || !strings.Contains(err.Error(), `environment variable "NOPE" is not set`) {
		t.Fatalf("unset: %v", err)
	}
}

// TestReadResource_NonDPE reads listed text and blob resources and a
// template URI (not listed) through resources/read.
func TestReadResource_NonDPE(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "misc", Version: "1"}, nil)
	srv.AddResource(&mcp.Resource{URI: "notes://box/readme.md", Name: "readme", MIMEType: "text/markdown"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# Hi"}}}, nil
		})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "notes://box/blob/{id}", Name: "blob"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2, 0xff}}}}, nil
		})
	o := startOffice(t, Options{}, func(c *Computer) {
		inProc(t, c, "misc", srv)
		inProc(t, c, "tools", newToolsOnlyServer())
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	name, got, err := o.comp.ReadResource(ctx, "", "notes://box/readme.md")
	if err != nil || name != "misc" || len(got) != 1 || got[0].Text != "# Hi" || got[0].IsBlob {
		t.Fatalf("text: %s %+v %v", name, got, err)
	}
	_, got, err = o.comp.ReadResource(ctx, "", "notes://box/blob/7")
	if err != nil || len(got) != 1 || !got[0].IsBlob || string(got[0].Blob) != "\x00\x01\x02\xff" {
		t.Fatalf("blob: %+v %v", got, err)
	}
	if _, _, err := o.comp.ReadResource(ctx, "", "other://x/y"); !errors.Is(err, ErrNoReader) {
		t.Fatalf("unknown origin: %v", err)
	}
	if _, _, err := o.comp.ReadResource(ctx, "tools", "notes://box/readme.md"); err == nil || !strings.Contains(err.Error(), "no resources capability") {
		t.Fatalf("tools-only server: %v", err)
	}
}
