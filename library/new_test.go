package library

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// New is Open for tests that need only the MCP server (no Finder to close).
func New(opt Options) (*mcp.Server, error) {
	if opt.Finder != nil {
		return nil, errors.New("library: Options.Finder needs Open (its index must be closed)")
	}
	l, err := Open(opt)
	if err != nil {
		return nil, err
	}
	return l.Server(), nil
}
