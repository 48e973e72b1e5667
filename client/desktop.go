package client

import (
	"context"
	"strings"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Window is one window of a computer's desktop.
type Window struct {
	URI  string // window://…; an entry whose URI is over Limits.MaxFieldBytes is skipped (a cut URI would name another window)
	Body string // the window's text, possibly empty; cut to MaxWindowBytes
	// Truncated is true when Body was cut on receipt.
	Truncated bool
}

// Desktop is a computer's client:get_desktop answer: its window://
// resources, in the computer's order (desktop.md: by priority).
type Desktop struct {
	Windows []Window
	// Skipped counts entries that were not a window (not a string, or not
	// a window:// URI), and entries past MaxWindows.
	Skipped int
}

// Bounds of a desktop answer: the whole ack is already capped by
// MaxAckBytes; these keep one window and the count renderable.
const (
	MaxWindows     = 1000
	MaxWindowBytes = 256 << 10
)

// Desktop asks computer for its desktop (client:get_desktop): the
// window:// resources of its MCP servers, with their text. A read-only
// listing; both 0.2 and 0.3 have the event.
func (c *Client) Desktop(ctx context.Context, computer string) (*Desktop, error) {
	var ret protocol.GetDesktopRet
	_, err := c.do(ctx, protocol.EventGetDesktop, computer,
		protocol.GetDesktopReq{AgentCallData: c.agentCall(), Computer: computer}, &ret)
	if err != nil {
		return nil, ofComputer("desktop", computer, err)
	}
	d := &Desktop{}
	for _, e := range ret.Desktops {
		s, ok := e.(string)
		if !ok || len(d.Windows) >= MaxWindows {
			d.Skipped++
			continue
		}
		w, ok := parseWindow(s, c.opt.Limits.MaxFieldBytes)
		if !ok {
			d.Skipped++
			continue
		}
		d.Windows = append(d.Windows, w)
	}
	if d.Skipped > 0 {
		c.log.Warn("desktop entries skipped", "computer", computer, "skipped", d.Skipped)
	}
	return d, nil
}

// parseWindow splits "{window:// URI}\n\n{body}" (data-structures.md
// §Desktop); false when the entry does not start with a window:// URI.
func parseWindow(s string, maxURI int) (Window, bool) {
	uri, body, _ := strings.Cut(s, "\n\n")
	uri = strings.TrimSpace(uri)
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok || !strings.EqualFold(scheme, protocol.WindowScheme) || rest == "" || len(uri) > maxURI ||
		strings.ContainsAny(uri, " \t\r\n") {
		return Window{}, false
	}
	w := Window{URI: uri}
	w.Body, w.Truncated = truncField(body, MaxWindowBytes)
	return w, true
}
