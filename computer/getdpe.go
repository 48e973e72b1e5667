package computer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// resolutionFailed is a 4013 with its category and log-only details
// (error-handling.md §DPE 解析失败（4013）). Details never carry secrets:
// only the server name and the upstream or resolver message, one line.
func resolutionFailed(uri, category, message string, details map[string]string) *protocol.Error {
	e := &protocol.Error{Code: protocol.CodeResolutionFailed, Message: message, Category: category, URI: uri}
	for k, v := range details {
		if k != "mcp_server_name" {
			details[k] = scrubDetail(v)
		}
	}
	if len(details) > 0 {
		if b, err := json.Marshal(details); err == nil {
			e.Details = b
		}
	}
	return e
}

var (
	detailURLRE  = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`)
	detailAddrRE = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b|\[[0-9a-fA-F:]+\](?::\d+)?`)
)

// scrubDetail removes what error-handling.md §details 内禁止包含的敏感信息
// forbids from an upstream or resolver message: URLs (they may carry tokens
// or internal hosts) and IP addresses with ports. The full message goes to
// the Computer's own log instead.
func scrubDetail(s string) string {
	s = detailURLRE.ReplaceAllString(s, "<url>")
	return detailAddrRE.ReplaceAllString(s, "<addr>")
}

// handleGetDPE implements dpe.md §Computer 处理流程.
func (c *Computer) handleGetDPE(ctx context.Context, raw json.RawMessage) any {
	var req protocol.GetDPEReq
	if err := json.Unmarshal(raw, &req); err != nil {
		return badRequest(protocol.EventGetDPE, err)
	}
	ret, perr := c.getDPE(ctx, req)
	if perr != nil {
		c.log.Info("get_dpe failed", "uri", req.URI, "agent", req.Agent, "req_id", req.ReqID,
			"code", perr.Code, "category", perr.Category)
		return perr
	}
	return ret
}

func (c *Computer) getDPE(ctx context.Context, req protocol.GetDPEReq) (*protocol.GetDPERet, *protocol.Error) {
	// Step 2: validate; a query or fragment is dropped with a WARN
	// (§URI query / fragment 处理分层: the Computer is the lenient consumer).
	u, warns, err := parseDPEURI(req.URI)
	if err != nil {
		var ue *uriError
		reason := err.Error()
		if errors.As(err, &ue) {
			reason = ue.Reason
		}
		return nil, &protocol.Error{Code: protocol.CodeInvalidDPEURI, Message: "Invalid DPE URI: " + reason,
			URI: req.URI, Reason: reason}
	}
	for _, w := range warns {
		c.log.Warn("dpe URI not canonical; continuing", "uri", req.URI, "problem", w, "agent", req.Agent)
	}

	// Step 3: no resolver → 4011, never an inline fallback.
	if c.opt.Resolver == nil {
		return nil, &protocol.Error{Code: protocol.CodeResolverNotConfig, Message: "DPE Resolver Not Configured", URI: req.URI}
	}

	budget := requestTimeout(req.Timeout)
	if budget <= 0 {
		budget = c.opt.RequestTimeout
	}
	ctx, cancel := c.callContext(ctx, budget)
	defer cancel()

	// Step 4: route by host. No match answers 4014 with the host as
	// mcp_server_name, as dpe.md §Computer 处理流程 step 4 and
	// error-handling.md §4014 ("或 dpe URI 的 host") say; seed 000 names
	// 4013 for this case, but 4014 tells the agent precisely that nothing
	// serves the host, and is what the current spec text requires.
	s := c.route(ctx, u.Host)
	if s == nil {
		return nil, &protocol.Error{Code: protocol.CodeMCPServerNotFound,
			Message: fmt.Sprintf("no MCP server serves dpe host %s", quoteTrunc(u.Host)), MCPServerName: u.Host}
	}
	if s.session == nil {
		return nil, &protocol.Error{Code: protocol.CodeMCPServerNotFound,
			Message:       fmt.Sprintf("MCP server %s for dpe host %s is disabled", quoteTrunc(s.cfg.Name), quoteTrunc(u.Host)),
			MCPServerName: s.cfg.Name}
	}
	if !s.hasResources() {
		return nil, capabilityMissing(s.cfg.Name)
	}

	// Step 5: resources/read.
	rr, paged, err := c.readDocument(ctx, s, u.Read)
	if err != nil {
		c.log.Warn("get_dpe resources/read failed", "uri", req.URI, "mcp_server", s.cfg.Name, "err", err)
		if resourceNotFound(err) {
			// The server is up and says there is no such resource: not
			// a source outage, and retrying will not help. 4013 has no
			// category for it, so it is sent without one (generic).
			return nil, resolutionFailed(req.URI, "",
				fmt.Sprintf("%s %s has no resource %s", NotFoundMessage, quoteTrunc(s.cfg.Name), quoteTrunc(u.Read)),
				map[string]string{"mcp_server_name": s.cfg.Name, "mcp_error": oneLine(err.Error(), 300)})
		}
		if reason, kind, ok := conversionFailed(err); ok {
			// The server has the file and cannot convert it: the same
			// bytes fail the same way, so not upstream_unavailable (which
			// agents retry) but a generic 4013 whose message says why.
			return nil, resolutionFailed(req.URI, "", protocol.ConversionFailedMessage+reason,
				map[string]string{"mcp_server_name": s.cfg.Name, "mcp_error": reason,
					"reason": protocol.DetailConversionFailed, "conversion": kind})
		}
		return nil, resolutionFailed(req.URI, protocol.CategoryUpstreamUnavailable,
			"DPE source unavailable: resources/read failed",
			map[string]string{"mcp_server_name": s.cfg.Name, "mcp_error": oneLine(err.Error(), 300)})
	}

	// Step 6: the two A2C mimetypes.
	var contents Contents
	var perr *protocol.Error
	if paged != nil {
		contents, perr = pagedContents(req.URI, s.cfg.Name, paged)
	} else {
		contents, perr = dpeContents(req.URI, s.cfg.Name, u.Read, rr)
	}
	if perr != nil {
		return nil, perr
	}

	// Step 7: the resolver's input resource, from the list cache.
	in := protocol.A2CResource{URI: u.Read}
	if r, ok := s.cachedResource(u.Read); ok {
		in.Name, in.Description, in.MimeType, in.Size, in.Annotations = r.Name, r.Description, r.MimeType, r.Size, r.Annotations
	}

	// Step 8: the resolver.
	hint := Hint{MCPServerName: s.cfg.Name, Agent: req.Agent, ReqID: req.ReqID}
	out, err := callResolver(ctx, c.opt.Resolver, in, contents, hint)
	if err != nil {
		c.log.Warn("get_dpe resolver failed", "uri", req.URI, "mcp_server", s.cfg.Name, "err", err)
		return nil, resolutionFailed(req.URI, protocol.CategoryResolverError,
			"DPE resolver failed",
			map[string]string{"mcp_server_name": s.cfg.Name, "resolver_exception": resolverException(err)})
	}
	if reason := invalidResolverResult(out); reason != "" {
		return nil, resolutionFailed(req.URI, protocol.CategoryResolverReturnedInvalid,
			"DPE resolver returned an invalid resource: "+reason,
			map[string]string{"mcp_server_name": s.cfg.Name, "resolver_exception": reason})
	}

	// Step 9.
	return &protocol.GetDPERet{A2CResource: out, ReqID: req.ReqID}, nil
}

// dpeContents checks a ReadResourceResult against dpe.md §DPE 文档读取的两种
// 形态: the mimetype must be one of the two A2C types, and the body must
// parse (inline: a JSON object with a pages list; external: an object with
// a uri). Anything else is 4013 invalid_dpe_mime.
func dpeContents(uri, server, readURI string, rr *mcp.ReadResourceResult) (Contents, *protocol.Error) {
	invalid := func(reason string) *protocol.Error {
		return resolutionFailed(uri, protocol.CategoryInvalidDPEMime, "DPE source answered an invalid document: "+reason,
			map[string]string{"mcp_server_name": server, "mcp_error": reason})
	}
	if rr == nil || len(rr.Contents) == 0 {
		return Contents{}, invalid("resources/read returned no contents")
	}
	rc := rr.Contents[0]
	for _, cand := range rr.Contents {
		if cand != nil && cand.URI == readURI {
			rc = cand
			break
		}
	}
	if rc == nil {
		return Contents{}, invalid("resources/read returned no contents")
	}
	mt, _, err := mime.ParseMediaType(rc.MIMEType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(rc.MIMEType))
	}
	body := []byte(rc.Text)
	if len(body) == 0 && len(rc.Blob) > 0 {
		body = rc.Blob
	}
	switch mt {
	case protocol.MimeDPEInline:
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(body, &doc); err != nil || doc == nil {
			return Contents{}, invalid("inline body is not a JSON object")
		}
		pages := bytes.TrimSpace(doc["pages"])
		if len(pages) == 0 || pages[0] != '[' {
			return Contents{}, invalid("inline document has no pages list")
		}
		return Contents{Kind: ContentsInline, Document: json.RawMessage(bytes.TrimSpace(body))}, nil
	case protocol.MimeDPEURI:
		var ref protocol.DPEURIRef
		if err := json.Unmarshal(body, &ref); err != nil {
			return Contents{}, invalid("uri reference is not a JSON object")
		}
		if strings.TrimSpace(ref.URI) == "" {
			return Contents{}, invalid("uri reference has no uri")
		}
		if ref.Size != nil && *ref.Size < 0 {
			return Contents{}, invalid("uri reference has a negative size")
		}
		return Contents{Kind: ContentsExternal, External: &ref}, nil
	case "":
		return Contents{}, invalid("resources/read content has no mimeType")
	default:
		return Contents{}, invalid(fmt.Sprintf("mimeType %s is neither %s nor %s", quoteTrunc(rc.MIMEType), protocol.MimeDPEInline, protocol.MimeDPEURI))
	}
}

// callResolver runs the hook; a panic is a resolver error like any other.
func callResolver(ctx context.Context, r Resolver, in protocol.A2CResource, contents Contents, hint Hint) (out protocol.A2CResource, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("resolver panic: %v", p)
		}
	}()
	return r.Resolve(ctx, in, contents, hint)
}

// resolverException is the error's type and message for details, one line.
func resolverException(err error) string {
	t := reflect.TypeOf(err).String()
	return oneLine(t+": "+err.Error(), 300)
}

// invalidResolverResult checks the A2CResource schema
// (data-structures.md §A2CResource): uri required and absolute, size not
// negative, expires_at RFC 3339 when present.
func invalidResolverResult(r protocol.A2CResource) string {
	if strings.TrimSpace(r.URI) == "" {
		return "missing uri"
	}
	u, err := url.Parse(r.URI)
	if err != nil || u.Scheme == "" {
		return "uri is not an absolute URI"
	}
	if strings.EqualFold(u.Scheme, protocol.DPEScheme) {
		return "uri is still a dpe:// URI"
	}
	if r.Size != nil && *r.Size < 0 {
		return "negative size"
	}
	if r.Meta != nil && r.Meta.ExpiresAt != "" {
		if _, err := time.Parse(time.RFC3339, r.Meta.ExpiresAt); err != nil {
			return "_meta.expires_at is not ISO 8601 / RFC 3339"
		}
	}
	return ""
}

// NotFoundMessage starts the message of a 4013 for a resource the MCP
// server says it does not have; agents may show a not-found sentence for
// it instead of "source unavailable".
const NotFoundMessage = "DPE document not found: MCP server"

// resourceNotFound recognises MCP's "resource not found": -32002 (before
// SEP-2164) or -32602 invalid params with that message (go-sdk ≥ 1.7).
func resourceNotFound(err error) bool {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return false
	}
	return je.Code == -32002 || (je.Code == jsonrpc.CodeInvalidParams && strings.Contains(strings.ToLower(je.Message), "not found"))
}

// maxConversionReason bounds the library's reason carried into the 4013's
// message (its listing note is at most 300 characters).
const maxConversionReason = 400

// conversionFailed recognises our library's answer for a file it has but
// cannot convert (protocol.MCPCodeConversionFailed with the conversion key
// in its data), and gives its one-line reason and what stopped it.
func conversionFailed(err error) (reason, kind string, ok bool) {
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != protocol.MCPCodeConversionFailed {
		return "", "", false
	}
	var data map[string]any
	if json.Unmarshal(je.Data, &data) != nil {
		return "", "", false
	}
	kind, _ = data[protocol.MCPConversionDataKey].(string)
	switch kind {
	case protocol.ConversionLimit, protocol.ConversionTimeout, protocol.ConversionCorrupt:
	default:
		return "", "", false
	}
	reason = scrubDetail(oneLine(je.Message, maxConversionReason))
	if reason == "" {
		reason = kind
	}
	return reason, kind, true
}
