// Package dpev1 is a client of the DPE v1 HTTP binding
// (github.com/A2C-SMCP/dpe-protocol spec/bindings/http.md): every
// operation takes a context first and returns typed results; list is an
// iterator; errors of the protocol are *wire.Problem values matched by
// code (errors.Is(err, wire.CodeNotFound)), never by HTTP status.
package dpev1

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// Defaults of Options.
const (
	DefaultTimeout          = 2 * time.Minute
	DefaultMaxResponseBytes = 16 << 20
	DefaultMaxSkeletonBytes = 512 << 20
	DefaultMaxRetries       = 3
	DefaultMaxRetryAfter    = time.Minute
)

// Options configure a Client; the zero value is usable.
type Options struct {
	// HTTP is the client to use; nil: one with the fetch rules
	// (redirects only to http and https, at most dpe.MaxRedirects).
	HTTP *http.Client
	// Token returns the credential sent as "Authorization: Bearer …"
	// (http §6); nil or "": none.
	Token func(ctx context.Context) (string, error)
	// Timeout bounds each request (headers and body); 0: DefaultTimeout.
	Timeout time.Duration
	// MaxResponseBytes bounds a JSON answer, MaxSkeletonBytes a skeleton.
	MaxResponseBytes int64
	MaxSkeletonBytes int64
	// MaxRetries of a request answered DPE_RATE_LIMITED or DPE_UNAVAILABLE
	// (after its Retry-After); 0: DefaultMaxRetries, <0: none.
	MaxRetries int
	// MaxRetryAfter: a longer Retry-After is not waited for, the error is
	// returned; 0: DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration
}

// Client talks to one remote (a base URL, http §1).
type Client struct {
	base string
	opt  Options
	hc   *http.Client
}

// HTTPError is an answer that is not a DPE error: no DPE-Error-Code and
// no code in the body. No code is guessed (http §5). Either it has no
// problem body at all (a wrong URL, a gateway), or it is an RFC 9457
// problem of the transport, outside the DPE codes: a 401, which core
// §3.3 puts in the transport layer, is one; Detail is then its detail.
type HTTPError struct {
	Op     string
	Status int
	Detail string // sanitized; "" when the answer was not a problem
}

func (e *HTTPError) Error() string {
	if e.Detail != "" {
		return fmt.Sprintf("%s: HTTP %d %s: %s", e.Op, e.Status, http.StatusText(e.Status), e.Detail)
	}
	return fmt.Sprintf("%s: HTTP %d %s (not a DPE answer)", e.Op, e.Status, http.StatusText(e.Status))
}

// New returns a client of the remote at base (http or https).
func New(base string, opt Options) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("remote %s: not an http or https URL", sanitize.URL(base))
	}
	u.RawQuery, u.Fragment = "", ""
	c := &Client{base: strings.TrimSuffix(u.String(), "/"), opt: opt}
	if opt.HTTP != nil {
		c.hc = opt.HTTP
	} else {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ForceAttemptHTTP2 = true
		c.hc = &http.Client{Transport: tr, CheckRedirect: dpe.RedirectPolicy(nil)}
	}
	if c.opt.Timeout <= 0 {
		c.opt.Timeout = DefaultTimeout
	}
	if c.opt.MaxResponseBytes <= 0 {
		c.opt.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if c.opt.MaxSkeletonBytes <= 0 {
		c.opt.MaxSkeletonBytes = DefaultMaxSkeletonBytes
	}
	if c.opt.MaxRetries == 0 {
		c.opt.MaxRetries = DefaultMaxRetries
	}
	if c.opt.MaxRetryAfter <= 0 {
		c.opt.MaxRetryAfter = DefaultMaxRetryAfter
	}
	return c, nil
}

// request is one HTTP exchange.
type request struct {
	op, method, path string
	query            url.Values
	body             []byte
	header           http.Header
	max              int64 // response body bound
}

type response struct {
	status  int
	header  http.Header
	body    []byte
	retried bool // a retry answered this (delete treats NOT_FOUND as done)
}

// do sends rq, retrying DPE_RATE_LIMITED / DPE_UNAVAILABLE after their
// Retry-After (bounded, cancellable). Errors: *wire.Problem, *HTTPError,
// or a transport error.
func (c *Client) do(ctx context.Context, rq request) (*response, error) {
	for attempt := 0; ; attempt++ {
		resp, err := c.once(ctx, rq)
		if err != nil {
			return nil, err
		}
		resp.retried = attempt > 0
		if resp.status < 400 {
			return resp, nil
		}
		perr := c.problem(rq, resp)
		var p *wire.Problem
		if !errors.As(perr, &p) || !p.Code.Retryable() || c.opt.MaxRetries < 0 || attempt >= c.opt.MaxRetries {
			return resp, perr
		}
		wait, ok := retryAfter(p.RetryAfter, time.Now())
		if !ok || wait > c.opt.MaxRetryAfter {
			return resp, perr
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%s: waiting %v to retry after %s: %w", rq.op, wait, p.Code, context.Cause(ctx))
		case <-t.C:
		}
	}
}

// retryAfter reads Retry-After: delay-seconds or an HTTP date (RFC 9110
// §10.2.3). Absent or unreadable: false (the caller does not wait blind).
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 || n > 1<<31 {
			return 0, false
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func (c *Client) once(ctx context.Context, rq request) (*response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opt.Timeout)
	defer cancel()
	u := c.base + rq.path
	if len(rq.query) > 0 {
		u += "?" + rq.query.Encode()
	}
	var body io.Reader
	if rq.body != nil {
		body = bytes.NewReader(rq.body)
	}
	req, err := http.NewRequestWithContext(ctx, rq.method, u, body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rq.op, err)
	}
	for k, v := range rq.header {
		req.Header[k] = v
	}
	req.Header.Set(wire.HeaderContract, wire.Contract)
	if rq.body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.opt.Token != nil {
		tok, err := c.opt.Token(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: credential: %w", rq.op, err)
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
	}
	res, err := c.hc.Do(req)
	if err != nil {
		// The query holds only the binding's parameters (the file_uri,
		// which op names already), so the endpoint is named without it:
		// redacted at the render boundary it would read uri=xxxxx beside
		// the same URI in clear.
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = strings.TrimSuffix(ue.URL, "?"+req.URL.RawQuery)
		}
		return nil, fmt.Errorf("%s: %w", rq.op, err)
	}
	defer res.Body.Close()
	limit := rq.max
	if limit <= 0 {
		limit = c.opt.MaxResponseBytes
	}
	if res.StatusCode >= 400 {
		limit = min(limit, wire.MaxProblemBytes)
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading the answer: %w", rq.op, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: answer over %d bytes", rq.op, limit)
	}
	return &response{status: res.StatusCode, header: res.Header, body: b}, nil
}

// problem turns an error answer into *wire.Problem, or *HTTPError when
// it carries neither a problem body nor DPE-Error-Code.
func (c *Client) problem(rq request, resp *response) error {
	code := resp.header.Get(wire.HeaderErrorCode)
	body := resp.body
	if !strings.HasPrefix(resp.header.Get("Content-Type"), wire.MediaProblem) {
		body = nil
	}
	if code == "" && body == nil {
		return &HTTPError{Op: rq.op, Status: resp.status}
	}
	if code == "" {
		// A problem without a DPE code: the transport's (a 401), not a
		// DPE error; its detail is said, no code is guessed.
		var tp struct {
			Title  string `json:"title"`
			Detail string `json:"detail"`
			Code   string `json:"code"`
		}
		if len(body) <= wire.MaxProblemBytes && json.Unmarshal(body, &tp) == nil && tp.Code == "" {
			d := tp.Detail
			if d == "" {
				d = tp.Title
			}
			return &HTTPError{Op: rq.op, Status: resp.status, Detail: sanitize.Line(trim(d, 200))}
		}
	}
	p, err := wire.DecodeProblem(body, code)
	if err != nil {
		return fmt.Errorf("%s: HTTP %d: %w", rq.op, resp.status, err)
	}
	p.Status = resp.status
	p.RetryAfter = resp.header.Get("Retry-After")
	if v := resp.header.Get(wire.HeaderUploadOffset); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			p.UploadOffset = n
		}
	}
	return fmt.Errorf("%s: %w", rq.op, p)
}
