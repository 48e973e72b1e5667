package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// keyedOffice adds a 0.3 computer "box" to f, as smcp_peer_03.py serves
// it: servers keyed by bundle_id, two of them with the display name "docs".
// Its get_resources routes by key only; anything else (a display name) is
// 4014, as a 0.3 server answers.
func keyedOffice(f *fakeAgent) {
	f.computers = append(f.computers, protocol.SessionInfo{SID: "s3", Name: "box", Role: protocol.RoleComputer, OfficeID: "demo", A2CVersion: "0.3.0"})
	stdio := func(cmd string) json.RawMessage { return json.RawMessage(`{"command":"` + cmd + `","args":[]}`) }
	f.configs["box"] = &client.Config{Servers: []client.ServerConfig{
		{Key: "com.example.browser", Name: "browser", Type: "stdio", Parameters: stdio("browser")},
		{Key: "com.example.docs.v1", Name: "docs", Type: "stdio", Parameters: stdio("docs")},
		{Key: "org.other.docs", Name: "docs", Type: "stdio", Parameters: stdio("docs")},
	}}
	for _, s := range f.configs["box"].Servers {
		host := strings.TrimSuffix(string(s.Key), ".v1")
		f.pages[string(s.Key)] = map[string]*client.ResourcePage{"": {Resources: []client.Resource{
			res("dpe://"+host+"/report", "report of "+host, "application/vnd.a2c.dpe-uri+json", nil),
		}}}
	}
	f.resourcesFor = func(server string) error {
		if _, ok := f.pages[server]; !ok {
			return &protocol.Error{Code: protocol.CodeMCPServerNotFound, Message: fmt.Sprintf("MCP server %s not found", server), MCPServerName: server}
		}
		return nil
	}
}

// TestServers_CollidingNamesShowTheirKeys: on a 0.3 computer two servers
// share the display name "docs"; the servers screen has a KEY column that
// tells them apart.
func TestServers_CollidingNamesShowTheirKeys(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			s := startKeyed(t, size)
			s.keys("down", "down")
			out := s.final()
			for _, key := range []string{"com.example.docs.v1", "org.other.docs", "KEY"} {
				if !strings.Contains(out, key) {
					t.Errorf("%s not on the servers screen:\n%s", key, out)
				}
			}
			golden.RequireEqual(t, out)
		})
	}
}

// TestServers_EnterListsTheServerByItsKey: enter on the second "docs"
// lists its resources: the request names its key (a display name is 4014
// there), and the breadcrumb names it with its key.
func TestServers_EnterListsTheServerByItsKey(t *testing.T) {
	s := startKeyed(t, [2]int{80, 24})
	s.keys("down", "down", "enter")
	s.waitFor("report of org.other")
	out := s.final()
	if strings.Contains(out, "4014") {
		t.Fatalf("a request named a server by its display name:\n%s", out)
	}
	if !strings.Contains(out, "docs (org.other.docs)") {
		t.Errorf("the breadcrumb does not name the server with its key:\n%s", out)
	}
	golden.RequireEqual(t, out)
}

// startKeyed opens the 0.3 computer's servers screen.
func startKeyed(t *testing.T, size [2]int) *session {
	t.Helper()
	f := newFakeAgent(t)
	keyedOffice(f)
	opt := testOptions(f)
	opt.Width, opt.Height = size[0], size[1]
	s := start(t, opt)
	s.waitFor("build-box")
	s.waitFor("3 enabled") // box, first in the office
	s.keys("enter")
	s.waitFor("org.other.docs")
	return s
}

// TestServers_KeyColumnOnlyWhenAKeyDiffersFromItsName: a 0.2 computer's
// servers are keyed by name, and the list has no KEY column.
func TestServers_KeyColumnOnlyWhenAKeyDiffersFromItsName(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	v := newServersScreen(m.e, "laptop", f.configs["laptop"])
	for i := range f.configs["laptop"].Servers {
		f.configs["laptop"].Servers[i].Key = protocol.ServerKey(f.configs["laptop"].Servers[i].Name)
	}
	v.arrange(100, 20)
	if frame := strings.Join(v.View(100, 20), "\n"); strings.Contains(frame, "KEY") {
		t.Fatalf("0.2 servers list has a KEY column:\n%s", frame)
	}
	keyedOffice(f)
	v = newServersScreen(m.e, "box", f.configs["box"])
	v.arrange(100, 20)
	frame := strings.Join(v.View(100, 20), "\n")
	if !strings.Contains(frame, "KEY") || !strings.Contains(frame, "com.example.docs.v1") {
		t.Fatalf("0.3 servers list does not show keys:\n%s", frame)
	}
}
