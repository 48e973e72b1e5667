package computer

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
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
	// The same page the way go-sdk decodes it (a call without a raw
	// result to fill), in the wire shape.
	res2, err := o.comp.server("lib").session.ListResources(ctx, &mcp.ListResourcesParams{})
	if err != nil {
		t.Fatal(err)
	}
	wire, err := resourcePage{list: res2.Resources}.wire()
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
// an array of objects with string uris and whose nextCursor is a string;
// anything else is left to go-sdk, which decodes it as for any transport.
func TestParseRawPage_ArrayOfObjectsOrNothing(t *testing.T) {
	for _, tc := range []struct {
		result string
		ok     bool
		uris   []string
		next   string
	}{
		{`{"resources":[{"uri":"a"},{"name":"no uri"}],"nextCursor":"x"}`, true, []string{"a", ""}, "x"},
		{`{"resources":[]}`, true, []string{}, ""},
		{`{"resources":[ {"uri":"dpe://h/caf\u00e9"} ] , "ttl":0}`, true, []string{"dpe://h/café"}, ""},
		{`{"resources":null}`, false, nil, ""},
		{`{"resources":[null]}`, false, nil, ""},
		{`{"resources":[1]}`, false, nil, ""},
		{`{"resources":[{"uri":5}]}`, false, nil, ""},
		{`{"resources":{"uri":"a"}}`, false, nil, ""},
		{`{"resources":[],"nextCursor":7}`, false, nil, ""},
		{`{"nextCursor":"x"}`, false, nil, ""},
		{`[1]`, false, nil, ""},
		{`{"resources":[{"uri":"a"}]`, false, nil, ""},
	} {
		page, ok := parseRawPage(json.RawMessage(tc.result))
		if ok != tc.ok {
			t.Errorf("%s: ok = %v, want %v", tc.result, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		uris := []string{}
		for _, e := range page.entries {
			uris = append(uris, e.uri)
			if !json.Valid(e.raw) || e.raw[0] != '{' {
				t.Errorf("%s: entry %q is not the object's bytes", tc.result, e.raw)
			}
		}
		if strings.Join(uris, "|") != strings.Join(tc.uris, "|") || len(uris) != len(tc.uris) || page.next != tc.next {
			t.Errorf("%s: uris %q next %q, want %q %q", tc.result, uris, page.next, tc.uris, tc.next)
		}
		if !json.Valid(page.resources) || page.resources[0] != '[' {
			t.Errorf("%s: resources %q", tc.result, page.resources)
		}
	}
}
