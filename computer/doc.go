// Package computer is the Computer side of A2C-SMCP: a Socket.IO client with
// role "computer" that joins an office, fronts a set of MCP servers (driven
// with the go-sdk client) and answers the client:* events the server routes
// to it — get_config, get_tools, tool_call, get_resources and get_dpe.
//
// get_dpe follows dpe.md §Computer 处理流程: validate the dpe:// URI, route
// it by host to the MCP server that exposes it, resources/read it, check the
// two A2C mimetypes, and hand the contents to a business Resolver that turns
// them into an access URI. Two resolvers ship here: a file resolver (content
// addressed cache directory, file:// URIs) and an HTTP resolver (loopback
// server, signed expiring URLs, manifest mode for large documents).
//
// Spec: ../shared/spec/dpe.md, events.md, data-structures.md,
// error-handling.md; seed 000 wins over dpe.md for host conflicts
// (SHOULD-unique, first-registered-wins with a WARN).
package computer
