package computer

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/dpe-tui/dpe-tui/protocol"
)

type resourcesRet struct {
	Resources  []map[string]json.RawMessage `json:"resources"`
	NextCursor *string                      `json:"next_cursor"`
	ReqID      string                       `json:"req_id"`
}

func TestGetResources_PagesWithCursorsTransparently(t *testing.T) {
	const docs = 120
	o := startOffice(t, Options{}, func(c *Computer) {
		inProc(t, c, "lib", newDocServer(docServerOptions{Host: "com.example.docs", Docs: docs, PageSize: 25}))
	})
	var uris []string
	seen := map[string]bool{}
	pages := 0
	var cursor *string
	for {
		payload := map[string]any{"mcp_server": "lib"}
		if cursor != nil {
			payload["cursor"] = *cursor
		}
		var ret resourcesRet
		if perr := o.agent.call(protocol.EventGetResources, o.name, payload, &ret); perr != nil {
			t.Fatalf("page %d: %v", pages, perr)
		}
		if ret.ReqID == "" {
			t.Fatalf("page %d: req_id missing", pages)
		}
		pages++
		if len(ret.Resources) > 25 {
			t.Fatalf("page %d has %d resources, want ≤ 25 (the MCP page size)", pages, len(ret.Resources))
		}
		for _, r := range ret.Resources {
			var uri string
			_ = json.Unmarshal(r["uri"], &uri)
			if seen[uri] {
				t.Fatalf("resource %s listed twice", uri)
			}
			seen[uri] = true
			uris = append(uris, uri)
		}
		if ret.NextCursor == nil {
			break
		}
		if *ret.NextCursor == "" {
			t.Fatalf("page %d: next_cursor present but empty; it must be omitted at the end", pages)
		}
		cursor = ret.NextCursor
		if pages > 50 {
			t.Fatal("cursor loop")
		}
	}
	total := docs + 8 // the special resources of newDocServer
	if len(uris) != total {
		t.Fatalf("listed %d resources, want %d", len(uris), total)
	}
	if want := (total + 24) / 25; pages != want {
		t.Fatalf("%d pages, want %d", pages, want)
	}
}

func TestGetResources_KeepsEveryResourceField(t *testing.T) {
	o := startOffice(t, Options{}, func(c *Computer) {
		inProc(t, c, "lib", newDocServer(docServerOptions{Host: "com.example.docs", Docs: 3}))
	})
	var ret resourcesRet
	if perr := o.agent.call(protocol.EventGetResources, o.name, map[string]any{"mcp_server": "lib"}, &ret); perr != nil {
		t.Fatal(perr)
	}
	var got map[string]json.RawMessage
	for _, r := range ret.Resources {
		if string(r["uri"]) == `"dpe://com.example.docs/doc-001"` {
			got = r
		}
	}
	if got == nil {
		t.Fatalf("doc-001 not listed: %v", ret.Resources)
	}
	want := map[string]string{
		"uri":         `"dpe://com.example.docs/doc-001"`,
		"name":        `"doc-001"`,
		"title":       `"Title doc-001"`,
		"description": `"desc doc-001"`,
		"mimeType":    `"application/json"`,
		"size":        `101`,
		"annotations": `{"audience":["user"],"lastModified":"2026-01-15T08:30:00Z"}`,
		"_meta":       `{"file_type":"md","keywords":["kdoc-001"],"page_count":3}`,
	}
	for k, v := range want {
		if string(got[k]) != v {
			t.Errorf("%s = %s, want %s", k, got[k], v)
		}
	}
}

func TestGetResources_ErrorPayloads(t *testing.T) {
	o := startOffice(t, Options{}, func(c *Computer) {
		inProc(t, c, "lib", newDocServer(docServerOptions{Host: "com.example.docs", Docs: 1}))
		inProc(t, c, "tools", newToolsOnlyServer())
		inProc(t, c, "off", newDocServer(docServerOptions{Host: "com.example.off", Docs: 1}),
			func(cfg *protocol.MCPServerConfig) { cfg.Disabled = true })
	})
	tests := []struct {
		name   string
		server string
		want   protocol.Error
	}{
		{"UnknownServerIs4014", "nope", protocol.Error{Code: 4014, MCPServerName: "nope"}},
		{"ToolsOnlyServerIs4015", "tools", protocol.Error{Code: 4015, MCPServerName: "tools", Capability: "resources"}},
		{"DisabledServerIs4014", "off", protocol.Error{Code: 4014, MCPServerName: "off"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			perr := o.agent.call(protocol.EventGetResources, o.name, map[string]any{"mcp_server": tc.server}, nil)
			if perr == nil {
				t.Fatal("no error")
			}
			if perr.Code != tc.want.Code || perr.MCPServerName != tc.want.MCPServerName || perr.Capability != tc.want.Capability {
				t.Fatalf("got %+v, want %+v", perr, tc.want)
			}
			if perr.Message == "" {
				t.Fatal("message empty")
			}
		})
	}
}

var _ = fmt.Sprint
