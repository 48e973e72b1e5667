package dpe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/localfile"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// Fetcher reads access URIs (dpe.md §Agent 处理流程: http(s) and file are
// the built-in schemes). The zero value is usable: TLS verified, 256 MiB,
// file:// refused. A Fetcher is safe for concurrent use.
type Fetcher struct {
	// HTTP is the client to use; nil means a private client on a clone of
	// http.DefaultTransport. Its CheckRedirect is wrapped by the redirect
	// policy below either way.
	HTTP *http.Client
	// MaxBytes caps a body (default DefaultMaxBytes).
	MaxBytes int64
	// Timeout bounds a whole fetch (default 2 minutes); IdleTimeout bounds
	// each wait for the next body bytes, so a stalled server is detected
	// long before Timeout (default 15 s).
	Timeout, IdleTimeout time.Duration
	// AllowFile permits file:// access URIs from anyone (the user's
	// --allow-file-uri, or a local file the user opened); FileRoot, when
	// set, confines them to that directory. Without it only an Access
	// vouched for by a computer dpe-tui started itself (Access.OwnComputer)
	// may name a local file: a Computer must not make dpe-tui open
	// arbitrary local paths.
	AllowFile bool
	FileRoot  string
	// S3 reads s3:// access URIs (package dpe/s3's Reader; nil: this
	// process does not read s3://). It is plugged in, so dpe does not link
	// an object-store SDK.
	S3 S3Reader

	// One client per Fetcher, built on first use: its transport keeps
	// connections alive (and speaks HTTP/2 where offered), so the pages
	// of a manifest document reuse one connection instead of a TCP and
	// TLS handshake each.
	once sync.Once
	hc   *http.Client
}

// S3Reader reads one s3:// object (dpe/s3 implements it).
type S3Reader interface {
	ReadS3(ctx context.Context, u *url.URL, r S3Read) (*Fetched, error)
}

// S3Read is the Fetcher's policy for one s3:// read: the transport to
// use (nil: the reader's own), the longest wait for the next bytes, and
// the body cap.
type S3Read struct {
	Transport http.RoundTripper
	Idle      time.Duration
	MaxBytes  int64
}

// MaxIdleConnsPerHost is how many idle connections a Fetcher keeps per
// host: enough for the parallel page fetches of check (DefaultFetchWorkers)
// to find a warm connection each.
const MaxIdleConnsPerHost = 8

// Defaults of Fetcher.
const (
	DefaultFetchTimeout = 2 * time.Minute
	DefaultIdleTimeout  = 15 * time.Second
	MaxRedirects        = 5
)

// Fetched is one fetched body.
type Fetched struct {
	URI      string // the access URI as given (not persisted anywhere)
	Status   int    // HTTP status; 0 for file://
	MimeType string // media type without parameters, lowercase; may be empty
	Bytes    []byte
	Duration time.Duration
	// partial: the read stopped when its progress hook said so; Bytes
	// are a prefix of the body.
	partial bool
}

// FetchError is a failed fetch. URI is redacted (no query, no userinfo):
// access URIs often carry signatures (dpe.md §部署示例 X-Signature=…).
type FetchError struct {
	URI    string
	Status int // HTTP status when the server answered, else 0
	Err    error
}

func (e *FetchError) Error() string { return fmt.Sprintf("fetch %s: %v", e.URI, e.Err) }
func (e *FetchError) Unwrap() error { return e.Err }

// Errors wrapped by FetchError.
var (
	ErrStalled        = errors.New("body stalled")
	ErrFileRefused    = errors.New("file:// access URI refused")
	ErrBadStatus      = errors.New("HTTP status")
	ErrUnsupportedURI = errors.New("unsupported access URI scheme")
	ErrRedirect       = errors.New("redirect refused")
)

// Fetch reads accessURI: http(s) with GET, file:// from disk per policy.
func (f *Fetcher) Fetch(ctx context.Context, accessURI string) (*Fetched, error) {
	return f.fetch(ctx, accessURI, false)
}

// fetch is Fetch; ownComputer lifts the file:// policy (not the
// regular-file rules) for an access URI that a computer dpe-tui started
// handed out.
func (f *Fetcher) fetch(ctx context.Context, accessURI string, ownComputer bool) (*Fetched, error) {
	return f.fetchWith(ctx, accessURI, ownComputer, nil, 0)
}

// progressFunc sees a body arrive: the bytes so far (a prefix, never
// the whole) and the media type the answer declared. It runs on the
// fetching goroutine, between reads. Returning true stops the read: the
// fetch returns the prefix (Fetched.partial) and reads no more.
type progressFunc func(prefix []byte, mimeType string) (stop bool)

// fetchWith is fetch; progress, when not nil, sees the body arrive
// (http and file; s3 bodies arrive whole). firstRange > 0 is for a read
// that will likely stop early: http(s) then asks for the body's first
// firstRange bytes, and for the rest only when progress wants more
// (fetchHTTP).
func (f *Fetcher) fetchWith(ctx context.Context, accessURI string, ownComputer bool, progress progressFunc, firstRange int64) (*Fetched, error) {
	start := time.Now()
	u, err := url.Parse(accessURI)
	if err != nil {
		return nil, &FetchError{URI: RedactURI(accessURI), Err: fmt.Errorf("%w: %v", ErrUnsupportedURI, err)}
	}
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultFetchTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out *Fetched
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		out, err = f.fetchHTTP(ctx, u, progress, firstRange)
	case "file":
		out, err = f.fetchFile(ctx, u, ownComputer, progress)
	case "s3":
		if f.S3 == nil {
			err = fmt.Errorf("%w %q (this build reads s3:// only with an S3 reader)", ErrUnsupportedURI, u.Scheme)
			break
		}
		var rt http.RoundTripper
		if f.HTTP != nil && f.HTTP.Transport != nil {
			rt = f.HTTP.Transport // e.g. --insecure's TLS settings
		}
		idle := f.IdleTimeout
		if idle <= 0 {
			idle = DefaultIdleTimeout
		}
		out, err = f.S3.ReadS3(ctx, u, S3Read{Transport: rt, Idle: idle, MaxBytes: f.maxBytes()})
	default:
		err = fmt.Errorf("%w %q (want http, https, file or s3)", ErrUnsupportedURI, u.Scheme)
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no complete answer within %v: %w", timeout, err)
		}
		var fe *FetchError
		if errors.As(err, &fe) {
			return nil, err
		}
		return nil, &FetchError{URI: RedactURI(accessURI), Err: err}
	}
	out.URI = accessURI
	out.Duration = time.Since(start)
	return out, nil
}

func (f *Fetcher) maxBytes() int64 {
	if f.MaxBytes > 0 {
		return f.MaxBytes
	}
	return DefaultMaxBytes
}

func (f *Fetcher) client() *http.Client {
	f.once.Do(func() { f.hc = f.newClient() })
	return f.hc
}

func (f *Fetcher) newClient() *http.Client {
	var c http.Client
	if f.HTTP != nil {
		c = *f.HTTP
	} else {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ForceAttemptHTTP2 = true
		tr.MaxIdleConnsPerHost = MaxIdleConnsPerHost
		c.Transport = tr
	}
	c.CheckRedirect = RedirectPolicy(c.CheckRedirect)
	return &c
}

// RedirectPolicy is the redirect rule of every fetch (the DPE v1 client
// follows it too): only to http and https, at most MaxRedirects; inner,
// when set, is asked after.
func RedirectPolicy(inner func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if s := strings.ToLower(req.URL.Scheme); s != "http" && s != "https" {
			return fmt.Errorf("%w: to a %s: URI (only http and https)", ErrRedirect, s)
		}
		if len(via) > MaxRedirects { // via holds the original request too
			return fmt.Errorf("%w: more than %d redirects", ErrRedirect, MaxRedirects)
		}
		if inner != nil {
			return inner(req, via)
		}
		return nil
	}
}

// fetchHTTP GETs u. With firstRange > 0 it asks for the first
// firstRange bytes (Range); a server that answers 206 and has more is
// then asked for the rest, from where the first part ended, only when
// progress has not stopped the read, and only for the same version of
// the body (If-Range with its strong ETag or Last-Modified; without
// either the rest is a plain GET, read from the start). A server that
// ignores Range answers 200 with the whole body, read until progress
// stops it.
func (f *Fetcher) fetchHTTP(ctx context.Context, u *url.URL, progress progressFunc, firstRange int64) (*Fetched, error) {
	idle := f.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The idle timer also covers the wait for response headers.
	stall := fmt.Errorf("%w: no data for %v", ErrStalled, idle)
	timer := time.AfterFunc(idle, func() { cancel(stall) })
	defer timer.Stop()

	get := func(u *url.URL, header http.Header) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json, */*;q=0.5")
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := f.client().Do(req)
		if err != nil {
			if c := context.Cause(ctx); c != nil && !errors.Is(err, ErrRedirect) {
				return nil, c
			}
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // the url.Error repeats the (unredacted) URL
			}
			return nil, err
		}
		return resp, nil
	}
	badStatus := func(resp *http.Response) error {
		return &FetchError{URI: RedactURI(u.String()), Status: resp.StatusCode,
			Err: fmt.Errorf("%w %d %s", ErrBadStatus, resp.StatusCode, http.StatusText(resp.StatusCode))}
	}
	max := f.maxBytes()
	var hdr http.Header
	if firstRange > 0 && progress != nil {
		hdr = http.Header{"Range": {fmt.Sprintf("bytes=0-%d", firstRange-1)}}
	}
	resp, err := get(u, hdr)
	if err != nil {
		return nil, err
	}
	defer func() { resp.Body.Close() }()
	mt := ""
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if m, _, err := mime.ParseMediaType(ct); err == nil {
			mt = strings.ToLower(m)
		}
	}
	var buf bytes.Buffer
	total := int64(-1) // the whole body's length, when known
	rest := false      // resp is a 206 with the rest of the body
	if resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && hdr != nil {
		resp.Body.Close() // an empty body has no first byte: ask for all of it
		if resp, err = get(u, nil); err != nil {
			return nil, err
		}
	} else if resp.StatusCode == http.StatusPartialContent && hdr != nil {
		start, last, size, ok := contentRange(resp.Header.Get("Content-Range"))
		if !ok || start != 0 {
			return nil, &FetchError{URI: RedactURI(u.String()), Status: resp.StatusCode,
				Err: fmt.Errorf("%w: a 206 answer to bytes=0-%d with Content-Range %q", ErrBadStatus, firstRange-1, sanitize.Line(resp.Header.Get("Content-Range")))}
		}
		if size > max {
			return nil, &LimitError{What: "fetch size", Limit: max, Got: size}
		}
		total = size
		stopped, err := readHTTP(ctx, resp, &buf, max, total, timer, idle, progress, mt)
		if err != nil {
			return nil, err
		}
		if !stopped && int64(buf.Len()) != last+1 {
			return nil, fmt.Errorf("after %d bytes: the range ended before byte %d", buf.Len(), last)
		}
		if stopped || int64(buf.Len()) == total || (total < 0 && int64(buf.Len()) < firstRange) {
			return &Fetched{Status: resp.StatusCode, MimeType: mt, Bytes: buf.Bytes(), partial: stopped}, nil
		}
		// More is wanted: the rest of this version, or all of another.
		next := http.Header{}
		if et := resp.Header.Get("ETag"); et != "" && !strings.HasPrefix(et, "W/") {
			next.Set("If-Range", et)
		} else if lm := resp.Header.Get("Last-Modified"); lm != "" {
			next.Set("If-Range", lm)
		}
		if next.Get("If-Range") != "" {
			next.Set("Range", fmt.Sprintf("bytes=%d-", buf.Len()))
		} else {
			buf.Reset()
		}
		resp.Body.Close()
		if resp, err = get(resp.Request.URL, next); err != nil {
			return nil, err
		}
		switch {
		case resp.StatusCode == http.StatusPartialContent && next.Get("Range") != "":
			if start, _, size, ok := contentRange(resp.Header.Get("Content-Range")); !ok || start != int64(buf.Len()) || size != total {
				return nil, &FetchError{URI: RedactURI(u.String()), Status: resp.StatusCode,
					Err: fmt.Errorf("%w: a 206 answer to bytes=%d- with Content-Range %q", ErrBadStatus, buf.Len(), sanitize.Line(resp.Header.Get("Content-Range")))}
			}
			rest = true
		case resp.StatusCode == http.StatusOK:
			// Another version (If-Range failed), or no ranges after all.
			buf.Reset()
			total = -1
			if m, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err == nil {
				mt = strings.ToLower(m)
			}
		}
	}
	if resp.StatusCode != http.StatusOK && !rest {
		return nil, badStatus(resp)
	}
	if resp.StatusCode == http.StatusOK {
		if resp.ContentLength > max {
			return nil, &LimitError{What: "fetch size", Limit: max, Got: resp.ContentLength}
		}
		total = resp.ContentLength
		if total > 0 {
			buf.Grow(int(total))
		}
	}
	stopped, err := readHTTP(ctx, resp, &buf, max, total, timer, idle, progress, mt)
	if err != nil {
		return nil, err
	}
	if !stopped && total >= 0 && int64(buf.Len()) != total {
		return nil, fmt.Errorf("after %d bytes: the body ended before its %d bytes", buf.Len(), total)
	}
	return &Fetched{Status: resp.StatusCode, MimeType: mt, Bytes: buf.Bytes(), partial: stopped}, nil
}

// readHTTP appends resp's body to buf, at most max bytes in all; total,
// when ≥ 0, is the whole body's length (progress is not called for the
// read that completes it). stopped: progress stopped the read.
func readHTTP(ctx context.Context, resp *http.Response, buf *bytes.Buffer, max, total int64, timer *time.Timer, idle time.Duration, progress progressFunc, mt string) (stopped bool, err error) {
	chunk := make([]byte, 64<<10)
	for {
		n, rerr := resp.Body.Read(chunk)
		if n > 0 {
			timer.Reset(idle)
			if int64(buf.Len()+n) > max {
				return false, &LimitError{What: "fetch size", Limit: max, Got: int64(buf.Len() + n)}
			}
			buf.Write(chunk[:n])
			if progress != nil && int64(buf.Len()) != total && progress(buf.Bytes(), mt) {
				return true, nil
			}
		}
		if rerr == io.EOF {
			return false, nil
		}
		if rerr != nil {
			if c := context.Cause(ctx); c != nil {
				return false, fmt.Errorf("after %d bytes: %w", buf.Len(), c)
			}
			return false, fmt.Errorf("after %d bytes: %w", buf.Len(), rerr)
		}
	}
}

// contentRange reads "bytes FIRST-LAST/SIZE" (RFC 9110 §14.4); size is
// -1 for "*".
func contentRange(h string) (start, last, size int64, ok bool) {
	var sz string
	if _, err := fmt.Sscanf(h, "bytes %d-%d/%s", &start, &last, &sz); err != nil || start < 0 || last < start {
		return 0, 0, 0, false
	}
	if sz == "*" {
		return start, last, -1, true
	}
	size, err := strconv.ParseInt(sz, 10, 64)
	if err != nil || size <= last {
		return 0, 0, 0, false
	}
	return start, last, size, true
}

func (f *Fetcher) fetchFile(ctx context.Context, u *url.URL, ownComputer bool, progress progressFunc) (*Fetched, error) {
	fh, st, mt, err := f.openFile(ctx, u, ownComputer)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	// One buffer of the stated size: io.ReadAll's doubling would leave up
	// to twice the file in garbage, and documents are large (peak RSS is
	// a budget: P4).
	var seen func([]byte) bool
	stopped := false
	if progress != nil {
		seen = func(b []byte) bool { stopped = progress(b, mt); return stopped }
	}
	data, err := readBody(ctx, fh, st.Size(), f.maxBytes(), "fetch size", seen)
	if err != nil {
		return nil, err
	}
	return &Fetched{MimeType: mt, Bytes: data, partial: stopped}, nil
}

// openFile applies the file:// policy to u and opens the regular file it
// names, within the size limit: the descriptor, its Stat and the media
// type its name suggests.
func (f *Fetcher) openFile(ctx context.Context, u *url.URL, ownComputer bool) (*os.File, os.FileInfo, string, error) {
	refuse := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrFileRefused, fmt.Sprintf(format, a...))
	}
	if !f.AllowFile && !ownComputer {
		return nil, nil, "", refuse("allow local files with --allow-file-uri[=ROOT]")
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return nil, nil, "", refuse("host %q is not local", u.Host)
	}
	p := u.Path
	if u.Opaque != "" || p == "" {
		return nil, nil, "", refuse("no absolute path")
	}
	// Any ".." after decoding is refused, whatever a clean would make of
	// it. Checked per segment so "a..b.json" stays legal.
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return nil, nil, "", refuse("path contains \"..\"")
		}
	}
	p = filepath.FromSlash(p)
	if err := ctx.Err(); err != nil {
		return nil, nil, "", err
	}
	// The one local-file rule (regular files, no pseudo-filesystem, no
	// blocking open); a peer's URI stays inside --allow-file-uri=ROOT.
	opt := localfile.Options{}
	if !ownComputer {
		opt.Root = f.FileRoot
	}
	fh, st, err := localfile.Open(p, opt)
	var lr *localfile.Refusal
	switch {
	case errors.As(err, &lr) && lr.Root != "":
		return nil, nil, "", refuse("path is outside %s (--allow-file-uri=ROOT)", f.FileRoot)
	case lr != nil:
		return nil, nil, "", refuse("%s", lr.Reason())
	case err != nil:
		return nil, nil, "", err
	}
	if max := f.maxBytes(); st.Size() > max {
		fh.Close()
		return nil, nil, "", &LimitError{What: "fetch size", Limit: max, Got: st.Size()}
	}
	return fh, st, mimeByExt(filepath.Ext(p)), nil
}

// RedactURI is sanitize.URL, the one URL redactor: userinfo, query values
// and fragment never reach output, logs or the trace view. It stays for
// callers that only import dpe.
func RedactURI(s string) string { return sanitize.URL(s) }

// mappedFile is a local file mapped read-only (Fetcher.mapFile).
type mappedFile struct {
	data     []byte
	mimeType string
	duration time.Duration
}

func (m *mappedFile) close() { _ = unmapFile(m.data) }

// mapFile is fetch for a file:// access URI whose bytes are scanned once
// and not kept: the same policy, limits and errors, but the file is
// mapped instead of read, so a scan can drop what it has passed
// (dropResident) and peak memory stays a fraction of the file. ok is
// false when it does not apply (not file://, an empty file, no mmap on
// this system): fetch instead.
func (f *Fetcher) mapFile(ctx context.Context, accessURI string, ownComputer bool) (m *mappedFile, ok bool, err error) {
	start := time.Now()
	u, perr := url.Parse(accessURI)
	if perr != nil || !strings.EqualFold(u.Scheme, "file") {
		return nil, false, nil
	}
	fh, st, mt, err := f.openFile(ctx, u, ownComputer)
	if err != nil {
		return nil, true, &FetchError{URI: RedactURI(accessURI), Err: err}
	}
	defer fh.Close()
	if st.Size() == 0 || st.Size() > math.MaxInt {
		return nil, false, nil
	}
	data, err := mapReadOnly(fh, int(st.Size()))
	if err != nil {
		return nil, false, nil // read it instead
	}
	return &mappedFile{data: data, mimeType: mt, duration: time.Since(start)}, true, nil
}
