package computer

import (
	"context"
	"strings"
)

// indexHosts WARNs about hosts that s shares with another registered server
// (seed 000 §host 路由策略: SHOULD-unique, first-registered-wins, WARN naming
// both servers and the host). Each pair is reported once.
func (c *Computer) indexHosts(s *mcpServer, hosts []string) {
	for _, h := range hosts {
		if w := hostStyleWarning(h); w != "" {
			c.warnOnce("style|"+h, "dpe host naming", "host", h, "mcp_server", s.cfg.Name, "problem", w)
		}
	}
	for _, other := range c.snapshot() {
		if other == s {
			continue
		}
		for _, h := range hosts {
			if !other.hasHost(h) {
				continue
			}
			first, second := other, s
			if s.order < other.order {
				first, second = s, other
			}
			c.warnOnce("conflict|"+h+"|"+first.cfg.Name+"|"+second.cfg.Name,
				"dpe host shared by two MCP servers; first registered wins",
				"host", h, "first", first.cfg.Name, "second", second.cfg.Name)
		}
	}
}

func (c *Computer) warnOnce(key, msg string, args ...any) {
	c.mu.Lock()
	if c.warned[key] {
		c.mu.Unlock()
		return
	}
	c.warned[key] = true
	c.mu.Unlock()
	c.log.Warn(msg, args...)
}

// route finds the server for a dpe host. Servers are tried in registration
// order, so the first registered server that lists the host wins. When no
// server lists it, servers whose host scan is incomplete are rescanned once,
// then a server whose name equals the host is taken (the reference
// deployment names servers after their host, error-handling.md §4013 example).
func (c *Computer) route(ctx context.Context, host string) *mcpServer {
	find := func() []*mcpServer {
		var m []*mcpServer
		for _, s := range c.snapshot() {
			if s.hasHost(host) {
				m = append(m, s)
			}
		}
		return m
	}
	m := find()
	if len(m) == 0 {
		rescanned := false
		for _, s := range c.snapshot() {
			s.mu.Lock()
			stale := !s.scanned
			s.mu.Unlock()
			if stale && s.session != nil && s.hasResources() {
				if err := c.scanHosts(ctx, s); err != nil {
					c.log.Warn("mcp server resources/list failed during host lookup",
						"mcp_server", s.cfg.Name, "err", err)
				}
				rescanned = true
			}
		}
		if rescanned {
			m = find()
		}
	}
	if len(m) > 1 {
		names := make([]string, len(m))
		for i, s := range m {
			names[i] = s.cfg.Name
		}
		c.log.Warn("dpe host served by several MCP servers; routing to the first registered",
			"host", host, "chosen", names[0], "servers", names)
	}
	if len(m) > 0 {
		return m[0]
	}
	for _, s := range c.snapshot() {
		if strings.EqualFold(s.cfg.Name, host) {
			return s
		}
	}
	return nil
}
