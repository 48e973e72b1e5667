package computer

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// wireResource maps field by field for speed; it must give exactly what a
// JSON round trip of the MCP resource gives.
func TestWireResource_SameAsJSONRoundTrip(t *testing.T) {
	cases := []*mcp.Resource{
		{URI: "dpe://h.example.docs/a", Name: "a"},
		{URI: "dpe://h.example.docs/b", Name: "b", Title: "B", Description: "d", MIMEType: "application/vnd.a2c.dpe-inline+json", Size: 42,
			Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, LastModified: "2026-01-15T08:30:00Z", Priority: 0.5},
			Meta:        mcp.Meta{"keywords": []any{"x", "y"}, "page_count": 3, "nested": map[string]any{"k": true}}},
		{URI: "window://h/status", Name: "status", Meta: mcp.Meta{}},
	}
	for _, r := range cases {
		got, err := wireResource(r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r)
		var want protocol.Resource
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if !reflect.DeepEqual(gb, wb) {
			t.Errorf("%s:\n got %s\nwant %s", r.URI, gb, wb)
		}
	}
}
