package computer

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// TestRealMCPServer_EverythingPagesThroughGetResources fronts the reference
// MCP "everything" server over stdio, exactly as a config file would, and
// pages its resources through client:get_resources.
func TestRealMCPServer_EverythingPagesThroughGetResources(t *testing.T) {
	node, entry := interoptest.Everything(t)
	params, _ := json.Marshal(protocol.StdioParameters{Command: node, Args: []string{entry, "stdio"}, Env: map[string]string{"EVERYTHING_TEST_SECRET": "s-1"}})
	cfg := protocol.MCPServerConfig{Name: "everything", Type: protocol.ServerTypeStdio, ServerParameters: params}
	o := startOffice(t, Options{}, func(c *Computer) {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if err := c.AddServer(ctx, cfg); err != nil {
			t.Fatalf("AddServer everything: %v", err)
		}
	})

	var all []map[string]json.RawMessage
	pages := 0
	var cursor *string
	for {
		payload := map[string]any{"mcp_server": "everything"}
		if cursor != nil {
			payload["cursor"] = *cursor
		}
		var ret resourcesRet
		if perr := o.agent.call(protocol.EventGetResources, o.name, payload, &ret); perr != nil {
			t.Fatalf("page %d: %v", pages+1, perr)
		}
		pages++
		all = append(all, ret.Resources...)
		if ret.NextCursor == nil {
			break
		}
		cursor = ret.NextCursor
		if pages > 100 {
			t.Fatal("cursor loop")
		}
	}
	if len(all) == 0 {
		t.Fatal("everything listed no resources")
	}
	seen := map[string]bool{}
	for _, r := range all {
		var uri string
		_ = json.Unmarshal(r["uri"], &uri)
		if uri == "" || seen[uri] {
			t.Fatalf("bad or repeated uri %q", uri)
		}
		if len(r["name"]) == 0 || len(r["mimeType"]) == 0 {
			t.Fatalf("resource %s lost name or mimeType: %v", uri, r)
		}
		seen[uri] = true
	}
	t.Logf("everything: %d resources in %d pages: %v", len(all), pages, seen)

	// get_config shows it as configured, env masked.
	args := o.agent.emit(protocol.EventGetConfig, map[string]any{"agent": o.agent.name, "req_id": "r", "computer": o.name})
	raw, _ := json.Marshal(firstArg(args))
	if strings.Contains(string(raw), "s-1") || !strings.Contains(string(raw), `"everything"`) {
		t.Fatalf("get_config: %s", raw)
	}
	// Tools pass through too.
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if perr := o.agent.call(protocol.EventToolCall, o.name, map[string]any{"tool_name": "echo", "params": map[string]any{"message": "hello"}, "timeout": 10}, &res); perr != nil {
		t.Fatal(perr)
	}
	if res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "hello") {
		t.Fatalf("echo via tool_call: %+v", res)
	}
}
