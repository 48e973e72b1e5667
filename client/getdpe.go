package client

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// GetDPE resolves a dpe:// URI on computer (client:get_dpe) to where its
// content can be fetched now. Errors from the computer are *protocol.Error
// (4011–4015), wrapped with the event and computer.
func (c *Client) GetDPE(ctx context.Context, computer, uri string) (dpe.Access, error) {
	var ret map[string]any
	raw, err := c.do(ctx, protocol.EventGetDPE, computer,
		protocol.GetDPEReq{AgentCallData: c.agentCall(), Computer: computer, URI: uri, Timeout: c.timeoutSeconds()}, &ret)
	if err != nil {
		return dpe.Access{}, err
	}
	acc, err := decodeAccess(ret)
	if err != nil {
		return dpe.Access{}, fmt.Errorf("%s %s on computer %s: %w", protocol.EventGetDPE, uri, computer, err)
	}
	if acc.warn != "" {
		c.log.Warn("get_dpe answer", "computer", computer, "uri", uri, "warning", acc.warn)
	}
	acc.Computer = computer
	acc.RawJSON = raw
	return acc.Access, nil
}

type decodedAccess struct {
	dpe.Access
	warn string
}

// decodeAccess reads GetDPERet = A2CResource + req_id (events.md
// §client:get_dpe). uri is required; hints of the wrong type are dropped;
// _meta.expires_at is RFC 3339 (ISO 8601 as the spec writes it).
func decodeAccess(m map[string]any) (decodedAccess, error) {
	var out decodedAccess
	out.Size = -1
	u, _ := m["uri"].(string)
	if strings.TrimSpace(u) == "" {
		return out, errors.New("the answer has no access uri")
	}
	out.URI = u
	out.MimeType, _ = m["mime_type"].(string)
	if out.MimeType == "" {
		out.MimeType, _ = m["mimeType"].(string)
	}
	if n, ok := m["size"].(float64); ok && n >= 0 && n == math.Trunc(n) && n <= math.MaxInt64 {
		out.Size = int64(n)
	}
	meta, _ := m["_meta"].(map[string]any)
	out.ETag, _ = meta["etag"].(string)
	if s, _ := meta["expires_at"].(string); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			// No usable expiry: the access URI is treated as not expiring,
			// and a failed fetch still triggers one re-resolve (dpe.md).
			out.warn = fmt.Sprintf("ignoring _meta.expires_at %q: not RFC 3339", truncate(s, 40))
		} else {
			out.ExpiresAt = t
		}
	}
	return out, nil
}

// noServerForHost reports whether err is a computer saying "I have no MCP
// server for this URI's host": 4014, or a 4013 without category (a generic
// resolution failure, which is what some computers send for an unknown host).
func noServerForHost(err error) bool {
	var perr *protocol.Error
	if !errors.As(err, &perr) {
		return false
	}
	return perr.Code == protocol.CodeMCPServerNotFound ||
		(perr.Code == protocol.CodeResolutionFailed && perr.Category == "")
}

// ChooseComputer resolves uri on the right computer of the office (issue 3):
// with one computer, that one; otherwise each in name order until one does
// not answer "no server for this host". It returns which computer answered;
// an error from that computer is returned as is (it names the computer).
func (c *Client) ChooseComputer(ctx context.Context, uri string) (string, dpe.Access, error) {
	comps, err := c.Computers(ctx)
	if err != nil {
		return "", dpe.Access{}, fmt.Errorf("choose a computer for %s: %w", uri, err)
	}
	if len(comps) == 0 {
		return "", dpe.Access{}, fmt.Errorf("choose a computer for %s: no computer in office %s", uri, c.opt.Office)
	}
	var tried []string
	var last error
	for _, s := range comps {
		acc, err := c.GetDPE(ctx, s.Name, uri)
		if err == nil || !noServerForHost(err) || len(comps) == 1 {
			return s.Name, acc, err
		}
		tried = append(tried, s.Name)
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return "", dpe.Access{}, fmt.Errorf("no computer in office %s serves host %s (asked %s): %w",
		c.opt.Office, hostOf(uri), strings.Join(tried, ", "), last)
}

func hostOf(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Host != "" {
		return u.Host
	}
	return uri
}

// Resolver adapts the client to dpe.Resolver. With a computer (the URI came
// from that computer's listing) every resolve goes there. With "" the first
// resolve of a host chooses a computer (ChooseComputer) and later resolves of
// that host (re-fetch after expiry) go to the same one.
func (c *Client) Resolver(computer string) dpe.Resolver {
	if computer != "" {
		return dpe.ResolverFunc(func(ctx context.Context, uri string) (dpe.Access, error) {
			return c.GetDPE(ctx, computer, uri)
		})
	}
	r := &choosingResolver{c: c, byHost: map[string]string{}}
	return dpe.ResolverFunc(r.resolve)
}

type choosingResolver struct {
	c      *Client
	mu     sync.Mutex
	byHost map[string]string
}

func (r *choosingResolver) resolve(ctx context.Context, uri string) (dpe.Access, error) {
	host := strings.ToLower(hostOf(uri))
	r.mu.Lock()
	comp := r.byHost[host]
	r.mu.Unlock()
	if comp != "" {
		acc, err := r.c.GetDPE(ctx, comp, uri)
		if err == nil || !noServerForHost(err) {
			return acc, err
		}
		// That computer lost the server: choose again.
	}
	comp, acc, err := r.c.ChooseComputer(ctx, uri)
	if err == nil {
		r.mu.Lock()
		r.byHost[host] = comp
		r.mu.Unlock()
	}
	return acc, err
}
