package wire

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dpe-tui/dpe-tui/sanitize"
)

// Code is an error code of core §6. A Code is an error itself, so that a
// caller asks errors.Is(err, wire.CodePreconditionFailed): dispatch is by
// code, never by HTTP status (http §3.2).
type Code string

// The codes of core §6.
const (
	CodeValidation           Code = "DPE_VALIDATION"
	CodeContractUnsupported  Code = "DPE_CONTRACT_UNSUPPORTED"
	CodeCategoryUnknown      Code = "DPE_CATEGORY_UNKNOWN"
	CodePreconditionRequired Code = "DPE_PRECONDITION_REQUIRED"
	CodePreconditionFailed   Code = "DPE_PRECONDITION_FAILED"
	CodeAlreadyExists        Code = "DPE_ALREADY_EXISTS"
	CodeNotFound             Code = "DPE_NOT_FOUND"
	CodeSessionExpired       Code = "DPE_SESSION_EXPIRED"
	CodeHashMismatch         Code = "DPE_HASH_MISMATCH"
	CodeMissingContent       Code = "DPE_MISSING_CONTENT"
	CodePayloadTooLarge      Code = "DPE_PAYLOAD_TOO_LARGE"
	CodeForbidden            Code = "DPE_FORBIDDEN"
	CodeRateLimited          Code = "DPE_RATE_LIMITED"
	CodeUnavailable          Code = "DPE_UNAVAILABLE"
)

// Codes lists every code of core §6, in its table's order.
func Codes() []Code {
	return []Code{CodeValidation, CodeContractUnsupported, CodeCategoryUnknown,
		CodePreconditionRequired, CodePreconditionFailed, CodeAlreadyExists, CodeNotFound,
		CodeSessionExpired, CodeHashMismatch, CodeMissingContent, CodePayloadTooLarge,
		CodeForbidden, CodeRateLimited, CodeUnavailable}
}

func (c Code) Error() string { return string(c) }

// Known reports whether c is one of core §6's codes.
func (c Code) Known() bool {
	for _, k := range Codes() {
		if k == c {
			return true
		}
	}
	return false
}

// Retryable is core §6's column: only a rate limit and an unavailable
// remote may succeed when the same request is sent again.
func (c Code) Retryable() bool { return c == CodeRateLimited || c == CodeUnavailable }

// Type is the stable problem type URI of c (http §5): urn:dpe:error:<kebab>.
func (c Code) Type() string {
	s := strings.TrimPrefix(string(c), "DPE_")
	return "urn:dpe:error:" + strings.ReplaceAll(strings.ToLower(s), "_", "-")
}

// Missing is what DPE_MISSING_CONTENT lists, layer by layer (core §3.3).
type Missing struct {
	Pages         []string `json:"pages,omitempty"`
	ContentHashes []string `json:"content_hashes,omitempty"`
	Blobs         []string `json:"blobs,omitempty"`
}

// Problem is an RFC 9457 body with the binding's members (http §5). It is
// the error a client returns for a DPE error; Detail is the peer's text
// and is never shown as is (Error() sanitizes and bounds it).
type Problem struct {
	Type             string   `json:"type,omitempty"`
	Title            string   `json:"title,omitempty"`
	Status           int      `json:"status,omitempty"`
	Detail           string   `json:"detail,omitempty"`
	Code             Code     `json:"code"`
	Retryable        bool     `json:"retryable"`
	Missing          *Missing `json:"missing,omitempty"`
	MissingTruncated bool     `json:"missing_truncated,omitempty"`

	// Set by the client, not on the wire.
	RetryAfter   string `json:"-"` // the Retry-After header, verbatim
	UploadOffset int64  `json:"-"` // DPE-Upload-Offset, -1 when absent
}

func (p *Problem) Error() string {
	s := string(p.Code)
	if d := sanitize.Line(p.Detail); d != "" {
		if len(d) > 200 {
			d = d[:200] + "…"
		}
		s += ": " + d
	}
	return s
}

// Is lets errors.Is match a Problem against a Code.
func (p *Problem) Is(target error) bool {
	c, ok := target.(Code)
	return ok && c == p.Code
}

// MaxProblemBytes bounds a problem body: a missing list may be long, but
// a remote that streams an endless error must not grow memory.
const MaxProblemBytes = 1 << 20

// maxMissing bounds each missing list kept from a peer.
const maxMissing = 100000

// DecodeProblem reads a problem body. headerCode is DPE-Error-Code (the
// only carrier on HEAD, http §5). A body whose code is not a string, is
// unknown, or differs from the header is refused: the client reports it as
// a non-protocol error rather than guess a code.
func DecodeProblem(body []byte, headerCode string) (*Problem, error) {
	if len(body) > MaxProblemBytes {
		return nil, fmt.Errorf("problem body over %d bytes", MaxProblemBytes)
	}
	var p Problem
	if len(body) == 0 {
		if headerCode == "" {
			return nil, fmt.Errorf("no problem body and no %s header", HeaderErrorCode)
		}
		p.Code = Code(headerCode)
	} else {
		if err := json.Unmarshal(body, &p); err != nil {
			return nil, fmt.Errorf("problem body: %w", err)
		}
		if p.Code == "" {
			p.Code = Code(headerCode)
		}
		if headerCode != "" && Code(headerCode) != p.Code {
			return nil, fmt.Errorf("problem code %s differs from %s %s",
				sanitize.Line(string(p.Code)), HeaderErrorCode, sanitize.Line(headerCode))
		}
	}
	if !p.Code.Known() {
		return nil, fmt.Errorf("unknown error code %q", sanitize.Line(trim(string(p.Code), 64)))
	}
	// retryable is decided by the code (http §5), not by what the peer says.
	p.Retryable = p.Code.Retryable()
	if m := p.Missing; m != nil {
		if len(m.Pages)+len(m.ContentHashes)+len(m.Blobs) > maxMissing {
			return nil, fmt.Errorf("missing list over %d entries", maxMissing)
		}
	}
	p.UploadOffset = -1
	return &p, nil
}

func trim(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
