package computer

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Bounds of a desktop: what one get_desktop lists and reads. A desktop is
// a glance at a few windows, not a crawl of every listing.
const (
	maxDesktopPages   = 20       // resources/list pages per server
	maxDesktopWindows = 64       // windows read per answer
	maxWindowText     = 64 << 10 // bytes of one window's text
)

// handleGetDesktop answers client:get_desktop: the window:// resources of
// the running servers, in server order, each "URI\n\ntext" (desktop.md
// §Desktop 组织; a window without text is its URI alone). window asks for
// one window; desktop_size caps the count. A server that fails to list or
// read is left out: the desktop is what could be seen.
func (c *Computer) handleGetDesktop(ctx context.Context, raw json.RawMessage) any {
	var req protocol.GetDesktopReq
	if err := json.Unmarshal(raw, &req); err != nil && len(raw) > 0 {
		return badRequest(protocol.EventGetDesktop, err)
	}
	limit := maxDesktopWindows
	if req.DesktopSize > 0 && req.DesktopSize < limit {
		limit = req.DesktopSize
	}
	out := []any{}
	for _, s := range c.snapshot() {
		if len(out) >= limit {
			break
		}
		if s.session == nil || !s.hasResources() {
			continue
		}
		for _, uri := range c.windowURIs(ctx, s, limit-len(out)) {
			if req.Window != "" && uri != req.Window {
				continue
			}
			out = append(out, c.window(ctx, s, uri))
		}
	}
	return &protocol.GetDesktopRet{Desktops: out, ReqID: req.ReqID}
}

// windowURIs lists s's window:// resources, at most n.
func (c *Computer) windowURIs(ctx context.Context, s *mcpServer, n int) []string {
	var uris []string
	cursor := ""
	for range maxDesktopPages {
		page, err := c.listResources(ctx, s, cursor, 0)
		if err != nil {
			c.log.Warn("desktop: resources/list failed", "server", s.cfg.Name, "err", err)
			return uris
		}
		var pageURIs []string
		if page.rawPage != nil {
			for _, e := range page.entries {
				pageURIs = append(pageURIs, e.uri)
			}
		} else {
			for _, r := range page.list {
				pageURIs = append(pageURIs, r.URI)
			}
		}
		for _, u := range pageURIs {
			if isWindow(u) {
				uris = append(uris, u)
				if len(uris) >= n {
					return uris
				}
			}
		}
		if page.next == "" {
			break
		}
		cursor = page.next
	}
	return uris
}

func isWindow(uri string) bool {
	scheme, rest, ok := strings.Cut(uri, "://")
	return ok && rest != "" && strings.EqualFold(scheme, protocol.WindowScheme)
}

// window is one desktop entry: the URI, then the text contents read.
func (c *Computer) window(ctx context.Context, s *mcpServer, uri string) string {
	cctx, cancel := c.callContext(ctx, s.timeout)
	defer cancel()
	res, err := s.session.ReadResource(cctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		c.log.Warn("desktop: resources/read failed", "server", s.cfg.Name, "uri", uri, "err", err)
		return uri
	}
	var text strings.Builder
	for _, rc := range res.Contents {
		if rc == nil || rc.Text == "" {
			continue
		}
		if text.Len()+len(rc.Text) > maxWindowText {
			break
		}
		text.WriteString(rc.Text)
	}
	if text.Len() == 0 {
		return uri
	}
	return uri + "\n\n" + text.String()
}
