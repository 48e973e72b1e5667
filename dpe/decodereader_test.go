package dpe

import (
	"context"
	"io"
)

// DecodeReader is the streaming open path (readBody with a firstPager,
// then Decode) as one call, for the tests of that path; the product goes
// through Opener, which composes the same pieces with its fetch.
//
// DecodeReader reads a Document JSON from r (at most lim.MaxBytes; size,
// when > 0, is the stated length and sizes the one buffer) and decodes it
// as Decode does: same limits, same errors, same findings. ctx is checked
// between reads; r's own deadlines bound each read.
//
// first, when not nil, is called at most once, from DecodeReader's
// goroutine, as soon as the bytes of an inline first page have arrived
// and the rest of the body has not. Its Document is provisional: the
// top-level fields that precede "pages" and that one page, decoded. It
// shares nothing mutable with the final Document, so it may be handed to
// another goroutine at once. Findings that need the whole file come only
// with the final Document.
//
// It returns the final Document and the bytes it aliases.
func DecodeReader(ctx context.Context, r io.Reader, size int64, lim Limits, first func(*Document)) (*Document, []byte, error) {
	lim = lim.withDefaults()
	var fp *firstPager
	if first != nil {
		fp = &firstPager{lim: lim, fn: first}
	}
	data, err := readBody(ctx, r, size, lim.MaxBytes, "document size", fp.feed)
	if err != nil {
		return nil, nil, err
	}
	d, err := Decode(data, lim)
	if err != nil {
		return nil, nil, err
	}
	return d, data, nil
}
