package client

import (
	"context"
	"encoding/json"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// GetTools lists the tools of computer's MCP servers (client:get_tools).
func (c *Client) GetTools(ctx context.Context, computer string) ([]protocol.SMCPTool, error) {
	var ret protocol.GetToolsRet
	_, err := c.do(ctx, protocol.EventGetTools, computer,
		protocol.GetToolsReq{AgentCallData: c.agentCall(), Computer: computer}, &ret)
	if err != nil {
		return nil, err
	}
	return ret.Tools, nil
}

// ToolCall calls tool on computer (client:tool_call) and returns the MCP
// CallToolResult JSON as the computer sent it; decoding it is the caller's
// business (a tool failure is a result with isError, not an error here).
func (c *Client) ToolCall(ctx context.Context, computer, tool string, params map[string]any) (json.RawMessage, error) {
	if params == nil {
		params = map[string]any{}
	}
	return c.do(ctx, protocol.EventToolCall, computer, protocol.ToolCallReq{
		AgentCallData: c.agentCall(), Computer: computer, ToolName: tool, Params: params, Timeout: c.timeoutSeconds(),
	}, nil)
}
