package protocol

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
)

// Error codes (error-handling.md §错误码定义).
const (
	CodeBadRequest        = 400
	CodeUnauthorized      = 401
	CodeForbidden         = 403
	CodeNotFound          = 404
	CodeTimeout           = 408
	CodeInternal          = 500
	CodeVersionMismatch   = 4008
	CodeResolverNotConfig = 4011
	CodeInvalidDPEURI     = 4012
	CodeResolutionFailed  = 4013
	CodeMCPServerNotFound = 4014
	CodeCapabilityMissing = 4015
	CodeSkillNameInvalid  = 4016 // get_skill: the name breaks the skill-name lexer (skill.md §1.4)
	CodeSkillResource     = 4017 // get_skill: rel_path not accessible (skill.md §7 step 3, 5)
	CodeBlobNotAccessible = 4018 // get_blob (blob-transfer.md §5)
	CodeBlobWriteFailed   = 4019 // put_blob, 0.4.0 (blob-transfer.md §5)
	CodeRoomFull          = 4101
	CodeRoomNotFound      = 4102
	CodeNotInRoom         = 4103
	CodeCrossRoom         = 4104
	// CodeNameConflict is reserved from 0.5.0: an SDK must not send it
	// (migrations/v0.5.0-single-computer-room.md); a peer that does is
	// read as a room refusal like 4101.
	CodeNameConflict = 4105
)

// 4013 categories. The set is closed at the protocol level but an SDK must
// treat unknown values as a generic failure (error-handling.md §演进规则).
const (
	CategoryUpstreamUnavailable     = "upstream_unavailable"
	CategoryInvalidDPEMime          = "invalid_dpe_mime"
	CategoryResolverError           = "resolver_error"
	CategoryResolverReturnedInvalid = "resolver_returned_invalid"
)

// Error is the flat ErrorPayload: code and message at the top level beside
// code-specific fields, diagnostics in details. It is both what the server
// and computer send and what the agent decodes.
//
// Error() never includes Details: the spec forbids showing it to users.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`

	// 4011, 4012, 4013
	URI string `json:"uri,omitempty"`
	// 4012
	Reason string `json:"reason,omitempty"`
	// 4013
	Category string `json:"category,omitempty"`
	// 4014, 4015
	MCPServerName string `json:"mcp_server_name,omitempty"`
	// 4015
	Capability string `json:"capability,omitempty"`
	// 4008
	ServerVersion string `json:"server_version,omitempty"`
	ClientVersion string `json:"client_version,omitempty"`
	MinSupported  string `json:"min_supported,omitempty"`
	MaxSupported  string `json:"max_supported,omitempty"`

	// Details is kept for logs only.
	Details json.RawMessage `json:"details,omitempty"`
	// Extra holds top-level fields this version does not know.
	Extra map[string]json.RawMessage `json:"-"`
}

var knownErrorFields = map[string]bool{
	"code": true, "message": true, "uri": true, "reason": true, "category": true,
	"mcp_server_name": true, "mcp_server": true, "capability": true,
	"server_version": true, "client_version": true, "min_supported": true,
	"max_supported": true, "details": true,
}

// MarshalJSON writes the flat shape, Extra fields included.
func (e *Error) MarshalJSON() ([]byte, error) {
	type plain Error
	b, err := json.Marshal((*plain)(e))
	if err != nil || len(e.Extra) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range e.Extra {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the flat shape. It accepts mcp_server as an alias of
// mcp_server_name, since some implementations send that.
func (e *Error) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	var out Error
	str := func(k string) string {
		var s string
		if raw, ok := m[k]; ok {
			_ = json.Unmarshal(raw, &s)
		}
		return s
	}
	raw, ok := m["code"]
	if !ok {
		return fmt.Errorf("error payload: missing code")
	}
	var code float64
	if err := json.Unmarshal(raw, &code); err != nil {
		return fmt.Errorf("error payload: code is not a number")
	}
	out.Code = int(code)
	out.Message = str("message")
	out.URI = str("uri")
	out.Reason = str("reason")
	out.Category = str("category")
	out.MCPServerName = str("mcp_server_name")
	if out.MCPServerName == "" {
		out.MCPServerName = str("mcp_server")
	}
	out.Capability = str("capability")
	out.ServerVersion = str("server_version")
	out.ClientVersion = str("client_version")
	out.MinSupported = str("min_supported")
	out.MaxSupported = str("max_supported")
	out.Details = m["details"]
	for k, v := range m {
		if !knownErrorFields[k] {
			if out.Extra == nil {
				out.Extra = map[string]json.RawMessage{}
			}
			out.Extra[k] = v
		}
	}
	*e = out
	return nil
}

// DecodeError reports whether v (an ack argument: a map, raw JSON, or bytes)
// is a flat ErrorPayload, and decodes it. An object is an ErrorPayload when
// it has a numeric code and a string message.
func DecodeError(v any) (*Error, bool) {
	var b []byte
	switch t := v.(type) {
	case nil:
		return nil, false
	case []byte:
		b = t
	case json.RawMessage:
		b = t
	case string:
		b = []byte(t)
	case map[string]any:
		code, ok1 := t["code"].(float64)
		_, ok2 := t["message"].(string)
		if !ok1 || !ok2 || code != float64(int(code)) {
			return nil, false
		}
		var err error
		if b, err = json.Marshal(t); err != nil {
			return nil, false
		}
	default:
		return nil, false
	}
	var probe struct {
		Code    *float64 `json:"code"`
		Message *string  `json:"message"`
	}
	if json.Unmarshal(b, &probe) != nil || probe.Code == nil || probe.Message == nil {
		return nil, false
	}
	if *probe.Code != float64(int(*probe.Code)) {
		return nil, false
	}
	var e Error
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, false
	}
	return &e, true
}

// Error is one line for a user: code, name, message and the code-specific
// fields that help. Details are left out on purpose.
func (e *Error) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d %s", e.Code, CodeName(e.Code))
	msg := strings.TrimSpace(e.Message)
	if msg != "" && !strings.EqualFold(msg, CodeName(e.Code)) {
		sb.WriteString(": ")
		sb.WriteString(msg)
	}
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	switch e.Code {
	case CodeVersionMismatch:
		add("client", e.ClientVersion)
		add("server", e.ServerVersion)
		if e.MinSupported != "" || e.MaxSupported != "" {
			parts = append(parts, "supported="+e.MinSupported+".."+e.MaxSupported)
		}
	case CodeResolverNotConfig:
		add("uri", e.URI)
	case CodeInvalidDPEURI:
		add("uri", e.URI)
		add("reason", e.Reason)
	case CodeResolutionFailed:
		add("category", e.Category)
		add("uri", e.URI)
	case CodeMCPServerNotFound:
		add("mcp_server", e.MCPServerName)
	case CodeCapabilityMissing:
		add("mcp_server", e.MCPServerName)
		add("capability", e.Capability)
	}
	if len(parts) > 0 {
		sb.WriteString(" (")
		sb.WriteString(strings.Join(parts, ", "))
		sb.WriteString(")")
	}
	return strings.ReplaceAll(sb.String(), "\n", " ")
}

// Is lets errors.Is(err, &Error{Code: n}) match on code alone.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Message == ""
}

// Retryable reports whether retrying the same request may succeed. Only
// 4013 upstream_unavailable is retryable among DPE errors; 408 and 500 are
// optionally retryable (error-handling.md §重试策略).
func (e *Error) Retryable() bool {
	switch e.Code {
	case CodeResolutionFailed:
		return e.Category == CategoryUpstreamUnavailable
	case CodeTimeout, CodeInternal:
		return true
	}
	return false
}

// KnownCategory reports whether a 4013 category is one of the four v0.2 values.
func KnownCategory(c string) bool {
	switch c {
	case CategoryUpstreamUnavailable, CategoryInvalidDPEMime, CategoryResolverError, CategoryResolverReturnedInvalid:
		return true
	}
	return false
}

// CodeName is the spec's name for a code.
func CodeName(code int) string {
	switch code {
	case 400:
		return "Bad Request"
	case 401:
		return "Unauthorized"
	case 403:
		return "Forbidden"
	case 404:
		return "Not Found"
	case 408:
		return "Timeout"
	case 500:
		return "Internal Error"
	case 4008:
		return "Protocol Version Mismatch"
	case 4011:
		return "DPE Resolver Not Configured"
	case 4012:
		return "Invalid DPE URI"
	case 4013:
		return "DPE Resolution Failed"
	case 4014:
		return "MCP Server Not Found"
	case 4015:
		return "MCP Capability Not Supported"
	case 4101:
		return "Room Full"
	case 4102:
		return "Room Not Found"
	case 4103:
		return "Not In Room"
	case 4104:
		return "Cross Room Access"
	case 4105:
		return "Name Conflict"
	case 4016:
		return "Invalid Skill Name"
	case 4017:
		return "Skill Resource Not Accessible"
	case 4018:
		return "Blob Not Accessible"
	case 4019:
		return "Blob Write Failed"
	}
	return "Error"
}

// Clone returns a deep copy (Extra included).
func (e *Error) Clone() *Error {
	c := *e
	c.Extra = maps.Clone(e.Extra)
	return &c
}

// DetailReason is details.reason of a 4017/4018/4019 (and details.role of
// a 4101) when it is one short lower-case token, else "". The spec puts
// these code-specific values under details (python-sdk smcp.py
// ErrorPayload, "v0.2.1 起 … 下沉到 details"); they are read only to pick
// one of our own sentences, never shown as sent.
func (e *Error) DetailReason() string { return e.detailToken("reason") }

// DetailRole is details.role of a 4101 from 0.5 ("agent" or "computer").
func (e *Error) DetailRole() string { return e.detailToken("role") }

func (e *Error) detailToken(key string) string {
	if len(e.Details) == 0 {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(e.Details, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[key], &s) != nil || len(s) == 0 || len(s) > 32 {
		return ""
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '_' {
			return ""
		}
	}
	return s
}

// NoAnswerFrom reports whether e is a NoAnswer (noanswer.go), and whom and
// what it names.
func (e *Error) NoAnswerFrom() (computer, event string, ok bool) {
	if e.Extra == nil {
		return "", "", false
	}
	if json.Unmarshal(e.Extra[FieldNoAnswerComputer], &computer) != nil || json.Unmarshal(e.Extra[FieldNoAnswerEvent], &event) != nil ||
		computer == "" || event == "" {
		return "", "", false
	}
	return computer, event, true
}
