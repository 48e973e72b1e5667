package client

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// ResolveError is a computer's refusal of client:get_dpe for URI, said as
// one sentence: the thing, the cause, then the code. Err keeps the
// protocol error (and its details, for the log only).
type ResolveError struct {
	URI      string
	Computer string
	Err      *protocol.Error
}

// Unwrap gives the *protocol.Error.
func (e *ResolveError) Unwrap() error { return e.Err }

// DPEURI names the URI, so callers need not repeat it in a prefix.
func (e *ResolveError) DPEURI() string { return e.URI }

// NotFound reports the computer saying the MCP server has no such resource.
func (e *ResolveError) NotFound() bool {
	return e.Err.Code == protocol.CodeResolutionFailed && e.Err.Category == "" &&
		strings.Contains(strings.ToLower(e.Err.Message), "not found")
}

// ConversionFailed reports the computer saying its MCP server has the
// document but cannot convert it (a limit, its deadline, a corrupt file):
// the same bytes fail the same way, so it is not retryable.
func (e *ResolveError) ConversionFailed() bool {
	return e.Err.Code == protocol.CodeResolutionFailed && e.Err.Category == "" &&
		(e.Err.DetailReason() == protocol.DetailConversionFailed ||
			strings.HasPrefix(strings.TrimSpace(e.Err.Message), protocol.ConversionFailedMessage))
}

// ConversionCause is what the converter said, without the protocol's
// "conversion failed" prefix: with a converter of this project it names
// the file and the cause ("binary.md: binary content, not text"). ""
// unless ConversionFailed.
func (e *ResolveError) ConversionCause() string {
	if !e.ConversionFailed() {
		return ""
	}
	return strings.TrimSpace(trimPrefixFold(oneLine(strings.TrimSpace(e.Err.Message)), protocol.ConversionFailedMessage))
}

// Retryable reports whether offering the user a retry makes sense: the
// source was unavailable, or the computer's resolver failed (an upload or
// signing step that may work the next time).
// A malformed source, an invalid resolver answer, a missing server or
// resource, or a bad URI will fail the same way again.
func (e *ResolveError) Retryable() bool {
	switch e.Err.Code {
	case protocol.CodeResolutionFailed:
		return e.Err.Category == protocol.CategoryUpstreamUnavailable || e.Err.Category == protocol.CategoryResolverError
	}
	return false
}

func (e *ResolveError) Error() string {
	pe := e.Err
	code := fmt.Sprintf("(%d)", pe.Code)
	if pe.Category != "" {
		code = fmt.Sprintf("(%d %s)", pe.Code, pe.Category)
	}
	msg := oneLine(strings.TrimSpace(pe.Message))
	var cause string
	switch {
	case e.NotFound():
		cause = "was not found on computer " + e.Computer
		if m := serverInMessage.FindStringSubmatch(msg); m != nil {
			cause += ": MCP server " + m[1] + " has no such resource"
		}
	case e.ConversionFailed():
		cause = fmt.Sprintf("cannot be converted by computer %s: %s", e.Computer, e.ConversionCause())
	case pe.Code == protocol.CodeResolutionFailed:
		switch pe.Category {
		case protocol.CategoryUpstreamUnavailable:
			cause = fmt.Sprintf("is unavailable: computer %s could not read it from its source; try again", e.Computer)
		case protocol.CategoryResolverError:
			cause = fmt.Sprintf("could not be prepared: the resolver of computer %s failed; try again", e.Computer)
		case protocol.CategoryInvalidDPEMime:
			cause = fmt.Sprintf("is not a valid DPE source on computer %s: %s", e.Computer, trimPrefixFold(msg, "DPE source answered an invalid document: "))
		case protocol.CategoryResolverReturnedInvalid:
			cause = fmt.Sprintf("could not be resolved: the resolver of computer %s returned an invalid answer", e.Computer)
		default:
			cause = fmt.Sprintf("could not be resolved by computer %s: %s", e.Computer, msg)
		}
	case pe.Code == protocol.CodeResolverNotConfig:
		cause = fmt.Sprintf("cannot be opened: computer %s has no DPE resolver configured", e.Computer)
	case pe.Code == protocol.CodeInvalidDPEURI:
		r := pe.Reason
		if r == "" {
			r = msg
		}
		cause = fmt.Sprintf("was refused by computer %s as an invalid dpe URI: %s", e.Computer, oneLine(r))
	case pe.Code == protocol.CodeMCPServerNotFound:
		cause = fmt.Sprintf("has no server on computer %s: %s", e.Computer, msg)
	case pe.Code == protocol.CodeCapabilityMissing:
		cause = fmt.Sprintf("cannot be read: MCP server %s on computer %s does not offer resources", pe.MCPServerName, e.Computer)
	default:
		return fmt.Sprintf("%s on computer %s: %s", e.URI, e.Computer, pe.Error())
	}
	return fmt.Sprintf("%s %s %s", e.URI, cause, code)
}

// serverInMessage finds the quoted server name in our computer's
// not-found message ("… MCP server \"library\" has no resource …").
var serverInMessage = regexp.MustCompile(`MCP server ("[^"]{1,80}")`)

func trimPrefixFold(s, prefix string) string {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):]
	}
	return s
}

// asResolveError turns a get_dpe protocol error into a *ResolveError; other
// errors pass unchanged.
func asResolveError(err error, computer, uri string) error {
	var pe *protocol.Error
	var re *ResolveError
	if err == nil || errors.As(err, &re) || !errors.As(err, &pe) ||
		pe.Code < protocol.CodeResolverNotConfig || pe.Code > protocol.CodeCapabilityMissing {
		return err // not get_dpe's own refusal (4011–4015): said as it came
	}
	return &ResolveError{URI: uri, Computer: computer, Err: pe}
}
