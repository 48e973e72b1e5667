package dpev1

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/dpe-tui/dpe-tui/dpev1/wire"
)

// Kind is what a staging upload carries (http §1).
type Kind string

// The three kinds of staging upload.
const (
	KindPage   Kind = "pages"
	KindObject Kind = "objects"
	KindBlob   Kind = "blobs"
)

// UploadResult is a completed upload: New (201: first time in this
// session, 200: again) and the next layer's missing list.
type UploadResult struct {
	New     bool
	Missing wire.UploadResponse
	Expires string // DPE-Session-Expires
}

func stagingPath(sid string, kind Kind, hash string) string {
	return "/staging/" + sid + "/" + string(kind) + "/" + hash
}

// Upload is a whole (not chunked) PUT of a page object, element object
// or blob into session sid (http §4.6, §4.7). mime is a blob's media type
// ("" octet-stream).
func (c *Client) Upload(ctx context.Context, sid string, kind Kind, hash string, body []byte, mime string) (*UploadResult, error) {
	h := http.Header{}
	if kind == KindBlob {
		if mime == "" {
			mime = "application/octet-stream"
		}
		h.Set("Content-Type", mime)
	}
	resp, err := c.do(ctx, request{op: "upload " + hash, method: http.MethodPut, path: stagingPath(sid, kind, hash), body: body, header: h})
	if err != nil {
		return nil, err
	}
	return uploadResult(resp)
}

func uploadResult(resp *response) (*UploadResult, error) {
	r := &UploadResult{New: resp.status == http.StatusCreated, Expires: resp.header.Get(wire.HeaderSessionExpires)}
	if len(resp.body) > 0 {
		m, err := decode[wire.UploadResponse]("upload", resp)
		if err != nil {
			return nil, err
		}
		r.Missing = *m
	}
	return r, nil
}

// Offset is the resume query HEAD staging/… (http §4.7): the bytes this
// session holds of hash (its total once complete). It does not renew.
func (c *Client) Offset(ctx context.Context, sid string, kind Kind, hash string) (int64, error) {
	resp, err := c.do(ctx, request{op: "upload offset " + hash, method: http.MethodHead, path: stagingPath(sid, kind, hash)})
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(resp.header.Get(wire.HeaderUploadOffset), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("upload offset %s: no valid %s", hash, wire.HeaderUploadOffset)
	}
	return n, nil
}

// maxResyncs bounds how often one chunked upload re-asks its offset.
const maxResyncs = 16

// UploadChunked sends a blob or a page object of size bytes from src in
// chunks of at most chunk bytes with Content-Range, resuming where the
// session stands: it asks the offset first (so an interrupted upload goes
// on), and again whenever a chunk's answer is lost or the remote reports
// another offset, never resending blind (core §3.4).
func (c *Client) UploadChunked(ctx context.Context, sid string, kind Kind, hash string, src io.ReaderAt, size, chunk int64, mime string) (*UploadResult, error) {
	if size <= 0 || chunk <= 0 {
		return nil, fmt.Errorf("upload %s: a chunked upload needs bytes and a chunk size", hash)
	}
	if mime == "" {
		mime = "application/octet-stream"
		if kind == KindPage {
			mime = "application/json"
		}
	}
	off, err := c.Offset(ctx, sid, kind, hash)
	if err != nil {
		return nil, err
	}
	resyncs := 0
	resync := func(cause error) error {
		if resyncs++; resyncs > maxResyncs {
			return fmt.Errorf("upload %s: gave up after %d offset queries: %w", hash, maxResyncs, cause)
		}
		n, err := c.Offset(ctx, sid, kind, hash)
		if err != nil {
			return err
		}
		off = n
		return nil
	}
	buf := make([]byte, min(chunk, size))
	for {
		from := off
		if from >= size {
			// Complete already: resend the last chunk for the 200 and the
			// missing list (an empty range is not valid, http §4.7).
			from = max(size-chunk, 0)
		}
		n := min(chunk, size-from)
		b := buf[:n]
		if _, err := src.ReadAt(b, from); err != nil && !(errors.Is(err, io.EOF) && int64(len(b)) == n) {
			return nil, fmt.Errorf("upload %s: reading bytes %d-%d: %w", hash, from, from+n-1, err)
		}
		h := http.Header{"Content-Type": {mime}, "Content-Range": {fmt.Sprintf("bytes %d-%d/%d", from, from+n-1, size)}}
		resp, err := c.do(ctx, request{op: "upload " + hash, method: http.MethodPut, path: stagingPath(sid, kind, hash), body: b, header: h})
		var p *wire.Problem
		switch {
		case err == nil && resp.status == http.StatusAccepted:
			v, perr := strconv.ParseInt(resp.header.Get(wire.HeaderUploadOffset), 10, 64)
			if perr != nil || v < 0 || v > size {
				if err := resync(fmt.Errorf("no valid %s", wire.HeaderUploadOffset)); err != nil {
					return nil, err
				}
				continue
			}
			off = v
		case err == nil:
			return uploadResult(resp)
		case errors.As(err, &p) && p.Code == wire.CodeValidation && p.UploadOffset >= 0:
			if p.UploadOffset > size {
				return nil, err
			}
			if rerr := resync(err); rerr != nil {
				return nil, rerr
			}
		case errors.As(err, &p), ctx.Err() != nil:
			return nil, err
		default:
			// A lost or uncertain answer: ask where the session stands.
			if rerr := resync(err); rerr != nil {
				return nil, rerr
			}
		}
	}
}
