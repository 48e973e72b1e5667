package dpe

import (
	"context"
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
}

// Expired reports whether the access URI is past its expiry at now.
func (a Access) Expired(now time.Time) bool {
	return !a.ExpiresAt.IsZero() && !now.Before(a.ExpiresAt)
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
