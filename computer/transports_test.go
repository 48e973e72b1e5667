package computer

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// serveMCP serves srv over HTTP on 127.0.0.1:0 with the given go-sdk
// handler kind and records the Authorization headers it sees.
func serveMCP(t *testing.T, kind string, srv *mcp.Server) (url string, auth func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	var h http.Handler
	switch kind {
	case protocol.ServerTypeStreamable:
		h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	case protocol.ServerTypeSSE:
		h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	})}
	go func() { _ = hs.Serve(l) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + l.Addr().String() + "/mcp", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

func TestAddServer_StreamableAndSSEWithHeaders(t *testing.T) {
	for _, kind := range []string{protocol.ServerTypeStreamable, protocol.ServerTypeSSE} {
		t.Run(kind, func(t *testing.T) {
			url, auth := serveMCP(t, kind, newDocServer(docServerOptions{Host: host, Docs: 30, PageSize: 10}))
			params := map[string]any{"url": url, "headers": map[string]any{"Authorization": "Bearer h-1"}}
			if kind == protocol.ServerTypeStreamable {
				params["timeout"] = "PT20S"
			} else {
				params["timeout"] = 20
			}
			raw, _ := json.Marshal(params)
			cfg := protocol.MCPServerConfig{Name: "remote", Type: kind, ServerParameters: raw}
			o := startOffice(t, Options{Resolver: NewFileResolver(t.TempDir())}, func(c *Computer) {
				ctx, cancel := context.WithTimeout(context.Background(), wait)
				defer cancel()
				if err := c.AddServer(ctx, cfg); err != nil {
					t.Fatalf("AddServer %s: %v", kind, err)
				}
			})
			var ret resourcesRet
			if perr := o.agent.call(protocol.EventGetResources, o.name, map[string]any{"mcp_server": "remote"}, &ret); perr != nil {
				t.Fatal(perr)
			}
			if len(ret.Resources) != 10 || ret.NextCursor == nil {
				t.Fatalf("first page: %d resources, next %v", len(ret.Resources), ret.NextCursor)
			}
			if _, perr := getDPE(t, o, "dpe://"+host+"/doc-007"); perr != nil {
				t.Fatalf("get_dpe over %s: %v", kind, perr)
			}
			for i, a := range auth() {
				if a != "Bearer h-1" {
					t.Fatalf("request %d carried Authorization %q, want the configured header", i, a)
				}
			}
			if len(auth()) == 0 {
				t.Fatal("server saw no requests")
			}
		})
	}
}
