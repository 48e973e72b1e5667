package protocol

// ServerKey names an MCP server on the wire: its key in the servers map of
// client:get_config. In 0.2 that key is the server's name; from 0.3 it is
// its bundle_id, while the entry's name is for display only and may be
// shared by two servers of one computer (data-structures.md §身份正交性).
// Every client:* request that names a server (mcp_server of get_resources,
// the server part of an mcp skill name, 4014's mcp_server) carries a key.
//
// It is its own type so that a display name, a plain string, cannot be
// sent where a key belongs without a visible conversion.
type ServerKey string

// String is the key as text, for messages and the render boundary.
func (k ServerKey) String() string { return string(k) }
