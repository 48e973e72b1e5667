package computer

import "github.com/dpe-tui/dpe-tui/protocol"

// Servers lists the registered server configs in registration order (tests
// only: the agent learns them through client:get_config).
func (c *Computer) Servers() []protocol.MCPServerConfig {
	ss := c.snapshot()
	out := make([]protocol.MCPServerConfig, len(ss))
	for i, s := range ss {
		out[i] = s.cfg
	}
	return out
}
