package computer

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// A document the MCP server has but cannot convert (our library's
// MCPCodeConversionFailed) is a 4013 without a category, whose message is
// the library's reason: not upstream_unavailable, which agents retry. The
// same code from a server that does not mark it as ours stays a failed
// read like any other.
func TestGetDPE_ConversionFailureIsNotRetryable(t *testing.T) {
	const convHost = "org.example.convert"
	srv := mcp.NewServer(&mcp.Implementation{Name: "conv", Version: "1"}, nil)
	answer := map[string]*jsonrpc.Error{
		"sheet.xlsx": {Code: protocol.MCPCodeConversionFailed, Message: "sheet.xlsx: page 1: output size over the limit: 134218752 bytes > 134217728 bytes",
			Data: json.RawMessage(`{"conversion":"limit"}`)},
		"foreign": {Code: protocol.MCPCodeConversionFailed, Message: "something else", Data: json.RawMessage(`{"retry":true}`)},
	}
	for name, e := range answer {
		srv.AddResource(&mcp.Resource{URI: "dpe://" + convHost + "/" + name, Name: name, MIMEType: protocol.MimeDPEInline},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, e })
	}
	o := startOffice(t, Options{Resolver: NewFileResolver(t.TempDir())}, func(c *Computer) { inProc(t, c, convHost, srv) })

	_, perr := getDPE(t, o, "dpe://"+convHost+"/sheet.xlsx")
	if perr == nil || perr.Code != protocol.CodeResolutionFailed || perr.Category != "" {
		t.Fatalf("got %+v, want a 4013 without category", perr)
	}
	if want := protocol.ConversionFailedMessage + "sheet.xlsx: page 1: output size over the limit"; !strings.HasPrefix(perr.Message, want) {
		t.Errorf("message %q, want it to start %q", perr.Message, want)
	}
	if perr.Retryable() || perr.DetailReason() != protocol.DetailConversionFailed {
		t.Errorf("retryable %v, details %s", perr.Retryable(), perr.Details)
	}

	_, perr = getDPE(t, o, "dpe://"+convHost+"/foreign")
	if perr == nil || perr.Code != protocol.CodeResolutionFailed || perr.Category != protocol.CategoryUpstreamUnavailable {
		t.Fatalf("a -32050 without our data: got %+v, want 4013 upstream_unavailable", perr)
	}
}
