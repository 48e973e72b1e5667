package client

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
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
// (4011–4015), wrapped with the event and computer. On a server that
// speaks 0.3 it fails at once with *UnsupportedError, sending nothing.
func (c *Client) GetDPE(ctx context.Context, computer, uri string) (dpe.Access, error) {
	if err := c.getDPESupported(); err != nil {
		return dpe.Access{}, err
	}
	var ret map[string]any
	raw, err := c.do(ctx, protocol.EventGetDPE, computer,
		protocol.GetDPEReq{AgentCallData: c.agentCall(), Computer: computer, URI: uri, Timeout: c.timeoutSeconds()}, &ret)
	if err != nil {
		return dpe.Access{}, asResolveError(err, computer, uri)
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
	acc.OwnComputer = c.vouched(computer, acc.URI, ret)
	return acc.Access, nil
}

// OriginAnnotation is the annotations key under which a computer this
// process started puts OriginTag in its get_dpe answers.
const OriginAnnotation = "dpe_tui_origin"

// OriginTag is what a computer started by this process attaches to a
// get_dpe answer: an HMAC over its name and the access URI with the secret
// only this process knows. A hostile peer on the same server can neither
// compute it nor see another computer's answers to copy one.
func OriginTag(key []byte, computer, accessURI string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(computer))
	m.Write([]byte{0})
	m.Write([]byte(accessURI))
	return hex.EncodeToString(m.Sum(nil))
}

// vouched checks the origin tag of a get_dpe answer.
func (c *Client) vouched(computer, accessURI string, ret map[string]any) bool {
	if len(c.opt.OwnComputerKey) == 0 {
		return false
	}
	ann, _ := ret["annotations"].(map[string]any)
	tag, _ := ann[OriginAnnotation].(string)
	if tag == "" {
		return false
	}
	want := OriginTag(c.opt.OwnComputerKey, computer, accessURI)
	return hmac.Equal([]byte(tag), []byte(want))
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
		t, err := dpe.ParseTimestamp(s)
		if err != nil {
			// Not "never expires": an expiry we cannot read is assumed
			// to be now, so the URI is used at once and re-resolved
			// before any later fetch; and the answer is reported.
			out.warn = fmt.Sprintf("_meta.expires_at %q is not an ISO 8601 date-time; treating the access URI as expiring now", truncate(s, 40))
			out.Problems = append(out.Problems, out.warn)
			out.ExpiresAt = time.Now()
		} else {
			out.ExpiresAt = t
		}
	} else if v, ok := meta["expires_at"]; ok && v != nil {
		out.warn = fmt.Sprintf("_meta.expires_at is %s, not a string; treating the access URI as expiring now", valueKind(v))
		out.Problems = append(out.Problems, out.warn)
		out.ExpiresAt = time.Now()
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

// ChooseComputer resolves a typed or pasted uri on the computer whose
// listed servers own its host (dpe.md §host 路由策略: the host names one
// MCP server of one computer). Hosts are learned from the listings:
// get_config, then the first get_resources page of each enabled server.
// Only when no listing names the host are the computers asked in name order
// until one does not answer "no server for this host" — so a computer that
// answers for every host (or sorts first) is never preferred over the one
// that lists it. Two computers listing the host is an error: the user must
// pick one. It returns which computer answered, for the caller to show; an
// error from that computer is returned as is (it names the computer).
func (c *Client) ChooseComputer(ctx context.Context, uri string) (string, dpe.Access, error) {
	if err := c.getDPESupported(); err != nil {
		return "", dpe.Access{}, err
	}
	comps, err := c.Computers(ctx)
	if err != nil {
		return "", dpe.Access{}, fmt.Errorf("choose a computer for %s: %w", uri, err)
	}
	if len(comps) == 0 {
		return "", dpe.Access{}, fmt.Errorf("choose a computer for %s: no computer in office %s", uri, c.opt.Office)
	}
	host := strings.ToLower(hostOf(uri))
	owners, dropped := c.hostOwners(ctx, comps, host)
	if dropped != nil {
		// The connection went down under the walk: no owner found so far
		// can be asked on it, and the reason is this answer, not the
		// lost connection a get_dpe would now report.
		return "", dpe.Access{}, fmt.Errorf("choose a computer for %s: %w", uri, dropped)
	}
	switch {
	case len(owners) == 1:
		acc, err := c.GetDPE(ctx, owners[0], uri)
		return owners[0], acc, err
	case len(owners) > 1:
		return "", dpe.Access{}, fmt.Errorf("host %s is listed by computers %s in office %s; choose one (--computer)",
			host, strings.Join(owners, ", "), c.opt.Office)
	}
	if ctx.Err() != nil {
		return "", dpe.Access{}, fmt.Errorf("choose a computer for %s: %w", uri, ctx.Err())
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
		c.opt.Office, host, strings.Join(tried, ", "), last)
}

// hostOwners lists, in name order, the computers whose listings name host.
// A computer whose listing fails is skipped (it cannot claim the host),
// except for an answer over the ack size limit: that dropped the
// connection, so the walk stops and the error is returned as the reason
// (every later call would only say the connection was lost).
func (c *Client) hostOwners(ctx context.Context, comps []protocol.SessionInfo, host string) (owners []string, dropped error) {
	var big *AckTooLargeError
	for _, comp := range comps {
		if ctx.Err() != nil {
			return owners, nil
		}
		cfg, err := c.Config(ctx, comp.Name)
		if errors.As(err, &big) {
			return owners, err
		}
		if err != nil {
			c.log.Debug("host routing: get_config failed", "computer", comp.Name, "err", err)
			continue
		}
	servers:
		for _, srv := range cfg.Servers {
			if srv.Disabled {
				continue
			}
			page, err := c.Resources(ctx, comp.Name, srv.Key, "")
			if errors.As(err, &big) {
				return owners, err
			}
			if err != nil {
				c.log.Debug("host routing: get_resources failed", "computer", comp.Name, "server", srv.Name, "err", err)
				continue
			}
			for _, r := range page.Resources {
				if r.IsDPE() && strings.EqualFold(hostOf(r.URI), host) {
					owners = append(owners, comp.Name)
					break servers
				}
			}
		}
	}
	return owners, nil
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

// getDPESupported is nil when the protocol version spoken has
// client:get_dpe. 0.3 removed it, so asking would only wait for a timeout.
func (c *Client) getDPESupported() error {
	if protocol.HasGetDPE(c.version) {
		return nil
	}
	return &UnsupportedError{Event: protocol.EventGetDPE, Version: c.version, Why: "DPE moved to dpe-protocol"}
}
