package computer

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func (c *Computer) handlers() map[string]handlerFunc {
	h := map[string]handlerFunc{
		protocol.EventGetConfig:    c.handleGetConfig,
		protocol.EventGetResources: c.handleGetResources,
		protocol.EventGetTools:     c.handleGetTools,
		protocol.EventToolCall:     c.handleToolCall,
		protocol.EventGetDesktop:   c.handleGetDesktop,
		protocol.EventGetSkills:    c.handleGetSkills,
		protocol.EventGetSkill:     c.handleGetSkill,
		protocol.EventGetBlob:      c.handleGetBlob,
	}
	if protocol.HasPutBlob(cmp.Or(c.opt.Version, protocol.Version)) {
		h[protocol.EventPutBlob] = c.handlePutBlob
	}
	if protocol.HasGetDPE(cmp.Or(c.opt.Version, protocol.Version)) {
		h[protocol.EventGetDPE] = c.handleGetDPE
	}
	return h
}

func badRequest(ev string, err error) *protocol.Error {
	return &protocol.Error{Code: protocol.CodeBadRequest, Message: fmt.Sprintf("%s: bad request: %v", ev, err)}
}

// requestTimeout is the request's own timeout (seconds) when given.
func requestTimeout(seconds int) time.Duration {
	if seconds > 0 {
		return time.Duration(seconds) * time.Second
	}
	return 0
}

// getConfigRet is GetComputerConfigRet (data-structures.md).
type getConfigRet struct {
	Inputs  []protocol.MCPServerInput           `json:"inputs"`
	Servers map[string]protocol.MCPServerConfig `json:"servers"`
}

// handleGetConfig answers client:get_config with every registered server
// (disabled ones too) as configured, secrets masked.
func (c *Computer) handleGetConfig(_ context.Context, raw json.RawMessage) any {
	var req protocol.GetConfigReq
	if err := json.Unmarshal(raw, &req); err != nil && len(raw) > 0 {
		return badRequest(protocol.EventGetConfig, err)
	}
	ret := getConfigRet{Inputs: maskInputs(c.opt.Inputs), Servers: map[string]protocol.MCPServerConfig{}}
	for _, s := range c.snapshot() {
		ret.Servers[s.cfg.Name] = maskConfig(s.cfg)
	}
	return &ret
}

// lookupForResources applies events.md §client:get_resources steps 1–2.
// A disabled server is answered with 4014 as well: it is configured but not
// running, so for routing purposes it is not there; the message says
// "disabled" so that the operator can tell the two apart.
func (c *Computer) lookupForResources(name string) (*mcpServer, *protocol.Error) {
	s := c.server(name)
	if s == nil {
		return nil, &protocol.Error{Code: protocol.CodeMCPServerNotFound,
			Message: fmt.Sprintf("MCP server %s is not registered", quoteTrunc(name)), MCPServerName: name}
	}
	if s.start.err != "" {
		return nil, startFailed(s)
	}
	if s.session == nil {
		return nil, &protocol.Error{Code: protocol.CodeMCPServerNotFound,
			Message: fmt.Sprintf("MCP server %s is disabled", quoteTrunc(name)), MCPServerName: name}
	}
	if !s.hasResources() {
		return nil, capabilityMissing(name)
	}
	return s, nil
}

func capabilityMissing(name string) *protocol.Error {
	return &protocol.Error{Code: protocol.CodeCapabilityMissing,
		Message:       "MCP Server does not support 'resources' capability",
		MCPServerName: name, Capability: "resources"}
}

// handleGetResources is the transparent resources/list pass-through
// (events.md §client:get_resources): one MCP page per request, cursor in,
// next_cursor out, no filtering.
func (c *Computer) handleGetResources(ctx context.Context, raw json.RawMessage) any {
	var req protocol.GetResourcesReq
	if err := json.Unmarshal(raw, &req); err != nil {
		return badRequest(protocol.EventGetResources, err)
	}
	s, perr := c.lookupForResources(string(req.MCPServer))
	if perr != nil {
		return perr
	}
	cursor := ""
	if req.Cursor != nil {
		cursor = *req.Cursor
	}
	timeout := requestTimeout(req.Timeout)
	page, err := c.pageAt(ctx, s, cursor, timeout)
	if err != nil {
		return mcpCallError(fmt.Sprintf("resources/list on %s", quoteTrunc(s.cfg.Name)), err)
	}
	// The agent asks for the next page as soon as it has read this one.
	c.startAhead(s, page.next, timeout)
	if page.rawPage != nil {
		return resourcesAck(page.resources, page.next, req.ReqID)
	}
	list, err := page.wire()
	if err != nil {
		return mcpCallError(fmt.Sprintf("resources/list on %s", quoteTrunc(s.cfg.Name)), err)
	}
	return &protocol.GetResourcesRet{Resources: list, NextCursor: page.next, ReqID: req.ReqID}
}

// resourcesAck is protocol.GetResourcesRet with its resources given as the
// raw JSON array the MCP server sent, written as encoding/json would write
// the struct (next_cursor omitted when empty), so the resources are not
// re-encoded on their way to the agent.
func resourcesAck(resources json.RawMessage, next, reqID string) json.RawMessage {
	n, _ := json.Marshal(next)
	id, _ := json.Marshal(reqID)
	b := make([]byte, 0, len(resources)+len(n)+len(id)+48)
	b = append(b, `{"resources":`...)
	b = append(b, resources...)
	if next != "" {
		b = append(b, `,"next_cursor":`...)
		b = append(b, n...)
	}
	b = append(b, `,"req_id":`...)
	b = append(b, id...)
	return append(b, '}')
}

// mcpCallError maps a failed MCP call to a flat error: timeouts → 408,
// invalid params (e.g. a bad cursor) → 400, anything else → 500.
func mcpCallError(what string, err error) *protocol.Error {
	code := protocol.CodeInternal
	var je *jsonrpc.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		code = protocol.CodeTimeout
	case errors.As(err, &je) && je.Code == jsonrpc.CodeInvalidParams:
		code = protocol.CodeBadRequest
	}
	return &protocol.Error{Code: code, Message: what + " failed: " + oneLine(err.Error(), 300)}
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}

// toolRef is one tool of one server.
type toolRef struct {
	server *mcpServer
	tool   *mcp.Tool
}

// tools lists the tools of every running server with the tools capability,
// in registration order, forbidden tools left out.
func (c *Computer) tools(ctx context.Context) []toolRef {
	var out []toolRef
	for _, s := range c.snapshot() {
		if s.session == nil || !s.hasTools() {
			continue
		}
		forbidden := map[string]bool{}
		for _, t := range s.cfg.ForbiddenTools {
			forbidden[t] = true
		}
		cctx, cancel := c.callContext(ctx, s.timeout)
		cursor := ""
		for range maxScanPages {
			res, err := s.session.ListTools(cctx, &mcp.ListToolsParams{Cursor: cursor})
			if err != nil {
				// One broken server must not hide every other server's
				// tools; it is logged and skipped.
				c.log.Warn("tools/list failed; skipping server", "mcp_server", s.cfg.Name, "err", err)
				break
			}
			for _, t := range res.Tools {
				if t != nil && !forbidden[t.Name] {
					out = append(out, toolRef{s, t})
				}
			}
			if res.NextCursor == "" || res.NextCursor == cursor {
				break
			}
			cursor = res.NextCursor
		}
		cancel()
	}
	return out
}

// toolMeta is the A2C metadata of a tool: its own entry, else the server's
// default.
func toolMeta(s *mcpServer, name string) *protocol.ToolMeta {
	if m, ok := s.cfg.ToolMeta[name]; ok {
		return &m
	}
	return s.cfg.DefaultToolMeta
}

// smcpTool renders a tool per data-structures.md §SMCPTool.meta 序列化规范:
// A2C metadata under "a2c_tool_meta" and MCP annotations under
// "MCP_TOOL_ANNOTATION", both as JSON strings; the tool's own _meta keys
// beside them.
func smcpTool(ref toolRef) protocol.SMCPTool {
	t := ref.tool
	meta := map[string]any{}
	for k, v := range t.Meta {
		meta[k] = v
	}
	if tm := toolMeta(ref.server, t.Name); tm != nil {
		full := map[string]any{"auto_apply": tm.AutoApply, "alias": tm.Alias, "tags": tm.Tags, "ret_object_mapper": tm.RetObjectMapper}
		if b, err := json.Marshal(full); err == nil {
			meta["a2c_tool_meta"] = string(b)
		}
	}
	if t.Annotations != nil {
		if b, err := json.Marshal(t.Annotations); err == nil {
			meta["MCP_TOOL_ANNOTATION"] = string(b)
		}
	}
	params, _ := json.Marshal(t.InputSchema)
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage(`{"type":"object"}`)
	}
	ret := json.RawMessage("null")
	if t.OutputSchema != nil {
		if b, err := json.Marshal(t.OutputSchema); err == nil {
			ret = b
		}
	}
	return protocol.SMCPTool{Name: t.Name, Description: t.Description, ParamsSchema: params, ReturnSchema: ret, Meta: meta}
}

func (c *Computer) handleGetTools(ctx context.Context, raw json.RawMessage) any {
	var req protocol.GetToolsReq
	if err := json.Unmarshal(raw, &req); err != nil {
		return badRequest(protocol.EventGetTools, err)
	}
	refs := c.tools(ctx)
	ret := protocol.GetToolsRet{Tools: make([]protocol.SMCPTool, 0, len(refs)), ReqID: req.ReqID}
	for _, r := range refs {
		ret.Tools = append(ret.Tools, smcpTool(r))
	}
	return &ret
}

// toolError is a CallToolResult with isError (error-handling.md
// §client:tool_call 响应: tool failures are results, not ErrorPayloads).
func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// handleToolCall calls the named tool (or the tool whose a2c alias it is)
// on the first registered server that has it, and answers the MCP
// CallToolResult.
func (c *Computer) handleToolCall(ctx context.Context, raw json.RawMessage) any {
	var req protocol.ToolCallReq
	if err := json.Unmarshal(raw, &req); err != nil {
		return badRequest(protocol.EventToolCall, err)
	}
	for _, s := range c.snapshot() {
		for _, f := range s.cfg.ForbiddenTools {
			if f == req.ToolName {
				return toolError(fmt.Sprintf("tool %s is forbidden on MCP server %s", quoteTrunc(req.ToolName), quoteTrunc(s.cfg.Name)))
			}
		}
	}
	refs := c.tools(ctx)
	var target *toolRef
	for i, r := range refs {
		if r.tool.Name == req.ToolName {
			target = &refs[i]
			break
		}
	}
	if target == nil {
		for i, r := range refs {
			if tm := toolMeta(r.server, r.tool.Name); tm != nil && tm.Alias != nil && *tm.Alias == req.ToolName {
				target = &refs[i]
				break
			}
		}
	}
	if target == nil {
		return toolError(fmt.Sprintf("tool %s not found", quoteTrunc(req.ToolName)))
	}
	cctx, cancel := c.callContext(ctx, requestTimeout(req.Timeout))
	defer cancel()
	res, err := target.server.session.CallTool(cctx, &mcp.CallToolParams{Name: target.tool.Name, Arguments: req.Params})
	if err != nil {
		r := toolError(fmt.Sprintf("tool %s failed: %s", quoteTrunc(req.ToolName), oneLine(err.Error(), 300)))
		if errors.Is(err, context.DeadlineExceeded) {
			r.Meta = mcp.Meta{"timeout": true}
		}
		return r
	}
	return res
}
