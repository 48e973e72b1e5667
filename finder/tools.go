package finder

import (
	"context"
	"fmt"

	"github.com/dpe-tui/dpe-tui/internal/plural"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names. Agents recognise Finder by the name find together with its
// input schema (query, cursor, limit, file_type), not by a server name.
const (
	ToolFind          = "find"
	ToolListDocuments = "list_documents"
)

// AddTools registers find and list_documents on srv. Their input and
// output schemas are inferred from FindParams/FindResult and
// ListParams/ListResult, and the SDK validates both ways.
func (f *Finder) AddTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:  ToolFind,
		Title: "Find in documents",
		Description: "Full-text search over every element of every document this server holds. " +
			"Returns hits with the dpe:// URI, 1-based page and element id, a snippet and a score, " +
			"and how much of the library is indexed so far.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest, p FindParams) (*mcp.CallToolResult, FindResult, error) {
		// A client is its MCP session: on SMCP that is the computer's
		// session, which serves its office's one agent.
		var client any
		if req != nil {
			client = req.Session
		}
		release, err := f.queries.admit(client, f.opt.Limits.maxConcurrent())
		if err != nil {
			return nil, FindResult{}, err
		}
		defer release()
		res, err := f.Find(ctx, p)
		if err != nil {
			return nil, FindResult{}, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
			Text: fmt.Sprintf("%s of %d; %s", plural.Count(len(res.Hits), "hit", "hits"), res.Total, res.Indexed),
		}}}, *res, nil
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name:        ToolListDocuments,
		Title:       "List documents",
		Description: "Every document this server holds, filtered and sorted by name, lastModified or page_count, with cursor paging.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, p ListParams) (*mcp.CallToolResult, ListResult, error) {
		res, err := f.ListDocuments(ctx, p)
		if err != nil {
			return nil, ListResult{}, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
			Text: fmt.Sprintf("%s of %d; %s", plural.Count(len(res.Documents), "document", "documents"), res.Total, res.Indexed),
		}}}, *res, nil
	})
}
