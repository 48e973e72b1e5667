package dpe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Access is what client:get_dpe answered for one dpe:// URI: where the
// content can be fetched right now, and the hints that came with it.
// Access URIs are never persisted across runs (dpe.md §URI 生命周期).
type Access struct {
	URI       string    // access URI (file://, http://, https://)
	MimeType  string    // mime_type hint, may be empty
	Size      int64     // size hint in bytes; -1 when absent
	ExpiresAt time.Time // zero when absent (no expiry)
	ETag      string
	Computer  string // which computer answered
	// OwnComputer is true when the answer is vouched for by a computer
	// dpe-tui started itself (the client checks a tag only such computers
	// can make; never read from the wire as such). Only then may the
	// access URI be file:// without --allow-file-uri.
	OwnComputer bool
	RawJSON     []byte // the GetDPERet exactly as received, for the trace view
	// Problems are conformance findings about the answer itself (an
	// expires_at that is not ISO 8601 …), one sentence each.
	Problems []string
}

// Expired reports whether the access URI is past its expiry at now,
// allowing ClockSkew: the computer's clock is not ours.
func (a Access) Expired(now time.Time) bool {
	return !a.ExpiresAt.IsZero() && !now.Before(a.ExpiresAt.Add(ClockSkew))
}

// Resolver turns a dpe:// URI into an Access. The agent (client package)
// implements it with client:get_dpe; tests implement it directly.
type Resolver interface {
	Resolve(ctx context.Context, dpeURI string) (Access, error)
}

// ResolverFunc adapts a function to Resolver.
type ResolverFunc func(ctx context.Context, dpeURI string) (Access, error)

// Resolve calls f.
func (f ResolverFunc) Resolve(ctx context.Context, dpeURI string) (Access, error) {
	return f(ctx, dpeURI)
}

// Retryable reports whether err says that trying again may help: an error
// in its chain has a Retryable method that says so (a resolver's refusal
// for an unavailable source, for example). The TUI offers a retry then.
func Retryable(err error) bool {
	var r interface{ Retryable() bool }
	return errors.As(err, &r) && r.Retryable()
}

// ClockSkew is how far apart the computer's clock and ours may be: an
// access URI counts as expired only this long after its expires_at.
const ClockSkew = 30 * time.Second

// ParseTimestamp reads an ISO 8601 / RFC 3339 date-time as servers write
// them: "T" or a space between date and time, with or without a fraction
// of a second, with "Z", a ±hh:mm or ±hhmm offset, or no offset (UTC is
// assumed: the spec's examples are UTC). A date alone is midnight UTC.
func ParseTimestamp(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if len(s) > 64 {
		return time.Time{}, fmt.Errorf("%q… is not an ISO 8601 date-time", s[:32])
	}
	layouts := []string{
		time.RFC3339Nano,
		"2006-01-02T15:04:05.999999999Z0700",
		"2006-01-02T15:04:05.999999999",
		"2006-01-02T15:04Z07:00",
		"2006-01-02T15:04",
		"2006-01-02",
	}
	norm := s
	if len(norm) > 10 && norm[10] == ' ' {
		norm = norm[:10] + "T" + norm[11:]
	}
	if len(norm) > 10 && (norm[10] == 't') {
		norm = norm[:10] + "T" + norm[11:]
	}
	if strings.HasSuffix(norm, "z") {
		norm = norm[:len(norm)-1] + "Z"
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, norm); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO 8601 date-time", s)
}
