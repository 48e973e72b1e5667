package client

import (
	"errors"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/protocol"
)

func TestResolveError_RetryableByCategory(t *testing.T) {
	for _, c := range []struct {
		code      int
		category  string
		retryable bool
	}{
		{4013, protocol.CategoryUpstreamUnavailable, true},
		{4013, protocol.CategoryResolverError, true},
		{4013, protocol.CategoryInvalidDPEMime, false},
		{4013, protocol.CategoryResolverReturnedInvalid, false},
		{4013, "", false},
		{4011, "", false},
		{4012, "", false},
		{4014, "", false},
		{4015, "", false},
	} {
		err := asResolveError(&protocol.Error{Code: c.code, Category: c.category, Message: "m"}, "box", "dpe://h/d")
		var re *ResolveError
		if !errors.As(err, &re) || re.Retryable() != c.retryable || dpe.Retryable(err) != c.retryable {
			t.Errorf("%d %q: Retryable = %v, want %v", c.code, c.category, dpe.Retryable(err), c.retryable)
		}
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != c.code {
			t.Errorf("%d: the protocol error is not in the chain", c.code)
		}
	}
	// Other errors are said as they came; a timeout is still retryable.
	err := asResolveError(&protocol.Error{Code: 408, Message: "Timeout"}, "box", "dpe://h/d")
	var re *ResolveError
	if errors.As(err, &re) || !dpe.Retryable(err) {
		t.Errorf("408: %T, Retryable %v", err, dpe.Retryable(err))
	}
}
