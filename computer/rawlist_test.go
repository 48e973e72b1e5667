package computer

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// get_resources on an in-process server answers with the resources as the
// MCP server encoded them (go-sdk's field order, _meta first), not
// re-encoded in the wire struct's order, and they say exactly what the
// re-encoded page says; next_cursor and req_id are as encoding/json writes
// protocol.GetResourcesRet.
func TestGetResources_ForwardsTheMCPServersRawJSON(t *testing.T) {
	o := startOffice(t, Options{}, func(c *Computer) {
		inProc(t, c, "lib", newDocServer(docServerOptions{Host: "com.example.docs", Docs: 30, PageSize: 25}))
	})
	ctx := context.Background()
	res := o.comp.handleGetResources(ctx, json.RawMessage(`{"mcp_server":"lib","req_id":"r<1>"}`))
	ack, ok := res.(json.RawMessage)
	if !ok {
		t.Fatalf("answer is %T, want the raw JSON ack", res)
	}
	var got struct {
		Resources  []json.RawMessage `json:"resources"`
		NextCursor string            `json:"next_cursor"`
		ReqID      string            `json:"req_id"`
	}
	if err := json.Unmarshal(ack, &got); err != nil {
		t.Fatalf("ack %s: %v", ack, err)
	}
	if got.ReqID != "r<1>" || got.NextCursor == "" || len(got.Resources) != 25 {
		t.Fatalf("req_id %q, next_cursor %q, %d resources", got.ReqID, got.NextCursor, len(got.Resources))
	}
	// The same page the way go-sdk decoded it, in the wire shape.
	page, err := o.comp.listResources(ctx, o.comp.server("lib"), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	wire, err := page.wire()
	if err != nil || len(wire) != 25 {
		t.Fatalf("typed page: %d resources, %v", len(wire), err)
	}
	for i, raw := range got.Resources {
		var r mcp.Resource
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		enc, _ := json.Marshal(&r)
		if !bytes.Equal(enc, raw) {
			t.Errorf("resource %d = %s, want go-sdk's own encoding %s", i, raw, enc)
		}
		var pr protocol.Resource
		_ = json.Unmarshal(raw, &pr)
		if a, b := mustJSON(t, pr), mustJSON(t, wire[i]); a != b {
			t.Errorf("resource %d says %s, the re-encoded page %s", i, a, b)
		}
	}
	// The last page: next_cursor omitted, as by the struct's omitempty.
	last := o.comp.handleGetResources(ctx, json.RawMessage(`{"mcp_server":"lib","req_id":"r2","cursor":`+mustJSON(t, got.NextCursor)+`}`))
	lastAck, _ := last.(json.RawMessage)
	if !bytes.HasSuffix(lastAck, []byte(`],"req_id":"r2"}`)) || bytes.Contains(lastAck, []byte("next_cursor")) {
		t.Errorf("last page ack ends %q", lastAck[max(0, len(lastAck)-60):])
	}
	// get_dpe's cache still holds every listed resource in the wire shape.
	if r, ok := o.comp.server("lib").cachedResource("dpe://com.example.docs/doc-001"); !ok || r.Name != "doc-001" || len(r.Meta) == 0 {
		t.Errorf("cached doc-001 = %+v, %v", r, ok)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A kept result is forwarded only when it is an object whose resources are
// an array; anything else falls back to the re-encoded page.
func TestRawResult_ResourcesArrayOrNothing(t *testing.T) {
	for _, tc := range []struct {
		got  string
		n    int
		want string
	}{
		{``, 0, ``},
		{`{"resources":[{"uri":"a"}],"nextCursor":"x"}`, 1, `[{"uri":"a"}]`},
		{`{"resources":[]}`, 0, `[]`},
		{`{"resources":null}`, 0, ``},
		{`{"resources":{"uri":"a"}}`, 1, ``},
		{`{"nextCursor":"x"}`, 0, ``},
		{`[1]`, 0, ``},
		{`{"resources":[1]`, 1, ``},
	} {
		r := &rawResult{}
		if tc.got != "" {
			r.set(json.RawMessage(tc.got))
		}
		if got := string(r.resources(tc.n)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.got, got, tc.want)
		}
	}
}
