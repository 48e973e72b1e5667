package protocol

import "encoding/json"

// AgentCallData is embedded in every agent-initiated request.
type AgentCallData struct {
	Agent string `json:"agent"`
	ReqID string `json:"req_id"`
}

// ConnectAuth is the Socket.IO auth object. Only Role is protocol; APIKey is
// this implementation's business-layer extension (data-structures.md §ConnectAuth).
type ConnectAuth struct {
	Role   string `json:"role"`
	APIKey string `json:"api_key,omitempty"`
}

// EnterOfficeReq is the payload of server:join_office.
type EnterOfficeReq struct {
	Role     string `json:"role"`
	Name     string `json:"name"`
	OfficeID string `json:"office_id"`
}

// LeaveOfficeReq is the payload of server:leave_office.
type LeaveOfficeReq struct {
	OfficeID string `json:"office_id"`
}

// OfficeNotification is the payload of notify:enter_office and notify:leave_office.
type OfficeNotification struct {
	OfficeID string  `json:"office_id"`
	Computer *string `json:"computer,omitempty"`
	Agent    *string `json:"agent,omitempty"`
}

// ComputerNotification is the payload of server:update_* and notify:update_*.
type ComputerNotification struct {
	Computer string `json:"computer"`
}

// ListRoomReq is the payload of server:list_room.
type ListRoomReq struct {
	AgentCallData
	OfficeID string `json:"office_id"`
}

// SessionInfo describes one member of an office.
type SessionInfo struct {
	SID        string `json:"sid"`
	Name       string `json:"name"`
	Role       string `json:"role"`
	OfficeID   string `json:"office_id"`
	A2CVersion string `json:"a2c_version"`
}

// ListRoomRet answers server:list_room.
type ListRoomRet struct {
	Sessions []SessionInfo `json:"sessions"`
	ReqID    string        `json:"req_id"`
}

// GetConfigReq is the payload of client:get_config.
type GetConfigReq struct {
	AgentCallData
	Computer string `json:"computer"`
}

// GetConfigRet answers client:get_config. Servers are kept as raw JSON per
// server so that fields this version does not know survive a round trip.
type GetConfigRet struct {
	Inputs  []json.RawMessage          `json:"inputs"`
	Servers map[string]json.RawMessage `json:"servers"`
}

// GetResourcesReq is the payload of client:get_resources.
type GetResourcesReq struct {
	AgentCallData
	Computer  string    `json:"computer"`
	MCPServer ServerKey `json:"mcp_server"` // the servers-map key, never the display name
	Cursor    *string   `json:"cursor,omitempty"`
	Timeout   int       `json:"timeout,omitempty"`
}

// GetResourcesRet answers client:get_resources: one MCP resources/list page.
type GetResourcesRet struct {
	Resources  []Resource `json:"resources"`
	NextCursor string     `json:"next_cursor,omitempty"`
	ReqID      string     `json:"req_id"`
}

// Resource is an MCP Resource as resources/list returns it (camelCase, as MCP
// spells it). Meta and Annotations stay raw so nothing a server sends is lost.
type Resource struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name,omitempty"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MimeType    string          `json:"mimeType,omitempty"`
	Size        *int64          `json:"size,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// GetDPEReq is the payload of client:get_dpe.
type GetDPEReq struct {
	AgentCallData
	Computer string `json:"computer"`
	URI      string `json:"uri"`
	Timeout  int    `json:"timeout,omitempty"`
}

// A2CResource is the resolver's output shape (data-structures.md §A2CResource).
type A2CResource struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	MimeType    string          `json:"mime_type,omitempty"`
	Size        *int64          `json:"size,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Meta        *AccessMeta     `json:"_meta,omitempty"`
}

// AccessMeta carries the access-layer hints of a resolved URI.
type AccessMeta struct {
	ExpiresAt string `json:"expires_at,omitempty"`
	ETag      string `json:"etag,omitempty"`
}

// GetDPERet answers client:get_dpe: A2CResource plus req_id.
type GetDPERet struct {
	A2CResource
	ReqID string `json:"req_id"`
}

// DPEURIRef is the text of an application/vnd.a2c.dpe-uri+json resource.
type DPEURIRef struct {
	URI       string `json:"uri"`
	MimeType  string `json:"mime_type,omitempty"`
	Size      *int64 `json:"size,omitempty"`
	ExpiresAt string `json:"expires_at,omitempty"`
	ETag      string `json:"etag,omitempty"`
}

// GetToolsReq is the payload of client:get_tools.
type GetToolsReq struct {
	AgentCallData
	Computer string `json:"computer"`
}

// SMCPTool is one tool in GetToolsRet. BundleID (0.3) is the key of the
// server the tool belongs to; Name is opaque to the agent and must not be
// split to find it.
type SMCPTool struct {
	Name         string          `json:"name"`
	BundleID     ServerKey       `json:"bundle_id,omitempty"`
	Description  string          `json:"description"`
	ParamsSchema json.RawMessage `json:"params_schema"`
	ReturnSchema json.RawMessage `json:"return_schema"`
	Meta         map[string]any  `json:"meta,omitempty"`
}

// GetToolsRet answers client:get_tools.
type GetToolsRet struct {
	Tools []SMCPTool `json:"tools"`
	ReqID string     `json:"req_id"`
}

// ToolCallReq is the payload of client:tool_call.
type ToolCallReq struct {
	AgentCallData
	Computer string         `json:"computer"`
	ToolName string         `json:"tool_name"`
	Params   map[string]any `json:"params"`
	Timeout  int            `json:"timeout"`
}

// GetDesktopReq asks a computer for its desktop (client:get_desktop,
// data-structures.md §GetDeskTopReq).
type GetDesktopReq struct {
	AgentCallData
	Computer    string `json:"computer"`
	DesktopSize int    `json:"desktop_size,omitempty"` // at most this many windows; 0: no limit asked
	Window      string `json:"window,omitempty"`       // only this window:// URI
}

// GetDesktopRet answers client:get_desktop: one string per window, its
// window:// URI, then "\n\n" and its text when it has any.
type GetDesktopRet struct {
	Desktops []any  `json:"desktops"` // strings; anything else is reported, not trusted
	ReqID    string `json:"req_id,omitempty"`
}

// WindowScheme is the URI scheme of desktop windows.
const WindowScheme = "window"

// ToolMetaKey is where an MCP server declares A2C tool metadata in its
// Tool._meta (0.4.0, protocol#51; data-structures.md §ToolMeta 三层合并规则).
const ToolMetaKey = "a2c_tool_meta"

// A2CToolMeta reads Meta[ToolMetaKey] as a ToolMeta. False when absent or
// not an object; fields of the wrong type read as absent.
func (t SMCPTool) A2CToolMeta() (ToolMeta, bool) {
	raw, ok := t.Meta[ToolMetaKey].(map[string]any)
	if !ok {
		return ToolMeta{}, false
	}
	var tm ToolMeta
	if b, ok := raw["auto_apply"].(bool); ok {
		tm.AutoApply = &b
	}
	if s, ok := raw["alias"].(string); ok {
		tm.Alias = &s
	}
	if m, ok := raw["ret_object_mapper"].(map[string]any); ok {
		tm.RetObjectMapper = m
	}
	tm.Tags = stringList(raw["tags"])
	return tm, true
}
