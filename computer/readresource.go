package computer

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of ReadResource: what one server may hand back for one read.
const (
	MaxReadBytes    = 64 << 20
	maxReadContents = 1000
)

// ResourceContent is one item of an MCP resources/read answer. Exactly one
// of Text and Blob is meaningful (IsBlob says which). Everything in it is
// the MCP server's: untrusted.
type ResourceContent struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
	IsBlob   bool
}

// ErrAmbiguous is wrapped by ReadResource when, with no server named,
// several servers list URIs like the one asked for; the caller says how
// to name one.
var ErrAmbiguous = errors.New("say which server reads it")

// ErrNoReader is returned by ReadResource when no server can be asked.
var ErrNoReader = errors.New("no MCP server of this computer lists it")

// ReadResource reads any resource — dpe:// or not — with MCP
// resources/read on one of this Computer's servers. A2C-SMCP has no event
// for reading non-dpe resources, so only a process that holds the
// Computer (the embedded one) can do this. server may be empty: then the
// server that listed uri is asked, else the one server that listed URIs of
// the same scheme and host (a resource template's URIs are not listed).
// It answers the server asked.
func (c *Computer) ReadResource(ctx context.Context, server, uri string) (string, []ResourceContent, error) {
	s, err := c.readerFor(server, uri)
	if err != nil {
		return "", nil, err
	}
	cctx, cancel := c.callContext(ctx, s.timeout)
	defer cancel()
	res, err := s.session.ReadResource(cctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return s.cfg.Name, nil, fmt.Errorf("resources/read on %s: %w", quoteTrunc(s.cfg.Name), err)
	}
	if len(res.Contents) > maxReadContents {
		return s.cfg.Name, nil, fmt.Errorf("resources/read on %s: %d contents, more than %d", quoteTrunc(s.cfg.Name), len(res.Contents), maxReadContents)
	}
	out := make([]ResourceContent, 0, len(res.Contents))
	total := 0
	for _, rc := range res.Contents {
		if rc == nil {
			continue
		}
		total += len(rc.Text) + len(rc.Blob)
		if total > MaxReadBytes {
			return s.cfg.Name, nil, fmt.Errorf("resources/read on %s: more than %d MiB", quoteTrunc(s.cfg.Name), MaxReadBytes>>20)
		}
		out = append(out, ResourceContent{URI: rc.URI, MIMEType: rc.MIMEType, Text: rc.Text, Blob: rc.Blob, IsBlob: rc.Blob != nil})
	}
	return s.cfg.Name, out, nil
}

func (c *Computer) readerFor(server, uri string) (*mcpServer, error) {
	usable := func(s *mcpServer) error {
		switch {
		case s.start.err != "":
			return fmt.Errorf("MCP server %s failed to start: %s", quoteTrunc(s.cfg.Name), s.start.err)
		case s.session == nil:
			return fmt.Errorf("MCP server %s is disabled", quoteTrunc(s.cfg.Name))
		case !s.hasResources():
			return fmt.Errorf("MCP server %s has no resources capability", quoteTrunc(s.cfg.Name))
		}
		return nil
	}
	if server != "" {
		s := c.server(server)
		if s == nil {
			return nil, fmt.Errorf("MCP server %s is not registered", quoteTrunc(server))
		}
		return s, usable(s)
	}
	servers := c.snapshot()
	for _, s := range servers {
		if _, ok := s.cachedResource(uri); ok && usable(s) == nil {
			return s, nil
		}
	}
	origin := uriOrigin(uri)
	var match []*mcpServer
	if origin != "" {
		for _, s := range servers {
			if usable(s) == nil && s.listsOrigin(origin) {
				match = append(match, s)
			}
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		return nil, fmt.Errorf("%s: %w", quoteTrunc(uri), ErrNoReader)
	}
	return nil, fmt.Errorf("%s: MCP servers %s and %s both list URIs like it: %w", quoteTrunc(uri), quoteTrunc(match[0].cfg.Name), quoteTrunc(match[1].cfg.Name), ErrAmbiguous)
}

// uriOrigin is "scheme://host" of a URI, or "" for one without both.
func uriOrigin(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

func (s *mcpServer) listsOrigin(origin string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for u := range s.resources {
		if uriOrigin(u) == origin {
			return true
		}
	}
	return false
}

// MaxFileName bounds a saved file's name (bytes).
const MaxFileName = 120

// ResourceFileName is a safe file name for saving a resource (get -o,
// the TUI's save prompt): the last segment of its URI's path, decoded,
// with anything but letters, digits, '.', '-' and '_' replaced, no
// leading dot, bounded; "resource" when nothing is left.
func ResourceFileName(uri string) string {
	seg := uri
	if u, err := url.Parse(uri); err == nil {
		seg = u.Path
		if seg == "" || seg == "/" {
			seg = u.Opaque
		}
		if seg == "" || seg == "/" {
			seg = u.Host
		}
	}
	seg = path.Base(strings.TrimRight(seg, "/"))
	var b strings.Builder
	for _, r := range seg {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := strings.TrimLeft(b.String(), "._")
	if len(name) > MaxFileName {
		name = name[:MaxFileName]
	}
	if name == "" {
		name = "resource"
	}
	return name
}
