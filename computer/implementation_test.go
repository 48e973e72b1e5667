package computer

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/dpe-tui/dpe-tui/internal/version"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// TestAddServer_ClientImplementationIsTheBuildVersion: the MCP client
// introduces itself with the app's version (what --version says), not
// the A2C-SMCP protocol version.
func TestAddServer_ClientImplementationIsTheBuildVersion(t *testing.T) {
	srv := newDocServer(docServerOptions{Host: host, Docs: 1})
	url, _ := serveMCP(t, protocol.ServerTypeStreamable, srv)
	raw, _ := json.Marshal(map[string]any{"url": url})
	cfg := protocol.MCPServerConfig{Name: "remote", Type: protocol.ServerTypeStreamable, ServerParameters: raw}
	startOffice(t, Options{Resolver: NewFileResolver(t.TempDir())}, func(c *Computer) {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if err := c.AddServer(ctx, cfg); err != nil {
			t.Fatalf("AddServer: %v", err)
		}
	})
	n := 0
	for ss := range srv.Sessions() {
		n++
		info := ss.InitializeParams().ClientInfo
		if info.Name != "dpe-tui-computer" || info.Version != version.Read().Short() || info.Version == protocol.Version {
			t.Errorf("clientInfo = %+v, want dpe-tui-computer at the build version %q", *info, version.Read().Short())
		}
	}
	if n == 0 {
		t.Fatal("the server saw no session")
	}
}
